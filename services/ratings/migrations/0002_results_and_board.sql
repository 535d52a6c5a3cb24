-- What a player's page and the leaderboard show, kept beside the rating: results by
-- kind, the best rating reached, and when the last rated game ended (the board hides
-- players inactive for two weeks). History rows say how each change came about.
ALTER TABLE ratings
    ADD COLUMN wins          integer NOT NULL DEFAULT 0,
    ADD COLUMN losses        integer NOT NULL DEFAULT 0,
    ADD COLUMN draws         integer NOT NULL DEFAULT 0,
    ADD COLUMN "left"        integer NOT NULL DEFAULT 0,
    ADD COLUMN peak          integer,
    ADD COLUMN last_game_at  timestamptz;
UPDATE ratings SET peak = rating, last_game_at = updated_at;
ALTER TABLE ratings ALTER COLUMN peak SET NOT NULL;

-- The board's order; carries what its filter reads so a rank is an index-only count.
CREATE INDEX ratings_board ON ratings (rating DESC, player_id) INCLUDE (games, last_game_at);

ALTER TABLE rating_history
    ADD COLUMN id         bigint GENERATED ALWAYS AS IDENTITY,
    ADD COLUMN delta      integer NOT NULL DEFAULT 0,
    ADD COLUMN k          integer NOT NULL DEFAULT 0,
    ADD COLUMN result     text NOT NULL DEFAULT 'loss'
        CHECK (result IN ('win', 'loss', 'draw', 'left')),
    ADD COLUMN partner    text NOT NULL DEFAULT '',
    ADD COLUMN opponents  text[] NOT NULL DEFAULT '{}';
UPDATE rating_history SET delta = rating_after - rating_before,
    result = CASE WHEN rating_after > rating_before THEN 'win'
                  WHEN rating_after < rating_before THEN 'loss' ELSE 'draw' END;

-- A player's history, newest first, paged by id.
CREATE INDEX rating_history_player ON rating_history (player_id, id DESC);
