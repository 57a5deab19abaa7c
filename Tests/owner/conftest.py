"""Fixtures for the owner suite: an owner made by the CLI on a fresh database file, servers
stopped at the end, the river's scriptable loopback feeds and in-process loopback sites. The
shared harness (Tests/harness) is on the path through pytest.ini."""
import os
import sys

import pytest
from harness.owner import make_owner
from harness.upstream import RiverUpstream

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from subscriptions_harness import OwnerServer, Sites  # noqa: E402


@pytest.fixture
def upstream():
    server = RiverUpstream()
    yield server
    server.stop()


@pytest.fixture
def sites():
    server = Sites()
    yield server
    server.stop()


@pytest.fixture
def owned(tmp_path):
    """Factory: owned(*extra_flags) -> a running OwnerServer over one database file with an owner
    (the same file and token on every call: a second call is a restart); stopped at the end."""
    database = str(tmp_path / "pullrefresh.sqlite")
    token = make_owner(database)
    started = []

    def start(*extra):
        server = OwnerServer(database, token, *extra, folder=tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.stop(10)
