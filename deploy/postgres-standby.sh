#!/bin/sh
# The synchronous standby: on first start a copy of the primary (pg_basebackup -R: it
# streams from the primary through its own slot, under the name the primary's
# synchronous_standby_names lists), then the server itself. docs/operators.md.
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h "$PRIMARY_HOST" -U "$POSTGRES_USER"; do sleep 1; done
  pg_basebackup -D "$PGDATA" -R -X stream -c fast -C -S spades_standby \
    -d "host=$PRIMARY_HOST user=$POSTGRES_USER password=$POSTGRES_PASSWORD application_name=spades_standby"
  chmod 700 "$PGDATA"
fi
exec postgres -c summarize_wal=on
