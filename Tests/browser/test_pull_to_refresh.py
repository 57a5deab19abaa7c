"""Pull-to-refresh in headless Chromium against the real PullRefresh server, with real touch input
(Input.dispatchTouchEvent) on an emulated phone. Requests are counted with the CDP Network domain.
"""
import json
import time

import pytest

from conftest import axe_source, make_items

FEED = "document.getElementById('feed')"
X = 195  # middle of a 390 px wide phone

# Records the component's CustomEvents and what happened to every touchmove (after our listener ran).
RECORDER = """(() => {
  const feed = document.getElementById('feed');
  window.__ptr = { events: [], moves: [] };
  for (const t of ['pullstart', 'armed', 'refresh', 'done', 'error'])
    feed.addEventListener('ptr:' + t, e => __ptr.events.push(t));
  document.addEventListener('touchmove', e => __ptr.moves.push([e.cancelable, e.defaultPrevented]), { passive: true });
  return true;
})()"""


def open_feed(page, url):
    page.goto(url)
    page.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the script to attach")
    page.eval(RECORDER)


def state(page):
    return page.eval(f"{FEED}.dataset.ptrState")


def item_ids(page):
    return page.eval("[...document.querySelectorAll('[data-ptr-list] > li')].map(e => +e.dataset.itemId)")


def events(page):
    return page.eval("__ptr.events")


def refreshes(page, since=0):
    return page.requests("/api/refresh", since)


def wait_idle(page, timeout=10):
    page.wait_for(f"{FEED}.dataset.ptrState === 'idle'", timeout, "state idle")


def settle_window(page, seconds=0.5):
    """A bounded observation window for 'nothing happens' assertions (requests fire synchronously
    on release, so a refresh would show up well within it)."""
    time.sleep(seconds)


def pull_until_armed(page, dy=320, steps=16):
    """Drag down without releasing; returns the states seen at the end."""
    page.drag(X, 150, dy, steps=steps, release=False)
    return state(page)


def test_long_pull_fires_exactly_one_refresh_and_inserts_new_items(page, server, shot):
    srv = server(reload_delay=0.3)
    open_feed(page, srv.url + "/")
    before = item_ids(page)
    version = page.eval(f"{FEED}.dataset.ptrVersion")
    epoch = page.eval(f"{FEED}.dataset.ptrEpoch")
    mark = page.mark()

    assert pull_until_armed(page) == "armed"
    # the pull is ours: touchmoves were cancelable and prevented; the browser's own PTR is kept out
    moves = page.eval("__ptr.moves")
    assert moves and all(c and p for c, p in moves), moves
    assert page.eval(f"getComputedStyle({FEED}).overscrollBehaviorY") == "contain"
    assert page.eval("document.querySelector('[data-ptr-text]').textContent") == "Release to refresh"
    page.wait_for("getComputedStyle(document.querySelector('.feed-header')).transform !== 'none'", 3,
                  "content to follow the finger")
    page.wait_for("document.querySelector('.ptr-indicator').getBoundingClientRect().bottom > 40", 3,
                  "the indicator to be visible")
    shot(page, "pull-armed")
    page.touch("touchEnd")

    page.wait_for(f"{FEED}.dataset.ptrState === 'done' || {FEED}.dataset.ptrState === 'settling'"
                  f" || {FEED}.dataset.ptrState === 'idle'", 10, "the refresh to finish")
    wait_idle(page)
    reqs = refreshes(page, mark)
    assert len(reqs) == 1, reqs
    assert reqs[0]["method"] == "POST"
    # The position on screen: the version within its epoch (what the page was rendered from).
    assert epoch and reqs[0]["url"].endswith(f"/api/refresh?since={epoch}-{version}")
    assert reqs[0]["headers"].get("Accept") == "text/html"

    after = item_ids(page)
    new = after[: len(after) - len(before)]
    assert len(after) > len(before) and after[len(new):] == before
    assert min(new) > max(before), (new, before)
    assert page.eval(f"{FEED}.dataset.ptrVersion") != version
    assert page.eval("document.querySelector('[data-ptr-updated]').dateTime")
    live = page.eval("document.querySelector('[data-ptr-status]').textContent")
    assert live == (f"{len(new)} new items" if len(new) > 1 else "1 new item")
    assert events(page) == ["pullstart", "armed", "refresh", "done"]
    assert page.eval("document.querySelector('[data-ptr-list]').getAttribute('aria-busy')") == "false"
    # everything slid back
    page.wait_for("getComputedStyle(document.querySelector('.feed-header')).transform === 'none'", 3, "the content to slide back")


def test_short_pull_fires_nothing(page, server):
    srv = server()
    open_feed(page, srv.url + "/")
    mark = page.mark()
    page.drag(X, 200, 20, steps=4)
    wait_idle(page)
    settle_window(page)
    assert refreshes(page, mark) == []
    assert "armed" not in events(page)
    assert state(page) == "idle"


def test_second_pull_during_refresh_fires_nothing(page, server, shot):
    srv = server(reload_delay=2.0)
    open_feed(page, srv.url + "/")
    mark = page.mark()
    page.drag(X, 150, 320)
    page.wait_for(f"{FEED}.dataset.ptrState === 'refreshing'", 5)
    page.wait_for("getComputedStyle(document.querySelector('.ptr-spinner')).display === 'block'", 3)
    page.wait_for("getComputedStyle(document.querySelector('.feed-header')).transform.endsWith(', 56)')", 3,
                  "the content to rest at the indicator's height")
    shot(page, "refreshing")
    page.drag(X, 150, 320)  # second pull while the first is in flight
    page.click(*page.center("[data-ptr-button]"))  # and the button, for good measure
    assert state(page) == "refreshing"
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    wait_idle(page)
    settle_window(page)
    assert len(refreshes(page, mark)) == 1
    assert events(page).count("refresh") == 1


def test_pull_when_scrolled_down_scrolls_instead(page, server):
    srv = server()
    open_feed(page, srv.url + "/")
    page.eval(f"{FEED}.scrollTo(0, 400)")
    page.wait_for(f"{FEED}.scrollTop === 400", 3)
    mark = page.mark()
    page.drag(X, 200, 150, steps=10, pause=0.03)
    page.wait_for(f"{FEED}.scrollTop < 330", 3, "the content to scroll back up")
    settle_window(page)
    assert refreshes(page, mark) == []
    assert events(page) == []
    assert state(page) == "idle"


def test_scrolling_up_to_the_top_in_one_gesture_does_not_arm(page, server):
    srv = server()
    open_feed(page, srv.url + "/")
    page.eval(f"{FEED}.scrollTo(0, 120)")
    page.wait_for(f"{FEED}.scrollTop === 120", 3)
    mark = page.mark()
    # one slow gesture: 120 px of scrolling, then 400 px more past the top
    page.drag(X, 150, 520, steps=26, pause=0.03)
    page.wait_for(f"{FEED}.scrollTop === 0", 3, "reaching the top")
    settle_window(page)
    assert refreshes(page, mark) == []
    assert events(page) == []
    assert state(page) == "idle"


def test_touchcancel_resets(page, server):
    srv = server()
    open_feed(page, srv.url + "/")
    mark = page.mark()
    assert pull_until_armed(page) == "armed"
    page.touch("touchCancel")
    wait_idle(page)
    settle_window(page)
    assert refreshes(page, mark) == []
    page.wait_for("getComputedStyle(document.querySelector('.feed-header')).transform === 'none'", 3, "the content to slide back")
    # and the next gesture works normally
    page.drag(X, 150, 320)
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    assert len(refreshes(page, mark)) == 1


def test_ignored_region_never_starts_a_pull(page, server):
    srv = server()
    open_feed(page, srv.url + "/")
    page.eval("document.querySelector('.feed-title').setAttribute('data-ptr-ignore', '')")
    mark = page.mark()
    x, y = page.center(".feed-title")
    page.drag(x, y, 320)
    settle_window(page)
    assert refreshes(page, mark) == [] and events(page) == []


def test_failing_server_shows_error_and_retry_recovers(page, server, shot):
    items = make_items(20)
    srv = server(reload_delay=0.2, items=items)
    open_feed(page, srv.url + "/")
    srv.write_data(raw="{ this is not json")
    mark = page.mark()
    page.drag(X, 150, 320)
    page.wait_for(f"{FEED}.dataset.ptrState === 'error'", 10, "the error state")
    assert page.eval("document.querySelector('[data-ptr-text]').textContent") == "Couldn't refresh"
    assert page.eval("document.querySelector('[data-ptr-status]').textContent") == "Couldn't refresh"
    assert page.eval("document.querySelector('[data-ptr-retry]').hidden") is False
    page.wait_for("document.querySelector('[data-ptr-retry]').getBoundingClientRect().top > 0", 3)
    shot(page, "error")
    assert item_ids(page) == list(range(20, 0, -1))

    srv.write_data(items + make_items(2, start=21))
    page.click(*page.center("[data-ptr-retry]"))
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10, "the retry to succeed")
    assert item_ids(page)[:3] == [22, 21, 20]
    assert page.eval("document.querySelector('[data-ptr-retry]').hidden") is True
    assert page.eval("document.querySelector('[data-ptr-status]').textContent") == "2 new items"
    reqs = refreshes(page, mark)
    assert len(reqs) == 2
    assert events(page) == ["pullstart", "armed", "refresh", "error", "refresh", "done"]


def test_short_content_pulls_and_unchanged_data_says_up_to_date(page, server):
    srv = server(reload_delay=0.1, items=make_items(5))
    open_feed(page, srv.url + "/")
    # short content (nothing to scroll) is still pullable
    assert page.eval(f"{FEED}.scrollHeight <= {FEED}.clientHeight")
    page.drag(X, 150, 320)
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    assert page.eval("document.querySelector('[data-ptr-text]').textContent") == "Up to date"
    assert page.eval("document.querySelector('[data-ptr-status]').textContent") == "Up to date"
    assert item_ids(page) == [5, 4, 3, 2, 1]


def test_refresh_button_works_by_keyboard_in_place(page, server):
    srv = server()
    open_feed(page, srv.url + "/")
    before = item_ids(page)
    page.eval("window.__samePage = true")
    mark = page.mark()
    page.key("Tab", "Tab", 9)
    page.wait_for("document.activeElement.matches('[data-ptr-button]')", 3, "Tab to reach the Refresh button")
    page.key("Enter", "Enter", 13, text="\r")
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    assert page.eval("window.__samePage === true"), "the page must not navigate"
    assert len(refreshes(page, mark)) == 1
    assert page.requests("/refresh", mark, method="POST") == refreshes(page, mark)  # no form POST
    assert len(item_ids(page)) > len(before)
    assert page.eval("document.activeElement.matches('[data-ptr-button]')"), "focus stays on the button"


def test_without_javascript_the_form_refreshes(page, server):
    srv = server()
    page.send("Emulation.setScriptExecutionDisabled", value=True)
    page.goto(srv.url + "/")
    first = page.eval("+document.querySelector('[data-ptr-list] > li').dataset.itemId")
    assert page.eval(f"{FEED}.dataset.ptrState === undefined"), "no script ran"
    mark = page.mark()
    since = page.mark()
    page.click(*page.center("[data-ptr-button]"))
    page.cdp.wait_event("Page.loadEventFired", page.session, since, timeout=15)
    posts = page.requests("/refresh", mark, method="POST")
    assert len(posts) == 1 and "/api/" not in posts[0]["url"]
    page.wait_for("!!document.querySelector('[data-ptr-list] > li')", 5)
    assert page.eval("location.pathname") == "/"
    assert page.eval("+document.querySelector('[data-ptr-list] > li').dataset.itemId") > first


def test_reduced_motion_keeps_the_gesture_but_no_animation(page, server):
    srv = server(reload_delay=1.5)
    page.send("Emulation.setEmulatedMedia", features=[{"name": "prefers-reduced-motion", "value": "reduce"}])
    open_feed(page, srv.url + "/")
    assert page.eval("matchMedia('(prefers-reduced-motion: reduce)').matches")
    before = item_ids(page)
    mark = page.mark()
    page.drag(X, 150, 320)
    page.wait_for(f"{FEED}.dataset.ptrState === 'refreshing'", 5)
    page.wait_for("getComputedStyle(document.querySelector('.ptr-spinner')).display === 'block'", 3)
    assert page.eval("getComputedStyle(document.querySelector('.ptr-spinner')).animationName") == "none"
    assert page.eval("getComputedStyle(document.querySelector('.feed-header')).transitionDuration") == "0s"
    assert page.eval("getComputedStyle(document.querySelector('.ptr-arrow')).transitionDuration") == "0s"
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    assert len(refreshes(page, mark)) == 1
    assert len(item_ids(page)) > len(before)


def test_news_while_scrolled_away_show_a_pill_without_a_jump(page, server, shot):
    srv = server()
    open_feed(page, srv.url + "/")
    page.eval(f"{FEED}.scrollTo(0, 500)")
    page.wait_for(f"{FEED}.scrollTop === 500", 3)
    # the item at the top of the viewport before the refresh
    anchor = page.eval("(() => { const e = document.elementFromPoint(195, 300).closest('li');"
                       " return [e.dataset.itemId, e.getBoundingClientRect().top] })()")
    page.eval(f"{FEED}.ptr.refresh()")
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    top = page.eval(f"document.querySelector('[data-item-id=\"{anchor[0]}\"]').getBoundingClientRect().top")
    assert abs(top - anchor[1]) < 1.5, (top, anchor)
    page.wait_for("!document.querySelector('[data-ptr-pill]').hidden", 3)
    text = page.eval("document.querySelector('[data-ptr-pill]').textContent")
    shot(page, "new-items-pill")
    assert text.endswith("new items") or text == "1 new item"
    page.tap(*page.center("[data-ptr-pill]"))
    page.wait_for(f"{FEED}.scrollTop === 0", 5, "the pill to scroll to the top")
    page.wait_for("document.querySelector('[data-ptr-pill]').hidden", 3)


def test_axe_finds_no_violations(page, server):
    srv = server()
    open_feed(page, srv.url + "/")
    page.eval(axe_source() + "\n;true", timeout=30)
    for scheme in ("light", "dark"):
        page.send("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}])
        result = page.eval("axe.run(document).then(r => r.violations.map(v => ({id: v.id, impact: v.impact,"
                           " nodes: v.nodes.map(n => n.target.join(' '))})))", timeout=60)
        assert result == [], f"{scheme}: " + json.dumps(result, indent=1)


@pytest.mark.parametrize("layout", ["grid"])
def test_grid_layout_has_two_columns_on_a_phone_and_three_when_wider(page, server, layout):
    srv = server()
    open_feed(page, srv.url + f"/?layout={layout}")
    columns = "getComputedStyle(document.querySelector('[data-ptr-list]')).gridTemplateColumns.split(' ').length"
    assert page.eval(columns) == 2
    page.send("Emulation.setDeviceMetricsOverride", width=800, height=1000, deviceScaleFactor=2, mobile=True)
    page.wait_for(f"{columns} === 3", 3, "three columns at 800 px")
