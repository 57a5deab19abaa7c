"""One pullrefresh process for a test: the binary of PULLREFRESH_BIN (default
.build/debug/pullrefresh) with the flags the test gives, its stdout and stderr in files (never
pipes nobody reads: a busy access log would fill one and stall the server), its URL from the
startup line, stopped by its PID."""
import http.client
import json
import os
import select
import ssl
import subprocess
import tempfile
import time

from harness import ROOT, stop_process


def binary():
    """The server binary: PULLREFRESH_BIN (relative to the repository) or the debug build."""
    path = os.environ.get("PULLREFRESH_BIN") or os.path.join(ROOT, ".build", "debug", "pullrefresh")
    if not os.path.isabs(path):
        path = os.path.join(ROOT, path)
    if not os.path.exists(path):
        raise AssertionError(f"server binary not found at {path}: run `swift build` or set PULLREFRESH_BIN")
    return path


def repository_flags():
    """The repository's own templates and static files (what `swift run` serves)."""
    return ["--templates", os.path.join(ROOT, "Templates"), "--public", os.path.join(ROOT, "Public")]


def startup_url(line):
    """The URL of a startup line, as text (`pullrefresh listening on URL`) or as a JSON log line;
    None for any other line."""
    text = line.strip()
    if text.startswith("{"):
        try:
            text = json.loads(text).get("message", "")
        except ValueError:
            return None
    if not text.startswith("pullrefresh listening on "):
        return None
    return text.split()[-1]


def read_first_line(proc, timeout=20):
    """The first line a process the test started itself (stdout a pipe) printed, read byte by
    byte so nothing after it is consumed; fails when it exits or stays silent."""
    deadline = time.monotonic() + timeout
    line = b""
    while b"\n" not in line:
        left = deadline - time.monotonic()
        if left <= 0 or proc.poll() is not None:
            proc.kill()
            raise AssertionError(f"server did not start: {line!r} {proc.stderr.read()[-2000:]!r}")
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 1)
            if chunk:
                line += chunk
    return line.decode()


def run(*args, timeout=20):
    """Runs the binary with `args` to completion (a refused configuration, `--version`):
    (exit status, stdout, stderr)."""
    done = subprocess.run([binary(), *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


class Server:
    """`pullrefresh *args`, started and listening. `folder` holds its two logs (a new temporary
    folder when None); `timeout` bounds the wait for the startup line; `program` runs instead
    of the binary (a script that starts it, such as scripts/run-tls)."""

    def __init__(self, *args, folder=None, timeout=20, env=None, program=None):
        self.folder = str(folder) if folder is not None else tempfile.mkdtemp(prefix="ptr-server-")
        os.makedirs(self.folder, exist_ok=True)
        base = os.path.join(self.folder, f"pullrefresh-{time.monotonic_ns()}")
        self.stdout_path, self.stderr_path = base + ".out", base + ".err"
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen([program or binary(), *args], stdout=out, stderr=err, cwd=ROOT, env=env)
        self.pid = self.proc.pid
        self.url = self._wait_for_startup(timeout)
        self.scheme, rest = self.url.split("://")
        self.port = int(rest.rsplit(":", 1)[1])

    def _wait_for_startup(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            for line in self.out:
                url = startup_url(line)
                if url:
                    return url
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.proc.kill()
                self.proc.wait(5)
                raise AssertionError(f"server did not start: {self.out_text()[-2000:]!r} "
                                     f"{self.err_text()[-2000:]!r}")
            time.sleep(0.02)

    def printed_before_startup(self):
        """What it printed on stdout before its startup line (a starting script's messages)."""
        lines = self.out
        return lines[:next(i for i, line in enumerate(lines) if startup_url(line))]

    # --- its logs -------------------------------------------------------------------------
    def out_text(self):
        """Everything it wrote to stdout so far: the startup line, then the access log."""
        return _read_text(self.stdout_path)

    def err_text(self):
        """Everything it wrote to stderr so far: warnings and errors."""
        return _read_text(self.stderr_path)

    @property
    def out(self):
        """The complete lines of stdout so far."""
        return _complete_lines(self.out_text())

    @property
    def err(self):
        """The complete lines of stderr so far."""
        return _complete_lines(self.err_text())

    def wait_line(self, stream, predicate, timeout=10):
        """The first line of `stream` ("out" or "err") for which `predicate` is true, waiting up
        to `timeout` seconds for it."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.out if stream == "out" else self.err
            for line in lines:
                if predicate(line):
                    return line
            if time.monotonic() > deadline:
                raise AssertionError(f"no matching line on std{stream} in {timeout}s; have {lines[-10:]!r}")
            time.sleep(0.02)

    # --- talking to it --------------------------------------------------------------------
    def request(self, method, path, body=None, headers=None, timeout=30):
        """One request on a fresh connection: (status, headers, body). Over TLS without checking
        the certificate (a test's own), when the server listens on https."""
        if self.scheme == "https":
            connection = http.client.HTTPSConnection(
                "127.0.0.1", self.port, timeout=timeout, context=ssl._create_unverified_context())
        else:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def wait_healthy(self, timeout=20):
        """Waits until `GET /healthz` answers 200."""
        def healthy():
            try:
                return self.request("GET", "/healthz", timeout=5)[0] == 200
            except OSError:
                return False
        deadline = time.monotonic() + timeout
        while not healthy():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"/healthz did not answer 200 in {timeout}s: {self.err_text()[-2000:]!r}")
            time.sleep(0.05)

    @property
    def log_lines(self):
        """The access log so far (stdout without --quiet: one line a request, after the
        startup line)."""
        return self.out

    def refresh_posts(self):
        """Access-log lines of completed POST /api/refresh requests, oldest first."""
        return [line for line in self.out if line.startswith("POST /api/refresh ")]

    def wait_for_refresh_posts(self, count, timeout=10):
        """Waits until the server has answered `count` refresh POSTs (the log line follows the
        response, so it can trail the page by a moment); returns them."""
        deadline = time.monotonic() + timeout
        while len(self.refresh_posts()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} refresh POSTs, log: {self.out[-20:]}")
            time.sleep(0.02)
        return self.refresh_posts()

    def signal(self, number):
        os.kill(self.pid, number)

    def stop(self, timeout=20):
        """SIGTERM (after SIGCONT), up to `timeout` s to drain, else SIGKILL: its exit status."""
        return stop_process(self.proc, timeout)


def generator_server(folder, reload_delay=0.3, extra_args=()):
    """The built-in generator (seed 1) unless `extra_args` says otherwise (e.g. `--data FILE`),
    with the access log on (no --quiet): how the touch suites (WebKit, Gecko) count the
    requests a gesture made, server-side."""
    return Server("--port", "0", "--reload-delay", str(reload_delay), "--seed", "1", *repository_flags(),
                  *extra_args, folder=folder)


def _read_text(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def _complete_lines(text):
    """The lines of `text` that end with a newline (a line being written is not one yet)."""
    return text.split("\n")[:-1]


def write_items(path, titles):
    """A --data file with one item per title, newest first (ids from the title, dates from the
    position: the first title is the newest)."""
    items = [{"id": title, "title": title, "body": "", "createdAt": f"2026-01-01T00:{len(titles) - n:02d}:00Z"}
             for n, title in enumerate(titles)]
    with open(path, "w") as handle:
        json.dump({"items": items}, handle)
