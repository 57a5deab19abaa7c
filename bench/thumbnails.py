#!/usr/bin/env python3
"""Thumbnail benchmark (`make bench`): what /img/ costs, each figure beside a peer in the same run.
Writes bench/THUMBNAILS.md and prints the figures.

1  CPU per thumbnail: a 4000x3000 JPEG → 160 px WebP through our Thumbnailer (bench/ImageBench,
   process CPU time, median of ROUNDS after a warm-up) beside Pillow doing the same job its
   fastest way (JPEG draft mode = shrink-on-load, then thumbnail, then WebP), on two originals:
   a 4.2 MB one of heavy noise (worst case: the entropy decoding cannot be skipped) and a
   1.6 MB one of lighter noise (a more usual photo). Goal ≤ 40 ms. Then AVIF at effort 2.
2  A 60,000 x 60,000 PNG header (a decompression bomb): refused from its header, goal ≤ 5 ms;
   Pillow's own bomb check beside it.
3  Cached GET /img/<id>?w=160 (Accept: image/webp) against GET /static/ of a file of the same
   bytes, same server, nine wrk pairs of 3 s back to back (run.py's wrk, pinning and
   keep-alive): goal ≥ 0.9x the static file's throughput (median of the per-pair ratios).
4  RSS: one server whose thumbnail cache is filled to its 32 MiB (480 px WebPs of distinct
   items until pullrefresh_thumbnail_cache_bytes reaches the bound) beside one that served the
   same pages without pictures: goal ≤ (32 MiB + that figure) x 1.15.

The image host is Tests/images/image_host.py on loopback (hence --allow-private-images), the
pictures Tests/images/make-images.py's (Pillow, Tests/images/requirements.txt).
Env: BENCH_QUICK=1 (fewer rounds, shorter runs), BENCH_NO_BUILD=1.
"""
from __future__ import annotations

import datetime
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (process bookkeeping, Server, ours, wrk, pinning, build)

from PIL import Image  # noqa: E402

RESULTS = os.path.join(run.ROOT, "bench", "THUMBNAILS.md")
IMAGES = os.path.join(run.ROOT, "Tests", "images")
ROUNDS = 10 if run.QUICK else 30
# Many short back-to-back pairs, judged on the median of per-pair ratios: on this shared VM
# single runs swing by more than the difference measured (as in bench/compression.py).
PAIRS = 3 if run.QUICK else 9
PAIR_SECONDS = 2 if run.QUICK else 3
CACHE_BYTES = 32 << 20


def pillow_thumbnail_ms(path: str, rounds: int) -> float:
    """Pillow's fastest equivalent: draft (DCT scaling on load), thumbnail, centre crop, WebP."""
    def once():
        with Image.open(path) as image:
            image.draft("RGB", (160 * 2, 160 * 2))
            image = image.convert("RGB")
            side = min(image.size)
            left, top = (image.width - side) // 2, (image.height - side) // 2
            image = image.crop((left, top, left + side, top + side))
            image.thumbnail((160, 160))
            image.save(io.BytesIO(), "WEBP", quality=75)
    once()
    times = []
    for _ in range(rounds):
        start = time.process_time()
        once()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def pillow_bomb_ms(path: str, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        try:
            with Image.open(path) as image:
                image.load()
        except Image.DecompressionBombError:
            pass
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def image_host(folder: str) -> tuple[subprocess.Popen, int]:
    proc = run.spawn([sys.executable, os.path.join(IMAGES, "image_host.py"), folder],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    words = proc.stdout.readline().split()
    assert words[:1] == ["PORT"], words
    return proc, int(words[1])


def get(port: int, path: str, headers: dict | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read()


def metric(port: int, name: str) -> float:
    text = get(port, "/metrics")[1].decode()
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def write_items(path: str, host_port: int, count: int, pictured: bool) -> None:
    items = []
    for n in range(count):
        item = {"id": f"i{n}", "title": f"Item {n}", "body": "Body text.",
                "createdAt": "2026-01-01T00:00:%02dZ" % (n % 60)}
        if pictured:
            item["image"] = f"http://127.0.0.1:{host_port}/f/photo.jpg?i={n}"
        items.append(item)
    with open(path, "w") as handle:
        json.dump({"items": items}, handle)


def fill_cache(port: int, count: int) -> int:
    """Requests 480 px WebPs of items in turn, two at a time, until the cache holds its bound."""
    made = [0]
    lock = threading.Lock()
    next_item = [0]

    def worker():
        while True:
            with lock:
                n = next_item[0]
                next_item[0] += 1
            if n >= count or metric(port, "pullrefresh_thumbnail_cache_bytes") >= CACHE_BYTES * 0.97:
                return
            status, _ = get(port, f"/img/i{n}?w=480", {"Accept": "image/webp"})
            assert status == 200
            with lock:
                made[0] += 1
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return made[0]


def page_traffic(port: int) -> None:
    for _ in range(50):
        for path in ("/", "/?layout=grid", "/api/items", "/static/app.css"):
            get(port, path)


def main() -> None:
    run.ensure_tools()
    if not os.environ.get("BENCH_NO_BUILD"):
        run.run([run.SWIFT, "build", "-c", "release", "--product", "pullrefresh"])
        run.run([run.SWIFT, "build", "-c", "release", "--product", "image-bench"])
    run.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r",
             os.path.join(IMAGES, "requirements.txt")])
    folder = tempfile.mkdtemp(prefix="ptr-bench-images-")
    run._temp_dirs.append(folder)
    run.run([sys.executable, os.path.join(IMAGES, "make-images.py"), folder])
    rows = []

    # 1 and 2: in-process CPU.
    bench_bin = os.path.join(run.BIN, "image-bench")
    cpu = {}
    for name in ("large.jpg", "large-typical.jpg"):
        path = os.path.join(folder, name)
        out = subprocess.run(run.server_prefix() + [bench_bin, path, os.path.join(folder, "bomb.png"), str(ROUNDS)],
                             check=True, capture_output=True, text=True).stdout
        ours = json.loads(out)
        assert ours["bomb_refused"], ours
        cpu[name] = (ours, pillow_thumbnail_ms(path, ROUNDS), os.path.getsize(path))
    bomb_pillow = pillow_bomb_ms(os.path.join(folder, "bomb.png"), ROUNDS)

    # 3: cached thumbnail vs a static file of the same bytes.
    host, host_port = image_host(folder)
    data = os.path.join(folder, "pictured.json")
    write_items(data, host_port, 1500, pictured=True)
    public = os.path.join(folder, "public")
    subprocess.run(["cp", "-R", os.path.join(run.ROOT, "Public"), public], check=True)
    server = run.ours(["--data", data, "--max-items", "1500", "--allow-private-images", "--public", public])
    status, thumbnail = get(server.port, "/img/i0?w=160", {"Accept": "image/webp"})
    assert status == 200
    with open(os.path.join(public, "same-bytes.webp"), "wb") as handle:
        handle.write(thumbnail)
    accept = ["Accept: image/webp"]
    ratios, img_rps, static_rps = [], [], []
    seconds = PAIR_SECONDS
    run.wrk(server, "/img/i0?w=160", 2, headers=accept)
    for _ in range(PAIRS):
        ours_result = run.wrk(server, "/img/i0?w=160", seconds, headers=accept)
        static_result = run.wrk(server, "/static/same-bytes.webp", seconds, headers=accept)
        assert ours_result["errors"] == 0 and static_result["errors"] == 0
        img_rps.append(ours_result["rps"])
        static_rps.append(static_result["rps"])
        ratios.append(ours_result["rps"] / static_result["rps"])

    # 4: RSS with the cache full, beside the same server without pictures.
    page_traffic(server.port)
    made = fill_cache(server.port, 1500)
    page_traffic(server.port)
    full_rss = server.memory()["VmRSS"] / 1024
    cache_bytes = metric(server.port, "pullrefresh_thumbnail_cache_bytes")
    server.stop()
    plain_data = os.path.join(folder, "plain.json")
    write_items(plain_data, host_port, 1500, pictured=False)
    plain = run.ours(["--data", plain_data, "--max-items", "1500", "--public", public])
    page_traffic(plain.port)
    plain_rss = plain.memory()["VmRSS"] / 1024
    plain.stop()
    run.stop(host)
    goal_rss = (CACHE_BYTES / (1 << 20) + plain_rss) * 1.15

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open("/proc/loadavg") as handle:
        load = " ".join(handle.read().split()[:3])
    lines = [f"# Thumbnails (`python3 bench/thumbnails.py`, {stamp}{', quick' if run.QUICK else ''}, "
             f"load average at the end {load} on {run.CORES} cores)", "",
             "| Figure | Ours | Peer | Goal |", "| --- | ---: | ---: | --- |"]
    for name, label in (("large.jpg", "heavy noise"), ("large-typical.jpg", "lighter noise")):
        ours, pillow_ms, size = cpu[name]
        lines.append(f"| 4000x3000 JPEG ({size / 1e6:.1f} MB, {label}) → 160 px WebP, CPU | "
                     f"{ours['resize_cpu_ms']:.1f} ms ({ours['webp_bytes']} B) | Pillow draft+thumbnail: "
                     f"{pillow_ms:.1f} ms | ≤ 40 ms |")
        lines.append(f"| same → 160 px AVIF (effort 2), CPU | {ours['avif_cpu_ms']:.1f} ms "
                     f"({ours['avif_bytes']} B) | WebP: {ours['resize_cpu_ms']:.1f} ms | (measured, not served) |")
    bomb = cpu["large.jpg"][0]
    lines.append(f"| 60,000 x 60,000 PNG header refused | {bomb['bomb_cpu_ms']:.2f} ms CPU, "
                 f"{bomb['bomb_wall_ms']:.2f} ms wall | Pillow bomb check: {bomb_pillow:.2f} ms | ≤ 5 ms |")
    lines.append(f"| Cached GET /img/i0?w=160 vs /static/ same {len(thumbnail)} B, req/s | "
                 f"{statistics.median(img_rps):,.0f} | {statistics.median(static_rps):,.0f} | "
                 f"≥ 0.9x: **{statistics.median(ratios):.2f}x** (pairs {', '.join(f'{r:.2f}' for r in ratios)}) |")
    lines.append(f"| RSS, thumbnail cache full ({made} made, {cache_bytes / (1 << 20):.1f} MiB counted) | "
                 f"{full_rss:.1f} MiB | no pictures: {plain_rss:.1f} MiB | ≤ {goal_rss:.1f} MiB |")
    text = "\n".join(lines) + "\n"
    with open(RESULTS, "w") as handle:
        handle.write(text)
    print(text)


if __name__ == "__main__":
    main()
