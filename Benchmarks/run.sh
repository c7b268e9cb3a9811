#!/usr/bin/env bash
# The scale benchmark (docs/performance.md): builds plan-regen, plan-regen-bench and delay-proxy
# in release mode, starts a throwaway PostgreSQL tuned like a small dedicated database host,
# runs the benchmark and prints its Markdown table; the cluster is removed at the end.
#
#   Benchmarks/run.sh                                       # 100k and 1M users (~12 min)
#   Benchmarks/run.sh --sizes 10000000                      # 10M: ~35 GB of disk at its peak, ~15 min
#   Benchmarks/run.sh --sizes 20000 --repeats 1 --naive-users 2000   # a quick look
#   Benchmarks/run.sh --sizes 1000000 --rollout-only        # a new rules version: preview, rollout slices
#   Benchmarks/run.sh --markdown /tmp/bench.md --plot docs/scale.svg # also the table and the plot
#   Benchmarks/run.sh --database-on-its-own-core            # PostgreSQL on CPU 0, all else on the rest
#
# Arguments go to plan-regen-bench (`.build-static/release/plan-regen-bench --help`), except
# --database-on-its-own-core: PostgreSQL pinned to CPU 0 and the benchmark (the job, the
# floor's clients, the delay proxy) to the other CPUs, as if the database had a host of its
# own; the job then counts only its CPUs for its default --workers.
set -euo pipefail
cd "$(dirname "$0")/.."

own_core=false
bench_args=()
for argument in "$@"; do
    if [[ "$argument" == --database-on-its-own-core ]]; then own_core=true; else bench_args+=("$argument"); fi
done
cpus=$(nproc --all)
if $own_core && (( cpus < 2 )); then
    echo "--database-on-its-own-core needs at least 2 CPUs; this machine has $cpus" >&2
    exit 2
fi

deploy/install-deps.sh
# GNU time measures the job's peak memory.
if [[ ! -x /usr/bin/time && $EUID -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null || true
fi
# The job as it is deployed (docs/operations.md, "Installing"; deploy/Dockerfile): Swift's runtime linked
# in statically, which spares every run the dynamic linking of Swift's and Foundation's
# libraries (a single-user rerun: 32 -> 27 ms) and every retain/release call its PLT hop
# (a 100k-user first run: ~5% less of the job's CPU). Its own build folder, so that the
# everyday `swift build -c release` does not rebuild from scratch after a benchmark.
# Link-time optimization (`--experimental-lto-mode=full`), as deployed too: the project's
# modules and packages are optimized together at link time, which inlines across them what
# cross-module optimization leaves as calls (a 20k-user first run: 1.459 -> 1.366 G
# instructions, a rules-change run 1.976 -> 1.871 G; the same rows and notifications).
release=(swift build -c release --static-swift-stdlib --experimental-lto-mode=full --scratch-path .build-static)
"${release[@]}" --product plan-regen >&2
"${release[@]}" --product plan-regen-bench >&2
"${release[@]}" --product delay-proxy >&2
bin="$("${release[@]}" --show-bin-path)"

cluster_dir="$(mktemp -d "${TMPDIR:-/tmp}/plan-regen-bench-pg.XXXXXX")"
scratch="$cluster_dir/scratch"
cleanup() { deploy/pg-cluster.sh stop "$cluster_dir" >/dev/null || true; }
trap cleanup EXIT
unset DATABASE_URL PGHOSTADDR PGSERVICE PGOPTIONS PGPASSWORD
eval "$(deploy/pg-cluster.sh start "$cluster_dir")"

# Memory and WAL sized for a million users, the same for the job, the floor and the naive
# peer. (The throwaway cluster also runs with fsync off: see deploy/pg-cluster.sh.)
psql -X -q -c "ALTER SYSTEM SET shared_buffers = '2GB'" -c "ALTER SYSTEM SET max_wal_size = '16GB'" \
     -c "ALTER SYSTEM SET checkpoint_timeout = '30min'" -c "ALTER SYSTEM SET maintenance_work_mem = '512MB'"
# With --database-on-its-own-core the server restarts on CPU 0; its processes inherit that.
server_cpus=(); bench_cpus=()
if $own_core; then
    server_cpus=(taskset --cpu-list 0)
    bench_cpus=(taskset --cpu-list "1-$((cpus - 1))")
fi
if [[ $EUID -eq 0 ]]; then
    runuser -u postgres -- "${server_cpus[@]}" "$(pg_config --bindir)/pg_ctl" -D "$cluster_dir/data" -w -s restart -l "$cluster_dir/server.log"
else
    "${server_cpus[@]}" "$(pg_config --bindir)/pg_ctl" -D "$cluster_dir/data" -w -s restart -l "$cluster_dir/server.log"
fi

mkdir -p "$scratch"
[[ $EUID -eq 0 ]] && chown postgres "$scratch"
"${bench_cpus[@]}" "$bin/plan-regen-bench" --scratch "$scratch" "${bench_args[@]}"
