#!/bin/sh
# Makes the cluster on first start (the official image's variables), then runs PostgreSQL in the foreground
# as the postgres user, listening on every address with password authentication.
set -eu
bin=/usr/lib/postgresql/15/bin
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/password
    chown postgres /tmp/password
    runuser -u postgres -- "$bin/initdb" -D "$PGDATA" -U "$user" --pwfile=/tmp/password --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8
    rm -f /tmp/password
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    if [ "$database" != postgres ]; then
        runuser -u postgres -- "$bin/postgres" --single -D "$PGDATA" postgres <<SQL >/dev/null
CREATE DATABASE "$database" OWNER "$user";
SQL
    fi
fi
exec runuser -u postgres -- "$bin/postgres" -D "$PGDATA" -c listen_addresses='*'
