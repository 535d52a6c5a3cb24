-- The game workers' own tables, beside the event store in the game schema.
-- What a worker needs that is not a fact of the game itself: which games are
-- still live (so an adopter finds them without reading every stream), the
-- table's banter switch, and the commands the rules refused (so a repeated
-- refused command gets the same refusal, even from another worker).

CREATE TABLE games (
    game_id     text PRIMARY KEY,
    table_id    text NOT NULL DEFAULT '',
    banter      boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz
);
CREATE INDEX games_live ON games (game_id) WHERE ended_at IS NULL;

CREATE TABLE refused_commands (
    game_id     text NOT NULL,
    command_id  text NOT NULL,
    code        text NOT NULL,
    message     text NOT NULL,
    refused_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, command_id)
);
