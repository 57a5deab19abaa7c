#!/usr/bin/env python3
"""Event-stream benchmark (`make bench`): 5,000 open `GET /api/events` streams on one instance,
then reloads. Writes bench/EVENTS.md and prints the figures.

1  Open STREAMS streams (raw sockets, one selector thread) and wait until each has its head and
   `retry:` hint; record the server's VmRSS (goal <= 150 MB with 5,000 streams).
2  A sampler process sends GET /api/items back to back over one keep-alive connection the whole
   time: the idle phase gives the idle p99; samples overlapping a fan-out give the p99 during
   fan-out (goal <= 2x idle).
3  RELOADS times: POST /api/refresh (--reload-delay 0), then wait until every stream has the
   event with the new id. Delivery latency per stream = from sending the POST (so it includes
   the reload itself) to the event arriving at that socket (goal p99 <= 1 s).

The server runs with limits raised for the run: RLIMIT_NOFILE to the hard limit (inherited),
--connection-limit, --per-ip-limit 0 (every socket comes from 127.0.0.1), --max-streams.
Env: BENCH_QUICK=1 (1,000 streams, 3 reloads), BENCH_NO_BUILD=1 (use the existing release binary),
BENCH_STREAMS=N. Standard library only; reuses run.py's process bookkeeping.
"""
from __future__ import annotations

import datetime
import multiprocessing
import os
import re
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (process bookkeeping, build, log)

RESULTS = os.path.join(run.ROOT, "bench", "EVENTS.md")
STREAMS = int(os.environ.get("BENCH_STREAMS", "1000" if run.QUICK else "5000"))
RELOADS = 3 if run.QUICK else 5
IDLE_SECONDS = 3.0
REQUEST = b"GET /api/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n"


def raise_descriptor_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 1 << 20
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if wanted < STREAMS * 2 + 200:
        sys.exit(f"bench/events.py: RLIMIT_NOFILE hard limit {hard} is too low for {STREAMS} streams")
    return wanted


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as handle:
        fields = dict(line.split(":", 1) for line in handle if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def sampler(port: int, seconds: float, out) -> None:
    """GET /api/items back to back on one keep-alive connection: (start, latency) pairs."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = b"GET /api/items HTTP/1.1\r\nHost: bench\r\n\r\n"
    samples = []
    end = time.monotonic() + seconds
    buffer = b""
    while time.monotonic() < end:
        start = time.monotonic()
        sock.sendall(request)
        while True:
            head_end = buffer.find(b"\r\n\r\n")
            if head_end >= 0:
                length = int(re.search(rb"(?i)content-length: *(\d+)", buffer[:head_end]).group(1))
                if len(buffer) >= head_end + 4 + length:
                    buffer = buffer[head_end + 4 + length:]
                    break
            buffer += sock.recv(262144)
        samples.append((start, time.monotonic() - start))
    sock.close()
    out.send(samples)
    out.close()


class Streams:
    """Every stream socket, read by one selector; records when each one first holds a marker."""

    def __init__(self, port: int, count: int):
        self.selector = selectors.DefaultSelector()
        self.buffers: dict[socket.socket, bytearray] = {}
        for index in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(REQUEST)
            sock.setblocking(False)
            self.buffers[sock] = bytearray()
            self.selector.register(sock, selectors.EVENT_READ)
            if index % 500 == 499:
                self.pump(0)  # keep the kernel buffers drained while opening

    def pump(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            try:
                data = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            if not data:
                raise SystemExit("bench/events.py: a stream closed early")
            self.buffers[key.fileobj].extend(data)

    def wait_all(self, marker: bytes, timeout: float) -> list[float]:
        """Arrival times (monotonic) of `marker` on every stream."""
        arrived: dict[socket.socket, float] = {}
        deadline = time.monotonic() + timeout
        for sock, buffer in self.buffers.items():
            if marker in buffer:
                arrived[sock] = time.monotonic()
        while len(arrived) < len(self.buffers):
            if time.monotonic() > deadline:
                raise SystemExit(f"bench/events.py: only {len(arrived)} streams got {marker!r}")
            for key, _ in self.selector.select(0.5):
                sock = key.fileobj
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    raise SystemExit("bench/events.py: a stream closed early")
                self.buffers[sock].extend(data)
                if sock not in arrived and marker in self.buffers[sock]:
                    arrived[sock] = time.monotonic()
        return list(arrived.values())

    def close(self) -> None:
        for sock in self.buffers:
            self.selector.unregister(sock)
            sock.close()


def post_refresh(port: int) -> tuple[float, int]:
    sent = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"POST /api/refresh HTTP/1.1\r\nHost: bench\r\nContent-Length: 0\r\n"
                     b"Connection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    version = int(re.search(rb"X-Feed-Version: (\d+)", data).group(1))
    return sent, version


def main() -> int:
    build()
    limit = raise_descriptor_limit()
    binary = os.path.join(run.BIN, "pullrefresh")
    argv = [binary, "--port", "0", "--quiet", "--reload-delay", "0", "--threads", "2",
            "--connection-limit", str(STREAMS + 100), "--per-ip-limit", "0",
            "--max-streams", str(STREAMS + 10), "--templates", "Templates", "--public", "Public"]
    proc = run.spawn(argv, stdout=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r":(\d+)$", proc.stdout.readline().strip()).group(1))
        base_rss = rss_mb(proc.pid)
        run.log(f"events: opening {STREAMS} streams on :{port} (RLIMIT_NOFILE {limit})")
        opened = time.monotonic()
        streams = Streams(port, STREAMS)
        streams.wait_all(b"retry:", 60)
        open_seconds = time.monotonic() - opened
        time.sleep(1)
        stream_rss = rss_mb(proc.pid)
        run.log(f"events: {STREAMS} open in {open_seconds:.1f} s; VmRSS {stream_rss:.1f} MB")

        receiver, sender = multiprocessing.Pipe(duplex=False)
        total = IDLE_SECONDS + RELOADS * 2.0 + 5
        sampling = multiprocessing.Process(target=sampler, args=(port, total, sender))
        sampling.start()
        sampling_started = time.monotonic()
        time.sleep(IDLE_SECONDS)
        idle_end = time.monotonic()
        windows, deliveries = [], []
        for _ in range(RELOADS):
            sent, version = post_refresh(port)
            arrivals = streams.wait_all(f"id: {version}\n".encode(), 30)
            windows.append((sent, max(arrivals)))
            deliveries.extend(arrival - sent for arrival in arrivals)
            time.sleep(1.5)
        samples = receiver.recv()
        sampling.join()
        peak_rss = rss_mb(proc.pid)
        streams.close()
    finally:
        run.stop(proc)

    idle = [lat for start, lat in samples if sampling_started + 0.5 <= start < idle_end]
    during = [lat for start, lat in samples
              if any(start < end and start + lat > begin for begin, end in windows)]
    figures = {
        "streams": STREAMS, "open_seconds": open_seconds, "base_rss": base_rss,
        "stream_rss": stream_rss, "peak_rss": peak_rss,
        "delivery_p50": statistics.median(deliveries), "delivery_p99": percentile(deliveries, 0.99),
        "delivery_max": max(deliveries), "fanout_ms": [1000 * (end - begin) for begin, end in windows],
        "idle_p99": percentile(idle, 0.99) if idle else float("nan"), "idle_n": len(idle),
        "during_p99": percentile(during, 0.99) if during else float("nan"), "during_n": len(during),
    }
    write_report(figures)
    return 0


def build() -> None:
    if os.environ.get("BENCH_NO_BUILD") and os.path.exists(os.path.join(run.BIN, "pullrefresh")):
        run.log("BENCH_NO_BUILD set: using the existing release binary")
    else:
        run.run([run.SWIFT, "build", "-c", "release", "--product", "pullrefresh"])


def write_report(f: dict) -> None:
    ratio = f["during_p99"] / f["idle_p99"] if f["idle_p99"] else float("nan")
    goals = [
        ("delivery p99 <= 1 s", f["delivery_p99"] <= 1.0, f"{1000 * f['delivery_p99']:.0f} ms"),
        (f"VmRSS with {f['streams']:,} streams <= 150 MB", f["stream_rss"] <= 150, f"{f['stream_rss']:.1f} MB"),
        ("GET /api/items p99 during fan-out <= 2x idle", ratio <= 2, f"{ratio:.2f}x"),
    ]
    lines = [
        "# Event streams: 5,000 open `GET /api/events`, one reload at a time",
        "",
        f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `make bench`"
        f" (bench/events.py); {os.cpu_count()} cores shared with other work, server and clients"
        " unpinned, release build, `--threads 2`, `--reload-delay 0`.",
        "",
        "| Goal | Met | Figure |",
        "|---|---|---|",
        *[f"| {name} | {'yes' if met else 'no'} | {figure} |" for name, met, figure in goals],
        "",
        "| Measure | Value |",
        "|---|---|",
        f"| streams opened (head + `retry:` on each) | {f['streams']:,} in {f['open_seconds']:.1f} s |",
        f"| VmRSS before / with the streams / at the end | {f['base_rss']:.1f} / {f['stream_rss']:.1f}"
        f" / {f['peak_rss']:.1f} MB |",
        f"| delivery latency p50 / p99 / max (from sending the POST) | {1000 * f['delivery_p50']:.0f}"
        f" / {1000 * f['delivery_p99']:.0f} / {1000 * f['delivery_max']:.0f} ms |",
        f"| fan-out per reload (POST sent → last stream has the event) | "
        f"{' / '.join(f'{ms:.0f}' for ms in f['fanout_ms'])} ms |",
        f"| GET /api/items p99 idle ({f['idle_n']} samples) | {1000 * f['idle_p99']:.2f} ms |",
        f"| GET /api/items p99 during fan-out ({f['during_n']} samples) | {1000 * f['during_p99']:.2f} ms |",
        "",
        "Delivery is measured at the client: one Python selector thread reads all sockets, so its",
        "own pace is part of the figure (an upper bound on the server's). The idle and fan-out",
        "samples come from one sequential keep-alive client in a separate process.",
        "",
        "The hub wakes streams 64 at a time with a 1 ms pause between batches (EventHub.swift).",
        "Measured on 2026-12-01 with 5,000 streams: waking all at once gave delivery p99 104 ms",
        "and GET p99 during fan-out 15x idle (1.49 ms); batches of 64, 137 ms and 5x; batches of",
        "16, 1,084 ms and 7x. What remains is mostly CPU: on 2 shared cores the Python reader of",
        "5,000 sockets, the sampler and the server's 2 threads compete during the fan-out.",
        "Pinning the server to core 0 and the driver to core 1 (as run.py does) made it 34x",
        "(4.6 ms): the sampler then waits behind the reader on its core, so on this machine the",
        "figure measures the driver as much as the server.",
        "",
    ]
    with open(RESULTS, "w") as handle:
        handle.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    # run.py stops every process it spawned at exit and on SIGINT/SIGTERM.
    sys.exit(main())
