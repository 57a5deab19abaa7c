#!/usr/bin/env python3
"""Memory after sustained mixed load: does RSS come back near where it started (no leak)?

Starts the release server, warms it up, records VmRSS, then runs rounds of wrk on `/api/items`,
`/`, a static file and 404s, each round followed by a storm of 200 concurrent
`POST /api/refresh` (every storm is a new version, so every cache is rebuilt), waits for the
server to go idle and records VmRSS again. Writes bench/MEMORY.md and prints the figures.
Run by `make bench` after bench/run.py (which builds the binaries); alone: python3 bench/leak.py.
"""
import os, re, signal, socket, subprocess, sys, threading, time
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("PULLREFRESH_BIN") or os.path.join(ROOT, ".build/release/pullrefresh")
ROUNDS = int(os.environ.get("LEAK_ROUNDS", "6"))
SECONDS = int(os.environ.get("LEAK_SECONDS", "4"))
MARGIN_MB = 2.0


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def split_mb(pid):
    """VmRSS split into private memory (RssAnon: the heap, stacks) and pages of mapped files
    (RssFile: the binary and shared libraries, shared with every process that maps them)."""
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return int(fields["RssAnon"].split()[0]) / 1024, int(fields["RssFile"].split()[0]) / 1024


def storm(port, n=200):
    def one():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(b"POST /api/refresh?since=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            while s.recv(65536):
                pass
            s.close()
        except OSError:
            pass
    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads: t.start()
    for t in threads: t.join()


def wrk(port, path):
    subprocess.run(["wrk", "-t", "1", "-c", "64", "-d", f"{SECONDS}s", f"http://127.0.0.1:{port}{path}"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def main():
    if not os.path.exists(BIN):
        sys.exit("bench/leak.py: build first (swift build -c release)")
    proc = subprocess.Popen([BIN, "--port", "0", "--quiet", "--reload-delay", "0.05", "--threads", "2",
                             "--templates", os.path.join(ROOT, "Templates"), "--public", os.path.join(ROOT, "Public")],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r":(\d+)$", proc.stdout.readline().strip()).group(1))
        paths = ["/api/items", "/", "/static/pull-to-refresh.js", "/nope", "/api/items?limit=5"]
        for path in paths:  # warm-up: every cache and code path once
            wrk_short = subprocess.run(["wrk", "-t", "1", "-c", "16", "-d", "1s", f"http://127.0.0.1:{port}{path}"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        storm(port)
        time.sleep(2)
        start, _ = rss_mb(proc.pid)
        start_split = split_mb(proc.pid)
        samples = []
        for round_ in range(ROUNDS):
            for path in paths:
                wrk(port, path)
            storm(port)
            time.sleep(1)
            samples.append(rss_mb(proc.pid)[0])
        time.sleep(2)
        end, peak = rss_mb(proc.pid)
        end_split = split_mb(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=60)
    delta = end - start
    ok = delta <= MARGIN_MB
    lines = [
        "# Memory after sustained mixed load",
        "",
        f"Written by `bench/leak.py` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC ({os.cpu_count()} cores).",
        "",
        f"Load: {ROUNDS} rounds of wrk (64 connections, {SECONDS} s each) on {', '.join(paths)}, each round "
        "followed by a storm of 200 concurrent `POST /api/refresh` (a new version each time, so every cache "
        "is rebuilt); server `--threads 2 --reload-delay 0.05`.",
        "",
        "| measure | MB |",
        "|---|---:|",
        f"| VmRSS after warm-up | {start:.1f} |",
        f"| VmRSS after each round | {' / '.join(f'{s:.1f}' for s in samples)} |",
        f"| VmRSS at the end, idle | {end:.1f} |",
        f"| growth | {delta:+.1f} (goal ≤ {MARGIN_MB:.0f} MB: {'met' if ok else 'NOT met'}) |",
        f"| peak (VmHWM) | {peak:.1f} |",
        f"| of which private (RssAnon): after warm-up → end | {start_split[0]:.1f} → {end_split[0]:.1f} "
        f"({end_split[0] - start_split[0]:+.1f}) |",
        f"| of which mapped files (RssFile): after warm-up → end | {start_split[1]:.1f} → {end_split[1]:.1f} "
        f"({end_split[1] - start_split[1]:+.1f}) |",
        "",
        f"The server exited with status {status} on SIGTERM.",
    ]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(ROOT, "bench/MEMORY.md"), "w") as f:
        f.write(text)
    print(text)
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
