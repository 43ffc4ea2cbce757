#!/bin/sh
# Start PostgreSQL on PGDATA, making the cluster from the environment at first start
# (Containerfile beside this file says which variables). Runs as root only to hand PGDATA
# and the socket folder to the postgres user; the server itself runs as postgres.
set -eu

: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD: the database password (deploy/.env's SMOLUI_DB_PASSWORD in compose)}"
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
PGDATA=${PGDATA:-/var/lib/postgresql/data}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

as_postgres() {
    setpriv --reuid postgres --regid postgres --init-groups "$@"
}

# A fresh volume is root's; /run is a new tmpfs at every start.
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    echo "smolui-postgres: first start, making a cluster for user '$user', database '$database'"
    password_file=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
    chown postgres "$password_file"
    as_postgres "$bin/initdb" --pgdata="$PGDATA" --username="$user" --pwfile="$password_file" \
        --auth-local=scram-sha-256 --auth-host=scram-sha-256 --encoding=UTF8 --no-instructions
    rm -f "$password_file"
    # Other containers reach it over the compose network, with the password.
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$database" != "postgres" ]; then
        # Single-user mode: no server to start and stop just to create one database.
        printf 'CREATE DATABASE "%s" OWNER "%s";\n' "$database" "$user" \
            | as_postgres "$bin/postgres" --single -D "$PGDATA" -j postgres > /dev/null
    fi
fi

exec setpriv --reuid postgres --regid postgres --init-groups \
    "$bin/postgres" -D "$PGDATA" -c listen_addresses='*'
