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
#                                   # prometheus (promtool checks metrics and alert rules),
#                                   # prometheus-pushgateway (a real gateway to push to) and
#                                   # the deploy files' checkers: systemd (systemd-analyze,
#                                   # -sysusers, -tmpfiles), logrotate, python3-yaml,
#                                   # libcurl4-openssl-dev for the Dockerfile's static build,
#                                   # python3-jsonschema (an independent validator for the
#                                   # published docs/schemas/*.schema.json), chromium
#                                   # (opens the report pages headless) and openssl (a test
#                                   # CA for a server with ssl=on), python3-venv (the
#                                   # webhook receiver's virtual environment) and strace
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

# pgbouncer and logrotate live in /usr/sbin, which a non-root PATH may leave out.
has_program() { command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" ]]; }

# The test-only Debian packages that are missing, one per line.
missing_test_packages() {
    has_program pgbouncer || echo pgbouncer
    has_program promtool || echo prometheus
    has_program prometheus-pushgateway || echo prometheus-pushgateway
    has_program systemd-analyze || echo systemd
    has_program logrotate || echo logrotate
    /usr/bin/python3 -c 'import yaml' >/dev/null 2>&1 || echo python3-yaml
    /usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1 || echo python3-jsonschema
    # The report pages are opened headless, as a person would see them (OpsReportTests).
    has_program chromium || echo chromium
    # A test CA and server certificate for the TLS tests (TLSTests).
    has_program openssl || echo openssl
    # The webhook tests' receiver runs in a virtual environment (Debian's Python refuses a
    # system-wide pip install; the tests install PyPI's standardwebhooks into it), and
    # strace shows the notifications file fsync'ed before the outbox marks it.
    /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || echo python3-venv
    has_program strace || echo strace
    # FoundationNetworking links libcurl: a --static-swift-stdlib build needs libcurl.so.
    [[ -e "/usr/lib/$(uname -m)-linux-gnu/libcurl.so" ]] || echo libcurl4-openssl-dev
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

test_packages=""
if [[ "$with_test_tools" == true ]]; then test_packages="$(missing_test_packages | tr '\n' ' ')"; fi
if [[ -n "${test_packages// }" ]]; then
    if [[ $EUID -ne 0 ]]; then
        echo "install-deps: test tools are missing; install them with: sudo apt-get install $test_packages" >&2
        exit 1
    fi
    echo "install-deps: installing $test_packages(tests only)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y -qq --no-install-recommends $test_packages >/dev/null
fi
