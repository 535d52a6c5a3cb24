#!/bin/sh
# Run once by the postgres image when it makes the primary's data folder: the standby
# (and the WAL archive) may connect for replication with the platform's password.
set -e
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
