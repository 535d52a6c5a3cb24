-- Three changes to the store, in one step:
-- * Stream ownership moves to the shared leases table (sql/lease): one lease module
--   for game workers, the matchmaker and tournament schedulers. An append with an
--   epoch checks it through `lease_check`, named after the stream.
-- * A command id names one command: the hash of the command's body is kept with its
--   first result and returned with a repeat, so the caller can tell a retry (same
--   body) from an id reused for another command (a different body), which must be
--   refused rather than answered with the first command's result.
-- * The append returns the position of every event it wrote (in version order), so
--   the writer can publish its events to JetStream right after the commit without
--   reading them back; the outbox row of each stays until the publish is
--   acknowledged, and the relay sweeps only what a crash left behind.

INSERT INTO leases (name, holder, epoch, until)
    SELECT stream, owner, epoch, lease_until FROM stream_owner
    ON CONFLICT (name) DO NOTHING;
DROP TABLE stream_owner;

ALTER TABLE commands ADD COLUMN command_hash text;

DROP FUNCTION append_events(text, bigint, text, bigint, text[], integer[], uuid[], bytea[],
                            timestamptz, text, text, text);

CREATE FUNCTION append_events(
    p_stream text, p_expected bigint, p_command_id text, p_epoch bigint,
    p_types text[], p_schema_versions integer[], p_event_ids uuid[],
    p_bodies bytea[], p_occurred_at timestamptz,
    p_correlation_id text, p_causation_id text, p_notify text,
    p_command_hash text DEFAULT NULL
) RETURNS TABLE (first_version bigint, last_version bigint, first_position bigint,
                 duplicate boolean, command_hash text, positions bigint[])
LANGUAGE plpgsql AS $$
DECLARE
    v_current bigint;
    v_n integer := cardinality(p_types);
    v_positions bigint[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));

    IF p_command_id IS NOT NULL THEN
        RETURN QUERY SELECT c.first_version, c.last_version, c.first_position, true,
                            c.command_hash, NULL::bigint[]
            FROM commands c WHERE c.stream = p_stream AND c.command_id = p_command_id;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;

    IF p_epoch IS NOT NULL THEN
        PERFORM lease_check(p_stream, p_epoch);
    END IF;

    SELECT coalesce(max(e.version), 0) INTO v_current FROM events e WHERE e.stream = p_stream;

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
    SELECT array_agg(position ORDER BY position) INTO v_positions FROM queued;

    IF p_command_id IS NOT NULL THEN
        INSERT INTO commands (stream, command_id, first_version, last_version, first_position,
                              command_hash)
        VALUES (p_stream, p_command_id, v_current + 1, v_current + v_n, v_positions[1],
                p_command_hash);
    END IF;

    IF p_notify IS NOT NULL THEN
        PERFORM pg_notify(p_notify, '');
    END IF;

    RETURN QUERY SELECT v_current + 1, v_current + v_n, v_positions[1], false, p_command_hash,
                        v_positions;
END;
$$;
