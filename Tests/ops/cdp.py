"""A minimal Chrome DevTools Protocol client (one websocket, flattened sessions), trimmed from
Tests/browser/cdp.py for the HTTPS smoke test. Every wait is bounded."""
import itertools
import json
import threading
import time

import websocket


class CDP:
    def __init__(self, ws_url, timeout=30):
        # suppress_origin: Chromium rejects DevTools websockets that carry an unknown Origin.
        self.ws = websocket.create_connection(ws_url, timeout=timeout, suppress_origin=True, enable_multithread=True)
        self.ids = itertools.count(1)
        self.cv = threading.Condition()
        self.replies, self.events, self.closed = {}, [], False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                raw = self.ws.recv()
            except Exception:
                break
            if raw:
                msg = json.loads(raw)
                with self.cv:
                    (self.replies.__setitem__(msg["id"], msg) if "id" in msg else self.events.append(msg))
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
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method, session, since=0, timeout=15):
        deadline = time.monotonic() + timeout
        with self.cv:
            i = since
            while True:
                while i < len(self.events):
                    ev = self.events[i]
                    if ev["method"] == method and ev.get("sessionId") == session:
                        return ev
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
    """One tab in its own browser context."""

    def __init__(self, cdp, session):
        self.cdp, self.session = cdp, session

    def send(self, method, timeout=15, **params):
        return self.cdp.send(method, params, session=self.session, timeout=timeout)

    def eval(self, expr, timeout=15):
        res = self.send("Runtime.evaluate", timeout=timeout, expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"JS error in {expr!r}: {json.dumps(res['exceptionDetails'])[:800]}")
        return res["result"].get("value")

    def wait_for(self, expr, timeout=10, what=None):
        deadline = time.monotonic() + timeout
        while True:
            last = self.eval(expr)
            if last:
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what or expr} (last: {last!r})")
            time.sleep(0.03)

    def goto(self, url, timeout=15):
        since = len(self.cdp.events)
        res = self.send("Page.navigate", url=url, timeout=timeout)
        if res.get("errorText"):
            raise RuntimeError(f"navigate {url}: {res['errorText']}")
        self.cdp.wait_event("Page.loadEventFired", self.session, since, timeout=timeout)

    def requests(self, fragment, method=None):
        out = []
        for ev in list(self.cdp.events):
            if ev["method"] == "Network.requestWillBeSent" and ev.get("sessionId") == self.session:
                req = ev["params"]["request"]
                if fragment in req["url"] and (method is None or req["method"] == method):
                    out.append(req)
        return out

    def touch(self, kind, x=None, y=None):
        points = [] if kind in ("touchEnd", "touchCancel") else [{"x": x, "y": y, "id": 1, "radiusX": 4, "radiusY": 4, "force": 1}]
        self.send("Input.dispatchTouchEvent", type=kind, touchPoints=points)

    def drag(self, x, y0, dy, steps=16, pause=0.016):
        """A real touch drag: touchStart, `steps` touchMoves down by dy, touchEnd."""
        self.touch("touchStart", x, y0)
        for i in range(1, steps + 1):
            time.sleep(pause)
            self.touch("touchMove", x, y0 + dy * i / steps)
        time.sleep(pause)
        self.touch("touchEnd")
