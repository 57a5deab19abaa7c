"""The Feeds page on a phone with touch (issue 32): the owner signs in, adds a loopback feed by
tapping through the form, sees it listed, moves it to a new folder and removes it, every step a
plain form post (no script on the page), every target at least 44 px."""
import json

import pytest

from harness.fixtures import river_upstream  # noqa: F401  (the `upstream` fixture)
from harness.owner import PASSWORD, make_owner
from harness.server import Server, repository_flags


@pytest.fixture
def owned_server(tmp_path):
    database = str(tmp_path / "pullrefresh.sqlite")
    make_owner(database)
    srv = Server("--port", "0", "--quiet", "--reload-delay", "0", "--database", database, "--allow-private-feeds",
                 *repository_flags(), folder=tmp_path)
    yield srv
    srv.stop(10)


def tap_on(page, selector):
    """Scrolls `selector` into view and taps its centre, as a finger would."""
    page.eval(f"document.querySelector({json.dumps(selector)}).scrollIntoView({{block: 'center'}})")
    x, y = page.center(selector)
    page.tap(x, y)


def type_into(page, selector, text):
    """Taps a field and types `text` into it (what the on-screen keyboard sends)."""
    tap_on(page, selector)
    page.wait_for(f"document.activeElement === document.querySelector({json.dumps(selector)})",
                  what=f"{selector} focused")
    page.send("Input.insertText", text=text)


def submit_by_tap(page, selector, expect):
    """Taps a submit button and waits for the page the form's answer leads to."""
    since = page.mark()
    tap_on(page, selector)
    page.cdp.wait_event("Page.loadEventFired", page.session, since, timeout=20)
    page.wait_for(expect, what=expect)


def small_targets(page):
    """Tappable things on the Feeds page under 44 px high (inline links in prose excepted)."""
    return page.eval("""[...document.querySelectorAll(
        '.feeds button, .feeds summary, .feeds input:not([type=hidden]):not([type=radio]), .feeds select,'
        + ' .feeds-back, .feeds-remove, .feeds-cancel, .feeds-export a, .feeds-source-title a')]
        .filter(e => e.getClientRects().length && e.getBoundingClientRect().height < 44)
        .map(e => e.outerHTML.slice(0, 80))""")


def test_add_move_and_remove_a_feed_by_touch(page, owned_server, upstream, shot):
    feed = upstream.url("phone")
    page.goto(owned_server.url + "/feeds")
    # Not signed in: the sign-in form, then back to the Feeds page.
    page.wait_for("location.pathname === '/signin'", what="the sign-in page")
    type_into(page, "input[name=password]", PASSWORD)
    submit_by_tap(page, "form [type=submit]", "location.pathname === '/feeds'")
    assert page.eval("document.querySelector('#add-address') !== null")
    assert small_targets(page) == []

    type_into(page, "#add-address", feed)
    submit_by_tap(page, ".feeds-add button[type=submit]", "location.search.startsWith('?done=added')")
    key = page.eval("document.querySelector('.feeds-item').dataset.sourceKey")
    assert page.eval(f"document.querySelector('#source-{key} .feeds-source-title').textContent") == "Feed phone"
    assert page.eval("document.querySelector('.feeds-message--notice') !== null")
    assert small_targets(page) == []

    # Move it to a new folder: open its details, type the folder's name, save.
    tap_on(page, f"#source-{key} summary")
    page.wait_for(f"document.querySelector('#source-{key} details').open", what="the edit form open")
    type_into(page, f"#new-folder-{key}", "On the go")
    submit_by_tap(page, f"#source-{key} form button[type=submit]", "location.search.startsWith('?done=saved')")
    assert page.eval("[...document.querySelectorAll('.feeds-folder')].map(h => h.textContent.trim())") == ["On the go"]
    page.eval("scrollTo(0, 0)")
    shot(page, "feeds-page")
    assert page.eval(f"document.querySelector('#source-{key}').closest('.feeds-group')"
                     ".querySelector('.feeds-folder a').getAttribute('href')") == "/?folder=On%20the%20go"

    # Remove it: the confirmation step is a page of its own, then the removal.
    tap_on(page, f"#source-{key} summary")
    page.wait_for(f"document.querySelector('#source-{key} details').open", what="the edit form open")
    submit_by_tap(page, f"#source-{key} .feeds-remove", f"location.pathname === '/feeds/{key}/remove'")
    assert small_targets(page) == []
    submit_by_tap(page, ".feeds-confirm button[type=submit]", "location.search === '?done=removed'")
    assert page.eval("document.querySelectorAll('.feeds-item').length") == 0


CACHED_PATHS = """(async () => {
  const paths = []
  for (const name of await caches.keys()) {
    for (const request of await (await caches.open(name)).keys()) paths.push(new URL(request.url).pathname)
  }
  return paths
})()"""


def test_the_service_worker_keeps_no_copy_of_the_feeds_page(page, owned_server):
    """The page holds the session's CSRF token and is `no-store`: the worker, which saves every
    page it fetches for offline use, must not save this one."""
    page.goto(owned_server.url + "/feeds")
    type_into(page, "input[name=password]", PASSWORD)
    submit_by_tap(page, "form [type=submit]", "location.pathname === '/feeds'")
    page.goto(owned_server.url + "/")
    page.wait_for("navigator.serviceWorker.controller !== null", 10, "the service worker to take over")
    page.goto(owned_server.url + "/feeds")
    page.wait_for("document.querySelector('#add-address') !== null", what="the Feeds page through the worker")
    # The river page was saved (so the cache is read), the Feeds page never.
    page.wait_for(f"{CACHED_PATHS}.then(paths => paths.includes('/'))", what="the river page saved")
    assert not any(path.startswith("/feeds") for path in page.eval(CACHED_PATHS))
