"""What the store-of-record tests add to the shared harness (Tests/harness): a server with
--database that can be killed and walked page by page, and a file's integrity check.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
"""
import json
import os
import signal
import sqlite3

from harness.server import Server as HarnessServer


class Server(HarnessServer):
    """`pullrefresh --port 0 *args`, listening."""

    def __init__(self, *args):
        super().__init__("--port", "0", *args)

    def json(self, method, path):
        status, headers, body = self.request(method, path)
        return status, headers, json.loads(body)

    def all_items(self):
        """The last page and every item, newest first, by following nextCursor (100 a page)."""
        items, cursor = [], None
        while True:
            status, _, page = self.json("GET", "/api/items?limit=100" + (f"&cursor={cursor}" if cursor else ""))
            assert status == 200, page
            items += page["items"]
            cursor = page["nextCursor"]
            if not cursor:
                return page, items

    def kill(self):
        """SIGKILL, by its PID: no drain, no checkpoint."""
        if self.proc.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
        self.proc.wait(10)


def integrity(path):
    """`PRAGMA integrity_check` of a database file, read-only (the WAL, if any, is read too)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()
