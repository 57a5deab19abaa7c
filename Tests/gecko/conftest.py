"""Fixtures for the Gecko suite: one headless Firefox ESR for the session (gecko_driver.py), a
real PullRefresh server per test with its access log (the shared harness's, as the WebKit suite
uses it: the refreshes are counted on the server), and every test bounded in time.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh), FIREFOX (browser binary).
"""
import pytest

from gecko_driver import Firefox
from harness import deadline
from harness.fixtures import access_log_servers  # noqa: F401  (the `server` fixture)

# Every wait in the suite has its own deadline; this bounds a test that hangs anyway.
TEST_TIMEOUT_SECONDS = 90


@pytest.fixture(autouse=True)
def test_deadline():
    with deadline(TEST_TIMEOUT_SECONDS):
        yield


@pytest.fixture(scope="session")
def firefox():
    browser = Firefox(width=390, height=844)
    try:
        yield browser
    finally:
        browser.close()
