-- Each player's finished games (services/lobby/history/), a projection of GameEnded
-- with the game's score sheet folded from its log: rebuilt by replaying the game
-- events stream through the durable consumer lobby-history. id orders the pages.
CREATE TABLE player_games (
    id          bigserial PRIMARY KEY,
    game_id     text NOT NULL UNIQUE,
    players     text[] NOT NULL,           -- by seat; bots as bot:<level>
    names       text[] NOT NULL,           -- by seat, as the table named them at the end
    started_at  timestamptz NOT NULL,
    ended_at    timestamptz NOT NULL,
    rules       jsonb NOT NULL,
    rated       boolean NOT NULL,
    winner      integer,                   -- a team; NULL for a draw
    scores      integer[] NOT NULL,
    reason      text NOT NULL,
    abandoned   integer[] NOT NULL,        -- seats a bot finished because their player left
    hands       jsonb NOT NULL,            -- the score sheet: one HandSheet a hand
    origin      text NOT NULL,
    match_id    text NOT NULL,
    table_id    text NOT NULL,
    private     boolean NOT NULL           -- a private table's: listed to its own players only
);
CREATE INDEX player_games_players ON player_games USING gin (players);
