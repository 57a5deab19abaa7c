"""Fixtures for the store-of-record suite: the river's scriptable loopback feeds, servers
stopped at the end, a temporary folder. The shared harness (Tests/harness) is on the path
through pytest.ini."""
import os
import sys
import tempfile

import pytest
from harness.fixtures import river_upstream  # noqa: F401  (the `upstream` fixture)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from store_harness import Server  # noqa: E402


@pytest.fixture
def servers():
    """Starts servers; stops every one still running at the end."""
    started = []

    def start(*args):
        server = Server(*args)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.stop()


@pytest.fixture
def folder():
    with tempfile.TemporaryDirectory(prefix="ptr-store-") as path:
        yield path
