#!/usr/bin/env bash
# The project's test command (README and CI call this): makes sure libpq, the
# PostgreSQL server, tzdata and the test-only tools (pgbouncer) are installed, starts a
# throwaway PostgreSQL cluster, builds everything (sources, tests, benchmark), runs
# `swift test` against the cluster with any arguments given here, and always removes
# the cluster. Ends with one summary line (tests, passed, failed, skipped, time) and
# exits with swift test's status.
#
# A compiler warning in the project's own files is listed after the build; under
# CI=true it fails the script before the tests run (every own file is then compiled
# again, so a warning in a file an earlier build compiled is seen too). Warnings in
# dependencies (under .build/) do not count.
#
#   deploy/test.sh                         # everything
#   deploy/test.sh --filter PostgresTests  # one target
set -euo pipefail
cd "$(dirname "$0")/.."

deploy/install-deps.sh --test

cluster_dir="$(mktemp -d "${TMPDIR:-/tmp}/plan-regen-pg.XXXXXX")"
logs_dir="$(mktemp -d "${TMPDIR:-/tmp}/plan-regen-test-logs.XXXXXX")"
cleanup() {
    if [[ -n "${replay_pid:-}" ]]; then kill -TERM -- "-$replay_pid" 2>/dev/null || true; fi
    deploy/pg-cluster.sh stop "$cluster_dir" >/dev/null || true
    rm -rf "$logs_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Tests must reach the throwaway cluster and nothing else: drop settings from the
# caller's environment that would point libpq elsewhere.
unset DATABASE_URL PGHOSTADDR PGSERVICE PGSERVICEFILE PGOPTIONS PGPASSWORD PGPASSFILE PGSSLMODE
eval "$(deploy/pg-cluster.sh start "$cluster_dir")"

ci=false
case "${CI:-}" in [Tt][Rr][Uu][Ee] | 1 | [Yy][Ee][Ss]) ci=true ;; esac

# Everything is built before the tests, so the build log holds every compiler warning
# (and tests that start the plan-regen binary as a real process find it beside them).
# An incremental build compiles only changed files: under CI, every own file is made
# newer than its object file so that none of its warnings can hide.
if [[ "$ci" == true ]]; then
    find . -mindepth 1 -name '.*' -prune -o -name '*.swift' ! -name Package.swift -exec touch {} +
fi
# The replay of deploy/Dockerfile (ContainerBuildTests) is the slowest test: a clean
# release build whose link-time optimization runs on one core. For the whole suite it
# starts here, beside the debug build and the tests, so that it fills the core they leave
# idle; the test reads its result from $PLAN_REGEN_DOCKERFILE_REPLAY (a run with
# arguments, e.g. a --filter, leaves the replay to the test itself).
replay_pid=""
if [[ $# -eq 0 ]]; then
    replay_dir="$logs_dir/dockerfile-replay"
    mkdir -p "$replay_dir"
    commit="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
    # A process group of its own, so that an early exit stops its whole build.
    setsid bash -c 'deploy/check-dockerfile.sh --keep --build-arg "PLAN_REGEN_COMMIT=$2" \
                        > "$1/stdout" 2> "$1/stderr" < /dev/null
                    echo $? > "$1/status.partial" && mv "$1/status.partial" "$1/status"' \
        replay "$replay_dir" "$commit" &
    replay_pid=$!
    export PLAN_REGEN_DOCKERFILE_REPLAY="$replay_dir" PLAN_REGEN_DOCKERFILE_REPLAY_COMMIT="$commit"
fi

set +e
swift build --build-tests 2>&1 | tee "$logs_dir/build.log"
build_status=${PIPESTATUS[0]}
set -e
if [[ $build_status -ne 0 ]]; then
    echo "test summary: no tests run, swift build failed (exit status $build_status; the errors are above) ($SECONDS s in all)"
    exit "$build_status"
fi

deploy/test-report.sh warnings "$(pwd -P)" "$logs_dir/build.log" > "$logs_dir/warnings"
warning_count=$(wc -l < "$logs_dir/warnings")
if [[ $warning_count -gt 0 ]]; then
    echo
    echo "test.sh: $warning_count compiler warning(s) in the project's own files:"
    cat "$logs_dir/warnings"
    if [[ "$ci" == true ]]; then
        echo "test summary: no tests run, CI=true fails on a compiler warning in the project's files: fix the $warning_count above ($SECONDS s in all)"
        exit 1
    fi
    echo "(CI=true fails on these)"
    echo
fi

set +e
swift test "$@" 2>&1 | tee "$logs_dir/test.log"
status=${PIPESTATUS[0]}
set -e
deploy/test-report.sh summary "$logs_dir/test.log" "$status" "$SECONDS" "$warning_count"
exit "$status"
