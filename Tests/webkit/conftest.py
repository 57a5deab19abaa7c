"""Fixtures for the WebKit suite: one Xvfb display (with the touch shim) per session, a real
PullRefresh server per test (the shared harness: port 0, 127.0.0.1, access log on), a fresh
WebKitGTK WebView of a phone's size per test.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
Run with /usr/bin/python3 -m pytest (Debian's python3-gi lives there).
"""
import shutil

import pytest

from harness import deadline
from harness.fixtures import access_log_servers  # noqa: F401  (the `server` fixture)
from webkit_driver import Display, WebKitBrowser

PHONE_WIDTH, PHONE_HEIGHT = 390, 844
# Every wait in the suite has its own deadline; this bounds a test that hangs anyway.
TEST_TIMEOUT_SECONDS = 90


@pytest.fixture(autouse=True)
def test_deadline():
    with deadline(TEST_TIMEOUT_SECONDS):
        yield


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
