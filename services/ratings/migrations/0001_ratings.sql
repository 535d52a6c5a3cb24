-- Elo ratings: one row per player, and one history row per rated game.
CREATE TABLE ratings (
    player_id   text PRIMARY KEY,
    rating      integer NOT NULL,
    games       integer NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE rating_history (
    player_id      text NOT NULL,
    game_stream    text NOT NULL,
    rating_before  integer NOT NULL,
    rating_after   integer NOT NULL,
    rated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, game_stream)
);
