"""pytest fixtures several suites share, imported into their conftest.py (or test module) by
name: pytest registers a fixture wherever its function is in the module's namespace.

- `page`: a fresh emulated phone tab of the `browser` fixture's Chromium (browser, ops and
  cluster suites; each defines `browser` with the flags it needs).
- `server` (as `access_log_servers`): the touch suites' server factory (WebKit, Gecko).
- `upstream` (as `river_upstream`): the river's scriptable loopback feeds (store, owner).
"""
import pytest

from harness.server import generator_server
from harness.upstream import RiverUpstream


@pytest.fixture(name="page")
def phone_page(browser):
    """A fresh tab in its own browser context, emulating a touch phone, with Network events on
    (harness/chromium.py)."""
    from harness.chromium import close_tab, open_tab  # needs websocket-client: only when used
    p = open_tab(browser)
    yield p
    close_tab(browser, p)


@pytest.fixture(name="server")
def access_log_servers(tmp_path):
    """Factory: server(reload_delay=0.3, extra_args=()) -> harness Server on the built-in
    generator (seed 1) unless `extra_args` says otherwise (e.g. `--data FILE`), with the access
    log on: `refresh_posts()` and `log_lines` count the requests server-side."""
    started = []

    def start(reload_delay=0.3, extra_args=()):
        srv = generator_server(tmp_path, reload_delay, extra_args)
        assert srv.url.startswith("http://127.0.0.1:"), srv.url
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop(5)


@pytest.fixture(name="upstream")
def river_upstream():
    """The river's scriptable loopback feeds (harness/upstream.py), stopped at the end."""
    server = RiverUpstream()
    yield server
    server.stop()
