#!/usr/bin/env python3
"""Instructions per cached GET (`make bench`): ours and the C twin side by side under callgrind.
Writes bench/INSTRUCTIONS.md and prints the figures.

Throughput on this shared 2-core VM moves by 5-10% between runs; instruction counts do not. Each
server runs under `valgrind --tool=callgrind` twice, answering WARM requests and then either 0 or
REQUESTS more over one keep-alive connection with a browser's `Accept-Encoding: gzip, deflate,
br`; the difference of the two runs, divided by REQUESTS, is the work of one request (start-up
and shutdown cancel out), summed over every thread and split by function.

- Ours: `feed-bench --serve` (bench/FeedBench): the same app and server as pullrefresh, with
  metrics, one thread, a generated store of 500 items. (valgrind 3.19 crashes in the pullrefresh
  executable's signal thread, so its twin in the bench target is measured instead.)
- The twin: bench/mhd-twin.c serving the bytes and headers captured from ours just before, as in
  bench/compression.py.

libmicrohttpd 0.9.75 zeroes each connection's memory pool on every request (memset over
`--connection-memory`: ours 16 KiB, the twin libmicrohttpd's default 32 KiB); that is counted
apart, since valgrind runs memset as AVX2 stores while the CPU runs it as `rep stosb`, so its
instruction count says little about its time.

Env: BENCH_NO_BUILD=1 (use the existing release binaries), BENCH_REQUESTS=N (default 3000).
"""
from __future__ import annotations

import collections
import datetime
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (process bookkeeping, build, log)

RESULTS = os.path.join(run.ROOT, "bench", "INSTRUCTIONS.md")
FEED_BENCH = os.path.join(run.BIN, "feed-bench")
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "3000"))
WARM = 200
PATHS = ["/api/items", "/"]
ENCODINGS = "gzip, deflate, br"


def get(port: int, path: str, count: int) -> tuple[dict[str, str], bytes]:
    """`count` keep-alive GETs of `path`; the last response's headers and body."""
    request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"Accept-Encoding: {ENCODINGS}\r\n\r\n").encode()
    headers: dict[str, str] = {}
    body = b""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as connection:
        pending = b""
        for _ in range(count):
            connection.sendall(request)
            while b"\r\n\r\n" not in pending:
                pending += connection.recv(65536)
            head, pending = pending.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            headers = dict(line.split(": ", 1) for line in lines[1:])
            length = int(headers["Content-Length"])
            while len(pending) < length:
                pending += connection.recv(65536)
            body, pending = pending[:length], pending[length:]
    return headers, body


def start(argv: list[str], log_path: str) -> tuple[subprocess.Popen, int]:
    """Starts a server (under valgrind when asked) and waits for its `listening on` line."""
    log = open(log_path, "w")
    proc = run.spawn(argv, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 120
    while time.time() < deadline:
        with open(log_path) as f:
            match = re.search(r"listening on http://[^:\s]+:(\d+)", f.read())
        if match:
            return proc, int(match.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    run.stop(proc)
    raise RuntimeError(f"{argv[0]} did not start; see {log_path}")


def self_costs(profile: str) -> collections.Counter:
    """Instructions per function (self cost) in a callgrind profile, by readable name: Swift
    names demangled, source paths dropped, and a function without a symbol (libmicrohttpd's
    static ones) named by its library."""
    text = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", profile],
                          check=True, capture_output=True, text=True).stdout
    text = subprocess.run([run.SWIFT, "demangle", "--simplified"], input=text, check=True,
                          capture_output=True, text=True).stdout
    costs: collections.Counter = collections.Counter()
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S.*?)(?:\s+\[(.*)\])?$", line)
        if not match or "PROGRAM TOTALS" in line:
            continue
        name = match.group(2).split(":", 1)[1] if ":" in match.group(2) else match.group(2)
        if name.startswith("0x") and match.group(3):
            name = os.path.basename(match.group(3)).split(".so")[0] + " (internal)"
        costs[name] += int(match.group(1).replace(",", ""))
    return costs


def profile(argv: list[str], path: str, count: int, workdir: str, name: str) -> collections.Counter:
    """Self costs of one callgrind run that answers WARM + `count` requests."""
    out = os.path.join(workdir, f"{name}.{count}.callgrind")
    proc, port = start(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + argv,
                       os.path.join(workdir, f"{name}.{count}.log"))
    try:
        get(port, path, WARM + count)
    finally:
        run.stop(proc)  # SIGTERM; callgrind writes the profile as the process ends
    return self_costs(out)


def per_request(argv: list[str], path: str, workdir: str, name: str) -> dict:
    base = profile(argv, path, 0, workdir, name)
    full = profile(argv, path, REQUESTS, workdir, name)
    costs = {key: (full[key] - base.get(key, 0)) / REQUESTS for key in full}
    memset = sum(value for key, value in costs.items() if "memset" in key)
    total = sum(costs.values())
    top = sorted(((value, key) for key, value in costs.items() if "memset" not in key), reverse=True)
    return {"total": total, "memset": memset, "work": total - memset, "top": top[:8]}


def capture(path: str, workdir: str, index: int) -> list[str]:
    """Ours (not under valgrind) answers `path` once: the twin's route arguments for it."""
    proc, port = start([FEED_BENCH, "--serve", "60", "--items", "500"],
                       os.path.join(workdir, f"capture{index}.log"))
    try:
        headers, body = get(port, path, 1)
    finally:
        run.stop(proc)
    return run.twin_route(workdir, index, path, headers, body)


def main() -> int:
    if not shutil.which("valgrind"):
        run.apt_install(["valgrind"])
    run.build()
    with tempfile.TemporaryDirectory(prefix="pullrefresh-instructions.") as workdir:
        routes: list[str] = []
        for index, path in enumerate(PATHS):
            routes += capture(path, workdir, index)
        ours_argv = [FEED_BENCH, "--serve", "600", "--items", "500"]
        twin_argv = [run.TWIN_BIN, "--poll", "--headers", "0", "1"] + routes
        rows = []
        for path in PATHS:
            ours = per_request(ours_argv, path, workdir, "ours")
            twin = per_request(twin_argv, path, workdir, "twin")
            rows.append((path, ours, twin))
            run.log(f"GET {path}: ours {ours['work']:,.0f} instructions per request (+ memset "
                    f"{ours['memset']:,.0f}), twin {twin['work']:,.0f} (+ memset {twin['memset']:,.0f})")
    write(rows)
    return 0


def write(rows: list) -> None:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Instructions per cached GET: ours and the C twin",
        "",
        f"Run {stamp} by `python3 bench/instructions.py` (part of `make bench`); callgrind "
        f"(valgrind {subprocess.run(['valgrind', '--version'], capture_output=True, text=True).stdout.strip()}), "
        f"{REQUESTS:,} requests over one keep-alive connection after {WARM} to warm up, "
        f"`Accept-Encoding: {ENCODINGS}` (both answer br). Deterministic: other processes do not "
        "change these counts. Method in the script's docstring.",
        "",
        "| request | ours | C twin | ours ÷ twin | ours, pool memset | twin, pool memset |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for path, ours, twin in rows:
        lines.append(f"| GET {path} | {ours['work']:,.0f} | {twin['work']:,.0f} | "
                     f"{ours['work'] / twin['work']:.2f}× | {ours['memset']:,.0f} (16 KiB) | "
                     f"{twin['memset']:,.0f} (32 KiB) |")
    lines += [
        "",
        "Instructions per request of every thread, libmicrohttpd's and the kernel's entry stubs "
        "included, the pool memset apart (see the docstring). Ours answers these repeats from its "
        "stored responses ([docs/compression.md](../docs/compression.md#stored-responses)): what it spends on top of the twin is the "
        "match (one pass over the request's header fields), a fresh request id written into the "
        "pooled response, the per-request context, the URI and completion callbacks, metrics.",
        "",
        "Where ours spends most (self instructions per request, memset apart):",
        "",
    ]
    for path, ours, twin in rows:
        for who, figures in (("ours", ours), ("twin", twin)):
            top = ", ".join(f"{name[:70]} {value:,.0f}" for value, name in figures["top"])
            lines.append(f"- GET {path}, {who}: {top}")
    with open(RESULTS, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
