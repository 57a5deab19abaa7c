"""Live "N new items" and the offline copy, in headless Chromium against the real server.

Two pages on one server: a refresh made elsewhere (an HTTP POST, as curl would) reaches both over
`GET /api/events` and shows the pill within a second; tapping it inserts the items with a GET of
the items fragment, so the server's access log shows no second reload. A hidden page closes its
stream (the server's open-stream gauge drops) and catches up when visible again. After one visit,
the service worker shows the saved list offline, with its banner. In the HTTPS pass
(PTR_BROWSER_TLS=1) all of it runs over TLS: the event stream, and the worker on the run's
self-signed certificate (a secure context, as the worker needs).
"""
import time
import re

import pytest

from harness.chromium import close_tab, open_tab

FEED = "document.getElementById('feed')"
PILL = "document.querySelector('[data-ptr-pill]')"
LIST = "document.querySelector('[data-ptr-list]')"


@pytest.fixture
def srv(server):
    """A server from the shared factory (so over HTTPS in the TLS pass, as the service worker and
    the event stream must work there too) with its access log kept for counting requests, a 1 s
    heartbeat on the event streams and a short reload."""
    return server(reload_delay=0.2, heartbeat="1s", access_log=True)


def wait_streams(srv, count, what):
    """Waits until the server's open-stream gauge reads `count`."""
    deadline = time.monotonic() + 10
    while (open_now := srv.metric("pullrefresh_event_streams_open")) != count:
        assert time.monotonic() < deadline, f"timed out waiting for {what}: {open_now}"
        time.sleep(0.05)


@pytest.fixture
def second_page(browser):
    tab = open_tab(browser)
    yield tab
    close_tab(browser, tab)


def open_feed(page, url):
    page.goto(url)
    page.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the script to attach")


def new_items_text(count):
    return "1 new item" if count == 1 else f"{count} new items"


def set_visibility(page, state):
    """Overrides document.visibilityState as a hidden tab has it, and tells the page."""
    page.eval(f"Object.defineProperty(document, 'visibilityState', {{ value: '{state}', configurable: true }});"
              "document.dispatchEvent(new Event('visibilitychange')); true")


def test_a_refresh_elsewhere_shows_the_pill_and_tapping_it_inserts_without_a_reload(
        page, second_page, srv, shot):
    for tab in (page, second_page):
        open_feed(tab, srv.url + "/")
    wait_streams(srv, 2, "both pages to open their event stream")
    before = page.eval(f"{LIST}.children.length")
    shown = page.eval(f"{FEED}.dataset.ptrVersion")
    epoch = page.eval(f"{FEED}.dataset.ptrEpoch")

    status, headers, _ = srv.request("POST", "/api/refresh")
    assert status == 200
    version, added = headers["X-Feed-Version"], int(headers["X-Feed-Added"])
    assert added > 0 and version != shown
    # The event left as the reload was published, before the POST was answered: both pills
    # within a second from now.
    for tab in (page, second_page):
        tab.wait_for(f"!{PILL}.hidden", timeout=1, what="the pill on both pages within 1 s")
        assert tab.eval(f"{PILL}.textContent") == new_items_text(added)
        # Nothing was inserted under the reader, and the page still says what it shows.
        assert tab.eval(f"{LIST}.children.length") == before
        assert tab.eval(f"{FEED}.dataset.ptrVersion") == shown
    shot(page, "live-new-items-pill")

    posts = len(srv.access_lines("POST", "/api/refresh"))
    mark = page.mark()
    page.tap(*page.center("[data-ptr-pill]"))
    page.wait_for(f"{LIST}.children.length === {before + added}", 5, "the new items to be inserted")
    page.wait_for(f"{FEED}.dataset.ptrVersion === '{version}'", 5, "the version on screen to move")
    page.wait_for(f"{FEED}.dataset.ptrState === 'idle'", 5, "the refresh animation to settle")
    # As after a pull: announced in the live region, focus on the list, the pill gone.
    assert page.eval("document.querySelector('[data-ptr-status]').textContent") == new_items_text(added)
    assert page.eval(f"document.activeElement === {LIST}")
    assert page.eval(f"{PILL}.hidden")
    # The same animation: the gesture's own refresh ran, with source 'live'.
    # No reload: no POST from the page, none more in the server's log; one GET of the fragment.
    assert page.requests("/api/refresh", since=mark, method="POST") == []
    assert len(srv.access_lines("POST", "/api/refresh")) == posts
    fetched = page.requests("/api/items", since=mark, method="GET")
    assert len(fetched) == 1 and f"since={epoch}-{shown}" in fetched[0]["url"], fetched
    assert fetched[0]["headers"].get("Accept") == "text/html"
    ids = page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)")
    assert len(ids) == len(set(ids))

    # A pull still reloads for real.
    page.drag(195, 300, 220)
    page.wait_for(f"{FEED}.dataset.ptrState === 'idle'", 10, "the pull's refresh to settle")
    assert len(srv.access_lines("POST", "/api/refresh")) == posts + 1


def test_a_hidden_page_closes_its_stream_and_catches_up_when_visible(page, second_page, srv):
    for tab in (page, second_page):
        open_feed(tab, srv.url + "/")
    wait_streams(srv, 2, "both streams")
    set_visibility(page, "hidden")
    wait_streams(srv, 1, "the hidden page's stream to close")
    # Two versions while hidden; the visible page hears both, the hidden one nothing.
    total = 0
    for _ in range(2):
        _, headers, _ = srv.request("POST", "/api/refresh")
        total += int(headers["X-Feed-Added"])
    second_page.wait_for(f"{PILL}.textContent === '{new_items_text(total)}'", 3, "the visible pill")
    assert page.eval(f"{PILL}.hidden")
    set_visibility(page, "visible")
    wait_streams(srv, 2, "the page to reconnect")
    # Reconnected with ?since=<its version>: one event at once, counting both reloads' items.
    page.wait_for(f"!{PILL}.hidden && {PILL}.textContent === '{new_items_text(total)}'", 3,
                  "the caught-up pill")
    streams = srv.access_lines("GET", "/api/events")
    assert len(streams) == 3, streams


def test_after_a_first_visit_the_page_opens_offline_with_its_list_and_a_banner(page, srv, shot):
    open_feed(page, srv.url + "/")
    page.wait_for("navigator.serviceWorker.controller !== null", 10, "the service worker to take over")
    # This server's worker in a secure context: in the HTTPS pass an https:// worker on the
    # run's self-signed certificate (which Chromium accepts under --ignore-certificate-errors).
    assert page.eval("window.isSecureContext")
    assert page.eval("navigator.serviceWorker.controller.scriptURL") == srv.url + "/sw.js"
    saved = page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)")
    assert page.eval("document.querySelector('[data-ptr-offline]').hidden")
    status, headers, _ = srv.request("GET", "/sw.js")
    assert status == 200 and headers["Cache-Control"] == "no-cache"
    assert headers["Content-Type"].startswith("text/javascript")

    # Offline for the page and for its service worker, whose fetches are its own (as DevTools'
    # "Offline" does): the page's requests reach the worker, the worker's find no network.
    sessions = [page.session, attach_service_worker(page)]
    emulate_offline(page, sessions, True)
    try:
        page.goto(srv.url + "/")
        page.wait_for("!document.querySelector('[data-ptr-offline]').hidden", 10, "the offline banner")
        banner = page.eval("document.querySelector('[data-ptr-offline]').textContent")
        assert banner.startswith("Offline: showing the list saved "), banner
        # One time format on the line: relative, like "Last updated" above it.
        assert re.search(r"saved (now|\d+ (seconds?|minutes?) ago)$", banner), banner
        assert page.eval("document.querySelector('[data-ptr-offline] time').dateTime")
        # Light: no block of colour, and its time never breaks across lines.
        assert page.eval("getComputedStyle(document.querySelector('[data-ptr-offline]')).backgroundColor") \
            == "rgba(0, 0, 0, 0)"
        assert page.eval("document.querySelector('[data-ptr-offline] time').getClientRects().length") == 1
        assert page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)") == saved
        shot(page, "offline-saved-list")
        # A pull offline says so and keeps the saved list.
        page.drag(195, 300, 220)
        page.wait_for(f"{FEED}.dataset.ptrState === 'error'", 10, "the offline error")
        assert page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)") == saved
    finally:
        emulate_offline(page, sessions, False)


def attach_service_worker(page):
    """A CDP session on the service worker of the page's browser context."""
    deadline = time.monotonic() + 10
    while True:
        targets = page.cdp.send("Target.getTargets")["targetInfos"]
        workers = [t for t in targets if t["type"] == "service_worker"
                   and t.get("browserContextId") == page.context_id]
        if workers:
            break
        assert time.monotonic() < deadline, targets
        time.sleep(0.05)
    session = page.cdp.send("Target.attachToTarget", {"targetId": workers[0]["targetId"],
                                                      "flatten": True})["sessionId"]
    page.cdp.send("Network.enable", session=session)
    return session


def emulate_offline(page, sessions, offline):
    for session in sessions:
        page.cdp.send("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            session=session)
