#!/bin/sh
# The synchronous standby: on first start a copy of the primary (pg_basebackup -R: it
# streams from the primary through its own slot), then the server itself, under the
# name the primary's synchronous_standby_names lists. The copy streams under another
# name: a stream through a slot reports what it flushed, and under the standby's name a
# half-made copy would confirm the primary's commits. docs/operators.md.
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h "$PRIMARY_HOST" -U "$POSTGRES_USER"; do sleep 1; done
  pg_basebackup -D "$PGDATA" -R -X stream -c fast -C -S spades_standby \
    -d "host=$PRIMARY_HOST user=$POSTGRES_USER password=$POSTGRES_PASSWORD application_name=spades_standby_copy"
  sed -i 's/application_name=spades_standby_copy/application_name=spades_standby/' \
    "$PGDATA/postgresql.auto.conf"
  chmod 700 "$PGDATA"
fi
exec postgres -c summarize_wal=on
