-- Tournaments and the finished games reported to them.
CREATE TABLE tournaments (
    tournament_id  uuid PRIMARY KEY,
    name           text NOT NULL,
    status         text NOT NULL DEFAULT 'registering',
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE finished_games (
    game_stream  text PRIMARY KEY,
    finished_at  timestamptz NOT NULL
);
