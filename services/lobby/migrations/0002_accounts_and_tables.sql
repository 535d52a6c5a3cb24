-- Who may sign in: guests (a name, no password) and registered accounts (a unique
-- name and an argon2id hash). Tokens are not stored: they are signed and expire.
CREATE TABLE accounts (
    player_id      uuid PRIMARY KEY,
    name           text NOT NULL,
    password_hash  text,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_registered_name ON accounts (lower(name))
    WHERE password_hash IS NOT NULL;

-- Tables: the rules, who sits where, and the game once started. ``seats`` is four
-- entries {player_id, name, bot}; rows are changed under SELECT ... FOR UPDATE.
CREATE TABLE game_tables (
    table_id    uuid PRIMARY KEY,
    host        uuid NOT NULL,
    private     boolean NOT NULL,
    code        text UNIQUE,
    rules       jsonb NOT NULL,
    preset      text NOT NULL,
    seats       jsonb NOT NULL,
    state       text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'playing', 'over')),
    game_id     text UNIQUE,
    banter      boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX game_tables_open_public ON game_tables (created_at) WHERE state = 'open' AND NOT private;
