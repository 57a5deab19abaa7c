#!/usr/bin/env python3
"""`make screenshots`: the README's screenshots, taken from the real server in headless Chromium
as a 390×844 phone (DPR 2): the list in light and dark, the grid, and mid-pull (a real touch drag
held past the threshold, "Release to refresh"). Written to docs/screenshots/ (or --out).

Uses the Python suites' Chromium launcher and phone tab (Tests/harness), so it needs what
`make browser-deps` installs; the server binary is --bin (default .build/debug/pullrefresh).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests"))
from harness.chromium import close_tab, launch_chromium, open_tab  # noqa: E402

SHOTS = ("light", "dark", "grid", "mid-pull")


def start_server(binary, log):
    proc = subprocess.Popen(
        [binary, "--port", "0", "--seed", "3", "--reload-delay", "1s", "--quiet",
         "--templates", os.path.join(ROOT, "Templates"), "--public", os.path.join(ROOT, "Public")],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    deadline = time.monotonic() + 20
    while True:
        log.flush()
        with open(log.name, encoding="utf-8", errors="replace") as f:
            found = re.search(r"listening on (\S+)\n", f.read())
        if found:
            return proc, found.group(1)
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("the server did not start: " + open(log.name).read()[-2000:])
        time.sleep(0.05)


def settle(page):
    """The page attached, its times relative, fonts loaded, nothing moving."""
    page.wait_for("document.getElementById('feed')?.dataset.ptrState === 'idle'", 10, "the script")
    page.wait_for("document.fonts.status === 'loaded'", 10, "the fonts")
    time.sleep(0.3)


def take(browser, url, out, name, dark=False):
    page = open_tab(browser)
    try:
        page.send("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
        page.send("Emulation.setEmulatedMedia", features=[
            {"name": "prefers-color-scheme", "value": "dark" if dark else "light"}])
        page.goto(url)
        settle(page)
        if name == "mid-pull":
            page.drag(195, 160, 300, steps=18, release=False)
            page.wait_for("document.getElementById('feed').dataset.ptrState === 'armed'", 5, "armed")
            time.sleep(0.3)
        path = os.path.join(out, f"{name}.png")
        page.screenshot(path)
        if name == "mid-pull":
            page.touch("touchEnd")
        print(f"  {os.path.relpath(path, ROOT)}")
    finally:
        close_tab(browser, page)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug", "pullrefresh"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "screenshots"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.NamedTemporaryFile("w+b", suffix=".log") as log:
        proc, url = start_server(args.bin, log)
        try:
            with launch_chromium() as browser:
                take(browser, url + "/", args.out, "light")
                take(browser, url + "/", args.out, "dark", dark=True)
                take(browser, url + "/?layout=grid", args.out, "grid")
                take(browser, url + "/", args.out, "mid-pull")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)


if __name__ == "__main__":
    main()
