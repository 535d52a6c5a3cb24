-- Operators: a role on the account, carried in its tokens and checked again on every
-- operator request, so a role taken away takes effect at once.
ALTER TABLE accounts ADD COLUMN role text NOT NULL DEFAULT 'player'
    CHECK (role IN ('player', 'operator'));

-- A projection of games for operators' search, fed from GameStarted and GameEnded on
-- JetStream (rebuildable from the stream; the event store stays the game service's).
-- Either event may arrive first, so every column but the key may be empty for a while.
CREATE TABLE games (
    game_id       text PRIMARY KEY,
    players       text[] NOT NULL DEFAULT '{}',
    started_at    timestamptz,
    ended_at      timestamptz,
    winner        integer,
    scores        integer[],
    reason        text,
    hands_played  integer
);
CREATE INDEX games_started_at ON games (started_at);
CREATE INDEX games_players ON games USING gin (players);
