#!/usr/bin/env python3
"""`make bench`: PullRefresh against a C twin on libmicrohttpd, plus in-process and size figures.

Scenarios (see bench/README.md):
  1-3  GET /api/items, GET /, GET /static/pull-to-refresh.js — ours vs bench/mhd-twin.c serving
       the very bytes ours returned (checked byte for byte before measuring)
  4    GET /api/items with a matching If-None-Match (304) — ours vs twin
  5    refresh storms: 200 concurrent POST /api/refresh (reload delay 1 s) back to back while wrk
       GETs /api/items; GET p99 during storms vs idle; exactly one reload per storm
  6    cold work in-process (feed-bench): 100-item page render and JSON encode
  7    server RSS idle and at 256 keep-alive connections
  8    what the page requests (found in the served page's <script src> and stylesheet <link>s),
       raw, gzip -9 and brotli -q 11: the gesture's JS + CSS against the budget, the page's own
       script (feed.js) and look (app.css) beside it

`python3 bench/run.py --assets` runs only scenario 8 (one server, a second or two) and rewrites
its rows in bench/RESULTS.md.

Environment: BENCH_QUICK=1 (3 s runs, fewer rounds), SWIFT (default swift), BENCH_ROUNDS,
BENCH_DURATION (seconds per wrk run), BENCH_NO_BUILD=1 (use existing release binaries).
Stdlib only. Everything it starts is stopped by PID, also on Ctrl-C and errors.
"""
from __future__ import annotations

import atexit
import datetime
import gzip
import html.parser
import http.client
import json
import os
import re
import resource
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
DURATION = int(os.environ.get("BENCH_DURATION", "3" if QUICK else "10"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "1" if QUICK else "3"))
WARMUP = 1 if QUICK else 2
STORM_ROUNDS = 1 if QUICK else 2
CONNECTIONS = 64
MEMORY_CONNECTIONS = 256
STORM_SIZE = 200
SWIFT = os.environ.get("SWIFT", "swift")
BIN = os.path.join(ROOT, ".build", "release")
TWIN_BIN = os.path.join(ROOT, ".build", "bench", "mhd-twin")
STORM_BIN = os.path.join(ROOT, ".build", "bench", "storm")
RESULTS = os.path.join(ROOT, "bench", "RESULTS.md")

# ---------------------------------------------------------------------------------------------
# Process bookkeeping: every child is registered and stopped by its PID.

_children: list[subprocess.Popen] = []
_temp_dirs: list[str] = []


def log(message: str) -> None:
    print(message, flush=True)


def spawn(argv: list[str], **kwargs) -> subprocess.Popen:
    proc = subprocess.Popen(argv, **kwargs)
    _children.append(proc)
    return proc


def stop(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    if proc.poll() is None:
        try:
            os.kill(proc.pid, signal.SIGTERM)
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass
    if proc in _children:
        _children.remove(proc)


def stop_all() -> None:
    for proc in list(reversed(_children)):
        stop(proc, timeout=5)
    for path in _temp_dirs:
        shutil.rmtree(path, ignore_errors=True)


def _on_signal(signum, _frame):
    stop_all()
    sys.stderr.write(f"\nbench: interrupted by signal {signum}; stopped every process it started\n")
    os._exit(130)


atexit.register(stop_all)
signal.signal(signal.SIGINT, _on_signal)
signal.signal(signal.SIGTERM, _on_signal)

# ---------------------------------------------------------------------------------------------
# Setup: tools, builds, pinning.


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    log("$ " + " ".join(argv))
    return subprocess.run(argv, check=True, **kwargs)


def apt_install(packages: list[str]) -> None:
    prefix = [] if os.geteuid() == 0 else (["sudo"] if shutil.which("sudo") else [])
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(prefix + ["apt-get", "update", "-qq"], env=env)
    run(prefix + ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + packages, env=env)


def ensure_tools() -> None:
    missing = []
    if not shutil.which("wrk"):
        missing.append("wrk")
    if not shutil.which("gcc"):
        missing.append("gcc")
    if not shutil.which("pkg-config"):
        missing.append("pkg-config")
    if not shutil.which("pkg-config") or subprocess.run(
            ["pkg-config", "--exists", "libmicrohttpd"], capture_output=True).returncode != 0:
        missing.append("libmicrohttpd-dev")
    if not shutil.which("taskset"):
        missing.append("util-linux")
    missing += brotli_missing()
    if missing:
        log(f"Installing missing Debian packages: {' '.join(missing)}")
        apt_install(missing)


def twin_route(workdir: str, index: int, path: str, headers: dict[str, str], body: bytes) -> list[str]:
    """mhd-twin `--headers` arguments for one route answering `body` with the headers ours sent
    (those libmicrohttpd adds itself and Content-Type, which the route names, left out)."""
    body_file, header_file = os.path.join(workdir, f"c{index}"), os.path.join(workdir, f"c{index}.h")
    with open(body_file, "wb") as f:
        f.write(body)
    with open(header_file, "w") as f:
        for name, value in headers.items():
            if name.lower() not in ("date", "content-length", "connection", "content-type"):
                f.write(f"{name}: {value}\n")
    return [path, headers["Content-Type"], body_file, "-", header_file]


def build() -> None:
    if os.environ.get("BENCH_NO_BUILD") and os.path.exists(os.path.join(BIN, "pullrefresh")):
        log("BENCH_NO_BUILD set: using the existing release binaries")
    else:
        run([SWIFT, "build", "-c", "release", "--product", "pullrefresh"])
        run([SWIFT, "build", "-c", "release", "--product", "feed-bench"])
    os.makedirs(os.path.dirname(TWIN_BIN), exist_ok=True)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libmicrohttpd"], check=True,
                           capture_output=True, text=True).stdout.split()
    run(["gcc", "-O2", "-Wall", "-o", TWIN_BIN, "bench/mhd-twin.c"] + flags)
    run(["gcc", "-O2", "-Wall", "-o", STORM_BIN, "bench/storm.c"])


CORES = len(os.sched_getaffinity(0))
PINNED = CORES >= 2
SERVER_CPU = "0"
CLIENT_CPU = "1"
# One worker thread each: with the servers pinned to one core, more threads would only
# time-slice that core. Without pinning both get the core count.
THREADS = 1 if PINNED else max(1, os.cpu_count() or 1)


def server_prefix() -> list[str]:
    return ["taskset", "-c", SERVER_CPU] if PINNED else []


def client_prefix() -> list[str]:
    return ["taskset", "-c", CLIENT_CPU] if PINNED else []


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def core_times() -> dict[str, tuple[int, int]]:
    """(busy, total) clock ticks per core from /proc/stat."""
    times = {}
    with open("/proc/stat") as f:
        for line in f:
            if re.match(r"cpu\d+ ", line):
                name, *values = line.split()
                values = [int(v) for v in values]
                idle = values[3] + values[4]
                times[name] = (sum(values[:8]) - idle, sum(values[:8]))
    return times


def core_busy(before: dict, after: dict) -> dict[str, float]:
    """Busy fraction per core between two core_times() samples."""
    busy = {}
    for name in after:
        total = after[name][1] - before[name][1]
        busy[name] = (after[name][0] - before[name][0]) / total if total else 0.0
    return busy


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def wait_for_quiet(limit: float) -> str:
    """Waits up to `limit` seconds for both cores to be at least 90% idle over 2 s."""
    deadline = time.time() + limit
    while True:
        before = core_times()
        time.sleep(2)
        busy = core_busy(before, core_times())
        worst = max(busy.values())
        if worst <= 0.10:
            return f"machine quiet (busiest core {worst * 100:.0f}% over 2 s)"
        if time.time() >= deadline:
            return f"machine NOT quiet: busiest core {worst * 100:.0f}% busy over 2 s before starting"
        log(f"waiting for a quiet machine: busiest core {worst * 100:.0f}% busy")

# ---------------------------------------------------------------------------------------------
# Servers.


class Server:
    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.argv = argv
        self.proc = spawn(server_prefix() + argv, stdout=subprocess.PIPE, stderr=None, text=True)
        deadline = time.time() + 30
        line = ""
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{name} exited before listening (status {self.proc.poll()})")
            match = re.search(r"listening on http://[^:]+:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        else:
            raise RuntimeError(f"{name} did not print its port: {line!r}")
        # Keep draining stdout so the child never blocks on a full pipe.
        threading.Thread(target=lambda: self.proc.stdout.read(), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        stop(self.proc)

    def cpu_seconds(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory(self) -> dict[str, int]:
        values = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0])  # kB
        return values


# Extra flags for our server, e.g. BENCH_SERVER_ARGS="--connection-memory 16384" to try a setting.
SERVER_ARGS = os.environ.get("BENCH_SERVER_ARGS", "").split()
# The twin waits with poll(), like our server's default (--polling poll); BENCH_TWIN_POLL=0 gives
# it epoll, for comparing with `BENCH_SERVER_ARGS="--polling epoll"`.
TWIN_POLL = os.environ.get("BENCH_TWIN_POLL", "1") not in ("", "0")


def ours(extra: list[str] = (), threads: int = THREADS) -> Server:
    return Server("pullrefresh", [os.path.join(BIN, "pullrefresh"), "--port", "0", "--quiet",
                                  "--templates", "Templates", "--public", "Public",
                                  "--threads", str(threads)] + SERVER_ARGS + list(extra))


def fetch(port: int, path: str, headers: dict | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, dict(resp.getheaders()), body
    finally:
        conn.close()


def keeps_alive(port: int, path: str) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        for _ in range(2):
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            if resp.will_close:
                return False
        return True
    finally:
        conn.close()


def health_version(port: int) -> int:
    status, _, body = fetch(port, "/healthz")
    assert status == 200, f"/healthz answered {status}"
    return int(json.loads(body)["version"])

# ---------------------------------------------------------------------------------------------
# wrk.

_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(match.group(1)) * _UNITS[match.group(2)]


def wrk_argv(url: str, seconds: int, connections: int, headers: list[str] = ()) -> list[str]:
    argv = client_prefix() + ["wrk", "-t", "1" if PINNED else "2", "-c", str(connections),
                              "-d", f"{seconds}s", "--latency", "--timeout", "5s"]
    for header in headers:
        argv += ["-H", header]
    return argv + [url]


def parse_wrk(output: str) -> dict:
    result = {"rps": 0.0, "p50": float("nan"), "p99": float("nan"), "errors": 0, "requests": 0}
    if m := re.search(r"Requests/sec:\s+([\d.]+)", output):
        result["rps"] = float(m.group(1))
    if m := re.search(r"^\s+50%\s+(\S+)", output, re.M):
        result["p50"] = _ms(m.group(1))
    if m := re.search(r"^\s+99%\s+(\S+)", output, re.M):
        result["p99"] = _ms(m.group(1))
    if m := re.search(r"(\d+) requests in", output):
        result["requests"] = int(m.group(1))
    if m := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output):
        result["errors"] += sum(int(x) for x in m.groups())
    if m := re.search(r"Non-2xx or 3xx responses: (\d+)", output):
        result["errors"] += int(m.group(1))
    return result


def wrk(server: Server, path: str, seconds: int, connections: int = CONNECTIONS,
        headers: list[str] = ()) -> dict:
    argv = wrk_argv(server.url + path, seconds, connections, headers)
    sample = Sample(server)
    proc = spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output, _ = proc.communicate(timeout=seconds + 60)
    _children.remove(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"wrk failed ({proc.returncode}):\n{output}")
    result = parse_wrk(output)
    sample.finish(result)
    return result


class Sample:
    """CPU accounting around one load run: the server's CPU, every core's busy time, and what
    neither the server, wrk nor this driver used (other processes on the machine)."""

    def __init__(self, server: Server):
        self.server = server
        self.start = time.time()
        self.server_cpu = server.cpu_seconds()
        self.client_cpu = children_cpu() + self_cpu()
        self.cores = core_times()

    def finish(self, result: dict) -> None:
        wall = time.time() - self.start
        busy = core_busy(self.cores, core_times())
        server_cpu = self.server.cpu_seconds() - self.server_cpu
        client_cpu = children_cpu() + self_cpu() - self.client_cpu
        result["cpu"] = server_cpu / wall
        result["cpu_us_per_req"] = server_cpu / result["requests"] * 1e6 if result["requests"] else float("nan")
        result["cores"] = busy
        result["foreign"] = max(0.0, sum(busy.values()) - (server_cpu + client_cpu) / wall)

# ---------------------------------------------------------------------------------------------
# Scenarios 1-4: ours vs twin, interleaved.


def capture(server: Server, workdir: str, etag_path: str) -> tuple[list[tuple], dict]:
    """Fetches the bodies the twin will serve; returns twin route args and the captured data."""
    routes, captured = [], {}
    for index, path in enumerate(["/", "/api/items", "/static/pull-to-refresh.js"]):
        status, headers, body = fetch(server.port, path)
        assert status == 200, f"{path} answered {status}"
        file = os.path.join(workdir, f"body{index}")
        with open(file, "wb") as f:
            f.write(body)
        etag = headers.get("ETag", "-") if path == etag_path else "-"
        routes.append((path, headers["Content-Type"], file, etag))
        captured[path] = (headers["Content-Type"], body, headers.get("ETag"))
    return routes, captured


def check_twin(ours_server: Server, twin: Server, captured: dict) -> list[str]:
    lines, ok = [], True
    for path, (ctype, body, etag) in captured.items():
        s1, h1, b1 = fetch(ours_server.port, path)
        s2, h2, b2 = fetch(twin.port, path)
        same = s1 == s2 == 200 and b1 == b2 == body and h1.get("Content-Type") == h2.get("Content-Type") == ctype
        ok &= same
        lines.append(f"  {path:28} {len(b1):6d} B  {ctype:32}  ours==twin: {'identical' if same else 'DIFFERENT'}")
    etag = captured["/api/items"][2]
    s1, _, b1 = fetch(ours_server.port, "/api/items", {"If-None-Match": etag})
    s2, _, b2 = fetch(twin.port, "/api/items", {"If-None-Match": etag})
    same304 = s1 == s2 == 304 and b1 == b2 == b""
    ok &= same304
    lines.append(f"  /api/items If-None-Match  -> ours {s1}, twin {s2}: {'identical' if same304 else 'DIFFERENT'}")
    alive = all(keeps_alive(s.port, p) for s in (ours_server, twin) for p in captured)
    ok &= alive
    lines.append(f"  keep-alive on both servers: {'yes' if alive else 'NO'}")
    lines.insert(0, f"Body check (ours vs C twin): {'PASS' if ok else 'FAIL'}")
    return lines, ok


def compare(scenarios: list[tuple], ours_server: Server, twin: Server, rounds: int = ROUNDS,
            duration: int = DURATION) -> dict:
    """Alternates ours and the twin (A B A B …) per scenario. Besides each side's medians, the
    result has `paired`: the median over rounds of ours ÷ twin within the round, two runs back to
    back, which cancels the slower swings of a shared machine that the medians of each side keep."""
    results = {}
    for key, label, path, headers in scenarios:
        log(f"\n[{key}] {label}: warm-up {WARMUP}s each, then {rounds} round(s) of {duration}s, ours/twin interleaved")
        for server in (ours_server, twin):
            wrk(server, path, WARMUP, headers=headers)
        runs = {"ours": [], "twin": []}
        for round_index in range(rounds):
            for name, server in (("ours", ours_server), ("twin", twin)):
                r = wrk(server, path, duration, headers=headers)
                runs[name].append(r)
                log(f"  round {round_index + 1} {name:4}: {r['rps']:10.0f} req/s  p50 {r['p50']:.3f} ms  "
                    f"p99 {r['p99']:.3f} ms  errors {r['errors']}  server {r['cpu'] * 100:.0f}% CPU, "
                    f"{r['cpu_us_per_req']:.1f} µs/req; cores busy {cores_text(r)}; other processes "
                    f"{r['foreign'] * 100:.0f}% of a core")
        pairs = [o["rps"] / t["rps"] for o, t in zip(runs["ours"], runs["twin"]) if t["rps"]]
        results[key] = {"label": label, "ours": summarize(runs["ours"]), "twin": summarize(runs["twin"]),
                        "paired": statistics.median(pairs) if pairs else float("nan")}
    return results


def cores_text(result: dict) -> str:
    return " / ".join(f"{name} {value * 100:.0f}%" for name, value in sorted(result["cores"].items()))


def summarize(runs: list[dict]) -> dict:
    return {
        "rps": statistics.median(r["rps"] for r in runs),
        "p50": statistics.median(r["p50"] for r in runs),
        "p99": statistics.median(r["p99"] for r in runs),
        "errors": sum(r["errors"] for r in runs),
        "cpu": statistics.median(r["cpu"] for r in runs),
        "cpu_us_per_req": statistics.median(r["cpu_us_per_req"] for r in runs),
        "foreign": max(r["foreign"] for r in runs),
        "cores": {name: statistics.median(r["cores"][name] for r in runs) for name in runs[0]["cores"]},
        "rounds": [round(r["rps"]) for r in runs],
    }

# ---------------------------------------------------------------------------------------------
# Scenario 5: refresh storms.


class StormClient:
    """`size` keep-alive connections that each send one POST /api/refresh at the same moment,
    driven through bench/storm.c (a C client: it shares wrk's core, and a Python client's ~5 ms of
    CPU per storm showed up in wrk's latencies). The connections are opened before the measured
    run and reused storm after storm, as browsers reuse theirs; they come from 127.0.0.2, another
    client address, so they do not count against the per-IP connection limit of wrk's address."""

    def __init__(self, port: int, size: int):
        self.proc = spawn([STORM_BIN, str(port), str(size), "127.0.0.2"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
        ready = self.proc.stdout.readline()
        if not ready.startswith("storm ready"):
            raise RuntimeError(f"storm client failed to start: {ready!r}")

    def fire(self) -> dict:
        self.proc.stdin.write("fire\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        fields = dict(part.split("=", 1) for part in line.split())
        return {"ok": int(fields["ok"]), "failed": int(fields["failed"]),
                "versions": [int(v) for v in fields["versions"].split(",") if v],
                "slowest": float(fields["slowest_ms"]) / 1000, "reconnects": int(fields["reconnects"])}

    def close(self) -> None:
        self.proc.stdin.close()
        stop(self.proc)


def refresh_storms() -> dict:
    server = ours(["--reload-delay", "1s"])
    try:
        log(f"\n[5] refresh storms: {STORM_SIZE} concurrent POST /api/refresh (reload delay 1s) back to back "
            f"while wrk GETs /api/items; {STORM_ROUNDS} round(s) of idle {DURATION}s + storm {DURATION}s")
        wrk(server, "/api/items", WARMUP)
        idle, stormy, storms = [], [], []
        for round_index in range(STORM_ROUNDS):
            idle.append(wrk(server, "/api/items", DURATION))
            log(f"  round {round_index + 1} idle : {idle[-1]['rps']:10.0f} req/s  p50 {idle[-1]['p50']:.3f} ms  "
                f"p99 {idle[-1]['p99']:.3f} ms  errors {idle[-1]['errors']}  server {idle[-1]['cpu'] * 100:.0f}% CPU; "
                f"other processes {idle[-1]['foreign'] * 100:.0f}% of a core")
            client = StormClient(server.port, STORM_SIZE)
            argv = wrk_argv(server.url + "/api/items", DURATION, CONNECTIONS)
            sample = Sample(server)
            proc = spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            started = time.time()
            time.sleep(0.3)
            while time.time() - started < DURATION - 1.6:
                before = health_version(server.port)
                outcome = client.fire()
                after = health_version(server.port)
                ok, distinct, slowest = outcome["ok"], outcome["versions"], outcome["slowest"]
                storms.append({"before": before, "after": after, "ok": ok, "distinct": distinct,
                               "max_latency": slowest})
                log(f"    storm {len(storms)}: version {before} -> {after} ({after - before:+d}), "
                    f"{ok}/{STORM_SIZE} answered 200, versions seen {distinct}, slowest POST {slowest:.2f}s")
            output, _ = proc.communicate(timeout=DURATION + 60)
            _children.remove(proc)
            client.close()
            stormy.append(parse_wrk(output))
            sample.finish(stormy[-1])
            log(f"  round {round_index + 1} storm: {stormy[-1]['rps']:10.0f} req/s  p50 {stormy[-1]['p50']:.3f} ms  "
                f"p99 {stormy[-1]['p99']:.3f} ms  errors {stormy[-1]['errors']}  server {stormy[-1]['cpu'] * 100:.0f}% CPU; "
                f"other processes {stormy[-1]['foreign'] * 100:.0f}% of a core")
        exactly_one = all(s["after"] - s["before"] == 1 and s["ok"] == STORM_SIZE and len(s["distinct"]) == 1
                          for s in storms)
        log(f"  one reload per storm: {'YES' if exactly_one else 'NO'} "
            f"({len(storms)} storms, version moves {[s['after'] - s['before'] for s in storms]})")
        return {"idle": summarize(idle), "storm": summarize(stormy), "storms": storms, "exactly_one": exactly_one}
    finally:
        server.stop()

# ---------------------------------------------------------------------------------------------
# Scenario 6: in-process cold work.


def feed_bench() -> dict:
    seconds = "1" if QUICK else "2"
    log(f"\n[6] cold work in-process (feed-bench, {seconds}s per measurement, median of 5 batches)")
    proc = spawn(server_prefix() + [os.path.join(BIN, "feed-bench"), "--templates", "Templates",
                                    "--seconds", seconds, "--items", "100"],
                 stdout=subprocess.PIPE, text=True)
    output, _ = proc.communicate(timeout=300)
    _children.remove(proc)
    if proc.returncode != 0:
        raise RuntimeError(f"feed-bench failed ({proc.returncode})")
    for line in output.splitlines():
        if not line.startswith("FEEDBENCH_JSON"):
            log("  " + line)
    return json.loads(output.split("FEEDBENCH_JSON", 1)[1])

# ---------------------------------------------------------------------------------------------
# Scenario 7: memory.


def memory(make_server, name: str) -> dict:
    """RSS of a fresh server: idle (after one request per route), then under wrk -c 256 on `/`
    (VmRSS sampled every 0.1 s; VmHWM read at the end, while the connections are still open)."""
    server = make_server()
    try:
        for path in ("/", "/api/items", "/static/pull-to-refresh.js"):
            fetch(server.port, path)
        time.sleep(0.5)
        idle = server.memory()["VmRSS"]
        argv = wrk_argv(server.url + "/", 3, MEMORY_CONNECTIONS)
        proc = spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        peak_rss, hwm = 0, 0
        while proc.poll() is None:
            values = server.memory()
            peak_rss, hwm = max(peak_rss, values["VmRSS"]), values["VmHWM"]
            time.sleep(0.1)
        output, _ = proc.communicate()
        _children.remove(proc)
        load = parse_wrk(output)
        hwm_after = server.memory()["VmHWM"]
        stalled = load["rps"] < 1000
        log(f"  {name:26}: idle VmRSS {idle / 1024:5.1f} MB; at {MEMORY_CONNECTIONS} connections VmRSS "
            f"{peak_rss / 1024:5.1f} MB, VmHWM {max(hwm, hwm_after) / 1024:5.1f} MB; {load['rps']:8.0f} req/s, "
            f"{load['errors']} errors{'  <-- STALLED' if stalled else ''}")
        return {"name": name, "idle_kb": idle, "peak_rss_kb": peak_rss, "hwm_kb": max(hwm, hwm_after),
                "errors": load["errors"], "rps": load["rps"], "stalled": stalled}
    finally:
        server.stop()


# ---------------------------------------------------------------------------------------------
# Scenario 8: gesture asset sizes.

# The gesture component's files: what the 3,072 B budget counts. Everything else the page
# requests is the page's own (feed.js: its enhancements such as relative times; app.css: its look,
# list, grid, dark mode), measured and shown beside it but not counted.
GESTURE_FILES = ("/static/pull-to-refresh.js", "/static/pull-to-refresh.css")
PAGE_ROLES = {"/static/feed.js": "the page's enhancements", "/static/app.css": "the page's look"}


class _Assets(html.parser.HTMLParser):
    """Collects what a page makes the browser fetch: <script src> and <link rel=stylesheet>."""

    def __init__(self):
        super().__init__()
        self.scripts: list[str] = []
        self.styles: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.scripts.append(attrs["src"])
        elif tag == "link" and "stylesheet" in (attrs.get("rel") or "").split() and attrs.get("href"):
            self.styles.append(attrs["href"])


def brotli_missing() -> list[str]:
    """The Debian package to install when neither the brotli CLI nor its Python module is here."""
    try:
        import brotli  # noqa: F401
        return []
    except ImportError:
        return [] if shutil.which("brotli") else ["brotli"]


def brotli_size(data: bytes) -> int:
    try:
        import brotli
        return len(brotli.compress(data, quality=11))
    except ImportError:
        return len(subprocess.run(["brotli", "-c", "-q", "11"], input=data, capture_output=True,
                                  check=True).stdout)


def asset_sizes() -> dict:
    """The files the page actually requests, fetched from a running server exactly as served,
    each compressed on its own: gzip -9 (no name, no time stamp: what `gzip -9 <file` gives) and
    brotli at its highest quality."""
    server = ours()
    try:
        status, _, body = fetch(server.port, "/")
        if status != 200:
            raise RuntimeError(f"GET / answered {status}")
        page = _Assets()
        page.feed(body.decode("utf-8"))
        rows = []
        for path in page.scripts + page.styles:
            status, headers, data = fetch(server.port, path)
            if status != 200:
                raise RuntimeError(f"GET {path} answered {status}")
            rows.append({"file": path, "type": headers.get("Content-Type", "?"), "raw": len(data),
                         "gzip": len(gzip.compress(data, 9, mtime=0)), "brotli": brotli_size(data),
                         "budget": path in GESTURE_FILES,
                         "role": PAGE_ROLES.get(path, "not the gesture's")})
    finally:
        server.stop()
    counted = [r for r in rows if r["budget"]]
    if sorted(r["file"] for r in counted) != sorted(GESTURE_FILES):
        raise RuntimeError(f"the page does not request the gesture's files {GESTURE_FILES}")
    total = {key: sum(r[key] for r in counted) for key in ("raw", "gzip", "brotli")}
    total["requests"] = len(counted)
    total["scripts"] = len([r for r in counted if r["file"] in page.scripts])
    log("\n[8] what the page requests (from the served page's <script src> and stylesheet <link>s;"
        " each file compressed on its own, as served):")
    for r in rows:
        note = "" if r["budget"] else f"   ({r['role']}, not in the gesture budget)"
        log(f"  {r['file']:32} {r['raw']:6d} B raw  {r['gzip']:5d} B gzip -9  {r['brotli']:5d} B brotli{note}")
    log(f"  {'gesture JS + CSS':32} {total['raw']:6d} B raw  {total['gzip']:5d} B gzip -9  "
        f"{total['brotli']:5d} B brotli  ({total['requests']} requests, {total['scripts']} script)")
    return {"files": rows, "total": total}


def asset_rows(assets: dict) -> list[str]:
    rows = []
    for r in assets["files"]:
        label = r["file"] if r["budget"] else f"{r['file']} ({r['role']}, not in the budget)"
        rows.append(f"| 8 | {label} | {r['raw']:,} B raw, {r['gzip']:,} B gzip -9, {r['brotli']:,} B brotli |")
    t = assets["total"]
    rows.append(f"| 8 | gesture JS + CSS total ({t['requests']} requests, {t['scripts']} script) | "
                f"**{t['raw']:,} B raw, {t['gzip']:,} B gzip -9, {t['brotli']:,} B brotli** |")
    return rows


def asset_goal(assets: dict) -> tuple[bool, str]:
    gz = assets["total"]["gzip"]
    return gz <= 3072, f"{gz:,} B gzip -9 ({assets['total']['brotli']:,} B brotli)"


ASSET_DETAILS = ("- Assets (8): the files the served page requests, found in its `<script src>` and "
                 "stylesheet `<link>`s and fetched from the server as served; each compressed on its own "
                 "with gzip -9 and brotli -q 11 (the server sends them uncompressed; this is what a "
                 "compressing proxy or CDN would send). Only the gesture's `pull-to-refresh.js` + "
                 "`pull-to-refresh.css` count against the budget; `feed.js` (the page's enhancements) "
                 "and `app.css` (the page's look) are shown but not counted.")


def assets_only() -> int:
    """`bench/run.py --assets`: scenario 8 alone, then its rows in RESULTS.md are replaced."""
    missing = brotli_missing()
    if missing:
        log(f"Installing missing Debian packages: {' '.join(missing)}")
        apt_install(missing)
    if not (os.environ.get("BENCH_NO_BUILD") and os.path.exists(os.path.join(BIN, "pullrefresh"))):
        run([SWIFT, "build", "-c", "release", "--product", "pullrefresh"])
    try:
        assets = asset_sizes()
    finally:
        stop_all()
    if not os.path.exists(RESULTS):
        log(f"{os.path.relpath(RESULTS)} does not exist yet: run the whole bench once")
        return 0
    with open(RESULTS) as f:
        lines = f.read().split("\n")
    rows, (met, measured) = asset_rows(assets), asset_goal(assets)
    goal = f"| 8. gesture JS + CSS ≤ 3 KB gzipped | {measured} | {'met' if met else '**NOT met**'} |"
    when = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    details = ASSET_DETAILS + f" Re-measured on {when} by `python3 bench/run.py --assets`."
    out, placed = [], False
    for line in lines:
        if line.startswith("| 8 |"):
            if not placed:
                out += rows
                placed = True
        elif line.startswith("| 8. gesture"):
            out.append(goal)
        elif line.startswith("- Assets (8):"):
            out.append(details)
        else:
            out.append(line)
    with open(RESULTS, "w") as f:
        f.write("\n".join(out))
    log(f"Rewrote scenario 8 in {os.path.relpath(RESULTS)}")
    return 0

# ---------------------------------------------------------------------------------------------
# Report.


def fmt_ms(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def report(meta: dict, check_lines: list[str], compared: dict, storms: dict, cold: dict,
           mem: list[dict], assets: dict) -> tuple[str, list[str]]:
    http = ["| # | scenario | server | req/s | p50 ms | p99 ms | errors | server CPU µs/req | ours/C req/s |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for key in ("1", "2", "3", "4"):
        c = compared[key]
        c["ratio"] = c["ours"]["rps"] / c["twin"]["rps"] if c["twin"]["rps"] else float("nan")
        ratio_text = f"**{c['ratio']:.2f}×**"
        for name in ("ours", "twin"):
            r = c[name]
            http.append(f"| {key} | {c['label']} | {'ours' if name == 'ours' else 'C twin'} | {r['rps']:,.0f} | "
                        f"{fmt_ms(r['p50'])} | {fmt_ms(r['p99'])} | {r['errors']} | {r['cpu_us_per_req']:.1f} | "
                        f"{ratio_text if name == 'ours' else ''} |")
    for name, label in (("idle", "GET /api/items, idle"), ("storm", "GET /api/items during refresh storms")):
        r = storms[name]
        http.append(f"| 5 | {label} | ours | {r['rps']:,.0f} | {fmt_ms(r['p50'])} | {fmt_ms(r['p99'])} | "
                    f"{r['errors']} | {r['cpu_us_per_req']:.1f} | |")
    p99_ratio = storms["storm"]["p99"] / storms["idle"]["p99"]
    moves = [s["after"] - s["before"] for s in storms["storms"]]
    slowest = max((s["max_latency"] for s in storms["storms"]), default=float("nan"))

    page, enc = cold["page_100"], cold["json_100"]
    other = [
        "| # | measure | value |", "|---|---|---|",
        f"| 5 | storm GET p99 ÷ idle GET p99 | {p99_ratio:.2f}× ({fmt_ms(storms['storm']['p99'])} ms vs "
        f"{fmt_ms(storms['idle']['p99'])} ms) |",
        f"| 5 | storms of {STORM_SIZE} POSTs; version moves per storm | {len(moves)} storms; {moves}; every POST "
        f"200 with one shared version: {'yes' if storms['exactly_one'] else 'NO'}; slowest POST {slowest:.2f} s |",
        f"| 6 | 100-item page render, cold, in-process | {page['us_per_op']:.1f} µs/page = {page['ops_per_s']:,} "
        f"pages/s ({page['bytes']:,} B) |",
        f"| 6 | 100-item JSON encode, cold, in-process | {enc['us_per_op']:.1f} µs = {enc['ops_per_s']:,} "
        f"encodes/s ({enc['bytes']:,} B) |",
        f"| 6 | 12-item page render (what `/` serves by default) | {cold['page_12']['us_per_op']:.1f} µs/page |",
    ]
    for m in mem:
        other.append(f"| 7 | {m['name']}: VmRSS idle → at {MEMORY_CONNECTIONS} connections (VmHWM) | "
                     f"{m['idle_kb'] / 1024:.1f} MB → {m['peak_rss_kb'] / 1024:.1f} MB ({m['hwm_kb'] / 1024:.1f} MB); "
                     f"{m['rps']:,.0f} req/s, {m['errors']} errors{' — **stalled**' if m['stalled'] else ''} |")
    other += asset_rows(assets)

    goals = []

    def goal(name: str, met: bool, detail: str) -> None:
        goals.append(f"| {name} | {detail} | {'met' if met else '**NOT met**'} |")

    goal("1. GET /api/items ≥ 0.9× the C twin", compared["1"]["ratio"] >= 0.9, f"{compared['1']['ratio']:.2f}×")
    goal("2. GET / ≥ 0.9× the C twin", compared["2"]["ratio"] >= 0.9, f"{compared['2']['ratio']:.2f}×")
    goal("5. storm GET p99 ≤ 1.5× idle, exactly one reload per storm",
         p99_ratio <= 1.5 and storms["exactly_one"],
         f"{p99_ratio:.2f}×; one reload per storm: {'yes' if storms['exactly_one'] else 'NO'}")
    goal("6. 100-item page ≤ 250 µs", page["us_per_op"] <= 250, f"{page['us_per_op']:.1f} µs")
    ours_mem = [m for m in mem if m["name"].startswith("pullrefresh")]
    worst = max(ours_mem, key=lambda m: m["hwm_kb"])
    goal(f"7. RSS ≤ 30 MB at {MEMORY_CONNECTIONS} connections",
         worst["hwm_kb"] <= 30 * 1024 and not any(m["stalled"] or m["errors"] for m in ours_mem),
         f"{worst['hwm_kb'] / 1024:.1f} MB peak ({worst['name']})"
         + ("; a run stalled" if any(m["stalled"] for m in ours_mem) else ""))
    goal("8. gesture JS + CSS ≤ 3 KB gzipped", *asset_goal(assets))

    rounds = "; ".join(f"{k}: ours {compared[k]['ours']['rounds']}, twin {compared[k]['twin']['rounds']}"
                       for k in ("1", "2", "3", "4"))
    cores = "; ".join(f"{k}: ours {cores_text(compared[k]['ours'])}, twin {cores_text(compared[k]['twin'])}"
                      for k in ("1", "2", "3", "4"))
    out = [
        "# Benchmark results",
        "",
        f"Written by `bench/run.py` ({'quick mode, BENCH_QUICK=1' if QUICK else 'full mode'}) on {meta['date']}.",
        "",
        f"- Command: `{meta['command']}` ({meta['elapsed']:.0f} s including the build).",
        f"- Machine: {meta['cpu']}, {CORES} cores, {meta['mem']}; {meta['os']}; {meta['swift']}; "
        f"libmicrohttpd {meta['mhd']}; {meta['wrk']}.",
        f"- Load: average {meta['load_before']} before, {meta['load_after']} after; {meta['quiet']}; other "
        f"processes used at most {meta['foreign'] * 100:.0f}% of a core during any measured run"
        + (" — **the machine was shared; treat the figures as noisy**" if meta["busy"] else "") + ".",
        f"- Pinning: {meta['pinning']}",
        (f"- Extra flags for our server: `{' '.join(SERVER_ARGS)}` (BENCH_SERVER_ARGS).\n" if SERVER_ARGS else "")
        + f"- Servers: both with {THREADS} worker thread(s) (`--threads {THREADS}`; the twin's pool the same), "
        f"libmicrohttpd internal polling thread + {'poll' if TWIN_POLL else 'epoll'} (ours: "
        f"{'--polling epoll' if '--polling' in SERVER_ARGS and 'epoll' in SERVER_ARGS else 'the default, poll'}), "
        "keep-alive. With the servers sharing one core, more "
        "threads would only time-slice it.",
        f"- Load generator: `wrk -t {1 if PINNED else 2} -c {CONNECTIONS} -d {DURATION}s --latency`; {WARMUP} s "
        f"warm-up per server and scenario, then {ROUNDS} round(s) alternating ours / twin (A B A B …); each "
        "figure is the median round.",
        "",
        "## HTTP throughput and latency (scenarios 1–5)",
        "",
        *http,
        "",
        "`server CPU µs/req` is the server process's user + system CPU time per request (lower is better;"
        " it does not depend on whether wrk or the server was the bottleneck).",
        "",
        "## Other measures (scenarios 5–8)",
        "",
        *other,
        "",
        "## Goals",
        "",
        "| goal | measured | status |",
        "|---|---|---|",
        *goals,
        "",
        "## Identical responses (checked before measuring)",
        "",
        "```",
        *check_lines,
        "```",
        "",
        "## Details",
        "",
        f"- Per-round req/s — {rounds}.",
        f"- Median core utilisation during scenarios 1–4 — {cores}.",
        "- The C twin (`bench/mhd-twin.c`) answers each path with the bytes captured from ours just before, "
        "with the same Content-Type (and for `/api/items` the same ETag, a matching If-None-Match getting 304). "
        "It sends no other headers and keeps libmicrohttpd's defaults (32 KiB per connection); ours adds its "
        f"security and cache headers and uses {meta['connection_memory']} per connection (`--connection-memory`).",
        f"- Refresh storms (5): a server started with `--reload-delay 1s`; {STORM_SIZE} keep-alive connections "
        "from 127.0.0.2 (another client address, so the per-IP connection limit is not shared with wrk) each "
        "send POST /api/refresh at the same moment (`bench/storm.c`, a C client, so the client core stays "
        "free for wrk), storm after storm for the whole storm run; /healthz is read before and after each "
        "storm. The idle run is the same server and wrk command without storms.",
        "- Cold work (6): `feed-bench` (bench/FeedBench) renders the page and encodes the JSON for a 100-item "
        "snapshot with no cache, pinned like the servers; median of 5 timed batches.",
        f"- Memory (7): a fresh server, one request per route, VmRSS idle; then `wrk -c {MEMORY_CONNECTIONS}` "
        "on `/` with VmRSS sampled every 0.1 s and VmHWM read while the connections are open. A run below "
        "1,000 req/s is marked stalled (see [README.md](README.md#known-issue-libmicrohttpd-0975-stalls-at-128-ready-connections-epoll): "
        "libmicrohttpd 0.9.75's epoll loop waits when exactly 128 events are ready).",
        ASSET_DETAILS,
        "",
    ]
    return "\n".join(out), goals


def invocation() -> str:
    """The command as typed: `make bench` under make, else the script, with any BENCH_* settings."""
    settings = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                        if k.startswith("BENCH_") and k != "BENCH_COMMAND")
    command = "make bench" if "MAKELEVEL" in os.environ else "python3 bench/run.py"
    return os.environ.get("BENCH_COMMAND", (settings + " " if settings else "") + command)


def ours_connection_memory() -> str:
    """The server's default per-connection memory, as its --help states it."""
    try:
        text = subprocess.run([os.path.join(BIN, "pullrefresh"), "--help"], capture_output=True,
                              text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "its default memory"
    if m := re.search(r"--connection-memory.*\(default (\d+)\)", text):
        return f"{int(m.group(1)) // 1024} KiB"
    return "its default memory"


def machine() -> dict:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 1024 / 1024:.0f} GB RAM"
    except OSError:
        mem = "? RAM"

    def first_line(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True).stdout + ""
            return out.strip().splitlines()[0] if out.strip() else "?"
        except OSError:
            return "?"

    os_name = "Linux"
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            if m := re.search(r'PRETTY_NAME="([^"]+)"', f.read()):
                os_name = m.group(1)
    return {
        "cpu": cpu, "mem": mem, "os": os_name, "swift": first_line([SWIFT, "--version"]),
        "mhd": first_line(["pkg-config", "--modversion", "libmicrohttpd"]),
        "wrk": first_line(["wrk", "--version"]).split(" [")[0],
    }


def main() -> int:
    started = time.time()
    load_before = loadavg()
    log(f"PullRefresh benchmark ({'quick' if QUICK else 'full'} mode): {DURATION}s runs, {ROUNDS} round(s), "
        f"{CONNECTIONS} connections; load average {load_before}")
    ensure_tools()
    build()
    meta = machine()
    if PINNED:
        pinning = (f"servers pinned to core {SERVER_CPU} (`taskset -c {SERVER_CPU}`), wrk and this driver "
                   f"to core {CLIENT_CPU} (`taskset -c {CLIENT_CPU}`); {CORES} cores available.")
        os.sched_setaffinity(0, {int(CLIENT_CPU)})
    else:
        pinning = f"not pinned: only {CORES} core available, servers and wrk share it."
    log("Pinning: " + pinning)
    log(f"Both servers use {THREADS} worker thread(s).")
    quiet = wait_for_quiet(float(os.environ.get("BENCH_WAIT_QUIET", "0")))
    log(quiet[0].upper() + quiet[1:])

    workdir = tempfile.mkdtemp(prefix="pullrefresh-bench-")
    _temp_dirs.append(workdir)
    try:
        main_server = ours()
        routes, captured = capture(main_server, workdir, "/api/items")
        twin_argv = ([TWIN_BIN] + (["--poll"] if TWIN_POLL else []) + ["0", str(THREADS)]
                     + [part for route in routes for part in route])
        twin = Server("mhd-twin", twin_argv)
        check_lines, check_ok = check_twin(main_server, twin, captured)
        log("\n" + "\n".join(check_lines))
        if not check_ok:
            log("bench: the C twin does not answer like ours; refusing to compare")
            return 1
        etag = captured["/api/items"][2]
        compared = compare([
            ("1", "GET /api/items", "/api/items", []),
            ("2", "GET /", "/", []),
            ("3", "GET /static/pull-to-refresh.js", "/static/pull-to-refresh.js", []),
            ("4", "GET /api/items, If-None-Match → 304", "/api/items", [f"If-None-Match: {etag}"]),
        ], main_server, twin)
        main_server.stop()
        twin.stop()

        storms = refresh_storms()
        cold = feed_bench()
        log(f"\n[7] memory: idle and at {MEMORY_CONNECTIONS} keep-alive connections (wrk -c {MEMORY_CONNECTIONS} on /)")
        mem = [memory(ours, f"pullrefresh --threads {THREADS}")]
        if THREADS < 2 and CORES >= 2:
            mem.append(memory(lambda: ours(threads=2), "pullrefresh --threads 2"))
        mem.append(memory(lambda: Server("mhd-twin", twin_argv), f"C twin (pool {THREADS})"))
        assets = asset_sizes()
    finally:
        stop_all()

    runs = [compared[k][n] for k in compared for n in ("ours", "twin")] + [storms["idle"], storms["storm"]]
    foreign = max(r["foreign"] for r in runs)
    meta.update({
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "load_before": load_before, "load_after": loadavg(), "quiet": quiet, "foreign": foreign,
        "busy": foreign > 0.10 or "NOT quiet" in quiet,
        "pinning": pinning, "elapsed": time.time() - started, "connection_memory": ours_connection_memory(),
        "command": invocation(),
    })
    text, goals = report(meta, check_lines, compared, storms, cold, mem, assets)
    with open(RESULTS, "w") as f:
        f.write(text)
    log("\n" + text)
    log(f"Wrote {os.path.relpath(RESULTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(assets_only() if sys.argv[1:] == ["--assets"] else main())
