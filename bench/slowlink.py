#!/usr/bin/env python3
"""`make bench`, slow-link part: headless Chromium on an emulated slow link (DevTools
`Network.emulateNetworkConditions`: 400 ms RTT, 400 kbit/s down and up) against the release
server. Measures the first contentful paint of `/` (with the browser's own Accept-Encoding, then
forced to identity for comparison) and the time from releasing a pull to the new items painted
(reload delay 1 s). Appends its table to bench/COMPRESSION.md (run after bench/compression.py).

Needs Debian's chromium and the Python websocket client (Tests/browser/requirements.txt): installed
when missing. Everything it starts is stopped by PID.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as base  # noqa: E402
import compression  # noqa: E402

OUT = os.path.join(base.ROOT, "bench", "COMPRESSION.md")
RTT_MS = 400
KBIT = 400
RUNS = 2 if base.QUICK else 5
RELOAD_DELAY = 1.0
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}


def ensure_tools() -> None:
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        base.apt_install(["chromium", "fonts-liberation"])
    try:
        import websocket  # noqa: F401
    except ImportError:
        base.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r",
                  os.path.join(base.ROOT, "Tests", "browser", "requirements.txt")])


def chromium_client():
    """The Python suites' DevTools client and Chromium launcher (Tests/harness/chromium.py)."""
    sys.path.insert(0, os.path.join(base.ROOT, "Tests"))
    from harness import chromium  # noqa: E402
    return chromium


def open_tab(cdp, Page, identity: bool):
    ctx = cdp.send("Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
    target = cdp.send("Target.createTarget", {"url": "about:blank", "browserContextId": ctx})["targetId"]
    session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    page = Page(cdp, ctx, target, session)
    for domain in ("Page", "Runtime", "Network"):
        page.send(f"{domain}.enable")
    page.send("Network.setCacheDisabled", cacheDisabled=True)
    page.send("Network.emulateNetworkConditions", offline=False, latency=RTT_MS,
              downloadThroughput=KBIT * 1000 / 8, uploadThroughput=KBIT * 1000 / 8)
    if identity:
        page.send("Network.setExtraHTTPHeaders", headers={"Accept-Encoding": "identity"})
    page.send("Emulation.setDeviceMetricsOverride", **PHONE)
    page.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
    return page, (ctx, target)


def close_tab(cdp, handles) -> None:
    ctx, target = handles
    for method, params in (("Target.closeTarget", {"targetId": target}),
                           ("Target.disposeBrowserContext", {"browserContextId": ctx})):
        try:
            cdp.send(method, params, timeout=5)
        except Exception:
            pass


def document_response(page, since: int, url: str) -> tuple[str, int]:
    """Content-Encoding and encoded bytes of the document response."""
    request_id, encoding = None, "identity"
    for ev in page.cdp.events[since:]:
        if ev.get("sessionId") != page.session:
            continue
        if ev["method"] == "Network.responseReceived" and ev["params"]["response"]["url"] == url:
            request_id = ev["params"]["requestId"]
            headers = {k.lower(): v for k, v in ev["params"]["response"]["headers"].items()}
            encoding = headers.get("content-encoding", "identity")
        if ev["method"] == "Network.loadingFinished" and ev["params"]["requestId"] == request_id:
            return encoding, int(ev["params"]["encodedDataLength"])
    return encoding, -1


def first_paint(cdp, Page, url: str, identity: bool) -> dict:
    page, handles = open_tab(cdp, Page, identity)
    try:
        since = page.mark()
        page.goto(url, timeout=60)
        fcp = page.wait_for("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime", 30,
                            "first contentful paint")
        encoding, size = document_response(page, since, url)
        return {"fcp": fcp, "encoding": encoding, "bytes": size}
    finally:
        close_tab(cdp, handles)


WATCH = """(() => {
  const list = document.querySelector('[data-ptr-list]');
  window.__slow = { before: list.children.length };
  document.addEventListener('touchend', e => { __slow.release = performance.now(); }, { capture: true });
  new MutationObserver(() => {
    if (__slow.painted || list.children.length <= __slow.before) return;
    __slow.inserted = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { __slow.painted = performance.now(); }));
  }).observe(list, { childList: true });
  return true;
})()"""


def pull_to_paint(cdp, Page, url: str, data_file: str, items: list, next_id: list) -> dict:
    page, handles = open_tab(cdp, Page, identity=False)
    try:
        page.goto(url, timeout=60)
        page.wait_for("document.getElementById('feed').dataset.ptrState === 'idle'", 30, "the script")
        page.eval(WATCH)
        newest = items[0]
        added = []
        for _ in range(3):
            next_id[0] += 1
            added.append(dict(newest, id=str(next_id[0]), title=f"Slow-link item {next_id[0]}",
                              createdAt=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + next_id[0]))))
        items[:0] = added[::-1]
        with open(data_file, "w") as f:
            json.dump({"items": items}, f)
        page.drag(195, 150, 320, steps=16, release=False)
        page.wait_for("document.getElementById('feed').dataset.ptrState === 'armed'", 10, "armed")
        page.touch("touchEnd")
        page.wait_for("window.__slow.painted", 30, "the new items painted")
        result = page.eval("window.__slow")
        return {"release_to_paint": result["painted"] - result["release"],
                "release_to_insert": result["inserted"] - result["release"]}
    finally:
        close_tab(cdp, handles)


def measure(cdp, Page, url: str, data: str, items: list) -> tuple[dict, list]:
    """RUNS first paints per encoding, then RUNS pulls; each in a fresh tab."""
    paints = {"browser": [], "identity": []}
    for _ in range(RUNS):
        for mode in ("browser", "identity"):
            paints[mode].append(first_paint(cdp, Page, url, identity=mode == "identity"))
            base.log(f"  FCP {mode:8}: {paints[mode][-1]}")
    # Ids are strings in the feed since --source; this data file's are decimal numbers.
    next_id = [max(int(item["id"]) for item in items)]
    pulls = []
    for _ in range(RUNS):
        pulls.append(pull_to_paint(cdp, Page, url, data, items, next_id))
        base.log(f"  pull: {pulls[-1]}")
    return paints, pulls


def main() -> int:
    base.log(f"PullRefresh slow-link benchmark: Chromium, {RTT_MS} ms RTT, {KBIT} kbit/s, {RUNS} run(s)")
    ensure_tools()
    if not os.path.exists(os.path.join(base.BIN, "pullrefresh")):
        base.build()
    workdir = tempfile.mkdtemp(prefix="pullrefresh-slowlink-")
    base._temp_dirs.append(workdir)
    client = chromium_client()
    Page = client.Page
    try:
        data, _ = compression.feed_data(workdir)
        with open(data) as f:
            items = json.load(f)["items"]
        server = base.ours(["--data", data, "--max-items", "500", "--reload-delay", f"{RELOAD_DELAY}s"])
        with client.launch_chromium() as cdp:
            paints, pulls = measure(cdp, Page, server.url + "/", data, items)
    finally:
        base.stop_all()
    rows = ["| measure (Chromium, 400 ms RTT, 400 kbit/s) | median | runs |", "|---|---:|---|"]
    for mode, label in (("browser", "first contentful paint of `/`, browser's Accept-Encoding"),
                        ("identity", "first contentful paint of `/`, `Accept-Encoding: identity`")):
        runs = paints[mode]
        rows.append(f"| {label} ({runs[0]['encoding']}, {runs[0]['bytes']:,} B on the wire with headers) | "
                    f"{statistics.median(r['fcp'] for r in runs):,.0f} ms | "
                    + ", ".join(f"{r['fcp']:.0f}" for r in runs) + " |")
    rows.append(f"| release of a pull → new items painted (reload delay {RELOAD_DELAY:.0f} s; 3 new items) | "
                f"{statistics.median(p['release_to_paint'] for p in pulls):,.0f} ms | "
                + ", ".join(f"{p['release_to_paint']:.0f}" for p in pulls) + " |")
    text = "\n".join([
        "", "## C4. Slow link (headless Chromium, bench/slowlink.py)", "",
        f"DevTools `Network.emulateNetworkConditions` (latency {RTT_MS} ms, {KBIT} kbit/s down and up), cache "
        f"disabled, a fresh browser context per run, {RUNS} runs, a 390×844 phone viewport; the same data file "
        "as above. The pull is a real touch drag; its time runs from the `touchend` event to two animation "
        "frames after the new `<li>`s were inserted. Expected: the reload delay plus about one round trip; "
        "but Chromium's emulated latency is a floor on each request's time to the first byte, not a delay "
        "added to the server's time, so the 400 ms overlap the 1 s reload and what remains is the transfer "
        "and the rendering.",
        "", *rows, ""])
    with open(OUT, "a") as f:
        f.write(text)
    base.log(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
