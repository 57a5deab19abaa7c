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
import os
import re
import resource
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
READER_BIN = os.path.join(run.ROOT, ".build", "bench", "eventstreams")
SAMPLER_BIN = os.path.join(run.ROOT, ".build", "bench", "getsampler")
# One GET every SAMPLE_INTERVAL_US microseconds (0: back to back, as the Python sampler did).
SAMPLE_INTERVAL_US = int(os.environ.get("BENCH_SAMPLE_INTERVAL_US", "500"))
READER_FLAGS = [] if os.environ.get("BENCH_READER_NORMAL") else ["--idle"]


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


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def overlapping(samples: list[tuple[float, float]], windows: list[tuple[float, float]]) -> list[float]:
    """Latencies of the samples that were out at some moment of one of the windows."""
    return [lat for start, lat in samples if any(start < end and start + lat > begin for begin, end in windows)]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Streams:
    """Every stream, opened and read by bench/eventstreams.c (one epoll loop, SCHED_IDLE)."""

    def __init__(self, port: int, count: int):
        self.count = count
        self.proc = run.spawn([READER_BIN, str(port), str(count)] + READER_FLAGS,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.proc.stdout.readline()
        if not ready.startswith("ready "):
            raise SystemExit(f"bench/events.py: the stream reader failed: {ready!r}")
        self.open_seconds = float(ready.split()[1])

    def wait_all(self, version: int) -> tuple[list[float], list[float]]:
        """When the event `id: version` reached each stream's socket (kernel timestamps) and when
        the reader had it, as time.monotonic() values."""
        self.proc.stdin.write(f"wait {version}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line.startswith("arrivals "):
            raise SystemExit(f"bench/events.py: the stream reader failed: {line!r}")
        kernel, read = line[len("arrivals "):].split("|")
        return [float(value) for value in kernel.split()], [float(value) for value in read.split()]

    def close(self) -> None:
        self.proc.stdin.write("quit\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


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
        streams = Streams(port, STREAMS)
        open_seconds = streams.open_seconds
        time.sleep(1)
        stream_rss = rss_mb(proc.pid)
        run.log(f"events: {STREAMS} open in {open_seconds:.1f} s; VmRSS {stream_rss:.1f} MB")

        total = IDLE_SECONDS + RELOADS * 2.0 + 5
        sampling = run.spawn([SAMPLER_BIN, str(port), str(total), str(SAMPLE_INTERVAL_US)],
                             stdout=subprocess.PIPE, text=True)
        sampling_started = time.monotonic()
        cores_before, measured_cpu = run.core_times(), cpu_seconds(proc.pid) + cpu_seconds(streams.proc.pid)
        self_before = sum(os.times()[:2])
        time.sleep(IDLE_SECONDS)
        idle_end = time.monotonic()
        windows, fanouts, deliveries, reads, fanout_cpu = [], [], [], [], []
        for _ in range(RELOADS):
            cpu_before = cpu_seconds(proc.pid)
            sent, version = post_refresh(port)
            arrivals, read_times = streams.wait_all(version)
            fanout_cpu.append(cpu_seconds(proc.pid) - cpu_before)
            windows.append((sent, max(arrivals)))
            fanouts.append((min(arrivals), max(arrivals)))
            deliveries.extend(arrival - sent for arrival in arrivals)
            reads.extend(read - sent for read in read_times)
            time.sleep(1.5)
        measured_cpu = cpu_seconds(proc.pid) + cpu_seconds(streams.proc.pid) - measured_cpu
        wall = time.monotonic() - sampling_started
        busy = sum(run.core_busy(cores_before, run.core_times()).values())
        sampler_before = os.times()
        output, _ = sampling.communicate(timeout=total + 30)
        sampler_cpu = sum(os.times()[2:4]) - sum(sampler_before[2:4])
        self_cpu = sum(os.times()[:2]) - self_before
        samples = [tuple(float(value) for value in line.split()) for line in output.splitlines()]
        peak_rss = rss_mb(proc.pid)
        streams.close()
    finally:
        run.stop(proc)

    idle = [lat for start, lat in samples if sampling_started + 0.5 <= start < idle_end]
    during = overlapping(samples, fanouts)
    with_reload = overlapping(samples, windows)
    figures = {
        "streams": STREAMS, "open_seconds": open_seconds, "base_rss": base_rss,
        "stream_rss": stream_rss, "peak_rss": peak_rss,
        "delivery_p50": statistics.median(deliveries), "delivery_p99": percentile(deliveries, 0.99),
        "delivery_max": max(deliveries), "read_p50": statistics.median(reads),
        "read_p99": percentile(reads, 0.99), "fanout_ms": [1000 * (end - begin) for begin, end in windows],
        "fanout_cpu_ms": [1000 * cpu for cpu in fanout_cpu],
        "idle_p50": statistics.median(idle), "idle_p99": percentile(idle, 0.99), "idle_n": len(idle),
        "during_p50": statistics.median(during), "during_p99": percentile(during, 0.99),
        "during_n": len(during), "reload_p99": percentile(with_reload, 0.99), "reload_n": len(with_reload),
        # Other processes: busy core time this run did not account for (our driver's share is an
        # upper bound: the sampler's CPU is counted for its whole life).
        "foreign": max(0.0, busy - (measured_cpu + sampler_cpu) / wall - self_cpu / wall),
    }
    write_report(figures)
    return 0


def build() -> None:
    if os.environ.get("BENCH_NO_BUILD") and os.path.exists(os.path.join(run.BIN, "pullrefresh")):
        run.log("BENCH_NO_BUILD set: using the existing release binary")
    else:
        run.run([run.SWIFT, "build", "-c", "release", "--product", "pullrefresh"])
    os.makedirs(os.path.dirname(READER_BIN), exist_ok=True)
    run.run(["gcc", "-O2", "-Wall", "-o", READER_BIN, "bench/eventstreams.c"])
    run.run(["gcc", "-O2", "-Wall", "-o", SAMPLER_BIN, "bench/getsampler.c"])


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
        f"| the reader had it p50 / p99 (SCHED_IDLE: it reads when the cores are free) | "
        f"{1000 * f['read_p50']:.0f} / {1000 * f['read_p99']:.0f} ms |",
        f"| fan-out per reload (POST sent → last stream has the event) | "
        f"{' / '.join(f'{ms:.0f}' for ms in f['fanout_ms'])} ms |",
        f"| server CPU per reload (POST + fan-out) | {' / '.join(f'{ms:.0f}' for ms in f['fanout_cpu_ms'])} ms |",
        f"| GET /api/items p50 / p99 idle ({f['idle_n']} samples) | {1000 * f['idle_p50']:.3f} / {1000 * f['idle_p99']:.3f} ms |",
        f"| GET /api/items p50 / p99 during fan-out, first to last event ({f['during_n']} samples) |"
        f" {1000 * f['during_p50']:.3f} / {1000 * f['during_p99']:.3f} ms |",
        f"| GET /api/items p99 from the POST to the last event ({f['reload_n']} samples) | {1000 * f['reload_p99']:.3f} ms |",
        f"| other processes' CPU during the measured phase | {100 * f['foreign']:.0f}% of a core |",
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
