"""Signing in and out in Chromium on an emulated phone (touch): the river redirects to the sign-in
page, the form works without JavaScript's help and has 44 px targets, the cookie is out of
scripts' reach, the page's own refresh (the no-JS form and the pull's fetch) passes the
cross-site check as a browser really sends it (Referrer-Policy: no-referrer makes the Origin of
its POSTs `null`), and the sign-out button carries its CSRF token."""
import os
import subprocess
import tempfile

import pytest
from harness.server import Server, binary, repository_flags

pytest.importorskip("websocket", reason="make browser-deps")
from harness.chromium import close_tab, launch_chromium, open_tab  # noqa: E402

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as cdp:
        yield cdp


@pytest.fixture
def page(browser):
    tab = open_tab(browser)
    yield tab
    close_tab(browser, tab)


@pytest.fixture
def server():
    with tempfile.TemporaryDirectory(prefix="ptr-signin-") as folder:
        database = os.path.join(folder, "feed.sqlite")
        subprocess.run([binary(), "owner", "set-password", "--database", database], input=PASSWORD + "\n",
                       text=True, check=True, capture_output=True, timeout=60)
        srv = Server("--port", "0", "--database", database, *repository_flags(), folder=folder)
        yield srv
        srv.stop()


def tap(page, selector):
    x, y = page.center(selector)
    page.tap(x, y)


def height(page, selector):
    return page.eval(f"document.querySelector({selector!r}).getBoundingClientRect().height")


def test_sign_in_refresh_and_sign_out_on_a_phone(page, server):
    page.goto(server.url + "/?layout=grid")
    # Signed out: the river sends the browser to the sign-in page, which keeps where it came from.
    assert page.eval("location.pathname") == "/signin"
    assert page.eval("document.querySelector('input[name=next]').value") == "/?layout=grid"
    for selector in ("#password", ".owner-button"):
        assert height(page, selector) >= 44, selector
    tap(page, "#password")
    page.send("Input.insertText", text=PASSWORD)
    since = page.mark()
    tap(page, ".owner-button")
    page.cdp.wait_event("Page.loadEventFired", page.session, since, timeout=15)
    page.wait_for("location.pathname === '/' && location.search === '?layout=grid'", what="the river")
    assert page.eval("document.querySelectorAll('.feed-list li').length") > 0
    # HttpOnly: the page's scripts never see the session.
    assert "pullrefresh_session" not in page.eval("document.cookie")

    # The page's own refreshes pass: the pull's fetch, and the Refresh form without script.
    assert page.eval("fetch('/api/refresh', {method: 'POST'}).then(r => r.status)") == 200
    # (The script takes over the button's tap; submit() posts the form as a browser without it.)
    since = page.mark()
    page.eval("document.querySelector('form.feed-refresh').submit()")
    page.cdp.wait_event("Page.loadEventFired", page.session, since, timeout=15)
    assert page.eval("location.pathname") == "/"
    posts = [line for line in server.out if line.startswith("POST /refresh ")]
    assert posts and " 303 " in posts[-1], posts

    # Signed in, the sign-in page offers the sign-out buttons, which carry the CSRF token.
    page.goto(server.url + "/signin")
    assert page.eval("document.querySelector('.owner-signout input[name=csrf]').value.length") > 20
    assert height(page, ".owner-signout .owner-button") >= 44
    tap(page, ".owner-signout form[action='/signout'] button")
    page.wait_for("location.pathname === '/signin' && !!document.querySelector('#password')", what="the form")
    page.goto(server.url + "/")
    assert page.eval("location.pathname") == "/signin"
