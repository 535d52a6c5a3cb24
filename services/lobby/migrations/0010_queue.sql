-- The ranked queue (services/lobby/queue*.py). A ticket is one player, or a pair who
-- queued together; its members' rows make a second join of the same player fail on
-- the primary key, so concurrent joins make one ticket. The matchmaker (one leader,
-- leased and fenced) moves a ticket from 'waiting' to 'matched' only if its version is
-- the one it read: a cancel racing a match leaves the ticket in one of them.
CREATE TABLE queue_tickets (
    ticket_id  text PRIMARY KEY,
    players    text[] NOT NULL,           -- one, or the pair (inviter first)
    ratings    integer[] NOT NULL,        -- at join, from svc.ratings.ratings
    partner    text,                      -- an invite waiting for this player to answer
    since      timestamptz NOT NULL DEFAULT now(),  -- kept when a match falls through
    state      text NOT NULL CHECK (state IN ('inviting', 'waiting', 'matched')),
    match_id   text,
    version    integer NOT NULL DEFAULT 1
);
CREATE INDEX queue_tickets_state ON queue_tickets (state, since);

-- Each member's socket: the ticket lives while it is open. Gateways stamp
-- heartbeat_at on their members; a dead gateway's stamps stop, and the leader expires
-- them.
CREATE TABLE queue_members (
    player_id     text PRIMARY KEY,
    ticket_id     text NOT NULL REFERENCES queue_tickets ON DELETE CASCADE,
    gateway       text NOT NULL,
    socket        text NOT NULL,
    heartbeat_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX queue_members_ticket ON queue_members (ticket_id);
CREATE INDEX queue_members_gateway ON queue_members (gateway);

-- Offers the matchmaker made: four players in seat order, the open_match request as
-- asked (re-asked until the ready check ends), and each ticket's wait when offered.
CREATE TABLE queue_matches (
    match_id    text PRIMARY KEY,
    tickets     text[] NOT NULL,
    players     text[] NOT NULL,            -- seat order: 0 and 2 one team, 1 and 3 the other
    ratings     integer[] NOT NULL,
    gap         real NOT NULL,
    waited_ms   bigint[] NOT NULL,          -- per player
    request     bytea NOT NULL,
    state       text NOT NULL DEFAULT 'offered'
                CHECK (state IN ('offered', 'started', 'not_ready', 'failed')),
    game_id     text,
    epoch       bigint NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz
);
CREATE INDEX queue_matches_offered ON queue_matches (created_at) WHERE state = 'offered';
CREATE INDEX queue_matches_players ON queue_matches USING gin (players);

-- Cooldowns: who may not queue until when, and why. ``strikes`` counts missed ready
-- checks within a day, so the next one is twice as long.
CREATE TABLE queue_penalties (
    player_id   text PRIMARY KEY,
    until       timestamptz NOT NULL,
    strikes     integer NOT NULL DEFAULT 0,
    struck_at   timestamptz NOT NULL DEFAULT now(),
    left_at     timestamptz                -- the last rated game this player left
);
