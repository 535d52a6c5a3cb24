-- The ready check: a match may first ask its people to confirm. Until the last one
-- does, the match is 'ready_check' and has no table; a decline or the deadline ends
-- it as 'not_ready' with the seats that did not confirm. However a match's start
-- ends, its outcome is published once it is recorded ('outcome_sent' says it was;
-- a sweep publishes what a crash left unsent).
ALTER TABLE matches DROP CONSTRAINT matches_state_check;
ALTER TABLE matches ADD CONSTRAINT matches_state_check
    CHECK (state IN ('ready_check', 'starting', 'started', 'not_ready', 'failed'));
ALTER TABLE matches
    ADD COLUMN people    smallint[] NOT NULL DEFAULT '{}',  -- the seats people sit at
    ADD COLUMN players   text[] NOT NULL DEFAULT '{}',  -- who sits there, in that order
    ADD COLUMN ready_by  timestamptz,
    ADD COLUMN ready     smallint[] NOT NULL DEFAULT '{}',  -- people's seats that confirmed
    ADD COLUMN declined  smallint[] NOT NULL DEFAULT '{}',
    ADD COLUMN absent    smallint[] NOT NULL DEFAULT '{}',
    -- Matches recorded before this migration told nobody, and need not now.
    ADD COLUMN outcome_sent boolean NOT NULL DEFAULT true;
ALTER TABLE matches ALTER COLUMN outcome_sent SET DEFAULT false;
CREATE INDEX matches_ready_check ON matches (ready_by) WHERE state = 'ready_check';
CREATE INDEX matches_outcome_unsent ON matches (created_at)
    WHERE NOT outcome_sent AND state IN ('started', 'not_ready', 'failed');
