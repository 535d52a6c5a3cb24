-- Whether a match's game began: the view gives the game's id (to watch it, or replay it
-- once over) only then. ``game_id`` itself stays set from the pairing on, derived from the
-- match, so a game's end finds its match before the lobby's answer is recorded. Rows
-- written before this migration say false until the tournament's next command rewrites them.
ALTER TABLE tournament_matches ADD COLUMN game_began boolean NOT NULL DEFAULT false;
