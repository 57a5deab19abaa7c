#!/usr/bin/env bash
# Profiles the release server under a fixed wrk load and prints the top costs.
#
#   bench/profile.sh [PATH] [SECONDS] [EXTRA SERVER FLAGS...]
#   e.g. bench/profile.sh /api/items 5
#        bench/profile.sh / 5 --connection-memory 16384
#        PROFILE_HEADER='Accept-Encoding: gzip, deflate, br' bench/profile.sh /api/items 5
#
# Uses `perf record -g` (callgrind cannot run the server: valgrind 3.19 crashes in libdispatch's
# signal thread, which the SIGTERM handling starts). For in-process work use callgrind on
# feed-bench instead:
#   valgrind --tool=callgrind --callgrind-out-file=/tmp/page.out \
#       .build/release/feed-bench --profile page 200
#   callgrind_annotate --inclusive=yes /tmp/page.out | swift demangle --simplified | head -60
# Server pinned to core 0, wrk to core 1 (as in bench/run.py). Needs perf (Debian: linux-perf).
set -euo pipefail
cd "$(dirname "$0")/.."
path=${1:-/api/items}
seconds=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
command -v perf >/dev/null || { echo "profile.sh: perf is missing (apt-get install linux-perf)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "profile.sh: wrk is missing (apt-get install wrk)" >&2; exit 1; }
out=$(mktemp -d /tmp/pullrefresh-profile.XXXXXX)
server_pid=""
cleanup() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT INT TERM

taskset -c 0 .build/release/pullrefresh --port 0 --quiet --templates Templates --public Public \
    --threads 1 "$@" > "$out/server.txt" &
server_pid=$!
for _ in $(seq 50); do grep -q listening "$out/server.txt" 2>/dev/null && break; sleep 0.1; done
port=$(grep -o '[0-9]*$' "$out/server.txt")
url="http://127.0.0.1:$port$path"
# wrk's -H, when PROFILE_HEADER names a request header (e.g. to profile compressed responses).
header_args=()
if [ -n "${PROFILE_HEADER:-}" ]; then header_args=(-H "$PROFILE_HEADER"); fi
taskset -c 1 wrk -t1 -c64 -d2s "${header_args[@]}" "$url" > /dev/null            # warm-up
taskset -c 1 wrk -t1 -c64 -d"$((seconds + 1))s" "${header_args[@]}" "$url" > "$out/wrk.txt" &
wrk_pid=$!
sleep 0.5
perf record -F 4999 -g -p "$server_pid" -o "$out/perf.data" -- sleep "$seconds" > /dev/null 2>&1
wait "$wrk_pid"
requests=$(grep -o '^ *[0-9]* requests' "$out/wrk.txt" | tr -dc 0-9)
samples=$(perf report -i "$out/perf.data" --stdio --sort dso 2>/dev/null | grep -m1 '^# Samples' || true)
echo "GET $path: $(grep Requests/sec "$out/wrk.txt"), $requests requests in the wrk run; perf $samples"
echo "--- by shared object (self) ---"
perf report -i "$out/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -8
echo "--- user-space functions (inclusive) ---"
perf report -i "$out/perf.data" --children --sort symbol --stdio -g none 2>/dev/null \
    | grep -E '^ +[0-9].*\[\.\]' | grep -v ' 0x\| 0000' | head -30 | swift demangle --simplified | cut -c1-140
echo "(perf data kept in $out)"
