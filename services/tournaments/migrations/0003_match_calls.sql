-- Matches are opened through the lobby (svc.lobby.open_match) and their results come from
-- the games they started: a match's game is part of its projection, and the matches still
-- to open, or whose ready check has run out, are the callers' work list. Finished games
-- are no longer kept on their own: a game's result is its match's MatchResult.
DROP TABLE finished_games;

ALTER TABLE tournament_matches ADD COLUMN game_id text NOT NULL DEFAULT '';
CREATE INDEX tournament_matches_by_game ON tournament_matches (game_id) WHERE game_id <> '';

-- Every copy takes due rows with FOR UPDATE SKIP LOCKED, asks the lobby to open the match
-- (idempotent by the match id derived from the tournament and the match), and appends
-- what the lobby answered in the same transaction.
CREATE TABLE tournament_calls (
    tournament_id  uuid NOT NULL REFERENCES tournaments ON DELETE CASCADE,
    match_id       text NOT NULL,
    due_at         timestamptz NOT NULL,
    PRIMARY KEY (tournament_id, match_id)
);
CREATE INDEX tournament_calls_due ON tournament_calls (due_at);
