-- The event store: the only source of truth for what happened in a stream.
-- Applied into the schema of the service that owns the streams.

CREATE TABLE streams (
    stream   text PRIMARY KEY,
    version  bigint NOT NULL
);

CREATE TABLE events (
    position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The writing transaction's id: the global feed orders by it and only
    -- reads below the oldest running transaction, so nothing commits behind it.
    tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    stream          text NOT NULL,
    version         bigint NOT NULL,
    type            text NOT NULL,
    schema_version  integer NOT NULL,
    event_id        uuid NOT NULL,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    correlation_id  text,
    causation_id    text,
    command_id      text,
    body            bytea NOT NULL,
    UNIQUE (stream, version)
);
CREATE INDEX events_feed ON events (tx_id, position);

-- First result of each command, so a retried command writes nothing new.
CREATE TABLE commands (
    stream         text NOT NULL,
    command_id     text NOT NULL,
    first_version  bigint NOT NULL,
    last_version   bigint NOT NULL,
    first_position bigint,
    PRIMARY KEY (stream, command_id)
);

-- Events committed but not yet acknowledged by JetStream.
CREATE TABLE outbox (
    position bigint PRIMARY KEY
);

-- Who may write a stream, and since which epoch. A writer names its epoch on
-- append; an adopter bumps the epoch, which fences the stale writer out.
CREATE TABLE stream_owner (
    stream       text PRIMARY KEY,
    owner        text NOT NULL,
    epoch        bigint NOT NULL,
    lease_until  timestamptz NOT NULL
);

-- One round trip per append: lock the stream, check idempotency, fencing and
-- the expected version, insert, queue for the outbox, wake the relay.
CREATE FUNCTION append_events(
    p_stream text, p_expected bigint, p_command_id text, p_epoch bigint,
    p_types text[], p_schema_versions integer[], p_event_ids uuid[],
    p_bodies bytea[], p_occurred_at timestamptz,
    p_correlation_id text, p_causation_id text, p_notify text
) RETURNS TABLE (first_version bigint, last_version bigint, first_position bigint,
                 duplicate boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_current bigint;
    v_owner_epoch bigint;
    v_n integer := cardinality(p_types);
    v_first_pos bigint;
BEGIN
    INSERT INTO streams AS s (stream, version) VALUES (p_stream, 0)
        ON CONFLICT (stream) DO NOTHING;
    SELECT s.version INTO v_current FROM streams s WHERE s.stream = p_stream FOR UPDATE;

    IF p_command_id IS NOT NULL THEN
        RETURN QUERY SELECT c.first_version, c.last_version, c.first_position, true
            FROM commands c WHERE c.stream = p_stream AND c.command_id = p_command_id;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;

    IF p_epoch IS NOT NULL THEN
        SELECT o.epoch INTO v_owner_epoch FROM stream_owner o
            WHERE o.stream = p_stream FOR SHARE;
        IF v_owner_epoch IS DISTINCT FROM p_epoch THEN
            RAISE EXCEPTION 'stream % is owned at epoch %, not %', p_stream,
                coalesce(v_owner_epoch::text, 'none'), p_epoch
                USING ERRCODE = 'SPF01';
        END IF;
    END IF;

    IF p_expected IS NOT NULL AND p_expected <> v_current THEN
        RAISE EXCEPTION 'stream % is at version %, expected %', p_stream, v_current, p_expected
            USING ERRCODE = 'SPC01', DETAIL = v_current::text;
    END IF;

    WITH ins AS (
        INSERT INTO events (stream, version, type, schema_version, event_id, occurred_at,
                            correlation_id, causation_id, command_id, body)
        SELECT p_stream, v_current + i, p_types[i], p_schema_versions[i], p_event_ids[i],
               p_occurred_at, p_correlation_id, p_causation_id, p_command_id, p_bodies[i]
        FROM generate_subscripts(p_types, 1) AS i
        RETURNING position
    ), queued AS (
        INSERT INTO outbox (position) SELECT position FROM ins RETURNING position
    )
    SELECT min(position) INTO v_first_pos FROM queued;

    UPDATE streams s SET version = v_current + v_n WHERE s.stream = p_stream;

    IF p_command_id IS NOT NULL THEN
        INSERT INTO commands (stream, command_id, first_version, last_version, first_position)
        VALUES (p_stream, p_command_id, v_current + 1, v_current + v_n, v_first_pos);
    END IF;

    IF p_notify IS NOT NULL THEN
        PERFORM pg_notify(p_notify, '');
    END IF;

    RETURN QUERY SELECT v_current + 1, v_current + v_n, v_first_pos, false;
END;
$$;
