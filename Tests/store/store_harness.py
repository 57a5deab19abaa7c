"""Real components for the store-of-record tests: pullrefresh processes with --database on
files in a temporary folder (each stopped by its own PID), the binary run to its end, and a
file's integrity check.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("PULLREFRESH_BIN") or os.path.join(ROOT, ".build", "debug", "pullrefresh")
sys.path.insert(0, os.path.join(ROOT, "Tests", "cluster"))
from harness import Instance  # noqa: E402


class Server(Instance):
    """One `pullrefresh --port 0 ...` process (the cluster harness's instance, without Redis)."""

    def __init__(self, *args):
        super().__init__(None, *args)

    def json(self, method, path):
        status, headers, body = self.request(method, path)
        return status, headers, json.loads(body)

    def all_items(self):
        """Every item, newest first, by following nextCursor (100 a page)."""
        items, cursor = [], None
        while True:
            status, _, page = self.json("GET", "/api/items?limit=100" + (f"&cursor={cursor}" if cursor else ""))
            assert status == 200, page
            items += page["items"]
            cursor = page["nextCursor"]
            if not cursor:
                return page, items

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.proc.stdout.close()

    def stop(self):
        """SIGTERM, up to 20 s, else SIGKILL; returns the exit status."""
        if self.proc.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc.stdout.close()
        return self.proc.returncode


def run(*args, timeout=30):
    """Runs the binary to its end: (status, stdout, stderr)."""
    done = subprocess.run([BINARY, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def integrity(path):
    """`PRAGMA integrity_check` of a database file, read-only (the WAL, if any, is read too)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()
