-- How many runs of rated games the ratings have taken, and how many the board had seen
-- when it was last computed: a board behind the ratings is recomputed within seconds
-- instead of waiting out the full period. A counter, not a flag, so a run that commits
-- while the board is being computed still leaves the board marked behind.
ALTER TABLE board_refreshed
    ADD COLUMN changes bigint NOT NULL DEFAULT 0,
    ADD COLUMN board_changes bigint NOT NULL DEFAULT 0;
