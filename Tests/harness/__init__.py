"""The one harness of the Python suites (browser, ops, cluster, contract, gecko, webkit, soak):
real processes on free 127.0.0.1 ports, each stopped by its own PID, never by name.

- server.py: a pullrefresh process (PULLREFRESH_BIN): flags in, startup line read, logs kept
  in files, requests, stop.
- redis.py: a throwaway redis-server and a RESP client; proxy.py: a TCP proxy a test can cut.
- nginx.py: Debian's nginx from the repository's deploy/ configurations.
- upstream.py: the scriptable loopback feeds (river_server.py) and the image host
  (Tests/images).
- chromium.py: headless Chromium over the DevTools protocol and the emulated phone tab (the one
  module that needs a PyPI package, websocket-client; the others are stdlib only, since the
  WebKit suite runs under Debian's /usr/bin/python3).
- fixtures.py: the pytest fixtures several suites share (`page`, the touch suites' `server`).

The suites find this package through `pythonpath` in pytest.ini (Tests/gecko/pytest.ini for
the Gecko suite); scripts (Tests/soak/soak.py) put Tests/ on sys.path themselves.
"""
import contextlib
import os
import signal
import socket
import subprocess
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def free_port():
    """A TCP port free on 127.0.0.1 right now."""
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


def stop_process(proc, timeout=20):
    """SIGCONT (it may be frozen), SIGTERM, up to `timeout` s to drain, else SIGKILL; by its
    PID. Returns the exit status."""
    if proc.poll() is None:
        try:
            os.kill(proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream:
            stream.close()
    return proc.returncode


def wait_for_script(evaluate, expression, timeout=10, what=None):
    """Polls a page's JS `expression` through a driver's `evaluate` (its eval of an expression)
    until it is truthy; fails after `timeout` seconds naming `what`. The WebKit and Gecko
    drivers' page poll."""
    deadline = time.monotonic() + timeout
    while True:
        value = evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or expression}")
        time.sleep(0.03)


@contextlib.contextmanager
def deadline(seconds):
    """Raises TimeoutError in the main thread after `seconds` (SIGALRM): bounds a test that
    hangs despite every wait of its own having a deadline."""
    def expire(signum, frame):
        raise TimeoutError(f"test exceeded {seconds}s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
