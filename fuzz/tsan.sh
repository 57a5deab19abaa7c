#!/usr/bin/env bash
# Runs the whole Swift test suite under ThreadSanitizer:
#
#   fuzz/tsan.sh [extra `swift test` arguments, e.g. --filter LiveFeedTests]
#
# The TSan build lives in .build/tsan so it never clobbers the normal debug build; the
# `pullrefresh` binary the process tests start is the TSan build next to the test bundle.
# halt_on_error makes the first report fail the run (exit 66) instead of scrolling past.
# Suppressions, if any, are in fuzz/tsan.supp, one commented line per known-foreign race.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
swift="${SWIFT:-swift}"

cd "$root"
options="halt_on_error=1:second_deadlock_stack=1:history_size=4"
if [ -f "$here/tsan.supp" ]; then
    options="$options:suppressions=$here/tsan.supp"
fi
export TSAN_OPTIONS="$options:${TSAN_OPTIONS:-}"
# Swift's crash handler would replace TSan's report with its own backtrace.
export SWIFT_BACKTRACE=enable=no
"$swift" build --build-tests --sanitize=thread --scratch-path .build/tsan
# One test at a time: with the whole suite at once on 2 cores, TSan's slowdown (5-15x) pushed
# tests that read a socket with a 10 s timeout past it (five of 372 on 2 December), so those
# tests ended before TSan saw their code. Serially all pass in about 2.5 minutes.
"$swift" test --skip-build --sanitize=thread --scratch-path .build/tsan --no-parallel "$@"
