#!/usr/bin/env bash
# Replays the build stage of deploy/Dockerfile without a container engine (none can pull
# base images here), then checks its runtime stage against the binary it built:
#
#   1. the build stage's COPY lines assemble a clean directory holding exactly those paths
#      of the repository (tracked files and new, not ignored ones: what a clone would have),
#      then its RUN lines run there in order, with sh -c as Docker does; the apt-get lines
#      are not replayed: their packages must be installed on this host instead
#      (deploy/install-deps.sh --test installs them);
#   2. the build prints no compiler warning from the project's own files;
#   3. the runtime stage's apt-get line installs every Debian package the binary links
#      (readelf NEEDED; those of debian:bookworm-slim, apt's own dependencies, aside) and
#      nothing else but the data packages named below, each with its reason.
#
#   deploy/check-dockerfile.sh                          # deploy/Dockerfile
#   deploy/check-dockerfile.sh --dockerfile FILE --keep # another file; keep the directory
#   deploy/check-dockerfile.sh --binary PATH            # only step 3, for a binary built before
#   deploy/check-dockerfile.sh --build-arg NAME=VALUE   # as docker build --build-arg (ARG lines)
#
# Exits 0 when all holds, 1 with a line naming what failed. Slow: a clean release build.
set -euo pipefail
cd "$(dirname "$0")/.."
repository="$PWD"

dockerfile=deploy/Dockerfile
keep=false
given_binary=""
declare -A build_args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --dockerfile) dockerfile="$2"; shift 2 ;;
        --keep) keep=true; shift ;;
        --binary) given_binary="$2"; shift 2 ;;
        --build-arg) build_args[${2%%=*}]="${2#*=}"; shift 2 ;;
        *) echo "usage: deploy/check-dockerfile.sh [--dockerfile FILE] [--keep] [--binary PATH] [--build-arg NAME=VALUE]" >&2
           exit 64 ;;
    esac
done

# Packages the binary uses without linking them, and why. Anything else on the runtime
# apt-get line must provide a library the binary links.
declare -A data_packages=(
    [tzdata]="users' time zones: /usr/share/zoneinfo/tzdata.zi and the TZif files"
    [ca-certificates]="CA bundle for sslrootcert (sslmode=verify-full) and HTTPS"
)
# Libraries installed for code that may not be in this binary yet: noted, not failed,
# when unlinked. libcurl4: FoundationNetworking's URLSession (--metrics-push) links it.
declare -A expected_libraries=(
    [libcurl4]="FoundationNetworking (URLSession, --metrics-push)"
)

fail() { echo "check-dockerfile: FAILED: $*" >&2; exit 1; }
say() { echo "check-dockerfile: $*"; }
# The packages of the `apt-get install` commands in the instructions on stdin, one a line.
apt_packages() {
    grep -o 'apt-get install [^&;]*' | sed 's/apt-get install//' | tr ' ' '\n' | grep -v -e '^-' -e '^$' | sort -u || true
}

[[ -f "$dockerfile" ]] || fail "$dockerfile not found"

# The Dockerfile as instructions: comments dropped, continuation lines joined.
instructions="$(sed -e '/^[[:space:]]*#/d' "$dockerfile" | sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' \
    | sed -e '/^[[:space:]]*$/d')"
stage_count="$(grep -c '^FROM ' <<<"$instructions" || true)"
[[ "$stage_count" -ge 2 ]] || fail "$dockerfile has $stage_count stages; expected a build stage and a runtime stage"
build_stage="$(awk '/^FROM /{n++} n==1' <<<"$instructions")"
runtime_stage="$(awk -v last="$stage_count" '/^FROM /{n++} n==last' <<<"$instructions")"
build_name="$(head -1 <<<"$build_stage" | sed -n 's/^FROM .* [Aa][Ss] \([^ ]*\)$/\1/p')"
[[ -n "$build_name" ]] || fail "the first stage has no name (FROM image AS build)"

work="$(mktemp -d "${TMPDIR:-/tmp}/plan-regen-dockerfile.XXXXXX")"
if [[ "$keep" == false ]]; then trap 'rm -rf "$work"' EXIT; fi
# Docker paths of the build stage (WORKDIR, COPY destinations) live under $work/root.
root="$work/root"
mkdir -p "$root"
workdir=/
log="$work/build.log"
: >"$log"

# Step 1 and 2: the build stage in the clean directory, and its warnings.
replay_build_stage() {
    say "replaying the build stage '$build_name' of $dockerfile in $work"
    # The RUN lines' environment: this host's, without a commit it might carry (the build
    # sees only what the ARG lines give it), plus the ARG values.
    arg_env=(-u PLAN_REGEN_COMMIT)
    while IFS= read -r line; do
        keyword="${line%% *}"
        rest="${line#* }"
        case "$keyword" in
            FROM) ;;
            WORKDIR)
                [[ "$rest" == /* ]] || rest="$workdir/$rest"
                workdir="$rest"
                mkdir -p "$root$workdir"
                ;;
            COPY)
                [[ "$rest" != --* ]] || fail "COPY with options in the build stage is not replayed: $line"
                read -r -a words <<<"$rest"
                destination="${words[-1]}"
                unset 'words[-1]'
                for source in "${words[@]}"; do
                    # The forms this Dockerfile uses: a path to the same place, or files into ./
                    if [[ "$destination" != "./" && "$destination" != "./$source" && "$destination" != "$source" ]]; then
                        fail "COPY $source $destination: only 'COPY path ./path' and 'COPY file ./' are replayed"
                    fi
                    files="$(git -C "$repository" ls-files --cached --others --exclude-standard -- "$source")"
                    [[ -n "$files" ]] || fail "COPY $source: no such path in the repository"
                    (cd "$repository" && while IFS= read -r file; do
                        [[ -e "$file" ]] || continue   # deleted in the work tree
                        mkdir -p "$root$workdir/$(dirname "$file")"
                        cp -p "$file" "$root$workdir/$file"
                    done <<<"$files")
                done
                say "COPY ${words[*]}"
                ;;
            RUN)
                if grep -q 'apt-get' <<<"$rest"; then
                    packages="$(apt_packages <<<"$rest")"
                    for package in $packages; do
                        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' \
                            || fail "the build stage installs $package, which this host lacks: deploy/install-deps.sh --test installs it"
                    done
                    say "RUN apt-get (not replayed; installed here: $(echo $packages))"
                    continue
                fi
                say "RUN $rest"
                status=0
                (cd "$root$workdir" && env "${arg_env[@]}" sh -c "$rest") >>"$log" 2>&1 || status=$?
                if [[ $status -ne 0 ]]; then
                    tail -40 "$log" >&2
                    fail "RUN $rest: exit status $status (the end of its output above)"
                fi
                ;;
            ARG)
                # As Docker does: the value given with --build-arg, else the default, else unset
                # (an unset ARG is not in the RUN lines' environment).
                name="${rest%%=*}"
                if [[ -n "${build_args[$name]+given}" ]]; then
                    arg_env+=("$name=${build_args[$name]}")
                elif [[ "$rest" == *=* ]]; then
                    arg_env+=("$name=${rest#*=}")
                fi
                say "ARG $name"
                ;;
            ENV|LABEL|USER)
                fail "$keyword in the build stage is not replayed yet: teach deploy/check-dockerfile.sh"
                ;;
            *) fail "unexpected instruction in the build stage: $line" ;;
        esac
    done <<<"$build_stage"

    # Compiler warnings from the project's own files (not the checked-out dependencies').
    project_warnings="$(grep -E '^/[^ ]*: warning:' "$log" | grep -F "$root/" | grep -vF "/.build/" | sort -u || true)"
    if [[ -n "$project_warnings" ]]; then
        echo "$project_warnings" >&2
        fail "the build printed $(wc -l <<<"$project_warnings") compiler warnings from the project's files (above)"
    fi
    say "build: no compiler warning from the project's files"
}

# The runtime stage: the binary it copies from the build stage, and its packages.
copy="$(grep "^COPY --from=$build_name " <<<"$runtime_stage" | head -1)"
[[ -n "$copy" ]] || fail "the runtime stage copies nothing from the build stage"
read -r -a words <<<"$copy"
copied_path="${words[2]}"
if [[ -n "$given_binary" ]]; then
    binary="$given_binary"
    say "checking the runtime stage of $dockerfile against $binary"
else
    replay_build_stage
    binary="$root$copied_path"
fi
[[ -x "$binary" ]] || fail "the runtime stage copies $copied_path, which the build stage did not make"
say "binary: $binary"
runtime_packages="$(grep '^RUN ' <<<"$runtime_stage" | apt_packages)"
say "runtime packages: $(echo $runtime_packages)"

# debian:bookworm-slim holds apt and everything it depends on (libc6, libstdc++6, …).
base_packages="$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances apt 2>/dev/null | grep -v '^ ' | sort -u)"
grep -qx libc6 <<<"$base_packages" || fail "cannot list apt's dependencies (apt-cache depends apt)"

# The package that ships a library path (dpkg knows /lib and /usr/lib apart).
owner_of() {
    local path="$1" candidate
    for candidate in "$path" "$(readlink -f "$path")" "${path/#\/lib\//\/usr\/lib\/}" "${path/#\/usr\/lib\//\/lib\/}"; do
        dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1 && return 0
    done
    return 1
}

declare -A linked_packages=()
ldd_output="$(ldd "$binary")"
for library in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path="$(awk -v lib="$library" '$1 == lib && $2 == "=>" {print $3}' <<<"$ldd_output")"
    [[ -z "$path" && "$library" == ld-linux* ]] && path="$(awk -v lib="$library" '$1 ~ lib {print $1}' <<<"$ldd_output")"
    [[ -n "$path" && "$path" != "not" ]] || fail "the binary needs $library, which is not installed here"
    package="$(owner_of "$path")" || fail "no Debian package ships $path ($library): the image could not provide it"
    if grep -qx "$package" <<<"$base_packages"; then
        say "links $library ($package, in debian:bookworm-slim)"
    elif grep -qx "$package" <<<"$runtime_packages"; then
        say "links $library ($package, installed by the runtime stage)"
        linked_packages[$package]=1
    else
        fail "the binary links $library from $package, which the runtime stage does not install: add it to its apt-get line"
    fi
done

for package in $runtime_packages; do
    if [[ -n "${linked_packages[$package]:-}" ]]; then
        continue
    elif [[ -n "${data_packages[$package]:-}" ]]; then
        say "installs $package: ${data_packages[$package]}"
    elif [[ -n "${expected_libraries[$package]:-}" ]]; then
        say "note: installs $package for ${expected_libraries[$package]}, which this binary does not link (yet)"
    else
        fail "the runtime stage installs $package, which the binary does not need: remove it (or name its use in check-dockerfile.sh)"
    fi
done
say "OK: the build stage builds in a clean directory and the runtime stage installs only what the binary needs"
