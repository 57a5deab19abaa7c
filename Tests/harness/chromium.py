"""Headless Chromium for the suites that drive a page (browser, ops, cluster): a small Chrome
DevTools Protocol client over one browser websocket (flattened sessions), and the emulated
touch phone tab. Needs websocket-client (Tests/browser/requirements.txt).

Every wait is bounded: a hung page or server fails the test instead of hanging the suite.
"""
import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import websocket


class CDPError(RuntimeError):
    pass


class CDP:
    def __init__(self, ws_url, timeout=30):
        # suppress_origin: Chromium rejects DevTools websockets that carry an unknown Origin.
        self.ws = websocket.create_connection(ws_url, timeout=timeout, suppress_origin=True, enable_multithread=True)
        self.ids = itertools.count(1)
        self.cv = threading.Condition()
        self.replies = {}
        self.events = []  # every event, in arrival order: {"method", "params", "sessionId"}
        self.closed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                raw = self.ws.recv()
            except Exception:
                break
            if not raw:
                continue
            msg = json.loads(raw)
            with self.cv:
                if "id" in msg:
                    self.replies[msg["id"]] = msg
                else:
                    self.events.append(msg)
                self.cv.notify_all()
        with self.cv:
            self.closed = True
            self.cv.notify_all()

    def send(self, method, params=None, session=None, timeout=15):
        msg_id = next(self.ids)
        msg = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        with self.cv:
            while msg_id not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise TimeoutError(f"CDP {method} got no reply in {timeout}s")
                self.cv.wait(left)
            reply = self.replies.pop(msg_id)
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method, session=None, since=0, predicate=None, timeout=15):
        """Wait for an event (at index >= since); returns (index, event)."""
        deadline = time.monotonic() + timeout
        with self.cv:
            i = since
            while True:
                while i < len(self.events):
                    ev = self.events[i]
                    if ev["method"] == method and (session is None or ev.get("sessionId") == session) \
                            and (predicate is None or predicate(ev["params"])):
                        return i, ev
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {method} event in {timeout}s")
                self.cv.wait(left)

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass


class Page:
    """One tab (target) in its own browser context, driven through a flattened session."""

    def __init__(self, cdp, context_id, target_id, session):
        self.cdp, self.context_id, self.target_id, self.session = cdp, context_id, target_id, session

    def send(self, method, timeout=15, **params):
        return self.cdp.send(method, params, session=self.session, timeout=timeout)

    def mark(self):
        return len(self.cdp.events)

    def eval(self, expr, timeout=15):
        res = self.send("Runtime.evaluate", timeout=timeout, expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise CDPError(f"JS error in {expr!r}: {json.dumps(res['exceptionDetails'])[:800]}")
        return res["result"].get("value")

    def wait_for(self, expr, timeout=10, what=None):
        """Poll a JS expression until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            last = self.eval(expr)
            if last:
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what or expr} (last: {last!r})")
            time.sleep(0.03)

    def goto(self, url, timeout=15):
        since = self.mark()
        res = self.send("Page.navigate", url=url, timeout=timeout)
        if res.get("errorText"):
            raise CDPError(f"navigate {url}: {res['errorText']}")
        self.cdp.wait_event("Page.loadEventFired", self.session, since, timeout=timeout)

    def requests(self, fragment, since=0, method=None):
        """Network requests (Network.requestWillBeSent) of this page whose URL contains fragment."""
        out = []
        for ev in self.cdp.events[since:]:
            if ev["method"] == "Network.requestWillBeSent" and ev.get("sessionId") == self.session:
                req = ev["params"]["request"]
                if fragment in req["url"] and (method is None or req["method"] == method):
                    out.append(req)
        return out

    # --- input -------------------------------------------------------------------------
    def touch(self, kind, x=None, y=None):
        points = [] if kind in ("touchEnd", "touchCancel") else [{"x": x, "y": y, "id": 1, "radiusX": 4, "radiusY": 4, "force": 1}]
        self.send("Input.dispatchTouchEvent", type=kind, touchPoints=points)

    def drag(self, x, y0, dy, steps=15, dx=0, release=True, pause=0.016):
        """A real touch drag: touchStart, `steps` touchMoves to (x+dx, y0+dy), then touchEnd."""
        self.touch("touchStart", x, y0)
        for i in range(1, steps + 1):
            time.sleep(pause)
            self.touch("touchMove", x + dx * i / steps, y0 + dy * i / steps)
        if release:
            time.sleep(pause)
            self.touch("touchEnd")

    def tap(self, x, y):
        self.touch("touchStart", x, y)
        self.touch("touchEnd")

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def center(self, selector):
        r = self.eval(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                      " return [r.left + r.width / 2, r.top + r.height / 2] })()")
        return r[0], r[1]

    def key(self, key, code, vk, text=None):
        down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
        if text:
            down["text"] = text
        self.send("Input.dispatchKeyEvent", **down)
        self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk, nativeVirtualKeyCode=vk)

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", format="png", timeout=20)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


@contextlib.contextmanager
def launch_chromium(extra_args=()):
    """Debian's Chromium, headless, in a throwaway profile; yields a CDP client of the browser.
    `extra_args` is for callers that need a flag more (the HTTPS runs trust their test
    certificate with --ignore-certificate-errors). Used by the browser suite, the HTTPS smoke
    test and bench/slowlink.py."""
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser") \
        or shutil.which("google-chrome")
    if not exe:
        raise CDPError("chromium not found: apt-get install -y --no-install-recommends chromium fonts-liberation")
    profile = tempfile.mkdtemp(prefix="ptr-chrome-")
    args = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-features=Translate,MediaRouter,OptimizationHints",
            "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
            *extra_args, f"--user-data-dir={profile}", "about:blank"]
    log = open(os.path.join(profile, "chrome.log"), "wb")
    proc = subprocess.Popen(args, stdout=log, stderr=log, start_new_session=True)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 30
    while True:
        if os.path.exists(port_file):
            lines = open(port_file).read().split("\n")
            if len(lines) >= 2 and lines[1].strip():
                break
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise CDPError("chromium did not start: " + open(os.path.join(profile, "chrome.log")).read()[-2000:])
        time.sleep(0.05)
    cdp = CDP(f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}")
    try:
        yield cdp
    finally:
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


# --- a phone tab ------------------------------------------------------------------------
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}


def open_tab(browser, own_context=True):
    """A fresh tab in its own browser context, emulating a touch phone, with Network events on.
    own_context=False opens it in the browser's default context instead: the one profile that is
    not off the record, which installability needs (an incognito context is `in-incognito`)."""
    ctx = None
    params = {"url": "about:blank"}
    if own_context:
        ctx = browser.send("Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
        params["browserContextId"] = ctx
    target = browser.send("Target.createTarget", params)["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    return phone(Page(browser, ctx, target, session))


def phone(p):
    """Turns an attached tab into the emulated touch phone, with Page, Runtime and Network on."""
    for domain in ("Page", "Runtime", "Network"):
        p.send(f"{domain}.enable")
    p.send("Emulation.setDeviceMetricsOverride", **PHONE)
    p.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
    p.send("Emulation.setEmitTouchEventsForMouse", enabled=False)
    return p


def close_tab(browser, p):
    """Closes a tab from open_tab and disposes of its context."""
    steps = [("Target.closeTarget", {"targetId": p.target_id})]
    if p.context_id:
        steps.append(("Target.disposeBrowserContext", {"browserContextId": p.context_id}))
    for method, params in steps:
        try:
            browser.send(method, params, timeout=5)
        except Exception:
            pass
