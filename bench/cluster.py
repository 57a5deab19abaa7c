#!/usr/bin/env python3
"""Cluster benchmarks (`make bench`, after run.py): the Redis backend against the in-memory one,
and the 300-refresh storm over 3 instances. Writes bench/CLUSTER.md.

1  GET /api/items and GET / throughput, in-memory vs --redis, same run: both servers pinned to
   core 0 with one worker thread, wrk on core 1 (64 connections), rounds alternating A B A B,
   median round. Goal: Redis >= 0.95x in-memory (a GET never talks to Redis).
2  Storms: 3 instances (--reload-delay 1s) on one redis-server; 300 POST /api/refresh fired at
   once, 100 per instance, over connections opened beforehand. Per storm: upstream reloads
   (the cluster's reload counter and the version), every answer's version, refresh latency
   (send to full response); propagation = time from the commit's PUBLISH (seen by a subscriber
   in this driver) until each instance serves the new version (a poller per instance on
   /healthz). Goals: one reload per storm, propagation p99 <= 50 ms.

Env: BENCH_QUICK=1 (shorter), BENCH_NO_BUILD=1 (use the existing release binary). Standard
library only; reuses run.py's process bookkeeping, servers and wrk parsing.
"""
from __future__ import annotations

import datetime
import json
import os
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (process bookkeeping, Server, ours, wrk, pinning)

RESULTS = os.path.join(run.ROOT, "bench", "CLUSTER.md")
STORMS = 3 if run.QUICK else 8
STORM_SIZE = 300
INSTANCES = 3
PREFIX = "bench:"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def resp(*args: str) -> bytes:
    out = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def redis_get(port: int, key: str) -> str | None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(resp("GET", key))
        data = b""
        while not data.endswith(b"\r\n") or (data.startswith(b"$") and data.count(b"\r\n") < 2
                                             and not data.startswith(b"$-1")):
            data += sock.recv(65536)
        if data.startswith(b"$-1"):
            return None
        return data.split(b"\r\n")[1].decode()


def start_redis() -> tuple[subprocess.Popen, int]:
    if not shutil.which("redis-server"):
        run.log("Installing redis-server (apt-get)")
        run.apt_install(["redis-server"])
    port = free_port()
    directory = tempfile.mkdtemp(prefix="bench-redis-")
    run._temp_dirs.append(directory)
    proc = run.spawn(run.client_prefix() + [
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(resp("PING"))
                if sock.recv(16).startswith(b"+PONG"):
                    return proc, port
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


# ---------------------------------------------------------------------------------------------
# 1. Throughput.

def throughput(redis_url: str) -> dict:
    memory = run.ours()
    redis = run.ours(["--redis", redis_url, "--redis-prefix", PREFIX + "tp:"])
    results: dict = {}
    try:
        for path in ("/api/items", "/"):
            sizes = {name: len(run.fetch(server.port, path)[2]) for name, server in
                     (("memory", memory), ("redis", redis))}
            rounds = {"memory": [], "redis": []}
            for server in (memory, redis):
                run.wrk(server, path, run.WARMUP)
            pair = [("memory", memory), ("redis", redis)]
            for number in range(run.ROUNDS):
                # A B, B A, A B ...: neither backend always runs first in a round.
                for name, server in (pair if number % 2 == 0 else pair[::-1]):
                    rounds[name].append(run.wrk(server, path, run.DURATION))
            results[path] = {
                name: {"rps": statistics.median(r["rps"] for r in rounds[name]),
                       "p99": statistics.median(r["p99"] for r in rounds[name]),
                       "us": statistics.median(r["cpu_us_per_req"] for r in rounds[name]),
                       "foreign": max(r["foreign"] for r in rounds[name]),
                       "errors": sum(r["errors"] for r in rounds[name]), "bytes": sizes[name]}
                for name in rounds}
            ratio = results[path]["redis"]["rps"] / results[path]["memory"]["rps"]
            results[path]["ratio"] = ratio
            run.log(f"{path}: memory {results[path]['memory']['rps']:,.0f} req/s, "
                    f"redis {results[path]['redis']['rps']:,.0f} req/s ({ratio:.2f}x)")
    finally:
        memory.stop()
        redis.stop()
    return results


# ---------------------------------------------------------------------------------------------
# 2. Storms.

def parse_resp(buffer: bytes, pos: int = 0):
    """One RESP2 value from `buffer` at `pos`: (value, next position), or None if incomplete."""
    end = buffer.find(b"\r\n", pos)
    if end < 0:
        return None
    kind, head = buffer[pos:pos + 1], buffer[pos + 1:end]
    if kind in (b"+", b"-", b":"):
        return head, end + 2
    if kind == b"$":
        size = int(head)
        if size < 0:
            return None, end + 2
        if len(buffer) < end + 2 + size + 2:
            return None
        return buffer[end + 2:end + 2 + size], end + 2 + size + 2
    if kind == b"*":
        items, cursor = [], end + 2
        for _ in range(int(head)):
            parsed = parse_resp(buffer, cursor)
            if parsed is None:
                return None
            item, cursor = parsed
            items.append(item)
        return items, cursor
    raise ValueError(f"bad RESP at {pos}: {buffer[pos:pos + 20]!r}")


class Subscriber(threading.Thread):
    """SUBSCRIBE to the feed's channel; records when each commit message (payload `s<n> ...`,
    n > 0) started to arrive."""

    def __init__(self, port: int, channel: str):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(resp("SUBSCRIBE", channel))
        self.arrivals: list[float] = []
        self.ready = threading.Event()

    def run(self) -> None:
        buffer, started = b"", None
        while chunk := self.sock.recv(1 << 20):
            if not buffer:
                started = time.perf_counter()
            buffer += chunk
            while (parsed := parse_resp(buffer)) is not None:
                frame, used = parsed
                buffer = buffer[used:]
                if frame[0] == b"subscribe":
                    self.ready.set()
                elif frame[0] == b"message" and frame[2][:1] == b"s" and not frame[2].startswith(b"s0 "):
                    self.arrivals.append(started)
                started = time.perf_counter() if buffer else None


class Poller(threading.Thread):
    """Polls one instance's /healthz over a keep-alive connection; records when it first served
    each version."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.first_seen: dict[int, float] = {}
        self.stopping = False

    def run(self) -> None:
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        while not self.stopping:
            conn.request("GET", "/healthz")
            body = conn.getresponse().read()
            now = time.perf_counter()
            version = json.loads(body)["version"]
            self.first_seen.setdefault(version, now)
            time.sleep(0.0005)
        conn.close()


def storm(ports: list[int]) -> dict:
    request = b"POST /api/refresh HTTP/1.1\r\nHost: bench\r\nContent-Length: 0\r\n\r\n"
    conns = [socket.create_connection(("127.0.0.1", ports[i % len(ports)])) for i in range(STORM_SIZE)]
    selector = selectors.DefaultSelector()
    sent: dict[socket.socket, float] = {}
    for sock in conns:
        sent[sock] = time.perf_counter()
        sock.sendall(request)
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, b"")
    done: dict[socket.socket, tuple[float, bytes]] = {}
    buffers = {sock: b"" for sock in conns}
    deadline = time.time() + 60
    while len(done) < len(conns) and time.time() < deadline:
        for key, _ in selector.select(timeout=1):
            sock = key.fileobj
            chunk = sock.recv(65536)
            buffers[sock] += chunk
            head, sep, body = buffers[sock].partition(b"\r\n\r\n")
            if sep:
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                if len(body) >= length:
                    done[sock] = (time.perf_counter(), buffers[sock])
                    selector.unregister(sock)
            if not chunk and sock not in done:
                selector.unregister(sock)
                done[sock] = (time.perf_counter(), buffers[sock])
    latencies, versions, statuses = [], [], []
    for sock in conns:
        finished, raw = done.get(sock, (float("nan"), b""))
        head, _, body = raw.partition(b"\r\n\r\n")
        statuses.append(int(head.split(b" ")[1]) if head else 0)
        versions.append(json.loads(body)["version"] if statuses[-1] == 200 else None)
        latencies.append((finished - sent[sock]) * 1000)
        sock.close()
    return {"latencies": latencies, "versions": versions, "statuses": statuses}


def storms(redis_port: int) -> dict:
    url = f"redis://127.0.0.1:{redis_port}/0"
    prefix = PREFIX + "storm:"
    servers = [run.Server(f"instance{i}", [os.path.join(run.BIN, "pullrefresh"), "--port", "0", "--quiet",
                                          "--reload-delay", "1s", "--redis", url, "--redis-prefix", prefix])
               for i in range(INSTANCES)]
    ports = [server.port for server in servers]
    subscriber = Subscriber(redis_port, prefix + "versions")
    subscriber.start()
    subscriber.ready.wait(5)
    pollers = [Poller(port) for port in ports]
    for poller in pollers:
        poller.start()
    rows, propagation, latencies = [], [], []
    try:
        for number in range(STORMS):
            reloads_before = int(redis_get(redis_port, prefix + "reloads") or 0)
            version_before = int(redis_get(redis_port, prefix + "version"))
            arrivals_before = len(subscriber.arrivals)
            result = storm(ports)
            target = version_before + 1
            deadline = time.time() + 10
            while time.time() < deadline and not all(target in p.first_seen for p in pollers):
                time.sleep(0.01)
            reloads = int(redis_get(redis_port, prefix + "reloads")) - reloads_before
            commit = subscriber.arrivals[arrivals_before] if len(subscriber.arrivals) > arrivals_before else None
            lags = [max(0.0, (p.first_seen[target] - commit) * 1000) for p in pollers
                    if commit is not None and target in p.first_seen]
            propagation += lags
            latencies += result["latencies"]
            rows.append({"storm": number + 1, "reloads": reloads,
                         "versions": sorted({v for v in result["versions"] if v is not None}),
                         "ok": result["statuses"].count(200), "lags": lags,
                         "p50": statistics.median(result["latencies"]),
                         "p99": sorted(result["latencies"])[int(0.99 * len(result["latencies"])) - 1]})
            run.log(f"storm {number + 1}: {reloads} reload(s), versions {rows[-1]['versions']}, "
                    f"{rows[-1]['ok']}/{STORM_SIZE} ok, refresh p50 {rows[-1]['p50']:.0f} ms "
                    f"p99 {rows[-1]['p99']:.0f} ms, propagation {', '.join(f'{x:.1f}' for x in lags)} ms")
            time.sleep(0.3)
        bodies = {run.fetch(port, "/api/items")[2] for port in ports}
    finally:
        for poller in pollers:
            poller.stopping = True
        for server in servers:
            server.stop()
    ordered = sorted(latencies)
    lags = sorted(propagation)
    return {"rows": rows, "identical": len(bodies) == 1,
            "p50": statistics.median(ordered), "p99": ordered[int(0.99 * len(ordered)) - 1],
            "prop_p50": statistics.median(lags) if lags else float("nan"),
            "prop_p99": lags[max(0, int(0.99 * len(lags)) - 1)] if lags else float("nan"),
            "prop_max": lags[-1] if lags else float("nan"), "samples": len(lags)}


def report(tp: dict, st: dict, meta: dict) -> str:
    lines = [
        "# Cluster benchmarks (Redis backend)", "",
        f"`bench/cluster.py`, run by `make bench` after `run.py`. {meta['date']}, {meta['cpu']}, "
        f"{os.cpu_count()} cores, load before {meta['load']}; {'BENCH_QUICK' if run.QUICK else 'full'} run, "
        f"{run.ROUNDS} round(s) of {run.DURATION} s per wrk figure, {STORMS} storms.", "",
        "## Cached GETs: Redis backend vs in-memory (same run, same pinning)", "",
        "| Route | In-memory | Redis backend | Redis/in-memory | p99 in-memory / Redis | Server CPU per request"
        " in-memory / Redis | Other processes (max, cores) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for path, row in tp.items():
        memory, redis = row["memory"], row["redis"]
        lines.append(f"| `GET {path}` | {memory['rps']:,.0f} req/s | {redis['rps']:,.0f} req/s | "
                     f"{row['ratio']:.2f}x | {memory['p99']:.2f} / {redis['p99']:.2f} ms | "
                     f"{memory['us']:.1f} / {redis['us']:.1f} µs | "
                     f"{max(memory['foreign'], redis['foreign']):.2f} |")
    lines += [
        "", "Goal >= 0.95x: " + ("met" if all(r["ratio"] >= 0.95 for r in tp.values()) else "NOT met")
        + " (a GET reads the instance's own copy; no Redis round trip). 'Other processes' is the CPU"
        " that neither the servers, wrk nor this driver used during the runs (other work on the"
        " machine); above ~0.1 the absolute req/s are disturbed, the ratio and the CPU per request"
        " less so.", "",
        f"## {STORM_SIZE} refreshes over {INSTANCES} instances at once (`--reload-delay 1s`)", "",
        "| Storm | Upstream reloads | Versions answered | 200s | Refresh p50 | Refresh p99 | Propagation per instance |",
        "| ---: | ---: | --- | ---: | ---: | ---: | --- |",
    ]
    for row in st["rows"]:
        lines.append(f"| {row['storm']} | {row['reloads']} | {row['versions']} | {row['ok']} | {row['p50']:.0f} ms | "
                     f"{row['p99']:.0f} ms | {', '.join(f'{x:.1f}' for x in row['lags'])} ms |")
    one = all(row["reloads"] == 1 and len(row["versions"]) == 1 and row["ok"] == STORM_SIZE for row in st["rows"])
    lines += [
        "", f"- Exactly one upstream reload per storm, one version in all {STORM_SIZE} answers: "
        + ("yes, every storm" if one else "NO (see the table)") + ".",
        f"- Refresh latency over all storms: p50 {st['p50']:.0f} ms, p99 {st['p99']:.0f} ms (the reload itself "
        "waits 1 s upstream).",
        f"- Propagation after the commit ({st['samples']} samples: every instance, every storm): p50 "
        f"{st['prop_p50']:.1f} ms, p99 {st['prop_p99']:.1f} ms, max {st['prop_max']:.1f} ms. Goal <= 50 ms: "
        + ("met" if st["prop_p99"] <= 50 else "NOT met") + ".",
        "- After the storms every instance served byte-identical `GET /api/items`: "
        + ("yes" if st["identical"] else "NO") + ".",
        "", "Propagation is measured from the moment a subscriber in the driver receives the commit's",
        "PUBLISH to the first `/healthz` answer with the new version from each instance (one poller per",
        "instance, every ~0.5 ms), so it includes the instance's decode of the published snapshot.", "",
    ]
    return "\n".join(lines)


def main() -> int:
    run.ensure_tools()
    if not (os.environ.get("BENCH_NO_BUILD") and os.path.exists(os.path.join(run.BIN, "pullrefresh"))):
        run.run([run.SWIFT, "build", "-c", "release", "--product", "pullrefresh"])
    load = run.loadavg()
    redis_proc, redis_port = start_redis()
    try:
        tp = throughput(f"redis://127.0.0.1:{redis_port}/0")
        st = storms(redis_port)
    finally:
        run.stop(redis_proc)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               "unknown CPU")
    meta = {"date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"), "cpu": cpu, "load": load}
    text = report(tp, st, meta)
    with open(RESULTS, "w") as handle:
        handle.write(text)
    run.log("\n" + text)
    run.log(f"Wrote {os.path.relpath(RESULTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
