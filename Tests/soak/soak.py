"""The soak: two instances on one real redis-server under mixed load for SOAK_SECONDS (default
300), through a schedule of faults, then checks and one summary table; exit 1 on any failure.

Load (client threads, all the time): the page, the API with revalidation (If-None-Match),
static files, refreshes, and event streams that come and go with Last-Event-ID.
Faults (at fixed fractions of the run): a refresh storm, Redis restarted empty, Redis frozen
(SIGSTOP), an instance killed (-9) and restarted, idle connections, oversized bodies.
Checks: no 5xx outside fault windows; versions never go back within an instance (per client
thread, within an epoch; epochs only move forward); one body per (epoch, version) across
instances; every stream caught up within 3 s of a reconnect; RSS, descriptors and threads back
to their warm-up level after the load.

Env: PULLREFRESH_BIN, SOAK_SECONDS. Run by `make soak` (and for 60 s by `make test`).
"""
import gzip
import hashlib
import http.client
import os
import random
import re
import signal
import socket
import sys
import threading
import time

# Run as a script (not by pytest): the shared harness is found from Tests/, this file's parent.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import free_port  # noqa: E402
from harness.redis import Redis  # noqa: E402
from harness.server import Server  # noqa: E402

SECONDS = float(os.environ.get("SOAK_SECONDS", "300"))
ETAG = re.compile(r'"([0-9a-z]+)-v(\d+)')
CATCH_UP = 3.0


def position(tag, version):
    """(epoch, version) from an ETag's or event id's tag and version: comparable within a run."""
    return int(tag, 36), int(version)


class Node:
    """One pullrefresh on a fixed port (so a restart keeps its address); restartable."""

    def __init__(self, name, redis_url):
        self.name, self.redis_url, self.port = name, redis_url, free_port()
        self.proc, self.incarnation, self.baseline = None, 0, None
        self.start()

    def start(self):
        self.server = Server("--port", str(self.port), "--redis", self.redis_url, "--quiet", "--reload-delay",
                             "200ms", "--heartbeat", "2s", "--redis-timeout", "500ms")
        self.proc = self.server.proc
        self.incarnation += 1
        self.baseline = None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        self.server.stop()

    def resources(self):
        """(RSS MB, open descriptors, threads) of the running process."""
        pid = self.proc.pid
        with open(f"/proc/{pid}/status") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
        rss = int(fields["VmRSS"].split()[0]) / 1024
        return rss, len(os.listdir(f"/proc/{pid}/fd")), int(fields["Threads"])


class Record:
    """Everything the load saw, and the faults' windows, under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.windows = []  # (name, start, end)
        self.counts = {}
        self.errors_outside = []
        self.errors_inside = 0
        self.went_back = []
        self.bodies = {}  # (epoch, version) -> body hash of GET /api/items
        self.mixed = []
        self.streams = 0
        self.reconnects = 0
        self.catch_ups = []
        self.late = []
        self.disorder = []

    def in_window(self, began, ended=None):
        """Whether a request in flight from `began` to `ended` overlapped a fault window."""
        ended = began if ended is None else ended
        return any(began <= end and start <= ended for _, start, end in self.windows)

    def count(self, what):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def status(self, node, path, status, began, ended=None):
        self.count("requests")
        if status >= 500:
            with self.lock:
                if self.in_window(began, ended):
                    self.errors_inside += 1
                else:
                    self.errors_outside.append((round(began - self.started, 1), node.name, path, status))


class Soak:
    def __init__(self):
        self.redis = Redis()
        self.nodes = [Node("a", self.redis.url), Node("b", self.redis.url)]
        self.record = Record()
        self.done = threading.Event()
        self.threads = []

    # --- load ----------------------------------------------------------------------------------
    def _request(self, connection, node, method, path, headers=None, body=None):
        began = time.monotonic()
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            connection.close()
            return None
        # A fault window covers every request in flight during it.
        self.record.status(node, path, response.status, began, time.monotonic())
        return response, data

    def http_worker(self, seed):
        rng = random.Random(seed)
        etags = {}
        last = {}  # node name -> (incarnation, position): versions never go back on one node
        connections = {}
        while not self.done.is_set():
            node = rng.choice(self.nodes)
            connection = connections.get(node.name)
            if connection is None or connections.get(node.name + "#") != node.incarnation:
                connection = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
                connections[node.name], connections[node.name + "#"] = connection, node.incarnation
            roll = rng.random()
            if roll < 0.45:
                headers = {"Accept-Encoding": "gzip"}
                if node.name in etags and rng.random() < 0.6:
                    headers["If-None-Match"] = etags[node.name]
                answer = self._request(connection, node, "GET", "/api/items", headers)
                if answer is None:
                    connections[node.name] = None
                    time.sleep(0.05)
                    continue
                response, data = answer
                if response.status not in (200, 304):
                    continue
                tag = response.getheader("ETag") or ""
                match = ETAG.search(tag)
                if not match:
                    continue
                here = position(*match.groups())
                seen = last.get(node.name)
                if seen and seen[0] == node.incarnation and here[0] == seen[1][0] and here[1] < seen[1][1]:
                    self.record.went_back.append((node.name, seen[1], here))
                if seen and seen[0] == node.incarnation and here[0] < seen[1][0]:
                    self.record.went_back.append((node.name, seen[1], here))
                last[node.name] = (node.incarnation, here)
                etags[node.name] = tag
                if response.status == 200:
                    if "gzip" in (response.getheader("Content-Encoding") or ""):
                        data = gzip.decompress(data)
                    digest = hashlib.sha256(data).hexdigest()
                    with self.record.lock:
                        known = self.record.bodies.setdefault(here, digest)
                        if known != digest:
                            self.record.mixed.append(here)
            elif roll < 0.70:
                self._request(connection, node, "GET", "/", {"Accept-Encoding": "br, gzip"})
            elif roll < 0.95:
                self._request(connection, node, "GET", rng.choice(["/static/app.css", "/static/feed.js", "/sw.js"]))
            else:
                self._request(connection, node, "POST", "/api/refresh", {"Content-Length": "0"})

    def stream_worker(self, seed):
        rng = random.Random(seed)
        last_id = None
        while not self.done.is_set():
            node = rng.choice(self.nodes)
            try:
                last_id = self._one_stream(node, last_id, rng.uniform(1, 5))
            except (OSError, http.client.HTTPException, ValueError):
                time.sleep(0.2)

    def _one_stream(self, node, last_id, hold):
        # What the instance holds as the stream opens: the stream must reach at least that.
        check = http.client.HTTPConnection("127.0.0.1", node.port, timeout=5)
        try:
            check.request("GET", "/api/items", headers={"Accept-Encoding": "identity"})
            response = check.getresponse()
            response.read()
            match = ETAG.search(response.getheader("ETag") or "")
        finally:
            check.close()
        if not match:
            return last_id
        expected = position(*match.groups())
        known = position(*last_id.split("-")) if last_id else None
        behind = known is not None and (known[0] < expected[0] or (known[0] == expected[0] and known[1] < expected[1]))
        connection = http.client.HTTPConnection("127.0.0.1", node.port, timeout=1)
        opened = time.monotonic()
        headers = {"Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        connection.request("GET", "/api/events", headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            response.read()
            connection.close()
            self.record.status(node, "/api/events", response.status, opened)
            return last_id
        self.record.status(node, "/api/events", 200, opened)
        with self.record.lock:
            self.record.streams += 1
            if last_id:
                self.record.reconnects += 1
        caught_at = None if behind else opened
        previous = known
        try:
            while time.monotonic() - opened < hold and not self.done.is_set():
                try:
                    line = response.readline()
                except (socket.timeout, TimeoutError):
                    line = b"\n"
                if not line:
                    break
                text = line.decode().rstrip("\n")
                if not text.startswith("id: "):
                    if caught_at is None and time.monotonic() - opened > CATCH_UP:
                        break
                    continue
                last_id = text[4:]
                here = position(*last_id.split("-"))
                if previous and not (here[0] > previous[0] or (here[0] == previous[0] and here[1] > previous[1])):
                    self.record.disorder.append((node.name, previous, here))
                previous = here
                if caught_at is None and (here[0] > expected[0] or here >= expected):
                    caught_at = time.monotonic()
        finally:
            connection.close()
        if behind:
            lag = (caught_at or time.monotonic()) - opened
            with self.record.lock:
                if caught_at is not None:
                    self.record.catch_ups.append(lag)
                if (caught_at is None or lag > CATCH_UP) and not self.record.in_window(opened):
                    self.record.late.append((node.name, known, expected, round(lag, 2)))
        return last_id

    # --- faults --------------------------------------------------------------------------------
    def window(self, name, seconds_after, action):
        """Runs a fault; its window opens now and closes `seconds_after` after it ends."""
        start = time.monotonic()
        with self.record.lock:
            index = len(self.record.windows)
            self.record.windows.append((name, start, float("inf")))
        action()
        with self.record.lock:
            self.record.windows[index] = (name, start, time.monotonic() + seconds_after)
        time.sleep(seconds_after)

    def storm(self):
        results = []

        def refresh(node):
            connection = http.client.HTTPConnection("127.0.0.1", node.port, timeout=30)
            try:
                connection.request("POST", "/api/refresh", headers={"Content-Length": "0"})
                response = connection.getresponse()
                response.read()
                results.append(response.status)
            except OSError:
                results.append(0)
            finally:
                connection.close()
        threads = [threading.Thread(target=refresh, args=(self.nodes[n % 2],)) for n in range(200)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.record.counts["storm refreshes answered 200"] = results.count(200)

    def redis_restart(self):
        self.redis.restart_empty()

    def redis_freeze(self):
        self.redis.proc.send_signal(signal.SIGSTOP)
        time.sleep(3)
        self.redis.proc.send_signal(signal.SIGCONT)

    def kill_and_restart(self):
        node = self.nodes[1]
        node.kill()
        time.sleep(1)
        node.start()

    def idle(self):
        sockets = []
        for node in self.nodes:
            for _ in range(150):
                try:
                    sockets.append(socket.create_connection(("127.0.0.1", node.port), timeout=5))
                except OSError:
                    break
        time.sleep(8)
        for sock in sockets:
            sock.close()
        self.record.counts["idle connections held"] = len(sockets)

    def oversized(self):
        body = b"x" * (2 * 1024 * 1024)
        statuses = []
        for node in self.nodes:
            for _ in range(5):
                connection = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
                try:
                    connection.request("POST", "/api/refresh", body=body, headers={"Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read()
                    statuses.append(response.status)
                except OSError:
                    statuses.append("closed")  # refused before the whole body was sent: allowed
                finally:
                    connection.close()
        self.record.counts["oversized bodies answered 413"] = statuses.count(413)
        self.record.oversized = statuses

    # --- run -----------------------------------------------------------------------------------
    def run(self):
        for node in self.nodes:
            node.baseline = None
        self.threads = [threading.Thread(target=self.http_worker, args=(n,), daemon=True) for n in range(6)]
        self.threads += [threading.Thread(target=self.stream_worker, args=(100 + n,), daemon=True) for n in range(8)]
        for thread in self.threads:
            thread.start()
        warm = min(10.0, SECONDS * 0.08)
        time.sleep(warm)
        for node in self.nodes:
            node.baseline = node.resources()
        schedule = [
            (0.15, "refresh storm", 2, self.storm),
            (0.25, "Redis restarted empty", 6, self.redis_restart),
            (0.40, "Redis frozen 3 s", 5, self.redis_freeze),
            (0.55, "instance b killed -9 and restarted", 5, self.kill_and_restart),
            (0.68, "300 idle connections", 2, self.idle),
            (0.78, "oversized bodies", 1, self.oversized),
        ]
        begin = self.record.started
        for fraction, name, after, action in schedule:
            wait = begin + SECONDS * fraction - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            print(f"[{time.monotonic() - begin:6.1f}s] fault: {name}", flush=True)
            self.window(name, after, action)
            if action == self.kill_and_restart:
                time.sleep(3)
                self.nodes[1].baseline = self.nodes[1].resources()
        wait = begin + SECONDS - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self.done.set()
        for thread in self.threads:
            thread.join(15)
        # The load is over: give the servers a moment to close what the clients left.
        time.sleep(5)
        return self.report()

    def report(self):
        record = self.record
        rows = []

        def check(name, ok, detail):
            rows.append((name, "pass" if ok else "FAIL", detail))
            return ok

        ok = True
        ok &= check("no 5xx outside fault windows", not record.errors_outside,
                    f"{len(record.errors_outside)} outside, {record.errors_inside} inside "
                    f"of {record.counts.get('requests', 0):,} requests"
                    + (f"; first: {record.errors_outside[:3]}" if record.errors_outside else ""))
        ok &= check("versions never back within an instance", not record.went_back,
                    f"{len(record.went_back)} regressions" + (f": {record.went_back[:3]}" if record.went_back else ""))
        epochs = len({epoch for epoch, _ in record.bodies})
        ok &= check("one snapshot per (epoch, version) across instances", not record.mixed and len(record.bodies) > 2,
                    f"{len(record.bodies)} (epoch, version) pairs in {epochs} epochs, {len(record.mixed)} with two bodies")
        lags = sorted(record.catch_ups)
        p99 = lags[int(len(lags) * 0.99)] if lags else 0
        ok &= check("every stream caught up within 3 s of a reconnect", not record.late and record.reconnects > 10,
                    f"{record.streams} streams, {record.reconnects} reconnects, {len(lags)} catch-ups "
                    f"(p99 {p99 * 1000:.0f} ms), {len(record.late)} late" + (f": {record.late[:3]}" if record.late else ""))
        ok &= check("stream ids only move forward", not record.disorder,
                    f"{len(record.disorder)} out of order" + (f": {record.disorder[:3]}" if record.disorder else ""))
        ok &= check("refresh storm answered", record.counts.get("storm refreshes answered 200", 0) >= 190,
                    f"{record.counts.get('storm refreshes answered 200', 0)} / 200 answered 200")
        oversized = getattr(record, "oversized", [])
        ok &= check("oversized bodies refused", oversized and all(s in (413, "closed") for s in oversized),
                    f"{oversized.count(413)} x 413, {oversized.count('closed')} closed early of {len(oversized)}")
        for node in self.nodes:
            if node.proc.poll() is not None:
                ok &= check(f"instance {node.name} alive", False, f"exited {node.proc.returncode}")
                continue
            rss, fds, threads = node.resources()
            base_rss, base_fds, base_threads = node.baseline
            fine = rss <= base_rss * 1.3 + 10 and fds <= base_fds + 8 and threads <= base_threads + 4
            ok &= check(f"instance {node.name}: RSS/fds/threads back to warm-up", fine,
                        f"RSS {base_rss:.0f} → {rss:.0f} MB, fds {base_fds} → {fds}, threads {base_threads} → {threads}")
        print()
        print(f"Soak: {SECONDS:.0f} s, 2 instances on one redis-server, "
              f"{record.counts.get('requests', 0):,} requests, {record.streams:,} event streams")
        print()
        print("| Check | Result | Detail |")
        print("| --- | --- | --- |")
        for name, result, detail in rows:
            print(f"| {name} | {result} | {detail} |")
        print()
        print("Faults: " + "; ".join(f"{name} at {start - record.started:.0f} s" for name, start, _ in record.windows))
        return ok

    def close(self):
        self.done.set()
        for node in self.nodes:
            try:
                node.stop()
            except Exception:  # noqa: BLE001 - a killed one may already be gone
                pass
        try:
            self.redis.proc.send_signal(signal.SIGCONT)
        except (AttributeError, ProcessLookupError):
            pass
        self.redis.stop()


def main():
    soak = Soak()
    try:
        ok = soak.run()
    finally:
        soak.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
