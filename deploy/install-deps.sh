#!/usr/bin/env bash
# Installs what plan-regen needs on Debian/Ubuntu when it is missing: the libpq headers
# (libpq-dev), the PostgreSQL server for throwaway test and demo clusters (postgresql),
# the time zone database (tzdata) and libcurl's headers (libcurl4-openssl-dev: the
# Pushgateway client, FoundationNetworking, links libcurl statically into a
# --static-swift-stdlib build). Does nothing when all are present.
#
#   deploy/install-deps.sh          # what the job, the demo and the tests need
#   deploy/install-deps.sh --test   # also the test-only tools: pgbouncer (the tests run a
#                                   # real connection pooler in front of their servers),
#                                   # prometheus (promtool checks metrics and alert rules)
#                                   # and prometheus-pushgateway (a real gateway to push to)
set -euo pipefail

with_test_tools=false
while [[ $# -gt 0 ]]; do
    case "$1" in
        --test) with_test_tools=true; shift ;;
        *) echo "usage: deploy/install-deps.sh [--test]" >&2; exit 64 ;;
    esac
done

missing() {
    command -v pg_config >/dev/null 2>&1 || return 0
    [[ -f "$(pg_config --includedir)/libpq-fe.h" ]] || return 0
    [[ -x "$(pg_config --bindir)/initdb" ]] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || return 0
    [[ -f /usr/share/zoneinfo/tzdata.zi ]] || return 0
    [[ -f /usr/include/curl/curl.h ]] || compgen -G '/usr/include/*/curl/curl.h' >/dev/null || return 0
    return 1
}

# pgbouncer lives in /usr/sbin, which a non-root PATH may leave out.
missing_test_tools() {
    command -v pgbouncer >/dev/null 2>&1 || [[ -x /usr/sbin/pgbouncer ]] || return 0
    command -v promtool >/dev/null 2>&1 || return 0
    command -v prometheus-pushgateway >/dev/null 2>&1 || return 0
    return 1
}

if missing; then
    if [[ $EUID -ne 0 ]]; then
        echo "install-deps: libpq headers, the PostgreSQL server, tzdata or libcurl headers are missing;" \
             "install them with: sudo apt-get install libpq-dev postgresql tzdata libcurl4-openssl-dev" >&2
        exit 1
    fi
    echo "install-deps: installing libpq-dev postgresql tzdata libcurl4-openssl-dev" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq libpq-dev postgresql tzdata libcurl4-openssl-dev >/dev/null
fi

if [[ "$with_test_tools" == true ]] && missing_test_tools; then
    if [[ $EUID -ne 0 ]]; then
        echo "install-deps: pgbouncer, promtool or prometheus-pushgateway (used by the tests) is missing;" \
             "install them with: sudo apt-get install pgbouncer prometheus prometheus-pushgateway" >&2
        exit 1
    fi
    echo "install-deps: installing pgbouncer prometheus prometheus-pushgateway (tests only)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends pgbouncer prometheus prometheus-pushgateway >/dev/null
fi
