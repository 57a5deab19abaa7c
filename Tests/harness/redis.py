"""A throwaway redis-server on a free 127.0.0.1 port (no persistence: a restart comes back
empty), a RESP client for tests to read what the instances stored, and pullrefresh instances
on it (`--redis`)."""
import json
import socket
import subprocess
import tempfile

from harness import free_port, wait_for
from harness.server import Server

PREFIX = "pullrefresh:"


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


class Instance(Server):
    """One `pullrefresh --port 0 --redis URL *args` process, run from the repository (its own
    templates and static files); stderr kept in a file."""

    def __init__(self, redis_url, *args):
        super().__init__("--port", "0", "--redis", redis_url, *args)
        if not self.url.startswith("http://127.0.0.1:"):
            self.stop()
            raise AssertionError(f"unexpected startup URL {self.url!r}")

    def stderr(self):
        return self.err_text()

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


def restart_empty_behind(redis, proxy, rejoining):
    """The empty-Redis gap: restarts `redis` with no keys, reopens `proxy` for the instance
    `rejoining` (cut off behind it), waits until that instance has reconnected (seeding a new
    epoch with what it holds, version 1) and until the settle window is over, so that its next
    reload commits."""
    redis.restart_empty()
    proxy.restore()
    wait_for(lambda: rejoining.health()["status"] == "ok", "the cut-off instance to reconnect")
    wait_for(lambda: redis.cli("PTTL", PREFIX + "settle") < 0, "the settle window to end", timeout=10)
