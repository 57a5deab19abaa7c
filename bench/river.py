#!/usr/bin/env python3
"""River benchmarks (`make bench`): many feeds as one, measured against a peer in the same run.
Writes bench/RIVER.md.

1  Fan-out: 100 loopback feeds (Tests/Fixtures/Upstreams/river_server.py), each answering
   after a random 50-500 ms. One pull (POST /api/refresh) fetches all of them: its wall time
   against the slowest feed's delay (goal <= 1.2x, with --source-concurrency 100; the default 16
   is reported beside it), server CPU per reload and RSS. Then the same 100 answering 304 with
   no delay: server CPU per reload (goal <= 5 ms beyond the waits), each round followed by a C
   peer making the same 100 conditional GETs on libcurl (bench/curl-reload.c, two loops).
2  Size: 500 feeds of 50 items (25,000 items, --max-items 25000) against one feed of 50 items
   (the same item shape: ids with a source key, a source label) and a 50-item --data store:
   server CPU per GET / and GET /api/items over the same number of keep-alive requests, each
   round measuring all three back to back (goal: within 1.1x of a 50-item store), and RSS.
3  Cluster: three instances on one redis-server with --refresh-every 2s over 30 s, 10 busy
   feeds (a new item on every fetch): fetches per source per interval counted at the upstream
   (goal 1.0; three uncoordinated pollers would make 3.0).

Env: BENCH_QUICK=1 (fewer requests, a 12 s cluster window), BENCH_NO_BUILD=1 (use the existing
release binary). Standard library and gcc (the C peer); everything started is stopped by PID.
"""
from __future__ import annotations

import datetime
import http.client
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests"))
from harness.upstream import RiverUpstream  # noqa: E402  (the Python suites' shared harness)

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
BINARY = os.path.join(ROOT, ".build", "release", "pullrefresh")
PEER_BINARY = os.path.join(ROOT, ".build", "bench", "curl-reload")
RESULTS = os.path.join(ROOT, "bench", "RIVER.md")
REQUESTS = 4000 if QUICK else 20000
ROUNDS = 2 if QUICK else 3
# The page-cost comparison: more, shorter rounds, each river measured right beside its peers.
SIZE_ROUNDS = 3 if QUICK else 7
CLUSTER_WINDOW = 12.0 if QUICK else 30.0
_started: list[subprocess.Popen] = []


def log(message: str) -> None:
    print(f"[river] {message}", flush=True)


def cpu_seconds(pid: int) -> float:
    """The CPU time of `pid`'s threads, in nanoseconds from each one's /proc schedstat (the
    scheduler's own count; utime+stime come in 10 ms ticks). The server's threads live as long as
    it does (libmicrohttpd's pool, the transfer loop's thread), so none is missed by exiting."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as handle:
                total += int(handle.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Instance:
    """One release pullrefresh on a free port."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen([BINARY, "--port", "0", "--quiet", "--templates", "Templates", "--public",
                                      "Public", *args], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        _started.append(self.proc)
        line = self.proc.stdout.readline()
        if "listening on http://127.0.0.1:" not in line:
            raise SystemExit(f"server did not start: {line!r}")
        self.port = int(line.rsplit(":", 1)[1])
        self.pid = self.proc.pid

    def request(self, method: str, path: str, timeout: float = 120) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, headers={"Content-Length": "0"} if method == "POST" else {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)
        self.proc.stdout.close()


def stop_all() -> None:
    for proc in _started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def build() -> None:
    os.makedirs(os.path.dirname(PEER_BINARY), exist_ok=True)
    subprocess.run(["gcc", "-O2", "-Wall", "-I", os.path.join(ROOT, "Sources", "CCurl"), "-o", PEER_BINARY,
                    os.path.join(ROOT, "bench", "curl-reload.c"), "-lcurl"], check=True)
    if os.environ.get("BENCH_NO_BUILD") and os.path.exists(BINARY):
        return
    subprocess.run([os.environ.get("SWIFT", "swift"), "build", "-c", "release", "--product", "pullrefresh"],
                   cwd=ROOT, check=True)


def peer_cpu_per_reload(feeds: RiverUpstream, count: int, reloads: int, loop: str) -> float:
    """bench/curl-reload.c's CPU seconds per reload of the same `count` conditional GETs."""
    output = subprocess.run([PEER_BINARY, str(feeds.port), str(count), str(reloads), loop],
                            capture_output=True, text=True, check=True, timeout=120).stdout
    return float(output.split()[1]) / 1000


def fan_out(feeds: RiverUpstream) -> dict:
    names = [f"fan{n}" for n in range(100)]
    rng = random.Random(21)
    delays = {name: rng.uniform(0.05, 0.5) for name in names}
    slowest = max(delays.values())
    sources = [arg for name in names for arg in ("--source", feeds.url(name))]
    figures = {"slowest_s": slowest}
    for concurrency in (100, 16):
        for name in names:
            feeds.set(name, f"mode=slow&delay={delays[name]:.3f}")
        server = Instance(*sources, "--source-concurrency", str(concurrency), "--refresh-every", "0")
        walls, cpus = [], []
        for round_ in range(ROUNDS + 1):
            for name in names:  # something new everywhere: every feed answers 200 with a body
                feeds.add(name, f"r{concurrency}-{round_}")
            before = cpu_seconds(server.pid)
            start = time.monotonic()
            status, _ = server.request("POST", "/api/refresh")
            walls.append(time.monotonic() - start)
            cpus.append(cpu_seconds(server.pid) - before)
            assert status == 200, status
        figures[f"wall_{concurrency}"] = statistics.median(walls[1:])
        figures[f"cpu_{concurrency}"] = statistics.median(cpus[1:])
        figures[f"rss_{concurrency}"] = rss_mb(server.pid)
        if concurrency == 100:
            for name in names:
                feeds.set(name, "mode=ok")
            server.request("POST", "/api/refresh")  # settles validators on the current bodies
            reloads = 10 if QUICK else 30
            walls, cpus, not_modified = [], [], 0
            peers: dict[str, list[float]] = {"poll": [], "epoll": []}
            # Rounds of the server's reloads, each followed by the C peer's of the same fetches,
            # so both see the machine in the same state.
            for _ in range(ROUNDS + 2):
                counted = sum(stats["notModified"] for stats in feeds.stats().values())
                before = cpu_seconds(server.pid)
                start = time.monotonic()
                for _ in range(reloads):
                    server.request("POST", "/api/refresh")
                walls.append((time.monotonic() - start) / reloads)
                cpus.append((cpu_seconds(server.pid) - before) / reloads)
                not_modified += sum(stats["notModified"] for stats in feeds.stats().values()) - counted
                for loop, figures_of_loop in peers.items():
                    figures_of_loop.append(peer_cpu_per_reload(feeds, len(names), reloads, loop))
            figures["wall_304"] = statistics.median(walls)
            figures["cpu_304"] = statistics.median(cpus)
            figures["peer_304_poll"] = statistics.median(peers["poll"])
            figures["peer_304_epoll"] = statistics.median(peers["epoll"])
            # What the server spends beyond the fetches themselves: each round's own difference.
            figures["beyond_304"] = statistics.median(
                ours - peer for ours, peer in zip(cpus, peers["epoll"]))
            figures["not_modified"] = not_modified
            figures["expected_304"] = (ROUNDS + 2) * reloads * len(names)
        server.stop()
    return figures


def hammer(server: Instance, path: str, count: int, threads: int = 4) -> float:
    """`count` keep-alive GETs over `threads` connections; returns server CPU seconds per GET."""
    def worker(share: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        for _ in range(share):
            connection.request("GET", path, headers={"Accept-Encoding": "gzip, br"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200, response.status
        connection.close()
    before = cpu_seconds(server.pid)
    workers = [threading.Thread(target=worker, args=(count // threads,)) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return (cpu_seconds(server.pid) - before) / (count // threads * threads)


def size(feeds: RiverUpstream) -> dict:
    names = [f"big{n}" for n in range(500)]
    for name in names:
        feeds.set(name, "items=50")
    directory = tempfile.mkdtemp(prefix="bench-river-")
    opml = os.path.join(directory, "subscriptions.opml")
    with open(opml, "w") as handle:
        handle.write('<?xml version="1.0"?><opml version="2.0"><body><outline text="Bench">')
        for name in names:
            handle.write(f'<outline type="rss" text="{name}" xmlUrl="{feeds.url(name)}"/>')
        handle.write("</outline></body></opml>")
    # The peers: one feed of 50 items (the same items, one source), and a 50-item --data file.
    feeds.set("single", "items=50")
    data = os.path.join(directory, "fifty.json")
    with open(data, "w") as handle:
        json.dump({"items": [{"id": n, "title": f"Item {n}", "body": "", "createdAt": "2026-01-01T%02d:%02d:00Z"
                              % (n // 60, n % 60)} for n in range(1, 51)]}, handle)
    start = time.monotonic()
    river = Instance("--sources", opml, "--max-items", "25000", "--refresh-every", "0")
    startup = time.monotonic() - start
    small = Instance("--source", feeds.url("single"), "--refresh-every", "0")
    plain = Instance("--data", data, "--reload-delay", "0")
    held = len(json.loads(river.request("GET", "/api/sources")[1])["sources"])
    figures = {"startup_s": startup, "sources": held}
    count = REQUESTS
    for path in ("/", "/api/items"):
        for server in (river, small, plain):  # warm the caches
            hammer(server, path, 200)
        # Each round measures the three back to back, so the machine's load (a shared VM) is much
        # the same for all three; the ratios are taken within a round, then their median.
        rounds = []
        for _ in range(SIZE_ROUNDS):
            rounds.append((hammer(river, path, count), hammer(small, path, count), hammer(plain, path, count)))
        figures[path] = {"river_us": statistics.median(r[0] for r in rounds) * 1e6,
                         "small_us": statistics.median(r[1] for r in rounds) * 1e6,
                         "plain_us": statistics.median(r[2] for r in rounds) * 1e6,
                         "vs_small": statistics.median(r[0] / r[1] for r in rounds),
                         "vs_plain": statistics.median(r[0] / r[2] for r in rounds)}
    figures["rss_river"] = rss_mb(river.pid)
    figures["rss_small"] = rss_mb(small.pid)
    figures["rss_plain"] = rss_mb(plain.pid)
    for server in (river, small, plain):
        server.stop()
    shutil.rmtree(directory, ignore_errors=True)
    return figures


def cluster(feeds: RiverUpstream) -> dict:
    if not shutil.which("redis-server"):
        subprocess.run([os.path.join(ROOT, "scripts", "ensure-packages"), "redis-server"], check=True)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    directory = tempfile.mkdtemp(prefix="bench-river-redis-")
    redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", directory], stdout=subprocess.DEVNULL)
    _started.append(redis)
    time.sleep(0.5)
    names = [f"clu{n}" for n in range(10)]
    for name in names:
        feeds.set(name, "busy=1")
    sources = [arg for name in names for arg in ("--source", feeds.url(name))]
    instances = [Instance("--redis", f"redis://127.0.0.1:{port}/0", "--refresh-every", "2s", *sources)
                 for _ in range(3)]
    time.sleep(3)
    before = feeds.stats()
    time.sleep(CLUSTER_WINDOW)
    after = feeds.stats()
    rates = [(after[n]["requests"] - before[n]["requests"]) / (CLUSTER_WINDOW / 2) for n in names]
    for instance in instances:
        instance.stop()
    redis.terminate()
    redis.wait(10)
    shutil.rmtree(directory, ignore_errors=True)
    return {"mean": statistics.mean(rates), "min": min(rates), "max": max(rates), "window": CLUSTER_WINDOW}


def main() -> None:
    build()
    feeds = RiverUpstream()
    try:
        log("1/3 fan-out over 100 slow feeds")
        fan = fan_out(feeds)
        log(json.dumps(fan))
        log("2/3 500 feeds x 50 items against a 50-item store")
        big = size(feeds)
        log(json.dumps(big))
        log("3/3 three instances, --refresh-every 2s")
        clu = cluster(feeds)
        log(json.dumps(clu))
    finally:
        feeds.stop()
        stop_all()
    ratio = fan["wall_100"] / fan["slowest_s"]
    lines = [
        "# River benchmarks (bench/river.py)", "",
        f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores"
        f"{' (BENCH_QUICK)' if QUICK else ''}. Release build; feeds from river_server.py on loopback.", "",
        "| Figure | Ours | Peer / goal |", "| --- | --- | --- |",
        f"| 100 feeds (50-500 ms each): one pull's wall time, --source-concurrency 100 | {fan['wall_100'] * 1000:.0f} ms"
        f" ({ratio:.2f}x the slowest) | slowest feed {fan['slowest_s'] * 1000:.0f} ms; goal <= 1.2x |",
        f"| the same, default --source-concurrency 16 | {fan['wall_16'] * 1000:.0f} ms"
        f" ({fan['wall_16'] / fan['slowest_s']:.2f}x) | 16 at a time: about the sum / 16 |",
        f"| server CPU per reload of 100 bodies (concurrency 100 / 16) | {fan['cpu_100'] * 1000:.0f} ms /"
        f" {fan['cpu_16'] * 1000:.0f} ms | RSS {fan['rss_100']:.0f} MB / {fan['rss_16']:.0f} MB |",
        f"| server CPU per reload when all 100 answer 304 | {fan['cpu_304'] * 1000:.1f} ms"
        f" (wall {fan['wall_304'] * 1000:.0f} ms; {fan['not_modified']} of {fan['expected_304']} fetches were 304) |"
        f" the same 100 conditional GETs from C on libcurl (bench/curl-reload.c): {fan['peer_304_poll'] * 1000:.1f} ms"
        f" with curl_multi_poll, {fan['peer_304_epoll'] * 1000:.1f} ms on the server's epoll loop |",
        f"| the same reload's server CPU beyond the fetches: ours minus the C peer on the same loop |"
        f" {fan['beyond_304'] * 1000:.1f} ms | goal <= 5 ms beyond the waits |",
        f"| 500 feeds x 50 items: startup (500 fetches) | {big['startup_s']:.1f} s | {big['sources']} sources |",
    ]
    for path in ("/", "/api/items"):
        figure = big[path]
        lines.append(f"| server CPU per GET {path}, 25,000-item river | {figure['river_us']:.1f} us"
                     f" ({figure['vs_small']:.2f}x / {figure['vs_plain']:.2f}x) | one feed of 50 items"
                     f" {figure['small_us']:.1f} us; a 50-item --data store {figure['plain_us']:.1f} us"
                     " (goal <= 1.1x) |")
    lines += [
        f"| RSS, 25,000-item river | {big['rss_river']:.0f} MB | one feed of 50 items {big['rss_small']:.0f} MB;"
        f" --data {big['rss_plain']:.0f} MB |",
        f"| 3 instances on Redis, --refresh-every 2s, {clu['window']:.0f} s: fetches per source per interval |"
        f" {clu['mean']:.2f} (min {clu['min']:.2f}, max {clu['max']:.2f}) | goal 1.0; 3 uncoordinated pollers: 3.0 |",
        "", "CPU is the sum of the server's threads' run time from /proc/<pid>/task/*/schedstat (nanoseconds)."
        f" Per-GET figures: {REQUESTS} keep-alive requests per round, {SIZE_ROUNDS} rounds, each measuring the"
        " river and both peers back to back; the ratios (river / one feed, river / --data) are the"
        " medians of each round's own ratio, the microseconds the medians of the rounds.", "",
    ]
    with open(RESULTS, "w") as handle:
        handle.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    try:
        main()
    finally:
        stop_all()
