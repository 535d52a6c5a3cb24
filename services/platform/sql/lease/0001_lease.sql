-- Leases with a fencing epoch (services/platform/lease.py): who may act as the
-- single writer of a name (a game's stream, the matchmaker, a tournament's
-- scheduler) and since which epoch. Taking a lease from another holder bumps
-- the epoch; every write names its epoch and `lease_check` refuses a stale one.

CREATE TABLE leases (
    name    text PRIMARY KEY,
    holder  text NOT NULL,
    epoch   bigint NOT NULL,
    until   timestamptz NOT NULL
);
CREATE INDEX leases_holder ON leases (holder);

-- Called inside the writing transaction. The row is held for share until the
-- transaction ends, so an adopter's claim waits for the write and then sees it.
CREATE FUNCTION lease_check(p_name text, p_epoch bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_epoch bigint;
BEGIN
    SELECT l.epoch INTO v_epoch FROM leases l WHERE l.name = p_name FOR SHARE;
    IF v_epoch IS DISTINCT FROM p_epoch THEN
        RAISE EXCEPTION 'lease % is held at epoch %, not %', p_name,
            coalesce(v_epoch::text, 'none'), p_epoch
            USING ERRCODE = 'SPF01';
    END IF;
END;
$$;
