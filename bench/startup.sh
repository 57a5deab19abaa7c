#!/usr/bin/env bash
# Start-up cost of one pullrefresh binary: file size, time from exec to the "listening" line,
# and memory once listening (VmRSS, and its file-backed part RssFile, which counts the pages of
# linked libraries such as Foundation's). Median of RUNS (default 7) starts, idle, generator feed.
#
#   bench/startup.sh [BINARY] [RUNS]      (default .build/release/pullrefresh)
set -euo pipefail
binary="${1:-.build/release/pullrefresh}"
runs="${2:-7}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
times=() rss=() files=()
for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$binary" --port 0 --templates "$here/Templates" --public "$here/Public" >"$log" 2>&1 &
    pid=$!
    until grep -q listening "$log"; do
        kill -0 "$pid" 2>/dev/null || { cat "$log"; exit 1; }
        sleep 0.002
    done
    end=$(date +%s%N)
    sleep 0.3
    times+=($(((end - start) / 1000000)))
    rss+=($(awk '/^VmRSS/ {print $2}' "/proc/$pid/status"))
    files+=($(awk '/^RssFile/ {print $2}' "/proc/$pid/status"))
    kill "$pid"
    wait "$pid" 2>/dev/null || true
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%s: %s bytes, start %s ms, VmRSS %s kB (RssFile %s kB), median of %s; %s shared libraries\n' \
    "$binary" "$(stat -c %s "$binary")" "$(median "${times[@]}")" "$(median "${rss[@]}")" \
    "$(median "${files[@]}")" "$runs" "$(ldd "$binary" | wc -l)"
