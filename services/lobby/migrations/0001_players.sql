-- Players known to the lobby; sign-in and profiles come with the lobby's own issue.
CREATE TABLE players (
    player_id   uuid PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
