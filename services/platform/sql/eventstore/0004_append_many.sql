-- Group commit: the appends of many streams in one transaction, one round trip.
--
-- A writer that runs many streams (a game worker) gathers the appends that
-- arrive within a short window and commits them together: one commit (one WAL
-- flush) for all of them instead of one each. Each append is still checked on
-- its own, in the order `append_events` checks it (the command id, the
-- writer's lease epoch, the expected version), and a failed check is reported
-- in that append's row instead of raised, so it fails that append alone:
-- every check comes before the append's first write, so a refused append has
-- written nothing and there is nothing to roll back (no savepoint, no
-- subtransaction).
--
-- Appends are given as parallel arrays, one element per append; their events
-- are flattened into the event arrays, `p_counts[i]` of them for append i.
-- The streams are locked up front in the order of their lock keys, and the
-- leases the batch checks are share-locked up front in the order of their
-- names (as `Leases.renew` and `release` lock them), so neither two batches nor
-- a batch and its owner's heartbeat ever wait on each other in a cycle.
--
-- outcome: 'appended', 'duplicate' (the command id was used before: its first
-- result), 'fenced' (the lease epoch is stale, as lease_check says) or
-- 'conflict' (`actual` holds the stream's version).

CREATE FUNCTION append_many(
    p_streams text[], p_expected bigint[], p_command_ids text[], p_epochs bigint[],
    p_counts integer[], p_types text[], p_schema_versions integer[], p_event_ids uuid[],
    p_bodies bytea[], p_occurred_at timestamptz,
    p_correlation_ids text[], p_causation_ids text[], p_command_hashes text[]
) RETURNS TABLE (item integer, outcome text, first_version bigint, last_version bigint,
                 first_position bigint, command_hash text, positions bigint[], actual bigint)
LANGUAGE plpgsql AS $$
DECLARE
    i integer;
    v_from integer := 0;
    v_n integer;
    v_stream text;
    v_current bigint;
    v_epoch bigint;
    v_positions bigint[];
    v_done commands%ROWTYPE;
BEGIN
    PERFORM pg_advisory_xact_lock(k)
        FROM (SELECT DISTINCT hashtextextended(s, 0) AS k FROM unnest(p_streams) AS s) keys
        ORDER BY k;
    PERFORM 1 FROM leases l
        WHERE l.name IN (SELECT p_streams[j] FROM generate_subscripts(p_streams, 1) AS j
                         WHERE p_epochs[j] IS NOT NULL)
        ORDER BY l.name FOR SHARE;

    FOR i IN 1 .. cardinality(p_streams) LOOP
        v_stream := p_streams[i];
        v_n := p_counts[i];
        item := i;
        first_version := NULL; last_version := NULL; first_position := NULL;
        command_hash := NULL; positions := NULL; actual := NULL;

        IF p_command_ids[i] IS NOT NULL THEN
            SELECT * INTO v_done FROM commands c
                WHERE c.stream = v_stream AND c.command_id = p_command_ids[i];
            IF FOUND THEN
                outcome := 'duplicate';
                first_version := v_done.first_version; last_version := v_done.last_version;
                first_position := v_done.first_position; command_hash := v_done.command_hash;
                RETURN NEXT;
                v_from := v_from + v_n;
                CONTINUE;
            END IF;
        END IF;

        IF p_epochs[i] IS NOT NULL THEN
            -- lease_check's test, reported rather than raised; the row is
            -- share-locked (above) until the commit, so an adopter's claim waits.
            SELECT l.epoch INTO v_epoch FROM leases l WHERE l.name = v_stream FOR SHARE;
            IF v_epoch IS DISTINCT FROM p_epochs[i] THEN
                outcome := 'fenced';
                RETURN NEXT;
                v_from := v_from + v_n;
                CONTINUE;
            END IF;
        END IF;

        SELECT coalesce(max(e.version), 0) INTO v_current FROM events e
            WHERE e.stream = v_stream;
        IF p_expected[i] IS NOT NULL AND p_expected[i] <> v_current THEN
            outcome := 'conflict';
            actual := v_current;
            RETURN NEXT;
            v_from := v_from + v_n;
            CONTINUE;
        END IF;

        WITH ins AS (
            INSERT INTO events (stream, version, type, schema_version, event_id, occurred_at,
                                correlation_id, causation_id, command_id, body)
            SELECT v_stream, v_current + j, p_types[v_from + j], p_schema_versions[v_from + j],
                   p_event_ids[v_from + j], p_occurred_at, p_correlation_ids[i],
                   p_causation_ids[i], p_command_ids[i], p_bodies[v_from + j]
            FROM generate_series(1, v_n) AS j
            RETURNING events.position
        ), queued AS (
            INSERT INTO outbox (position) SELECT ins.position FROM ins
            RETURNING outbox.position
        )
        SELECT array_agg(queued.position ORDER BY queued.position) INTO v_positions
            FROM queued;

        IF p_command_ids[i] IS NOT NULL THEN
            INSERT INTO commands (stream, command_id, first_version, last_version,
                                  first_position, command_hash)
            VALUES (v_stream, p_command_ids[i], v_current + 1, v_current + v_n,
                    v_positions[1], p_command_hashes[i]);
        END IF;

        outcome := 'appended';
        first_version := v_current + 1; last_version := v_current + v_n;
        first_position := v_positions[1]; command_hash := p_command_hashes[i];
        positions := v_positions;
        RETURN NEXT;
        v_from := v_from + v_n;
    END LOOP;
END;
$$;
