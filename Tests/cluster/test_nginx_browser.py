"""A real pull-to-refresh in headless Chromium on a page served through nginx by two instances:
the new items appear, and both instances serve the new version afterwards. Reuses the browser
suite's Chromium and phone-tab fixtures (Tests/browser/conftest.py) without copying them."""
import json

import pytest
from harness import wait_for
from harness.chromium import launch_chromium
from harness.fixtures import phone_page  # noqa: F401  (the `page` fixture)
from test_nginx import nginx_pair  # noqa: F401  (fixture)


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as cdp:
        yield cdp


FEED = "document.getElementById('feed')"


def test_a_pull_through_nginx_refreshes_the_whole_cluster(nginx_pair, page):  # noqa: F811
    proxy, (a, b) = nginx_pair
    page.goto(f"http://127.0.0.1:{proxy.port}/")
    page.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the script to attach")
    before = page.eval("[...document.querySelectorAll('[data-ptr-list] > li')].length")
    assert page.eval(f"{FEED}.dataset.ptrVersion") == "1"
    mark = page.mark()
    page.drag(195, 150, 320, steps=16, release=False)
    assert page.eval(f"{FEED}.dataset.ptrState") == "armed"
    page.touch("touchEnd")
    page.wait_for(f"{FEED}.dataset.ptrVersion === '2'", 15, "the page to show version 2")
    after = page.eval("[...document.querySelectorAll('[data-ptr-list] > li')].length")
    assert after > before
    assert len(page.requests("/api/refresh", mark)) == 1
    for node in (a, b):
        wait_for(lambda: node.version() == 2, "both instances to serve version 2")
    assert a.items()[1] == b.items()[1]
    # A reload of the page, whichever instance nginx picks, shows the same new items.
    ids = page.eval("[...document.querySelectorAll('[data-ptr-list] > li')].map(e => e.dataset.itemId)")
    served = [item["id"] for item in json.loads(a.items()[1])["items"]]
    assert ids == served[:len(ids)]
