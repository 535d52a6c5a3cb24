-- A tournament's stream (tournament-<id>, in this schema's event store) is its truth; the
-- tables below are projections of it, rewritten from the stream's fold in the transaction
-- that appends, so they can always be rebuilt.
ALTER TABLE tournaments
    ADD COLUMN organizer  text NOT NULL DEFAULT '',
    ADD COLUMN format     text NOT NULL DEFAULT '',
    ADD COLUMN settings   jsonb,
    ADD COLUMN starts_at  timestamptz,
    ADD COLUMN champion   text,
    ADD COLUMN version    integer NOT NULL DEFAULT 0;
CREATE INDEX tournaments_by_status ON tournaments (status, starts_at);

CREATE TABLE tournament_teams (
    tournament_id  uuid NOT NULL REFERENCES tournaments ON DELETE CASCADE,
    team_id        text NOT NULL,
    name           text NOT NULL,
    players        text[] NOT NULL,
    rating         double precision NOT NULL,
    confirmed      boolean NOT NULL,
    waiting        boolean NOT NULL,
    checked_in     text[] NOT NULL,
    withdrawn      text NOT NULL,  -- '' while in; else the reason
    seed           integer,        -- 1 is the top seed, once started
    PRIMARY KEY (tournament_id, team_id)
);
CREATE INDEX tournament_teams_by_player ON tournament_teams USING gin (players);

CREATE TABLE tournament_matches (
    tournament_id  uuid NOT NULL REFERENCES tournaments ON DELETE CASCADE,
    match_id       text NOT NULL,
    round_no       integer NOT NULL,
    home           text NOT NULL,
    away           text NOT NULL,
    outcome        text,           -- null until decided
    reason         text NOT NULL,
    scores         integer[] NOT NULL,
    bags_taken     integer[] NOT NULL,
    game_stream    text NOT NULL,
    PRIMARY KEY (tournament_id, match_id)
);

CREATE TABLE tournament_standings (
    tournament_id  uuid NOT NULL REFERENCES tournaments ON DELETE CASCADE,
    team_id        text NOT NULL,
    rank           integer NOT NULL,
    match_points   integer NOT NULL,  -- half points
    buchholz       integer NOT NULL,
    head_to_head   integer NOT NULL,
    differential   integer NOT NULL,
    bags           integer NOT NULL,
    points         integer NOT NULL,
    PRIMARY KEY (tournament_id, team_id)
);

-- The scheduler's timers: every copy takes due rows with FOR UPDATE SKIP LOCKED and appends
-- the transition's events in the same transaction, so each fires once and none is lost.
CREATE TABLE tournament_timers (
    tournament_id  uuid NOT NULL REFERENCES tournaments ON DELETE CASCADE,
    kind           text NOT NULL,  -- 'start' | 'pair'
    due_at         timestamptz NOT NULL,
    PRIMARY KEY (tournament_id, kind)
);
CREATE INDEX tournament_timers_due ON tournament_timers (due_at);
