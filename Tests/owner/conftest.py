"""Fixtures for the owner suite (issue 32: the owner, sign-in, tokens, subscriptions over the
wire): a temporary folder, the river's loopback feeds, and `owner`, which runs
`pullrefresh owner …` with a standard input. The shared harness (Tests/harness) is on the path
through pytest.ini."""
import os
import sys
import tempfile

import pytest
from harness.fixtures import river_upstream  # noqa: F401  (the `upstream` fixture)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from owner_harness import run_owner  # noqa: E402


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
