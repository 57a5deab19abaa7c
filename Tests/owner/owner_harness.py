"""What the owner suite adds to the shared harness (Tests/harness): `pullrefresh owner …` with
a standard input (a pipe, or a pseudo-terminal) and read-only looks into the database file.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
"""
import os
import pty
import select
import sqlite3
import subprocess
import time

from harness import ROOT
from harness.server import binary


def run_owner(*args, stdin="", timeout=30):
    """`pullrefresh owner *args` with `stdin` piped in: (exit status, stdout, stderr)."""
    done = subprocess.run([binary(), "owner", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


class Terminal:
    """`pullrefresh owner *args` on a pseudo-terminal, as a person at a keyboard runs it:
    everything it prints (and whatever the terminal echoes) is collected in `seen`."""

    def __init__(self, *args):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(ROOT)
            os.execv(binary(), [binary(), "owner", *args])
        self.seen = b""

    def wait_for(self, text, timeout=20):
        """Reads until `text` (bytes) has been printed."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never printed; saw {self.seen!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.fd, 1024)
                except OSError:
                    raise AssertionError(f"{text!r} never printed; saw {self.seen!r}")

    def type(self, line):
        os.write(self.fd, line.encode() + b"\n")

    def finish(self, timeout=30):
        """Reads the rest and waits for the exit: the exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(self.fd, 1024)
                except OSError:
                    chunk = b""
                self.seen += chunk
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        raise AssertionError(f"the command did not end; saw {self.seen!r}")


def query(path, sql, *params):
    """Every row of `sql` on the database file, opened read-only."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def file_bytes(path):
    """The database file and its write-ahead log, as bytes (to look for secrets in clear)."""
    data = b""
    for name in (path, path + "-wal"):
        if os.path.exists(name):
            with open(name, "rb") as handle:
                data += handle.read()
    return data
