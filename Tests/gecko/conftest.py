"""Fixtures for the Gecko suite: one headless Firefox ESR for the session (gecko_driver.py), a
real PullRefresh server per test with its access log (the shared harness's, as the WebKit suite
uses it: the refreshes are counted on the server), and every test bounded in time.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh), FIREFOX (browser binary).
"""
import pytest

from gecko_driver import Firefox
from harness import deadline
from harness.server import generator_server

# Every wait in the suite has its own deadline; this bounds a test that hangs anyway.
TEST_TIMEOUT_SECONDS = 90


@pytest.fixture(autouse=True)
def test_deadline():
    with deadline(TEST_TIMEOUT_SECONDS):
        yield


@pytest.fixture
def server(tmp_path):
    """Factory: server(reload_delay=0.3, extra_args=()) -> harness Server on the built-in
    generator, access log on."""
    started = []

    def start(reload_delay=0.3, extra_args=()):
        srv = generator_server(tmp_path, reload_delay, extra_args)
        assert srv.url.startswith("http://127.0.0.1:"), srv.url
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop(5)


@pytest.fixture(scope="session")
def firefox():
    browser = Firefox(width=390, height=844)
    try:
        yield browser
    finally:
        browser.close()
