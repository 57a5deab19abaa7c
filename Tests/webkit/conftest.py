"""Fixtures for the WebKit suite: one Xvfb display (with the touch shim) per session, a real
PullRefresh server per test (port 0, 127.0.0.1, access log on), a fresh WebKitGTK WebView of a
phone's size per test.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
Run with /usr/bin/python3 -m pytest (Debian's python3-gi lives there).
"""
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webkit_driver import Display, WebKitBrowser, stop_process  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PHONE_WIDTH, PHONE_HEIGHT = 390, 844
# Every wait in the suite has its own deadline; this bounds a test that hangs anyway.
TEST_TIMEOUT_SECONDS = 90


@pytest.fixture(autouse=True)
def test_deadline():
    def expire(signum, frame):
        raise TimeoutError(f"test exceeded {TEST_TIMEOUT_SECONDS}s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TEST_TIMEOUT_SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


# --- the display and the browser ----------------------------------------------------------
@pytest.fixture(scope="session")
def display():
    for tool in ("Xvfb", "gcc"):
        if not shutil.which(tool):
            pytest.fail(f"{tool} not found: run `make webkit-deps`")
    with Display() as xvfb:
        yield xvfb


@pytest.fixture
def browser(display):
    """A new WebView (own host process, ephemeral storage) for each test."""
    webview = WebKitBrowser(display, width=PHONE_WIDTH, height=PHONE_HEIGHT)
    yield webview
    webview.close()


# --- the server ---------------------------------------------------------------------------
class Server:
    """A running pullrefresh; its access log (stdout) is collected line by line."""

    def __init__(self, proc, url):
        self.proc, self.url = proc, url
        self.log_lines = []
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._collect, daemon=True)
        self.reader.start()

    def _collect(self):
        for raw in self.proc.stdout:
            with self.lock:
                self.log_lines.append(raw.decode(errors="replace").rstrip("\n"))

    def refresh_posts(self):
        """Access-log lines of completed POST /api/refresh requests, oldest first."""
        with self.lock:
            return [line for line in self.log_lines if line.startswith("POST /api/refresh ")]

    def wait_for_refresh_posts(self, count, timeout=10):
        """Wait until the server has answered `count` refresh POSTs (the log line follows the
        response, so it can trail the page by a moment); returns them."""
        deadline = time.monotonic() + timeout
        while len(self.refresh_posts()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} refresh POSTs, log: {self.log_lines[-20:]}")
            time.sleep(0.02)
        return self.refresh_posts()


@pytest.fixture
def server(tmp_path):
    """Factory: server(reload_delay=0.3, extra_args=()) -> Server, on the built-in generator
    (seed 1) unless `extra_args` says otherwise (e.g. `--data FILE`)."""
    bin_path = os.environ.get("PULLREFRESH_BIN") or os.path.join(ROOT, ".build/debug/pullrefresh")
    if not os.path.exists(bin_path):
        pytest.fail("server binary not found: run `swift build` or set PULLREFRESH_BIN")
    started = []

    def start(reload_delay=0.3, extra_args=()):
        # No --quiet: the access log on stdout is how the suite counts requests server-side.
        args = [bin_path, "--port", "0", "--reload-delay", str(reload_delay), "--seed", "1",
                "--templates", os.path.join(ROOT, "Templates"),
                "--public", os.path.join(ROOT, "Public"), *extra_args]
        # stderr to a file: an unread pipe could fill up and stall the server.
        errors = tmp_path / f"server{len(started)}.stderr"
        with open(errors, "wb") as stderr:
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=stderr, cwd=ROOT)
        started.append(proc)
        line = read_startup_line(proc, errors)
        url = line.strip().split()[-1]
        assert url.startswith("http://127.0.0.1:"), line
        return Server(proc, url)

    yield start
    for proc in started:
        stop_process(proc)


def read_startup_line(proc, errors, timeout=20):
    """The "listening on URL" line, read byte by byte so no access-log line is swallowed."""
    deadline, line = time.monotonic() + timeout, b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or proc.poll() is not None:
            proc.kill()
            pytest.fail(f"server did not start: {line!r} {errors.read_text()[-2000:]!r}")
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            byte = os.read(proc.stdout.fileno(), 1)
            if byte:
                line += byte
    return line.decode()
