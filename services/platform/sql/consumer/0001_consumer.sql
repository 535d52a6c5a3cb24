-- A JetStream consumer's own bookkeeping, in the schema of the service that consumes.

-- (stream, version) of every event whose side effects are committed; written in
-- the same transaction as those side effects, so a redelivery changes nothing.
CREATE TABLE consumer_processed (
    consumer      text NOT NULL,
    stream        text NOT NULL,
    version       bigint NOT NULL,
    processed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, stream, version)
);

-- Messages given up on: undecodable, or failing after the last delivery.
CREATE TABLE dead_letters (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer    text NOT NULL,
    subject     text NOT NULL,
    stream      text,
    version     bigint,
    deliveries  integer NOT NULL,
    reason      text NOT NULL,
    payload     bytea NOT NULL,
    failed_at   timestamptz NOT NULL DEFAULT now()
);
