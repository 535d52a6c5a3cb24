-- Whether a match has a result in the tournament's stream, whatever the view shows: a
-- duplicate round's results stay out of the view until the round is over, while the lobby
-- asks at once which games a player still to finish a round may not see
-- (svc.tournaments.withheld). Rows written before this migration say false (withheld, the
-- safe side) until the tournament's next command rewrites them.
ALTER TABLE tournament_matches ADD COLUMN decided boolean NOT NULL DEFAULT false;
