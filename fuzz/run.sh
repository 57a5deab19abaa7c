#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for SECONDS (default 60):
#
#   fuzz/run.sh [SECONDS]
#
# Seeds come from fuzz/corpus/<target>/ (read-only); what libFuzzer learns goes to
# fuzz/.build/corpus/<target>/ and is reused next time. Crashes, timeouts and OOMs are written
# to fuzz/artifacts/ with a log per target; the script exits 1 if any target found one.
#
# Environment: SWIFT (default swift), FUZZ_TARGETS (default "fuzz-mustache fuzz-request fuzz-feed
# fuzz-image"), FUZZ_IMAGE_SECONDS (fuzz-image's own time, default 600: the decoders are C code
# libFuzzer cannot see into, so it needs longer), FUZZ_ARGS (extra libFuzzer flags, e.g.
# "-jobs=2" or "-runs=1000").
#
# Replay one input:  fuzz/.build/release/fuzz-request fuzz/artifacts/crash-…
set -euo pipefail

seconds="${1:-60}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
swift="${SWIFT:-swift}"
targets="${FUZZ_TARGETS:-fuzz-mustache fuzz-request fuzz-feed fuzz-image}"

cd "$here"
for target in $targets; do
    "$swift" build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
        --product "$target"
done
bin="$("$swift" build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
    --show-bin-path)"

mkdir -p artifacts .build/tmp
# fuzz-request makes a Public/ folder (and a secret next to it) per process; keep them here.
export TMPDIR="$here/.build/tmp"
# Swift's own crash handler fights ASan's and libFuzzer's; let those report.
export SWIFT_BACKTRACE=enable=no
# LeakSanitizer cannot follow references that Swift packs into enum payloads (spare pointer
# bits), so long-lived data such as the app built once per process is reported as leaked.
# fuzz-feed turns it back on (a later detect_leaks=1 wins).
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"

failed=0
for target in $targets; do
    name="${target#fuzz-}"
    mkdir -p ".build/corpus/$name"
    before="$(ls artifacts | grep -c -E '^(crash|timeout|oom|leak|slow-unit)-' || true)"
    target_seconds="$seconds"
    if [ "$target" = fuzz-image ]; then target_seconds="${FUZZ_IMAGE_SECONDS:-600}"; fi
    echo "== $target for ${target_seconds}s (log: fuzz/artifacts/$target.log)"
    status=0
    # fuzz-feed: feeds are larger; each input must take under 1 s of CPU (checked by the target
    # itself on the thread's CPU clock; the wall-clock timeout stays for real hangs), and it
    # holds no long-lived Swift state, so LeakSanitizer runs too (see ASAN_OPTIONS above).
    case "$target" in
    fuzz-feed) limits="-max_len=16384 -timeout=10 -detect_leaks=1" asan="$ASAN_OPTIONS:detect_leaks=1" ;;
    *) limits="-max_len=4096 -timeout=10 -detect_leaks=0" asan="$ASAN_OPTIONS" ;;
    esac
    # shellcheck disable=SC2086  # FUZZ_ARGS and limits are lists of flags
    ASAN_OPTIONS="$asan" "$bin/$target" ".build/corpus/$name" "corpus/$name" \
        -dict="dict/$name.dict" -max_total_time="$target_seconds" $limits \
        -rss_limit_mb=2048 -print_final_stats=1 -print_pcs=0 \
        -artifact_prefix="artifacts/" ${FUZZ_ARGS:-} >"artifacts/$target.log" 2>&1 || status=$?
    after="$(ls artifacts | grep -c -E '^(crash|timeout|oom|leak|slow-unit)-' || true)"
    grep -E '^(Done|#[0-9]+[[:space:]]+DONE|stat::)|^(==[0-9]+==|SUMMARY|Fatal error|.*invariant broken)' \
        "artifacts/$target.log" | tail -n 12 || true
    if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
        echo "!! $target failed (exit $status); see fuzz/artifacts/" >&2
        failed=1
    fi
done
rm -rf "$TMPDIR"
exit "$failed"
