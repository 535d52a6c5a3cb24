-- Traces (services/platform/tracing.py; written only while tracing is on): the
-- ``traceparent`` of the ``queue_join`` that put a ticket in the queue, which the
-- matchmaker's ``match formed`` span is parented on and linked to; and the match's
-- own, which the start of its game (the last confirmation, on any copy, or the
-- sweep) continues and the ``rating_changed`` notes of its game link to.
ALTER TABLE queue_tickets ADD COLUMN trace text;
ALTER TABLE matches ADD COLUMN trace text;
