# Sourced by .ci/run: the system packages the tests need, and a throw-away PostgreSQL server.
# Installs Debian's postgresql and chromium when missing (as root; quick when present),
# starts a private cluster on a free loopback port and exports QUORUM_TEST_POSTGRES_URL for
# the history tests; stop_postgres (call it from the EXIT trap) stops it and removes its files.

install_system_packages() {
    local pg_bin
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if command -v chromium >/dev/null && [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; then
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        echo ".ci/services.sh: postgresql and chromium are missing and this is not root" >&2
        return 0  # the tests then fail under CI, naming what is missing
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql chromium >/dev/null
}

PG_DIR=""
PG_CTL=""

as_postgres() {
    if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}

stop_postgres() {
    [ -n "$PG_DIR" ] || return 0
    as_postgres "$PG_CTL -m fast stop >/dev/null" || true
    rm -rf "$PG_DIR"
    PG_DIR=""
}

start_postgres() {
    local pg_bin port
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$pg_bin" ] || { echo ".ci/services.sh: no PostgreSQL installed" >&2; return 0; }
    PG_DIR=$(mktemp -d /tmp/quorum-pg.XXXXXX)
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
    PG_CTL="$pg_bin/pg_ctl -D $PG_DIR/data"
    as_postgres "$pg_bin/initdb -D $PG_DIR/data -A trust -U postgres --no-sync >$PG_DIR/initdb.log"
    as_postgres "$PG_CTL -l $PG_DIR/server.log -w start -o '-p $port -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off' >/dev/null"
    export QUORUM_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$port/postgres"
}
