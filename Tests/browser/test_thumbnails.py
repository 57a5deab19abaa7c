"""Item pictures on the page: shown through the server's own /img/ route (the image host is a
loopback server, allowed by the test-only --allow-private-images), in fixed slots so nothing
moves when they arrive (the layout-shift PerformanceObserver sums to ~0), and no request ever
goes to any host but the page's own."""
import pytest

from harness.upstream import serve_images
from test_pull_to_refresh import open_feed

# Installed before any page script: every layout shift from the first paint on, summed as CLS
# counts them (shifts right after input excluded).
LAYOUT_SHIFTS = """
window.__shifts = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) {
    if (!entry.hadRecentInput) window.__shifts.push(entry.value);
  }
}).observe({type: 'layout-shift', buffered: true});
"""


@pytest.fixture(scope="module")
def image_host():
    """make-images.py's pictures served by image_host.py on 127.0.0.1 (and .2), one port."""
    yield from serve_images()


def pictured_items(host, count=8):
    """Items, every other one with a picture that arrives 300 ms late (after the first layout)."""
    items = []
    for n in range(1, count + 1):
        item = {"id": f"p{n}", "title": f"Pictured item {n}", "body": f"About item {n}, with some text.",
                "createdAt": "2026-01-01T00:%02d:00Z" % n}
        if n % 2 == 0:
            item["image"] = f"{host}/slow/300/photo.jpg?item={n}"
        items.append(item)
    return items


def open_with_observer(page, url):
    page.send("Page.addScriptToEvaluateOnNewDocument", source=LAYOUT_SHIFTS)
    open_feed(page, url)


THUMBS = "[...document.querySelectorAll('img.item-thumb')]"


@pytest.mark.parametrize("layout", ["list", "grid"])
def test_thumbnails_show_without_layout_shift_and_only_from_the_page_host(page, server, image_host, layout):
    srv = server(items=pictured_items(image_host), extra_args=["--allow-private-images"])
    mark = page.mark()
    open_with_observer(page, f"{srv.url}/?layout={layout}")
    assert page.eval(f"{THUMBS}.length") == 4
    # Every picture decoded, at its slot's size, from /img/ on the page's own origin.
    page.wait_for(f"{THUMBS}.every(i => i.complete && i.naturalWidth > 0)", 15, "every thumbnail to load")
    slots = page.eval(f"{THUMBS}.map(i => [i.getBoundingClientRect().width, i.getBoundingClientRect().height,"
                      " new URL(i.currentSrc).pathname + new URL(i.currentSrc).search, i.alt, i.loading])")
    side = 80 if layout == "list" else 96
    for width, height, src, alt, loading in slots:
        assert (round(width), round(height)) == (side, side), slots
        # The phone is 3x: the 3x candidate (list 80 → 240, grid 96 → 320).
        assert src.startswith("/img/p") and src.endswith("?w=240" if layout == "list" else "?w=320"), src
        assert alt == "" and loading == "lazy"
    # Nothing moved while they arrived (they came 300 ms after the first layout).
    shifts = page.eval("window.__shifts")
    assert sum(shifts) < 0.001, shifts
    # Every request went to the page's own host; the image host's URLs never reached the page.
    hosts = {r["url"].split("/")[2] for r in page.requests("", since=mark) if r["url"].startswith("http")}
    assert hosts == {srv.url.split("/")[2]}, hosts
    assert image_host.split("/")[2] not in page.eval("document.documentElement.outerHTML")
    # The pictures fit the 390 px screen: no horizontal scrolling.
    assert page.eval("document.documentElement.scrollWidth <= window.innerWidth")
    thumbs = page.eval(f"{THUMBS}.map(i => {{ const r = i.getBoundingClientRect(); return [r.left, r.right] }})")
    assert all(0 <= left and right <= 390 for left, right in thumbs), thumbs


def test_offline_the_saved_page_keeps_its_thumbnails(page, server, image_host):
    from test_live_and_offline import attach_service_worker, emulate_offline

    srv = server(items=pictured_items(image_host), extra_args=["--allow-private-images"])
    open_feed(page, srv.url + "/")
    page.wait_for("navigator.serviceWorker.controller !== null", 10, "the service worker to take over")
    # The first visit's pictures loaded before the worker took over; the next visit's go
    # through it and are kept.
    open_feed(page, srv.url + "/")
    page.wait_for(f"{THUMBS}.length === 4 && {THUMBS}.every(i => i.complete && i.naturalWidth > 0)", 15,
                  "every thumbnail to load")
    page.wait_for("caches.open('pullrefresh-thumbnails').then(c => c.keys()).then(k => k.length === 4)", 10,
                  "the four thumbnails to be kept")
    sessions = [page.session, attach_service_worker(page)]
    emulate_offline(page, sessions, True)
    try:
        page.goto(srv.url + "/")
        page.wait_for("!document.querySelector('[data-ptr-offline]').hidden", 10, "the offline banner")
        page.wait_for(f"{THUMBS}.length === 4 && {THUMBS}.every(i => i.complete && i.naturalWidth > 0)", 10,
                      "the saved page's thumbnails, offline")
    finally:
        emulate_offline(page, sessions, False)


def test_the_worker_keeps_at_most_100_thumbnails_dropping_the_oldest(page, server, image_host):
    # 120 pictured items, then 30 newer ones without pictures: the page itself (its newest 30)
    # asks for no thumbnail, so the worker's cache holds exactly what the test fetches, in order.
    items = [{"id": f"t{n}", "title": f"Item {n}", "body": "",
              "createdAt": "2026-01-01T%02d:%02d:00Z" % (n // 60, n % 60)} for n in range(1, 151)]
    for item in items[:120]:
        item["image"] = f"{image_host}/f/photo.jpg?item={item['id']}"
    srv = server(items=items, extra_args=["--allow-private-images"])
    open_feed(page, srv.url + "/")
    page.wait_for("navigator.serviceWorker.controller !== null", 10, "the service worker to take over")
    assert page.eval("document.querySelectorAll('img.item-thumb').length") == 0
    # One after another through the worker: each kept as it arrives, the oldest dropped past 100.
    fetched = page.eval("(async () => { let ok = 0; for (let n = 1; n <= 120; n++) {"
                        " const response = await fetch(`/img/t${n}?w=96`); await response.arrayBuffer();"
                        " if (response.ok) ok++ } return ok })()")
    assert fetched == 120
    kept_ids = ("caches.open('pullrefresh-thumbnails').then(cache => cache.keys())"
                ".then(keys => keys.map(key => new URL(key.url).pathname.slice(5)))")
    page.wait_for(f"{kept_ids}.then(ids => ids.length === 100)", 10, "the cache to be trimmed to 100")
    assert sorted(page.eval(kept_ids), key=lambda id: int(id[1:])) == [f"t{n}" for n in range(21, 121)]
