-- Matches: every game the lobby starts, whoever asked (a person's table, the ranked
-- queue, a tournament). The caller's match id makes a repeated ask return the same
-- table and game; a row still 'starting' (its starter died before the game was
-- created) is finished by the next ask or by a sweep of any lobby copy.
CREATE TABLE matches (
    match_id    text PRIMARY KEY,
    origin      text NOT NULL CHECK (origin IN ('table', 'queue', 'tournament')),
    origin_id   text NOT NULL,
    rated       boolean NOT NULL,
    table_id    uuid NOT NULL,
    game_id     text NOT NULL UNIQUE,
    request     bytea NOT NULL,  -- the ask as first made, to tell a repeat from a reuse
    state       text NOT NULL DEFAULT 'starting'
                CHECK (state IN ('starting', 'started', 'failed')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    started_at  timestamptz
);
CREATE INDEX matches_starting ON matches (created_at) WHERE state = 'starting';
