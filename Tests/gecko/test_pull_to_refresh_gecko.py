"""Pull-to-refresh in Gecko (Firefox ESR, the engine of Firefox for Android), headless, with
trusted touch input by both paths of gecko_driver.py: WebDriver touch actions, and touches
through APZ (Gecko's async scrolling, as an OS touch arrives). Against the real server and the
bundle it serves; refreshes are counted in the server's access log.
"""
import time

import pytest

from gecko_driver import vertical_path

FEED = "document.getElementById('feed')"
LIST = "document.querySelector('[data-ptr-list]')"
X = 195
PATHS = ["actions", "apz"]

# The component's events, and what became of every touchmove (listener after the component's).
RECORDER = """(() => {
  window.__ptr = { events: [], moves: [], cancels: 0 };
  for (const name of ['pullstart', 'armed', 'refresh', 'done', 'error'])
    %s.addEventListener('ptr:' + name, () => __ptr.events.push(name));
  document.addEventListener('touchmove',
    e => __ptr.moves.push([e.isTrusted, e.cancelable, e.defaultPrevented]), { passive: true });
  document.addEventListener('pointercancel', () => __ptr.cancels++, { passive: true });
  return true;
})()""" % FEED


def open_feed(firefox, url):
    firefox.load(url)
    firefox.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the script to attach")
    assert firefox.eval_js("'ontouchstart' in window && navigator.maxTouchPoints === 5 && "
                           "matchMedia('(pointer: coarse)').matches && innerWidth === 390")
    firefox.eval_js(RECORDER)
    # A moment for the first paint and APZ's hit-test data, so the first touch is hit-tested
    # against the page as it is.
    time.sleep(0.3)


def state(firefox):
    return firefox.eval_js(f"{FEED}.dataset.ptrState")


def wait_idle(firefox, timeout=10):
    firefox.wait_for(f"{FEED}.dataset.ptrState === 'idle'", timeout, "state idle")


def item_ids(firefox):
    return firefox.eval_js(f"[...{LIST}.children].map(li => li.dataset.itemId)")


def no_refresh_within(srv, seconds=1.5):
    """A bounded window for "nothing was sent" (a refresh is POSTed on release, so one would
    reach the log well within it)."""
    time.sleep(seconds)
    return srv.refresh_posts() == []


@pytest.mark.parametrize("path", PATHS)
def test_a_long_pull_at_the_top_fires_exactly_one_refresh_and_new_items_appear(firefox, server, path):
    srv = server(reload_delay=0.3)
    open_feed(firefox, srv.url + "/")
    before = item_ids(firefox)
    version = firefox.eval_js(f"{FEED}.dataset.ptrVersion")
    firefox.drag(path, X, vertical_path(150, 450))
    posts = srv.wait_for_refresh_posts(1)
    firefox.wait_for(f"{LIST}.children.length > {len(before)}", 10, "the new items")
    wait_idle(firefox)
    time.sleep(0.5)
    assert len(srv.refresh_posts()) == 1, posts
    after = item_ids(firefox)
    assert after[len(after) - len(before):] == before
    assert firefox.eval_js(f"{FEED}.dataset.ptrVersion") != version
    assert firefox.eval_js("__ptr.events") == ["pullstart", "armed", "refresh", "done"]
    moves = firefox.eval_js("__ptr.moves")
    # Trusted, cancelable and prevented by the component (APZ coalesces some moves).
    assert len(moves) >= 10 and all(trusted and cancelable and prevented
                                    for trusted, cancelable, prevented in moves), moves
    assert firefox.eval_js(f"{FEED}.scrollTop") == 0


@pytest.mark.parametrize("path", PATHS)
def test_a_20px_pull_fires_nothing(firefox, server, path):
    srv = server()
    open_feed(firefox, srv.url + "/")
    firefox.drag(path, X, vertical_path(200, 220, step=5))
    assert no_refresh_within(srv)
    assert "armed" not in firefox.eval_js("__ptr.events")
    assert state(firefox) == "idle"


@pytest.mark.parametrize("path", PATHS)
def test_a_pull_while_scrolled_down_fires_nothing(firefox, server, path):
    srv = server()
    open_feed(firefox, srv.url + "/")
    firefox.eval_js(f"({FEED}.scrollTop = 400, true)")
    firefox.wait_for(f"{FEED}.scrollTop === 400", 3, "the scroll position")
    time.sleep(0.3)
    firefox.drag(path, X, vertical_path(150, 450))
    assert no_refresh_within(srv)
    assert "armed" not in firefox.eval_js("__ptr.events")
    scrolled = firefox.eval_js(f"{FEED}.scrollTop")
    if path == "apz":
        # Through APZ the engine scrolls under the finger (about 1:1, minus the touch slop),
        # and takes the pan from the page (pointercancel).
        assert 50 <= scrolled <= 200, scrolled
        assert firefox.eval_js("__ptr.cancels") >= 1
    else:
        # WebDriver actions skip APZ: nothing scrolls, and nothing may refresh either.
        assert scrolled == 400, scrolled


@pytest.mark.parametrize("path", PATHS)
def test_a_second_pull_during_a_refresh_fires_nothing(firefox, server, path):
    srv = server(reload_delay=2.0)
    open_feed(firefox, srv.url + "/")
    firefox.drag(path, X, vertical_path(150, 450))
    firefox.wait_for(f"{FEED}.dataset.ptrState === 'refreshing'", 5, "the refresh")
    firefox.drag(path, X, vertical_path(150, 450))
    assert state(firefox) == "refreshing"
    firefox.wait_for(f"{FEED}.dataset.ptrState === 'done' || {FEED}.dataset.ptrState === 'settling' "
                     f"|| {FEED}.dataset.ptrState === 'idle'", 10, "the refresh to finish")
    wait_idle(firefox)
    time.sleep(0.5)
    assert len(srv.refresh_posts()) == 1, srv.refresh_posts()
    assert firefox.eval_js("__ptr.events").count("refresh") == 1


@pytest.mark.parametrize("path", PATHS)
def test_touchcancel_resets(firefox, server, path):
    srv = server()
    open_feed(firefox, srv.url + "/")
    firefox.drag(path, X, vertical_path(150, 420), end="touchcancel")
    wait_idle(firefox, 5)
    assert "armed" in firefox.eval_js("__ptr.events")
    assert no_refresh_within(srv)
    firefox.wait_for(f"getComputedStyle({LIST}).transform === 'none'", 5, "the content to slide back")
    # And the next pull works as ever.
    firefox.drag(path, X, vertical_path(150, 450))
    srv.wait_for_refresh_posts(1)
