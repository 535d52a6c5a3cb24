-- Duplicate deals: each table's score per deal (home, away, home, away ... in deal order),
-- shown once its round is over, and each team's matchpoints over the rounds that are
-- (half matchpoints, and the most it could have earned; NULL without duplicate deals).
ALTER TABLE tournament_matches ADD COLUMN deals integer[] NOT NULL DEFAULT '{}';
ALTER TABLE tournament_standings
    ADD COLUMN matchpoints integer,
    ADD COLUMN matchpoints_top integer;
