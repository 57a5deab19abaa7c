"""Older items in place in WebKit (WebKitGTK, the engine of iOS Safari), scrolled by real touch
swipes: the IntersectionObserver on the feed root (the scroller) loads each page into the same
document as the reader nears the end, the "Older items" link moves on and is removed on the last
page, and a real pull at the top still inserts new items above every loaded page. Requests are
counted on the server, from its access log.
"""
import json
import time

from webkit_driver import vertical_path

FEED = "document.getElementById('feed')"
LINK = "document.querySelector('a[data-ptr-older]')"
X = 195  # middle of a 390 px wide phone


def make_items(n, start=1):
    return [{"id": i, "title": f"Item number {i}", "body": f"Body text of item {i}.",
             "createdAt": "2026-01-01T%02d:%02d:00Z" % (i // 60 % 24, i % 60)}
            for i in range(start, start + n)]


def write_data(path, items):
    path.write_text(json.dumps({"items": items}))


def item_ids(browser):
    return browser.eval_js("[...document.querySelectorAll('[data-ptr-list] > li')]"
                           ".map(item => item.dataset.itemId)")


def ids(first, last):
    return [str(i) for i in range(first, last - 1, -1)]


def older_gets(srv):
    return [line for line in srv.log_lines if line.startswith("GET /api/items ")]


def swipe_up(browser):
    """A real one-finger swipe from near the bottom to near the top: about 500 px of scrolling,
    held still before lift-off so there is no flick momentum."""
    browser.touch_drag(vertical_path(X, 650, 150, 12), hold_ms=120)


def swipe_until(browser, expression, what, most=20):
    """Swipe up until `expression` holds (each swipe waits for the scroll to have happened)."""
    for _ in range(most):
        if browser.eval_js(expression):
            return
        top = browser.eval_js(f"{FEED}.scrollTop")
        swipe_up(browser)
        browser.wait_for(f"{FEED}.scrollTop > {top} || ({expression})", 5, "the swipe to scroll")
    browser.wait_for(expression, 10, what)


def scroll_to_top(browser):
    """Scrolls the feed to the top and waits until it stays there: right after the last swipe,
    WebKit's scrolling can still move the feed back down by tens of pixels after `scrollTo`
    reported 0, and a touch that starts below the top is a scroll, not a pull."""
    for _ in range(10):
        browser.eval_js(f"{FEED}.scrollTo(0, 0)")
        browser.wait_for(f"{FEED}.scrollTop === 0", 3, "the feed to reach the top")
        time.sleep(0.3)
        if browser.eval_js(f"{FEED}.scrollTop === 0"):
            return
    raise AssertionError("the feed did not stay at the top")


def test_swiping_to_the_end_loads_every_page_in_place_and_a_pull_still_works(
        browser, server, tmp_path):
    data = tmp_path / "feed.json"
    write_data(data, make_items(75))
    srv = server(reload_delay=0.1, extra_args=("--data", str(data)))
    browser.load(srv.url + "/")
    browser.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the scripts to attach")
    browser.eval_js("window.__samePage = true")
    first_cursor = browser.eval_js(f"{LINK}.dataset.ptrOlder")
    assert item_ids(browser) == ids(75, 46)

    count = "document.querySelectorAll('[data-ptr-list] > li').length"
    swipe_until(browser, f"{count} === 60", "the second page in place")
    assert browser.eval_js("window.__samePage === true"), "the page must not navigate"
    assert item_ids(browser) == ids(75, 16)
    browser.wait_for("document.querySelector('.feed-more').dataset.olderState === 'idle'", 5)
    assert browser.eval_js(f"{LINK}.dataset.ptrOlder") not in (None, first_cursor)
    assert browser.eval_js(f"{LINK}.getAttribute('href')") == (
        "/?before=" + browser.eval_js(f"{LINK}.dataset.ptrOlder"))

    swipe_until(browser, f"{count} === 75 && !{LINK}", "the last page, and the link gone")
    assert item_ids(browser) == ids(75, 1)
    assert browser.eval_js("document.querySelector('[data-ptr-status]').textContent.trim()") == (
        "15 older items loaded. That's the end of the feed.")
    assert len(older_gets(srv)) == 2, older_gets(srv)
    assert browser.eval_js("window.__samePage === true")

    # back at the top, a real pull: three new items above the three pages
    write_data(data, make_items(78))
    scroll_to_top(browser)
    browser.touch_drag(vertical_path(X, 150, 470, 16), hold_ms=150)
    browser.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10, "the refresh to finish")
    assert item_ids(browser) == ids(78, 1)
