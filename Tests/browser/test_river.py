"""A river of feeds kept fresh, in Chromium: with `--refresh-every 1s` over two real loopback
feeds, a new entry upstream reaches the open page through the event stream, so the "1 new item"
pill appears with nobody pulling; tapping it inserts the entry with its source's title. A page of
one source (`?source=KEY`) opens a stream of that source, whose pill counts only its entries."""
import json
import time

import pytest

from harness.upstream import RiverUpstream
from test_live_and_offline import FEED, LIST, PILL, open_feed, wait_streams


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


def test_a_page_of_one_source_counts_only_that_sources_new_items(page, server, upstream):
    srv = server(reload_delay=0, heartbeat="1s", extra_args=[
        "--source", upstream.url("morning"), "--source", upstream.url("evening"), "--refresh-every", "1s"])
    sources = json.loads(srv.request("GET", "/api/sources")[2])["sources"]
    evening = next(source["key"] for source in sources if source["url"] == upstream.url("evening"))
    open_feed(page, f"{srv.url}/?source={evening}")
    wait_streams(srv, 1, "the filtered page to open its event stream")
    assert page.eval(f"{FEED}.dataset.ptrEventsEndpoint") == f"/api/events?source={evening}"
    before = page.eval(f"{LIST}.children.length")
    assert before == 1
    # One new entry in each feed: the river has two more items, this page's source one.
    upstream.add("morning", "sunrise")
    upstream.add("evening", "dusk")
    deadline = time.monotonic() + 10
    while len(json.loads(srv.request("GET", "/api/items")[2])["items"]) < 4:
        assert time.monotonic() < deadline, "the scheduled refresh to bring both entries"
        time.sleep(0.1)
    page.wait_for(f"!{PILL}.hidden", timeout=5, what="the pill from the scheduled refresh")
    assert page.eval(f"{PILL}.textContent") == "1 new item"
    page.tap(*page.center("[data-ptr-pill]"))
    page.wait_for(f"{LIST}.children.length === {before + 1}", 5, "the source's new entry to be inserted")
    assert page.eval(f"{LIST}.firstElementChild.dataset.itemId").endswith(":dusk")
    assert page.eval("document.querySelector('[data-ptr-status]').textContent") == "1 new item"
