#!/usr/bin/env python3
"""`make bench`, compression part: bytes on the wire, throughput with compression, page cost per
store size. Writes bench/COMPRESSION.md. Reuses bench/run.py's process bookkeeping, pinning,
wrk driver and A/B alternation (imported, so Ctrl-C still stops every process it started).

  C1  bytes on the wire (body bytes) for GET / (30 items), GET /api/items, a refresh fragment (a
      reload that brought 3 items), the older-items fragment (30 items) and the gesture bundle:
      identity, gzip and br from our server, and Debian's nginx (`gzip on`, level 6) serving the
      identity bytes captured from ours. Every compressed body is decoded (python's gzip, the
      `brotli` tool) and compared with the identity bytes.
  C2  throughput of GET / and GET /api/items with `Accept-Encoding: gzip, deflate, br`: ours vs
      bench/mhd-twin.c serving the same brotli bytes with the same headers (`--headers`); nine
      back-to-back pairs of 4 s runs, judged on the median of the per-pair ratios.
  C3  page bytes and cold render + gzip + brotli time of `/` with 50, 500, 5,000 and 50,000 items
      in the store (feed-bench --sizes, in-process), sizes alternated, median per size.

Environment: as bench/run.py (BENCH_QUICK=1, BENCH_DURATION, BENCH_ROUNDS, BENCH_NO_BUILD=1).
"""
from __future__ import annotations

import datetime
import gzip
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as base  # noqa: E402  (bench/run.py: chdir to the repository, process bookkeeping)

OUT = os.path.join(base.ROOT, "bench", "COMPRESSION.md")
BROWSER_ENCODINGS = "gzip, deflate, br"
SIZES = [50, 500, 5000, 50000]
# C2's rounds: ours and the twin back to back, PAIRS times, PAIR_SECONDS each.
PAIRS = 2 if base.QUICK else 9
PAIR_SECONDS = 3 if base.QUICK else 4


def ensure_tools() -> None:
    base.ensure_tools()
    missing = [package for tool, package in (("nginx", "nginx"), ("brotli", "brotli")) if not shutil.which(tool)
               and not os.path.exists(f"/usr/sbin/{tool}")]
    if missing:
        base.log(f"Installing missing Debian packages: {' '.join(missing)}")
        base.apt_install(missing)


def request(port: int, method: str, path: str, headers: dict) -> tuple[int, dict, bytes]:
    """One request on a fresh connection; the body as sent (compressed bytes stay compressed)."""
    conn = base.http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, headers=headers)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def brotli_decode(data: bytes) -> bytes:
    return subprocess.run(["brotli", "-dc"], input=data, capture_output=True, check=True).stdout


def decode(coding: str, data: bytes) -> bytes:
    return gzip.decompress(data) if coding == "gzip" else brotli_decode(data) if coding == "br" else data


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def feed_data(workdir: str) -> tuple[str, str]:
    """A data file of 200 items with the generator's text (taken from a generator-backed server),
    and the same file with 3 newer items (what one reload brings)."""
    server = base.ours(["--reload-delay", "0", "--max-items", "500"])
    try:
        items = []
        while len(items) < 203:
            request(server.port, "POST", "/api/refresh", {})
            _, _, body = request(server.port, "GET", "/api/items?limit=100", {})
            page = json.loads(body)
            items = page["items"]
            cursor = page["nextCursor"]
            while cursor and len(items) < 203:
                _, _, body = request(server.port, "GET", f"/api/items?limit=100&cursor={cursor}", {})
                page = json.loads(body)
                items += page["items"]
                cursor = page["nextCursor"]
    finally:
        server.stop()
    rows = [{k: item[k] for k in ("id", "title", "body", "createdAt")} for item in items[:203]]
    before, after = os.path.join(workdir, "feed.json"), os.path.join(workdir, "feed-plus-3.json")
    with open(before, "w") as f:
        json.dump({"items": rows[3:]}, f)
    with open(after, "w") as f:
        json.dump({"items": rows}, f)
    return before, after


def gesture_paths() -> list[str]:
    """The gesture's files as bench/run.py counts them (URL paths, or files under Public/)."""
    files = [r for r in base.asset_sizes()["files"] if r.get("budget", True)]
    return [r["file"] if r["file"].startswith("/") else "/static/" + os.path.basename(r["file"]) for r in files]


class Nginx:
    """Debian's nginx serving `files` ({url path: (content type, bytes)}) with `gzip on` level 6."""

    def __init__(self, workdir: str, files: dict):
        root = os.path.join(workdir, "nginx")
        docs = os.path.join(root, "html")
        os.makedirs(docs, exist_ok=True)
        locations = []
        for index, (path, (ctype, body)) in enumerate(files.items()):
            name = f"f{index}"
            with open(os.path.join(docs, name), "wb") as f:
                f.write(body)
            bare = ctype.split(";")[0].strip()
            locations.append(f"location = {path} {{ default_type {bare}; try_files /{name} =404; }}")
        for directory in (workdir, root, docs):
            os.chmod(directory, 0o755)
        for name in os.listdir(docs):
            os.chmod(os.path.join(docs, name), 0o644)
        self.port = free_port()
        types = " ".join(sorted({ctype.split(";")[0] for ctype, _ in files.values()}))
        conf = os.path.join(root, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    types {{ }}
    charset utf-8;
    charset_types {types};
    gzip on;
    gzip_comp_level 6;
    gzip_types {types};
    gzip_vary on;
    client_body_temp_path {root}/tmp; proxy_temp_path {root}/tmp; fastcgi_temp_path {root}/tmp;
    uwsgi_temp_path {root}/tmp; scgi_temp_path {root}/tmp;
    server {{
        listen 127.0.0.1:{self.port};
        root {docs};
        {chr(10).join('        ' + line for line in locations).strip()}
    }}
}}
""")
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.version = subprocess.run([binary, "-v"], capture_output=True, text=True).stderr.strip()
        self.proc = base.spawn([binary, "-p", root, "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"nginx exited: {self.proc.stderr.read()!r}")
                time.sleep(0.05)
        raise RuntimeError("nginx did not start listening")

    def stop(self) -> None:
        base.stop(self.proc)


def wire_bytes(workdir: str, data: str, plus3: str) -> tuple[list[dict], str, list[str]]:
    server = base.ours(["--data", data, "--max-items", "500", "--reload-delay", "0"])
    problems: list[str] = []
    try:
        _, _, page = request(server.port, "GET", "/", {})
        cursor = page.split(b'data-ptr-older="', 1)[1].split(b'"', 1)[0].decode()
        shutil.copy(plus3, data)  # the next reload brings 3 items
        bundle = gesture_paths()
        routes = [
            ("GET / (30 items)", [("GET", "/", {})]),
            ("GET /api/items (50 items)", [("GET", "/api/items", {})]),
            ("POST /api/refresh, Accept: text/html (3 new items)",
             [("POST", "/api/refresh?since=1", {"Accept": "text/html"})]),
            ("GET /api/items?cursor=…&limit=30, Accept: text/html (older items, 30)",
             [("GET", f"/api/items?cursor={cursor}&limit=30", {"Accept": "text/html"})]),
            ("gesture bundle (JS + CSS, " + ", ".join(os.path.basename(p) for p in bundle) + ")",
             [("GET", path, {}) for path in bundle]),
        ]
        rows, served = [], {}
        for label, requests in routes:
            row = {"label": label, "identity": 0, "gzip": 0, "br": 0, "nginx": 0, "paths": [], "small": set()}
            for method, path, headers in requests:
                bodies = {}
                for coding in ("identity", "gzip", "br"):
                    status, got, body = request(server.port, method, path, dict(headers, **{"Accept-Encoding": coding}))
                    sent = got.get("Content-Encoding", "identity")
                    # Bodies under 1 KB are sent as they are, whatever the client accepts.
                    small = sent == "identity" and len(body) < 1024
                    if small and coding != "identity":
                        row["small"].add(f"{path} ({len(body):,} B)")
                    if status != 200 or (sent != coding and not small):
                        problems.append(f"{label} {path}: asked {coding}, got {status} {sent}")
                    if decode(sent, body) != bodies.setdefault("identity", body):
                        problems.append(f"{label} {path}: {coding} does not decode to the identity bytes")
                    row[coding] += len(body)
                nginx_path = f"/n{len(served)}"
                served[nginx_path] = (got["Content-Type"], bodies["identity"])
                row["paths"].append(nginx_path)
            rows.append(row)
    finally:
        server.stop()
    nginx = Nginx(workdir, served)
    try:
        for row in rows:
            for path in row["paths"]:
                status, got, body = request(nginx.port, "GET", path, {"Accept-Encoding": BROWSER_ENCODINGS})
                if status != 200 or got.get("Content-Encoding") != "gzip" or gzip.decompress(body) != served[path][1]:
                    problems.append(f"nginx {path}: status {status}, {got.get('Content-Encoding')}, body differs")
                row["nginx"] += len(body)
    finally:
        nginx.stop()
    for row in rows:
        log_row(row)
    return rows, nginx.version, problems


def log_row(row: dict) -> None:
    base.log(f"  {row['label'][:60]:60} identity {row['identity']:7,d}  gzip {row['gzip']:6,d}  "
             f"br {row['br']:6,d}  nginx gzip-6 {row['nginx']:6,d}  br/nginx {row['br'] / row['nginx']:.2f}×")


def throughput(workdir: str, data: str) -> tuple[dict, list[str]]:
    server = base.ours(["--data", data, "--max-items", "500"])
    twin = None
    lines: list[str] = []
    try:
        argv = [base.TWIN_BIN] + (["--poll"] if base.TWIN_POLL else []) + ["--headers", "0", str(base.THREADS)]
        captured = {}
        for index, path in enumerate(["/", "/api/items"]):
            status, headers, body = request(server.port, "GET", path, {"Accept-Encoding": BROWSER_ENCODINGS})
            assert status == 200 and headers.get("Content-Encoding") == "br", f"{path}: {status} {headers}"
            argv += base.twin_route(workdir, index, path, headers, body)
            captured[path] = (headers, body)
        twin = base.Server("mhd-twin", argv)
        ok = True
        for path, (headers, body) in captured.items():
            _, h1, b1 = request(server.port, "GET", path, {"Accept-Encoding": BROWSER_ENCODINGS})
            _, h2, b2 = request(twin.port, "GET", path, {"Accept-Encoding": BROWSER_ENCODINGS})
            # Date differs by design, and so does X-Request-Id: ours makes one per request, the twin
            # repeats the one captured above (same length, so the same bytes on the wire).
            strip = lambda h: sorted(  # noqa: E731
                (k.lower(), len(v) if k.lower() == "x-request-id" else v) for k, v in h.items()
                if k.lower() != "date")
            same = b1 == b2 == body and strip(h1) == strip(h2)
            ok &= same
            lines.append(f"  {path:12} {len(body):6d} B br, {len(h1)} headers  ours==twin (body and every header "
                         f"but Date): {'identical' if same else 'DIFFERENT ' + str(set(strip(h1)) ^ set(strip(h2)))}")
        lines.insert(0, f"Twin check: {'PASS' if ok else 'FAIL'}")
        base.log("\n".join(lines))
        if not ok:
            raise RuntimeError("the C twin does not answer like ours; refusing to compare")
        header = [f"Accept-Encoding: {BROWSER_ENCODINGS}"]
        # More and shorter rounds than bench/run.py's: a 5% question on a machine whose rounds
        # swing by 15%, answered by the median of many back-to-back pairs.
        results = base.compare([
            ("C2a", "GET / (30 items), br", "/", header),
            ("C2b", "GET /api/items, br", "/api/items", header),
        ], server, twin, rounds=PAIRS, duration=PAIR_SECONDS)
        return results, lines
    finally:
        server.stop()
        if twin:
            twin.stop()


def page_cost() -> dict:
    seconds = "3" if base.QUICK else "8"
    runs = 1 if base.QUICK else 3
    samples: dict[int, list[dict]] = {n: [] for n in SIZES}
    base.log(f"\n[C3] page bytes and cold render + compress per store size (feed-bench --sizes, {runs} run(s), "
             "sizes interleaved within each run, reversed between runs)")
    for index in range(runs):
        order = SIZES if index % 2 == 0 else SIZES[::-1]
        proc = base.spawn(base.server_prefix() + [os.path.join(base.BIN, "feed-bench"), "--templates", "Templates",
                                                  "--seconds", seconds, "--sizes", ",".join(map(str, order))],
                          stdout=subprocess.PIPE, text=True)
        output, _ = proc.communicate(timeout=600)
        base._children.remove(proc)
        if proc.returncode != 0:
            raise RuntimeError(f"feed-bench failed ({proc.returncode})")
        for line in output.splitlines():
            if not line.startswith("FEEDBENCH"):
                base.log("  " + line)
        for size, values in json.loads(output.split("FEEDBENCH_SIZES_JSON", 1)[1]).items():
            samples[int(size)].append(values)
    return {n: {key: min(s[key] for s in samples[n]) for key in samples[n][0]} for n in SIZES}


def report(meta: dict, rows: list[dict], nginx_version: str, problems: list[str], compared: dict,
           twin_lines: list[str], cost: dict) -> str:
    small = sorted({path for r in rows for path in r["small"]})
    wire = ["| response | identity | gzip (ours, level 6) | br (ours) | nginx gzip level 6 | br ÷ nginx |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        wire.append(f"| {r['label']} | {r['identity']:,} B | {r['gzip']:,} B | {r['br']:,} B | {r['nginx']:,} B | "
                    f"**{r['br'] / r['nginx']:.2f}×** |")
    http = ["| scenario | server | req/s (median) | p50 ms | p99 ms | errors | server CPU µs/req | ours/C "
            "(medians) | ours/C (median of pairs) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key, c in compared.items():
        c["ratio"] = c["ours"]["rps"] / c["twin"]["rps"] if c["twin"]["rps"] else float("nan")
        for name in ("ours", "twin"):
            r = c[name]
            ratios = f"{c['ratio']:.2f}× | **{c['paired']:.2f}×**" if name == "ours" else " | "
            http.append(f"| {c['label']} | {'ours' if name == 'ours' else 'C twin'} | {r['rps']:,.0f} | "
                        f"{base.fmt_ms(r['p50'])} | {base.fmt_ms(r['p99'])} | {r['errors']} | "
                        f"{r['cpu_us_per_req']:.1f} | {ratios} |")
    sizes = ["| items in the store | page | gzip | br | render | render + gzip + br |",
             "|---:|---:|---:|---:|---:|---:|"]
    for n in SIZES:
        c = cost[n]
        sizes.append(f"| {n:,} | {c['identity']:,} B | {c['gzip']:,} B | {c['br']:,} B | {c['render_us']:.1f} µs | "
                     f"{c['render_compress_us']:.1f} µs |")
    page_row = rows[0]
    br_ratio = page_row["br"] / page_row["nginx"]
    time_ratio = cost[SIZES[-1]]["render_compress_us"] / cost[SIZES[0]]["render_compress_us"]
    bytes_ratio = cost[SIZES[-1]]["identity"] / cost[SIZES[0]]["identity"]
    worst_http = min(c["paired"] for c in compared.values())
    cpu = {c["label"]: c["ours"]["cpu_us_per_req"] / c["twin"]["cpu_us_per_req"] for c in compared.values()}
    goals = [
        "| goal | measured | status |", "|---|---|---|",
        f"| GET / in br ≤ 0.8× nginx's gzip bytes | {br_ratio:.2f}× ({page_row['br']:,} vs {page_row['nginx']:,} B) "
        f"| {'met' if br_ratio <= 0.8 else '**NOT met**'} |",
        f"| GET / and /api/items with compression ≥ 0.95× the C twin (median of {PAIRS} back-to-back pairs) | "
        + ", ".join(f"{c['label']}: {c['paired']:.2f}× (medians {c['ratio']:.2f}×)" for c in compared.values())
        + f" | {'met' if worst_http >= 0.95 else '**NOT met**'} |",
        "| (the same, by server CPU per request: ours ÷ twin, less sensitive to other processes) | "
        + ", ".join(f"{label}: {ratio:.2f}× the twin's CPU" for label, ratio in cpu.items())
        + f" | {'met' if max(cpu.values()) <= 1 / 0.95 else '**NOT met**'} |",
        f"| page bytes and cold render + compress, 50,000 ÷ 50 items ≤ 1.1× | time {time_ratio:.2f}×, bytes "
        f"{bytes_ratio:.2f}× | {'met' if time_ratio <= 1.1 and bytes_ratio <= 1.1 else '**NOT met**'} |",
        "| first contentful paint and pull-to-new-items on an emulated slow link (Chromium) | bench/slowlink.py, "
        "section C4 below (when it ran) | recorded |",
    ]
    rounds = "; ".join(f"{c['label']}: ours {c['ours']['rounds']}, twin {c['twin']['rounds']}" for c in compared.values())
    out = [
        "# Compression benchmark",
        "",
        f"Written by `bench/compression.py` ({'quick mode, BENCH_QUICK=1' if base.QUICK else 'full mode'}) on "
        f"{meta['date']}; part of `make bench`.",
        "",
        f"- Machine: {meta['cpu']}, {base.CORES} cores; {meta['os']}; libmicrohttpd {meta['mhd']}; {nginx_version}; "
        f"{meta['wrk']}. Load average {meta['load_before']} before, {meta['load_after']} after. The machine is "
        "shared with other builds: **treat the figures as noisy**; throughput rounds alternate ours / twin "
        f"(A B A B …, {PAIRS} pairs of {PAIR_SECONDS} s in C2) and report each side's median and the median of "
        "the per-pair ratios (each pair runs back to back, so the machine's slower swings cancel; the goal is "
        "judged on it).",
        "- Store: a data file of 200 items with the built-in generator's text (`--data`); the refresh fragment is "
        "the answer to a reload that brought 3 items.",
        "",
        "## C1. Bytes on the wire (response bodies)",
        "",
        *wire,
        "",
        "Every gzip body was decoded with Python's gzip and every br body with the `brotli` tool, and compared "
        "with the identity bytes" + (": **mismatches: " + "; ".join(problems) + "**" if problems else ": all equal.")
        + " nginx served the identity bytes captured from ours (same Content-Type) with `gzip on; "
        "gzip_comp_level 6;`; it cannot send br without a third-party module. Ours: gzip level 6 for pages and "
        "API bodies, level 9 for static files; br quality 10 for the first page of `/`, 6 for other per-version "
        "bodies, 11 for static files; nothing under 1 KB is compressed"
        + (" — sent as they are here: " + ", ".join(small) + "; nginx compresses anything from 20 B" if small else "")
        + ".",
        "",
        "## C2. Throughput with `Accept-Encoding: gzip, deflate, br`",
        "",
        *http,
        "",
        "```", *twin_lines, "```",
        "",
        f"Per-round req/s — {rounds}. The twin (`bench/mhd-twin.c --headers`) serves the brotli bytes captured "
        "from ours with every header ours sent (ETag, Vary, Content-Encoding, security headers) and checks that "
        "Accept-Encoding names br; ours answers from its stored responses (the same target, `Accept-Encoding` and "
        "other `Vary`'d values as the request that stored it, the feed still at its version; see "
        "[docs/compression.md](../docs/compression.md#stored-responses)), after routing and negotiating the first such request.",
        "",
        "## C3. `/` per store size (in-process, feed-bench --sizes)",
        "",
        *sizes,
        "",
        "Cold: no cache; the work the server does once per version for the first page (render 30 items, gzip "
        "level 6, brotli quality 10). feed-bench times every size in each of 7 rounds, sizes interleaved, and keeps "
        "the fastest round; the table is the fastest over the runs (order reversed every other run). The work is "
        "deterministic, so other processes on this shared machine can only add time: the fastest round is the "
        "least disturbed one.",
        "",
        "## Goals",
        "",
        *goals,
        "",
    ]
    return "\n".join(out)


def main() -> int:
    started = time.time()
    load_before = base.loadavg()
    base.log(f"PullRefresh compression benchmark ({'quick' if base.QUICK else 'full'} mode)")
    ensure_tools()
    base.build()
    meta = base.machine()
    if base.PINNED:
        os.sched_setaffinity(0, {int(base.CLIENT_CPU)})
    workdir = tempfile.mkdtemp(prefix="pullrefresh-compression-")
    base._temp_dirs.append(workdir)
    try:
        data, plus3 = feed_data(workdir)
        base.log("\n[C1] bytes on the wire (bodies): ours identity / gzip / br, nginx gzip level 6")
        pristine = os.path.join(workdir, "feed-copy.json")
        shutil.copy(data, pristine)
        rows, nginx_version, problems = wire_bytes(workdir, data, plus3)
        shutil.copy(pristine, data)
        compared, twin_lines = throughput(workdir, data)
        cost = page_cost()
    finally:
        base.stop_all()
    meta.update({"date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
                 "load_before": load_before, "load_after": base.loadavg()})
    text = report(meta, rows, nginx_version, problems, compared, twin_lines, cost)
    with open(OUT, "w") as f:
        f.write(text)
    base.log("\n" + text)
    base.log(f"Wrote {os.path.relpath(OUT)} ({time.time() - started:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
