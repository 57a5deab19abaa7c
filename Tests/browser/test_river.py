"""A river of feeds kept fresh, in Chromium: with `--refresh-every 1s` over two real loopback
feeds, a new entry upstream reaches the open page through the event stream, so the "1 new item"
pill appears with nobody pulling; tapping it inserts the entry with its source's title."""
import os
import sys

import pytest

from conftest import ROOT
from test_live_and_offline import FEED, LIST, PILL, open_feed, wait_streams

sys.path.insert(0, os.path.join(ROOT, "Tests", "UpstreamTests", "Fixtures"))
from river_upstream import RiverUpstream  # noqa: E402


@pytest.fixture
def upstream():
    feeds = RiverUpstream()
    yield feeds
    feeds.stop()


def test_a_scheduled_refresh_shows_the_pill_without_a_pull(page, server, upstream):
    srv = server(reload_delay=0, heartbeat="1s", access_log=True, extra_args=[
        "--source", upstream.url("morning"), "--source", upstream.url("evening"), "--refresh-every", "1s"])
    open_feed(page, srv.url + "/")
    wait_streams(srv, 1, "the page to open its event stream")
    before = page.eval(f"{LIST}.children.length")
    assert before == 2
    shown = page.eval(f"{FEED}.dataset.ptrVersion")
    mark = page.mark()
    upstream.add("morning", "sunrise")
    page.wait_for(f"!{PILL}.hidden", timeout=10, what="the pill from the scheduled refresh")
    assert page.eval(f"{PILL}.textContent") == "1 new item"
    assert page.eval(f"{FEED}.dataset.ptrVersion") == shown
    # Nobody pulled: no refresh from the page, none in the server's log.
    assert page.requests("/api/refresh", since=mark, method="POST") == []
    assert srv.access_lines("POST", "/api/refresh") == []
    page.tap(*page.center("[data-ptr-pill]"))
    page.wait_for(f"{LIST}.children.length === {before + 1}", 5, "the new entry to be inserted")
    first = page.eval(f"(() => {{ const li = {LIST}.firstElementChild; return [li.dataset.itemId,"
                      f" li.querySelector('.item-source').textContent] }})()")
    assert first[0].endswith(":sunrise") and first[1] == "Feed morning"
