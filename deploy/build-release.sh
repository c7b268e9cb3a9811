#!/usr/bin/env bash
# Builds the release binary the way it is deployed (statically linked Swift runtime,
# link-time optimization) and stamps it with the commit it is built from, which
# `plan-regen --version` prints. The Dockerfile runs this script too.
#
# The commit: PLAN_REGEN_COMMIT when set (the Dockerfile's build argument: its context has
# no .git), else `git rev-parse HEAD` with "-dirty" when the work tree has changes, else
# none (the binary says "unknown commit").
#
#   deploy/build-release.sh                    # builds; prints the binary's path
#   deploy/build-release.sh --output DIR/FILE  # and copies the binary there
#   deploy/build-release.sh --print-commit     # only prints the commit it would stamp
set -euo pipefail
cd "$(dirname "$0")/.."

output=""
print_commit=false
while [[ $# -gt 0 ]]; do
    case "$1" in
        --output) output="$2"; shift 2 ;;
        --print-commit) print_commit=true; shift ;;
        *) echo "usage: deploy/build-release.sh [--output FILE] [--print-commit]" >&2; exit 64 ;;
    esac
done

if [[ -z "${PLAN_REGEN_COMMIT:-}" ]] && git rev-parse --is-inside-work-tree >/dev/null 2>&1 \
   && [[ "$(git rev-parse --show-toplevel)" == "$(pwd -P)" ]]; then
    PLAN_REGEN_COMMIT="$(git rev-parse HEAD)"
    if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then PLAN_REGEN_COMMIT+="-dirty"; fi
fi
export PLAN_REGEN_COMMIT="${PLAN_REGEN_COMMIT:-}"
if [[ "$print_commit" == true ]]; then
    echo "${PLAN_REGEN_COMMIT:-unknown commit}"
    exit 0
fi

# Package.swift reads PLAN_REGEN_COMMIT: a new commit recompiles one C file and relinks.
build=(swift build -c release --static-swift-stdlib --experimental-lto-mode=full)
"${build[@]}" --product plan-regen
binary="$("${build[@]}" --show-bin-path)/plan-regen"
if [[ -n "$output" ]]; then
    install -D "$binary" "$output"
    binary="$output"
fi
echo "$binary"
