#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and demos. Never for real data: it runs with
# fsync off and trusts every local connection.
#
#   deploy/pg-cluster.sh start DIR [PORT]   create (if needed) and start a cluster in DIR,
#                                           print `export PG…` lines for eval
#   deploy/pg-cluster.sh env DIR            print those lines again
#   deploy/pg-cluster.sh stop DIR           stop the cluster and delete DIR
#
#   eval "$(deploy/pg-cluster.sh start /tmp/pg)"; psql -c 'select 1'; deploy/pg-cluster.sh stop /tmp/pg
#
# The server listens on a Unix socket in DIR only (no TCP). Without PORT a free one is
# picked from 20000-29999 (the port also names the socket file). As root, initdb and
# postgres run as the `postgres` user, which then owns DIR.
set -euo pipefail

readonly MARKER=".plan-regen-pg-cluster"

die() { echo "pg-cluster: $*" >&2; exit 1; }

usage() {
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

find_bindir() {
    local dir
    if command -v pg_config >/dev/null 2>&1; then
        dir="$(pg_config --bindir)"
        [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]] && { echo "$dir"; return; }
    fi
    for dir in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
        [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]] && { echo "$dir"; return; }
    done
    die "PostgreSQL server binaries (initdb, pg_ctl) not found; install the 'postgresql' package"
}

# initdb and postgres refuse to run as root.
as_owner() {
    if [[ $EUID -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

port_in_use() {
    local hex
    hex="$(printf '%04X' "$1")"
    # Listening TCP sockets (state 0A) on any address, IPv4 and IPv6.
    awk -v port=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == port { found = 1 }
                         END { exit found ? 0 : 1 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

pick_port() {
    local port attempt
    for attempt in $(seq 1 50); do
        port=$(( 20000 + RANDOM % 10000 ))
        port_in_use "$port" || { echo "$port"; return; }
    done
    die "no free port found in 20000-29999"
}

is_running() {
    [[ -f "$1/data/postmaster.pid" ]] && as_owner "$BINDIR/pg_ctl" -D "$1/data" status >/dev/null 2>&1
}

print_env() {
    [[ -f "$1/cluster.env" ]] || die "no cluster in $1 (run: $0 start $1)"
    cat "$1/cluster.env"
}

start() {
    local dir="$1" port="${2:-}"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if [[ -n "$(ls -A "$dir")" && ! -f "$dir/$MARKER" ]]; then
        die "$dir is not empty and is not a pg-cluster directory; refusing to use it"
    fi
    if is_running "$dir"; then
        print_env "$dir"
        return
    fi
    touch "$dir/$MARKER"
    if [[ $EUID -eq 0 ]]; then
        chown postgres:postgres "$dir"
        runuser -u postgres -- test -w "$dir" \
            || die "user postgres cannot write $dir (is a parent directory private to root?)"
    fi
    chmod 700 "$dir"
    if [[ -f "$dir/port" ]]; then
        port="${port:-$(cat "$dir/port")}"
    fi
    port="${port:-$(pick_port)}"
    [[ "$port" =~ ^[0-9]+$ ]] || die "port must be a number, got '$port'"
    local socket="$dir/.s.PGSQL.$port"
    (( ${#socket} <= 100 )) || die "socket path $socket is too long for a Unix socket; use a shorter DIR"

    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        as_owner "$BINDIR/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C \
            --auth-local=trust --auth-host=reject --no-sync --no-instructions \
            >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed in $dir"; }
        cat >>"$dir/data/postgresql.conf" <<CONF

# pg-cluster.sh: throwaway test cluster, socket only, durability off for speed.
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
CONF
    fi
    echo "$port" >"$dir/port"
    printf 'export PGHOST=%q PGPORT=%q PGUSER=postgres PGDATABASE=postgres\n' "$dir" "$port" >"$dir/cluster.env"
    if [[ $EUID -eq 0 ]]; then
        chown postgres:postgres "$dir/port" "$dir/cluster.env" "$dir/$MARKER"
    fi

    as_owner "$BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -s start >&2 \
        || { tail -n 20 "$dir/server.log" >&2 || true; die "server did not start; see $dir/server.log"; }
    local attempt
    for attempt in $(seq 1 100); do
        "$BINDIR/pg_isready" -q -h "$dir" -p "$port" && break
        sleep 0.1
    done
    "$BINDIR/pg_isready" -q -h "$dir" -p "$port" || die "server in $dir does not accept connections"
    print_env "$dir"
}

stop() {
    local dir="$1"
    [[ -e "$dir" ]] || return 0
    dir="$(cd "$dir" && pwd)"
    [[ -f "$dir/$MARKER" ]] || die "$dir is not a pg-cluster directory; refusing to delete it"
    if [[ -f "$dir/data/postmaster.pid" ]]; then
        if ! as_owner "$BINDIR/pg_ctl" -D "$dir/data" -m fast -w -t 60 -s stop >&2 && is_running "$dir"; then
            die "could not stop the server in $dir"
        fi
    fi
    rm -rf -- "$dir"
}

[[ $# -ge 2 ]] || usage
BINDIR="$(find_bindir)"
readonly BINDIR
case "$1" in
    start) [[ $# -le 3 ]] || usage; start "$2" "${3:-}" ;;
    stop) [[ $# -eq 2 ]] || usage; stop "$2" ;;
    env) [[ $# -eq 2 ]] || usage; print_env "$2" ;;
    *) usage ;;
esac
