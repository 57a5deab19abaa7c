"""Fixtures for the Gecko suite: one headless Firefox ESR for the session (gecko_driver.py), a
real PullRefresh server per test with its access log (the WebKit suite's fixture, reused: the
refreshes are counted on the server), and every test bounded in time.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh), FIREFOX (browser binary).
"""
import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gecko_driver import Firefox  # noqa: E402

# The WebKit suite's server factory and per-test deadline, loaded under a name of their own.
_spec = importlib.util.spec_from_file_location(
    "webkit_conftest", os.path.join(HERE, "..", "webkit", "conftest.py"))
_webkit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_webkit)
server = _webkit.server
test_deadline = _webkit.test_deadline


@pytest.fixture(scope="session")
def firefox():
    browser = Firefox(width=390, height=844)
    try:
        yield browser
    finally:
        browser.close()
