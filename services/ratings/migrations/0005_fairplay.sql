-- Fair play (docs/fairplay.md): every rated game weighed once, the review queue's cases
-- and what happened to each (its events), the accounts barred from ranked, the reports
-- players sent, and the games whose rating changes an upheld case voided.

-- A rated game as the detector reads it: who sat where, the hands played, each team's
-- points, and the telling decisions ([hand, seat, told, card], told +1: only the
-- partner's real hand explains the card, -1: only a plausible one does).
CREATE TABLE fairplay_games (
    game_id   text PRIMARY KEY,
    players   text[] NOT NULL,
    ended_at  bigint NOT NULL,
    hands     integer NOT NULL,
    points    integer[] NOT NULL,
    telling   jsonb NOT NULL
);
CREATE INDEX fairplay_games_players ON fairplay_games USING gin (players);
CREATE INDEX fairplay_games_ended ON fairplay_games (ended_at DESC);

-- A case: a pair (two accounts, sorted) as partners or opponents, or the four players of
-- a reported game. One open case per pair and relation.
CREATE TABLE fairplay_cases (
    case_id     text PRIMARY KEY,
    players     text[] NOT NULL,
    relation    text NOT NULL CHECK (relation IN ('partners', 'opponents', 'reported')),
    status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'cleared', 'upheld')),
    score       double precision NOT NULL DEFAULT 0,
    hands       integer NOT NULL DEFAULT 0,
    why         text NOT NULL DEFAULT '',
    games       text[] NOT NULL DEFAULT '{}',
    opened_at   timestamptz NOT NULL DEFAULT now(),
    decided_at  timestamptz
);
CREATE UNIQUE INDEX fairplay_cases_one_open ON fairplay_cases (players, relation)
    WHERE status = 'open';
CREATE INDEX fairplay_cases_by_status ON fairplay_cases (status, opened_at DESC);

-- What happened to a case, in order: opened, its score moved, a game reported, decided.
CREATE TABLE fairplay_case_events (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_id   text NOT NULL REFERENCES fairplay_cases,
    type      text NOT NULL,
    body      jsonb NOT NULL,
    at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fairplay_case_events_case ON fairplay_case_events (case_id, id);

-- Who may not play ranked until when, and the case that barred them.
CREATE TABLE fairplay_bars (
    player_id  text PRIMARY KEY,
    until      timestamptz NOT NULL,
    case_id    text NOT NULL
);

-- One report per person and game: a second is taken as the first.
CREATE TABLE fairplay_reports (
    game_id    text NOT NULL,
    reporter   text NOT NULL,
    reason     text NOT NULL DEFAULT '',
    at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, reporter)
);

-- Games that move no rating: the consumer skips them, and every rebuild leaves them out.
CREATE TABLE voided_games (
    game_id    text PRIMARY KEY,
    case_id    text NOT NULL,
    voided_at  timestamptz NOT NULL DEFAULT now()
);
