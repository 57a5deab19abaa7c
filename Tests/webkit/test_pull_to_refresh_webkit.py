"""Pull-to-refresh in WebKit (WebKitGTK, the engine of iOS Safari) with real touch input, against
the real PullRefresh server and whatever bundle it serves. Touches are GTK touchscreen events, so
WebKit itself decides what is cancelable, what scrolls and when (see README.md). Refresh requests
are counted on the server, from its access log.
"""
import time

from webkit_driver import vertical_path

FEED = "document.getElementById('feed')"
LIST = "document.querySelector('[data-ptr-list]')"
X = 195  # middle of a 390 px wide phone
PULL_START_Y, PULL_END_Y = 150, 470  # 320 px of finger travel: far past the arming distance

# Records the component's CustomEvents, what became of every touchmove, and how many touches the
# page has seen end. The listeners are on document, so they run after the component's listeners
# on the feed (bubbling order).
RECORDER = """(() => {
  window.__ptr = { events: [], moves: [], ends: 0 };
  for (const name of ['pullstart', 'armed', 'refresh', 'done', 'error'])
    %s.addEventListener('ptr:' + name, () => __ptr.events.push(name));
  document.addEventListener('touchmove',
    event => __ptr.moves.push([event.cancelable, event.defaultPrevented]), { passive: true });
  document.addEventListener('touchend', () => __ptr.ends++, { passive: true });
  return true;
})()""" % FEED


def open_feed(browser, url):
    browser.load(url)
    browser.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the script to attach")
    # Without the touch shim WebKit hides the touch API and a feature check would see a desktop.
    assert browser.eval_js("'ontouchstart' in window"), "WebKit reports no touchscreen"
    browser.eval_js(RECORDER)


def state(browser):
    return browser.eval_js(f"{FEED}.dataset.ptrState")


def wait_state(browser, wanted, timeout=10):
    browser.wait_for(f"{FEED}.dataset.ptrState === '{wanted}'", timeout, f"state {wanted}")


def item_ids(browser):
    return browser.eval_js("[...document.querySelectorAll('[data-ptr-list] > li')]"
                           ".map(item => +item.dataset.itemId)")


def events(browser):
    return browser.eval_js("__ptr.events")


def content_is_displaced(browser):
    return browser.eval_js(f"getComputedStyle({LIST}).transform !== 'none'")


def wait_content_back(browser):
    browser.wait_for(f"getComputedStyle({LIST}).transform === 'none'", 5,
                     "the content to slide back")


def settle_window(seconds=0.6):
    """A bounded observation window for 'nothing happens' assertions: a refresh would have set
    the state at release and its POST would be logged within the server's reload delay (0.1 s in
    those tests)."""
    time.sleep(seconds)


def until_page_saw_lift_off(browser, lift):
    """Run `lift` (which ends a touch) and wait until the page has handled that touchend: WebKit
    delivers touches to the page asynchronously, and 'nothing happened' only means something
    once the gesture is over for the page too."""
    ends_before = browser.eval_js("__ptr.ends")
    lift()
    browser.wait_for(f"__ptr.ends > {ends_before}", 5, "the page to see the touch end")


def drag(browser, points, **options):
    until_page_saw_lift_off(browser, lambda: browser.touch_drag(points, **options))


def release(browser, point):
    until_page_saw_lift_off(browser, lambda: browser.touch_release(point))


def pull_path(steps=16):
    return vertical_path(X, PULL_START_Y, PULL_END_Y, steps)


def pull_and_hold(browser):
    """A long pull at the top, finger still down, until the component reports it armed."""
    browser.touch_drag(pull_path(), hold_ms=150, release=None)
    wait_state(browser, "armed", 5)


def full_pull(browser):
    drag(browser, pull_path(), hold_ms=150)


def test_long_pull_fires_exactly_one_refresh_and_inserts_new_items(browser, server):
    srv = server(reload_delay=0.3)
    open_feed(browser, srv.url + "/")
    before = item_ids(browser)

    pull_and_hold(browser)
    # The pull belongs to the page: WebKit made every touchmove cancelable and honoured
    # preventDefault (the listener is on the feed, not on document, so it is not forced passive).
    moves = browser.eval_js("__ptr.moves")
    assert moves and all(cancelable and prevented for cancelable, prevented in moves), moves
    assert browser.eval_js(f"{FEED}.scrollTop") == 0
    browser.wait_for(f"getComputedStyle({LIST}).transform !== 'none'", 3,
                     "the content to follow the finger")
    release(browser, pull_path()[-1])

    wait_state(browser, "done")
    wait_state(browser, "idle")
    assert len(srv.wait_for_refresh_posts(1)) == 1
    after = item_ids(browser)
    new = after[: len(after) - len(before)]
    assert len(after) > len(before) and after[len(new):] == before, (after, before)
    assert min(new) > max(before), (new, before)
    assert events(browser) == ["pullstart", "armed", "refresh", "done"]
    wait_content_back(browser)
    settle_window()
    assert len(srv.refresh_posts()) == 1, srv.refresh_posts()


def test_short_pull_fires_nothing(browser, server):
    srv = server(reload_delay=0.1)
    open_feed(browser, srv.url + "/")
    before = item_ids(browser)
    drag(browser, vertical_path(X, 200, 220, 4), hold_ms=150)
    wait_state(browser, "idle")
    settle_window()
    assert srv.refresh_posts() == []
    assert "armed" not in events(browser) and "refresh" not in events(browser)
    assert state(browser) == "idle"
    assert item_ids(browser) == before
    wait_content_back(browser)


def test_second_pull_during_refresh_fires_nothing(browser, server):
    srv = server(reload_delay=2.0)
    open_feed(browser, srv.url + "/")
    full_pull(browser)
    wait_state(browser, "refreshing", 5)

    full_pull(browser)  # a second pull while the first request is in flight
    assert state(browser) == "refreshing"
    assert events(browser).count("refresh") == 1

    wait_state(browser, "done", 15)
    wait_state(browser, "idle")
    assert len(srv.wait_for_refresh_posts(1)) == 1
    settle_window()
    assert len(srv.refresh_posts()) == 1, srv.refresh_posts()
    assert events(browser).count("refresh") == 1


def open_feed_scrolled_to(browser, server, top):
    """A feed scrolled `top` px down, on a server with a short reload delay; returns the server."""
    srv = server(reload_delay=0.1)
    open_feed(browser, srv.url + "/")
    browser.eval_js(f"{FEED}.scrollTo(0, {top})")
    browser.wait_for(f"{FEED}.scrollTop === {top}", 3, f"the feed to scroll to {top}")
    return srv


def assert_no_pull_happened(browser, srv):
    settle_window()
    assert srv.refresh_posts() == []
    assert events(browser) == []
    assert state(browser) == "idle"


def test_pull_when_scrolled_down_scrolls_instead(browser, server):
    srv = open_feed_scrolled_to(browser, server, 400)

    drag(browser, vertical_path(X, 200, 350, 10), step_ms=30, hold_ms=150)
    # WebKit scrolled the feed itself (the page did not prevent these touchmoves): 150 px of
    # finger travel scrolls about 150 px back towards the top.
    browser.wait_for(f"{FEED}.scrollTop <= 300", 5, "the content to scroll back up")
    assert_no_pull_happened(browser, srv)
    assert 0 < browser.eval_js(f"{FEED}.scrollTop") <= 300
    assert not content_is_displaced(browser)


def test_scrolling_up_to_the_top_in_one_gesture_does_not_arm(browser, server):
    srv = open_feed_scrolled_to(browser, server, 120)
    # One slow gesture: 120 px of scrolling, then 400 px more past the top.
    drag(browser, vertical_path(X, 150, 670, 26), step_ms=30, hold_ms=150)
    browser.wait_for(f"{FEED}.scrollTop === 0", 5, "reaching the top")
    assert_no_pull_happened(browser, srv)


def test_touchcancel_resets(browser, server):
    srv = server(reload_delay=0.1)
    open_feed(browser, srv.url + "/")
    pull_and_hold(browser)

    # WebKitGTK cannot produce a trusted touchcancel: it turns GDK_TOUCH_CANCEL into a touchend
    # (WebKitWebViewBase.cpp appends the ended point as Released), which would fire the refresh.
    # So the system's cancel is dispatched from script on the element under the real finger,
    # which stays down; the touchend WebKit then sends at lift-off must not revive the pull.
    browser.eval_js(f"document.elementFromPoint({X}, {PULL_END_Y})"
                    ".dispatchEvent(new TouchEvent('touchcancel', { bubbles: true }))")
    wait_state(browser, "idle", 5)
    wait_content_back(browser)
    release(browser, pull_path()[-1])
    settle_window()
    assert srv.refresh_posts() == []
    assert "refresh" not in events(browser)
    assert state(browser) == "idle"

    # and the next gesture works normally
    full_pull(browser)
    wait_state(browser, "done")
    assert len(srv.wait_for_refresh_posts(1)) == 1
