"""Smoke test of the page over HTTPS in headless Chromium (test certificate, so
--ignore-certificate-errors): it loads from https://, its script and styles load, and a real
touch pull-to-refresh (Input.dispatchTouchEvent) posts one refresh and shows new items."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from cdp import CDP, Page

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
ITEMS = "document.querySelectorAll('[data-item-id]').length"


@pytest.fixture
def chromium():
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.fail("chromium not found: apt-get install -y --no-install-recommends chromium")
    profile = tempfile.mkdtemp(prefix="ptr-ops-chrome-")
    log = open(os.path.join(profile, "chrome.log"), "wb")
    proc = subprocess.Popen(
        [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--ignore-certificate-errors", "--disable-extensions", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--remote-debugging-address=127.0.0.1",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
        stdout=log, stderr=log, start_new_session=True)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 30
    while not (os.path.exists(port_file) and len(open(port_file).read().split("\n")) >= 2
               and open(port_file).read().split("\n")[1].strip()):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("chromium did not start: " + open(os.path.join(profile, "chrome.log")).read()[-2000:])
        time.sleep(0.05)
    port, path = open(port_file).read().split("\n")[:2]
    cdp = CDP(f"ws://127.0.0.1:{port.strip()}{path.strip()}")
    yield cdp
    try:
        cdp.send("Browser.close", timeout=5)
    except Exception:
        pass
    cdp.close()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the browser's own process group, started above
        proc.wait(5)
    log.close()
    shutil.rmtree(profile, ignore_errors=True)


def test_pull_to_refresh_over_https(chromium, server, certs):
    srv = server("--tls-cert", certs.cert, "--tls-key", certs.key, "--hsts", "--reload-delay", "0.3", "--quiet")
    ctx = chromium.send("Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
    target = chromium.send("Target.createTarget", {"url": "about:blank", "browserContextId": ctx})["targetId"]
    session = chromium.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    page = Page(chromium, session)
    for domain in ("Page", "Runtime", "Network"):
        page.send(f"{domain}.enable")
    page.send("Emulation.setDeviceMetricsOverride", **PHONE)
    page.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)

    page.goto(srv.url.replace("127.0.0.1", "localhost") + "/")
    assert page.eval("location.protocol") == "https:"
    assert page.eval("window.isSecureContext") is True
    page.wait_for("document.querySelector('[data-pull-to-refresh]')?.dataset.ptrState === 'idle'", 10,
                  "the gesture script to attach")
    before = page.eval(ITEMS)
    assert before > 0

    page.drag(195, 150, 320)
    page.wait_for(f"{ITEMS} > {before}", 10, "new items after the pull")
    posts = page.requests("/api/refresh", method="POST")
    assert len(posts) == 1, posts
    assert posts[0]["url"].startswith("https://localhost:")
    chromium.send("Target.closeTarget", {"targetId": target}, timeout=5)
