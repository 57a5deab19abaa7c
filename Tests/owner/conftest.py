"""Fixtures for the owner suite (issue 32: the owner, sign-in, tokens, subscriptions over the
wire): a temporary folder, the river's loopback feeds, and `owner`, which runs
`pullrefresh owner …` with a standard input; `owned` (a server over a database with an owner, for
the subscription tests) and `sites` (in-process loopback web sites for discovery). The shared
harness (Tests/harness) is on the path through pytest.ini."""
import os
import sys
import tempfile

import pytest
from harness.fixtures import river_upstream  # noqa: F401  (the `upstream` fixture)
from harness.owner import make_owner

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from owner_harness import run_owner  # noqa: E402
from subscriptions_harness import OwnerServer, Sites  # noqa: E402


@pytest.fixture
def folder():
    with tempfile.TemporaryDirectory(prefix="ptr-owner-") as path:
        yield path


@pytest.fixture
def database(folder):
    """A database path in the test's folder (not created)."""
    return os.path.join(folder, "owner.sqlite")


@pytest.fixture
def owner():
    """`owner(*args, stdin="")` runs `pullrefresh owner *args`: (status, stdout, stderr)."""
    return run_owner


@pytest.fixture
def sites():
    """Web sites on one loopback port, in this process (subscriptions_harness.Sites)."""
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
