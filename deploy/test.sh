#!/usr/bin/env bash
# The project's test command (README and CI call this): makes sure libpq, the
# PostgreSQL server, tzdata and the test-only tools (pgbouncer) are installed, starts a
# throwaway PostgreSQL cluster, runs `swift test` against it with any arguments given
# here, and always removes the cluster. Exits with swift test's status.
#
#   deploy/test.sh                         # everything
#   deploy/test.sh --filter PostgresTests  # one target
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh --test

cluster_dir="$(mktemp -d "${TMPDIR:-/tmp}/plan-regen-pg.XXXXXX")"
cleanup() { deploy/pg-cluster.sh stop "$cluster_dir" >/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Tests must reach the throwaway cluster and nothing else: drop settings from the
# caller's environment that would point libpq elsewhere.
unset DATABASE_URL PGHOSTADDR PGSERVICE PGSERVICEFILE PGOPTIONS PGPASSWORD PGPASSFILE PGSSLMODE
eval "$(deploy/pg-cluster.sh start "$cluster_dir")"

# Tests that start the plan-regen binary as a real process find it beside the tests.
swift build --product plan-regen

status=0
swift test "$@" || status=$?
exit "$status"
