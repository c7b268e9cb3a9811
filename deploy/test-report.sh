#!/usr/bin/env bash
# What deploy/test.sh reports from the logs it keeps of `swift build` and `swift test`.
#
#   deploy/test-report.sh warnings ROOT BUILD_LOG
#       the compiler warnings of files under ROOT, once each: the project's own sources,
#       tests and benchmark. Files under ROOT/.build (the dependencies' checkouts) and
#       outside ROOT do not count. Prints nothing when there are none.
#   deploy/test-report.sh summary TEST_LOG STATUS SECONDS [WARNINGS]
#       one line: tests, passed, failed and skipped (XCTest and Swift Testing together),
#       the time the tests took, SECONDS (the whole script), swift test's STATUS and,
#       when not 0, the number of WARNINGS the build gave. Says so when a run ended
#       before its closing line (a crash) or printed no results.
#
# Both read swift's human-readable output, which is not a stable format: a line this
# script does not recognise is left out of the counts, never guessed at.
set -euo pipefail

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }

# Colours, should a terminal setting have let any through a pipe.
strip_colours() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

warnings() {
    local root="$1" log="$2"
    strip_colours "$log" | awk -v root="${root%/}/" '
        index($0, root) == 1 && index($0, root ".build/") != 1 && $0 ~ /:[0-9]+(:[0-9]+)?: warning: / { print }
    ' | sort -u
}

summary() {
    local log="$1" status="$2" seconds="$3" warnings="${4:-0}"
    strip_colours "$log" | awk -v status="$status" -v seconds="$seconds" -v warnings="$warnings" '
        # The number (digits and a dot) right after the first `prefix` in line; -1 if none.
        function number_after(line, prefix,    at, rest) {
            at = index(line, prefix)
            if (at == 0) return -1
            rest = substr(line, at + length(prefix))
            if (!match(rest, /^[0-9]+(\.[0-9]+)?/)) return -1
            return substr(rest, 1, RLENGTH) + 0
        }
        function duration(s) {
            s = int(s + 0.5)
            return s < 60 ? s " s" : int(s / 60) " min " (s % 60) " s"
        }

        # XCTest: a line per test case, then "Executed N tests, with … in T (T) seconds"
        # per suite; the last one (All tests, or Selected tests under --filter) counts everything.
        /^Test Suite .(All|Selected) tests. started/ { xc_started = 1 }
        /^Test Case .* passed \(/                    { xc_passed++ }
        /^Test Case .* failed \(/                    { xc_failed++ }
        /^Test Case .* skipped \(/                   { xc_skipped++ }
        /^[[:space:]]*Executed [0-9]+ tests?, with / {
            xc_closed = 1
            xc_total = number_after($0, "Executed ")
            xc_time = number_after($0, ") in ")
            if (xc_time < 0) xc_time = number_after($0, " in ")
        }

        # Swift Testing: a symbol, then "Test NAME passed after …", "… failed after …",
        # "… skipped…" per test (not per test case or suite), and the closing line
        # "Test run with N tests in M suites passed|failed after T seconds…".
        /^[^[:alnum:]]*Test run started\./        { st_started = 1; next }
        /^[^[:alnum:]]*Test run with [0-9]+ tests? / {
            st_closed = 1
            st_total = number_after($0, "Test run with ")
            st_time = number_after($0, " after ")
            next
        }
        /^[^[:alnum:]]*Test .+ passed after [0-9.]+ seconds/ { st_passed++; next }
        /^[^[:alnum:]]*Test .+ failed after [0-9.]+ seconds/ { st_failed++; next }
        /^[^[:alnum:]]*Test .+ skipped(:|\.)/               { st_skipped++; next }

        END {
            failed = xc_failed + st_failed
            skipped = xc_skipped + st_skipped
            tail = "(" duration(seconds) " in all); swift test exit status " status
            if (warnings > 0) tail = tail "; " warnings " compiler warning(s) in the project, listed after the build"
            if ((st_started && !st_closed) || (xc_started && !xc_closed)) {
                printf "test summary: INCOMPLETE, the test process ended before its closing line (crashed or killed?); seen: %d passed, %d failed, %d skipped %s\n",
                    xc_passed + st_passed, failed, skipped, tail
                exit
            }
            if (!st_closed && !xc_closed) {
                printf "test summary: no test results in the output (build or start failed?) %s\n", tail
                exit
            }
            total = (xc_closed ? xc_total : 0) + (st_closed ? st_total : 0)
            time = (xc_closed ? xc_time : 0) + (st_closed ? st_time : 0)
            printf "test summary: %d tests, %d passed, %d failed, %d skipped in %.1f s %s\n",
                total, total - failed - skipped, failed, skipped, time, tail
        }
    '
}

[[ $# -ge 1 ]] || usage
case "$1" in
    warnings) [[ $# -eq 3 ]] || usage; warnings "$2" "$3" ;;
    summary)  [[ $# -eq 4 || $# -eq 5 ]] || usage; summary "$2" "$3" "$4" "${5:-0}" ;;
    *) usage ;;
esac
