"""Real components for the cluster tests: a throwaway redis-server, pullrefresh instances and
nginx on free 127.0.0.1 ports, each stopped by its own PID (never by name).

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
"""
import http.client
import json
import os
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("PULLREFRESH_BIN") or os.path.join(ROOT, ".build", "debug", "pullrefresh")
PREFIX = "pullrefresh:"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(condition, what, timeout=20.0, interval=0.02):
    """Polls `condition` until it returns something truthy; fails naming `what` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)


class Redis:
    """`redis-server --save '' --appendonly no` on a free port; restartable on the same port."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.dir = tempfile.mkdtemp(prefix="ptr-redis-")
        self.proc = None
        self.start()

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.ping(), "redis-server to answer PING")

    def ping(self):
        """Whether Redis answers, with its data loaded (a restart from an append-only file answers
        `-LOADING` for a moment: not ready yet)."""
        try:
            return self.cli("PING") == "PONG"
        except (OSError, RuntimeError):
            return False

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def restart_empty(self):
        """Stops and starts again: with no persistence Redis comes back with no keys."""
        self.stop()
        self.start()

    def cli(self, *args):
        """One command over RESP; returns str/int/list/None, raises on an error reply."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            parts = [f"*{len(args)}\r\n".encode()]
            for arg in args:
                data = arg if isinstance(arg, bytes) else str(arg).encode()
                parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
            sock.sendall(b"".join(parts))
            return _read_reply(sock.makefile("rb"))

    def get(self, key):
        return self.cli("GET", PREFIX + key)


def _read_reply(stream):
    line = stream.readline()
    if not line:
        raise OSError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        if size < 0:
            return None
        data = stream.read(size + 2)[:-2]
        return data.decode()
    if kind == b"*":
        count = int(rest)
        return None if count < 0 else [_read_reply(stream) for _ in range(count)]
    raise OSError(f"bad RESP line {line!r}")


class Instance:
    """One `pullrefresh --redis ...` process on a free port (without --redis when `redis_url` is
    None), stderr kept in a file."""

    def __init__(self, redis_url, *args):
        self.log = tempfile.NamedTemporaryFile(prefix="ptr-instance-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [BINARY, "--port", "0", *(["--redis", redis_url] if redis_url else []), *args], cwd=ROOT,
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("pullrefresh listening on http://127.0.0.1:"):
            self.proc.kill()
            raise AssertionError(f"no startup line: {line!r}; stderr: {self.stderr()}")
        self.port = int(line.rsplit(":", 1)[1])
        self.pid = self.proc.pid

    def stderr(self):
        with open(self.log.name) as handle:
            return handle.read()

    def request(self, method, path, body=None, headers=None, timeout=30):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def items(self):
        status, headers, body = self.request("GET", "/api/items")
        assert status == 200, body
        return headers, body

    def version(self):
        return json.loads(self.items()[1])["version"]

    def health(self):
        return json.loads(self.request("GET", "/healthz")[2])

    def refresh(self, timeout=30):
        status, headers, body = self.request("POST", "/api/refresh", timeout=timeout)
        return status, headers, json.loads(body)

    def signal(self, number):
        os.kill(self.pid, number)

    def stop(self):
        stop_process(self.proc)


def stop_process(proc):
    """SIGCONT (it may be frozen), SIGTERM, up to 20 s for the drain, else SIGKILL; by its PID."""
    if proc.poll() is None:
        try:
            os.kill(proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    proc.stdout.close()


class CutProxy:
    """A TCP proxy on a free port in front of `target_port`, which a test can cut: `cut()` closes
    every connection through it and refuses new ones (as a failed network would), `restore()`
    accepts again. Threads of its own; `close()` stops it."""

    def __init__(self, target_port):
        import threading
        self.target_port = target_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.pairs = []
        self.listener = None
        self.accepting = False
        self.restore()

    def restore(self):
        import threading
        with self.lock:
            if self.listener is not None:
                return
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(64)
            self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self):
        with self.lock:
            listener, self.listener = self.listener, None
            pairs, self.pairs = self.pairs, []
        if listener is not None:
            # shutdown wakes the thread blocked in accept(); close alone would leave the port
            # listening until that call returns.
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for client, upstream in pairs:
            for sock in (client, upstream):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    close = cut

    def _accept(self, listener):
        import threading
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.listener is not listener:
                    client.close()
                    upstream.close()
                    return
                self.pairs.append((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def write_items(path, titles):
    """A --data file with one item per title, newest first (ids from the title, dates from the
    position: the first title is the newest)."""
    items = [{"id": title, "title": title, "body": "", "createdAt": f"2026-01-01T00:{len(titles) - n:02d}:00Z"}
             for n, title in enumerate(titles)]
    with open(path, "w") as handle:
        json.dump({"items": items}, handle)
