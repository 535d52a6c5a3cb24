-- The trace a tournament's next calls continue (services/tournaments/traces.py; written
-- only while tracing is on): the recording of the results that completed a round (or
-- paired elimination matches), then the next round's pairing.
CREATE TABLE tournament_traces (
    tournament_id uuid PRIMARY KEY,
    trace         text NOT NULL
);
