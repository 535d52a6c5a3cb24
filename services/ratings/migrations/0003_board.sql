-- The leaderboard as last computed, so a page, a rank and "around me" are index
-- lookups at a million players instead of counts. Refreshed as a whole, in one
-- transaction, by one ratings copy at a time (readers keep the previous board
-- until it commits). rank: place among established players (null for a
-- provisional one); rank_all: place when provisional players are listed too.
CREATE TABLE board (
    player_id    text PRIMARY KEY,
    rating       integer NOT NULL,
    games        integer NOT NULL,
    wins         integer NOT NULL,
    losses       integer NOT NULL,
    draws        integer NOT NULL,
    provisional  boolean NOT NULL,
    rank         integer UNIQUE,
    rank_all     integer NOT NULL UNIQUE
);
CREATE INDEX board_by_rating ON board (rating DESC, player_id);

CREATE TABLE board_refreshed (
    one           boolean PRIMARY KEY DEFAULT true CHECK (one),
    refreshed_at  timestamptz NOT NULL
);
