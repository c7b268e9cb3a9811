#!/usr/bin/env bash
# The demo: one command on a fresh machine. Installs what is missing (as root), builds
# plan-regen, starts a throwaway PostgreSQL, creates the schema, fills it with a few
# hundred varied demo users, and runs the job twice: now (every user's first plan) and
# 14 days later (MATADOR phase switches, birthdays). Notification lines go to stdout,
# logs and run summaries to stderr. The database is removed at the end unless --keep.
#
#   deploy/demo.sh            # 300 users
#   deploy/demo.sh --users 1000 --keep
set -euo pipefail
cd "$(dirname "$0")/.."

users=300
keep=false
while [[ $# -gt 0 ]]; do
    case "$1" in
        --users) users="$2"; shift 2 ;;
        --keep) keep=true; shift ;;
        *) echo "usage: deploy/demo.sh [--users N] [--keep]" >&2; exit 64 ;;
    esac
done

deploy/install-deps.sh
swift build -c release --product plan-regen >&2
bin="$(swift build -c release --show-bin-path)/plan-regen"

cluster_dir="$(mktemp -d "${TMPDIR:-/tmp}/plan-regen-demo.XXXXXX")"
if [[ "$keep" == false ]]; then
    trap 'deploy/pg-cluster.sh stop "$cluster_dir" >/dev/null || true' EXIT
fi
unset DATABASE_URL PGHOSTADDR PGSERVICE PGOPTIONS PGPASSWORD
eval "$(deploy/pg-cluster.sh start "$cluster_dir")"

now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
later="$(date -u -d '+14 days' +%Y-%m-%dT%H:%M:%SZ)"

"$bin" migrate --with-reference-schema
"$bin" seed-demo --users "$users" --written-before "$now"

echo "== run 1 at $now: first plans ==" >&2
"$bin" run --as-of "$now"
echo "== run 2 at $later: phase switches and birthdays ==" >&2
# 14 days ahead of the database's clock: allowed on this throwaway database only.
"$bin" run --as-of "$later" --allow-future

if command -v psql >/dev/null 2>&1; then
    echo "== plan_runs ==" >&2
    psql -X -q -c "SELECT run_id, as_of, status, due, created, changed, unchanged, skipped_incomplete,
                          rejected, notifications, duration_ms FROM plan_runs ORDER BY run_id" >&2
    echo "== rejections ==" >&2
    psql -X -q -c "SELECT user_id, field, message FROM plan_rejections ORDER BY user_id, id LIMIT 10" >&2
fi
if [[ "$keep" == true ]]; then
    deploy/pg-cluster.sh env "$cluster_dir" >&2
    echo "demo database kept; stop it with: deploy/pg-cluster.sh stop $cluster_dir" >&2
fi
