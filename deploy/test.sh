#!/usr/bin/env bash
# The project's test command (README and CI call this): makes sure libpq, the
# PostgreSQL server and tzdata are installed, starts a throwaway PostgreSQL cluster,
# runs `swift test` against it with any arguments given here, and always removes the
# cluster. Exits with swift test's status.
#
#   deploy/test.sh                         # everything
#   deploy/test.sh --filter PostgresTests  # one target
set -euo pipefail
cd "$(dirname "$0")/.."

missing() {
    command -v pg_config >/dev/null 2>&1 || return 0
    [[ -f "$(pg_config --includedir)/libpq-fe.h" ]] || return 0
    [[ -x "$(pg_config --bindir)/initdb" || -x /usr/lib/postgresql/15/bin/initdb ]] || return 0
    [[ -f /usr/share/zoneinfo/tzdata.zi ]] || return 0
    return 1
}

if missing; then
    if [[ $EUID -ne 0 ]]; then
        echo "test.sh: libpq headers, the PostgreSQL server or tzdata are missing;" \
             "install them with: sudo apt-get install libpq-dev postgresql tzdata" >&2
        exit 1
    fi
    echo "test.sh: installing libpq-dev postgresql tzdata" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends libpq-dev postgresql tzdata >/dev/null
fi

cluster_dir="$(mktemp -d "${TMPDIR:-/tmp}/plan-regen-pg.XXXXXX")"
cleanup() { deploy/pg-cluster.sh stop "$cluster_dir" >/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Tests must reach the throwaway cluster and nothing else: drop settings from the
# caller's environment that would point libpq elsewhere.
unset DATABASE_URL PGHOSTADDR PGSERVICE PGSERVICEFILE PGOPTIONS PGPASSWORD PGPASSFILE PGSSLMODE
eval "$(deploy/pg-cluster.sh start "$cluster_dir")"

status=0
swift test "$@" || status=$?
exit "$status"
