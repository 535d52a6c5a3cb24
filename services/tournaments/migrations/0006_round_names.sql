-- What the format says of a tournament: its rounds by name (stage, round_no, name; empty
-- before the start) and the standings' fields that decide the order; and a knockout team's
-- furthest round (its number and name) and whether it is out (NULL in other formats).
-- Rows written before this migration keep the defaults until the tournament's next command
-- rewrites them.
ALTER TABLE tournaments
    ADD COLUMN rounds jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN standings_columns text[] NOT NULL DEFAULT '{}';
ALTER TABLE tournament_standings
    ADD COLUMN reached integer,
    ADD COLUMN reached_round text,
    ADD COLUMN eliminated boolean;
