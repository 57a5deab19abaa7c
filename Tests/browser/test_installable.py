"""The installable app in headless Chromium against the real server: the manifest as Chromium
reads it, its installability check, the icons at their declared sizes, and the app opened in
standalone display mode (a Chromium started with --app=<url>, which is what an installed app's
window is) where the pull, the button and the offline copy work as in a tab.
"""
import json
import re
import time

import pytest

from conftest import OVER_TLS
from harness.chromium import Page, close_tab, launch_chromium, open_tab, phone
from test_live_and_offline import attach_service_worker, emulate_offline

FEED = "document.getElementById('feed')"
LIST = "document.querySelector('[data-ptr-list]')"


@pytest.fixture
def default_tab(browser):
    """A phone tab in the browser's default (not off-the-record) context."""
    p = open_tab(browser, own_context=False)
    yield p
    close_tab(browser, p)


def long_hex(colour):
    """#abc → #aabbcc, lower case."""
    colour = colour.lower()
    return "#" + "".join(c * 2 for c in colour[1:]) if len(colour) == 4 else colour


def app_manifest(page):
    page.wait_for("document.readyState === 'complete'", 10, "the page to load")
    return page.send("Page.getAppManifest")


def test_chromium_finds_the_page_installable_and_parses_its_manifest_without_errors(default_tab, server):
    srv = server()
    default_tab.goto(srv.url + "/")
    manifest = app_manifest(default_tab)
    assert manifest["url"] == srv.url + "/manifest.webmanifest"
    assert manifest["errors"] == []
    data = json.loads(manifest["data"])
    assert data["id"] == "/" and data["start_url"] == "/" and data["scope"] == "/"
    assert data["display"] == "standalone"
    assert data["name"] == "PullRefresh: the latest items" and data["short_name"] == "PullRefresh"
    # The colours are app.css's light --bg, which the page's light theme-color says too.
    css = open("Public/app.css", encoding="utf-8").read()
    light_bg = re.search(r":root \{[^}]*--bg: (#[0-9a-f]+);", css).group(1)
    assert data["theme_color"] == data["background_color"] == light_bg
    assert default_tab.eval("document.querySelector('meta[name=theme-color][media*=light]').content") == light_bg
    dark_bg = re.search(r"prefers-color-scheme: dark\) \{\s*:root \{[^}]*--bg: (#[0-9a-f]+);", css).group(1)
    dark_meta = default_tab.eval("document.querySelector('meta[name=theme-color][media*=dark]').content")
    assert long_hex(dark_meta) == long_hex(dark_bg), (dark_meta, dark_bg)
    assert [(i["sizes"], i["purpose"]) for i in data["icons"]] == [
        ("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")]
    # As Chromium understood it.
    parsed = manifest["manifest"]
    assert parsed["display"] == "kStandalone" and parsed["startUrl"] == srv.url + "/"
    assert [i["sizes"] for i in parsed["icons"]] == ["192x192", "512x512", "512x512"]
    assert default_tab.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    # Served like the other statics: its type, a validator and a 304.
    status, headers, body = srv.request("GET", "/manifest.webmanifest")
    assert status == 200 and headers["Content-Type"] == "application/manifest+json"
    assert json.loads(body) == data
    assert headers["Cache-Control"] == "public, max-age=300, must-revalidate"
    assert "Accept-Language" in headers["Vary"]
    # The head tags an iPhone's home screen reads.
    head = default_tab.eval("""[...document.head.querySelectorAll('link[rel], meta[name]')]
        .map(e => (e.rel || e.name) + '=' + (e.getAttribute('href') || e.content))""")
    for tag in ("apple-touch-icon=/static/icons/apple-touch-icon.png",
                "apple-mobile-web-app-title=PullRefresh",
                "apple-mobile-web-app-status-bar-style=default",
                "manifest=/manifest.webmanifest"):
        assert tag in head, head


def test_a_chosen_language_gets_its_own_manifest_name_and_start_url(default_tab, server):
    srv = server()
    default_tab.goto(srv.url + "/?lang=ko")
    manifest = app_manifest(default_tab)
    assert manifest["url"] == srv.url + "/manifest.webmanifest?lang=ko"
    assert manifest["errors"] == []
    data = json.loads(manifest["data"])
    assert data["name"] == "PullRefresh: 최신 항목" and data["lang"] == "ko"
    assert data["start_url"] == "/?lang=ko" and data["id"] == "/"
    assert default_tab.send("Page.getInstallabilityErrors")["installabilityErrors"] == []


def test_every_icon_loads_at_its_declared_size(page, server):
    srv = server()
    page.goto(srv.url + "/")
    declared = page.eval("""(async () => {
        const manifest = await (await fetch(document.querySelector('link[rel=manifest]').href)).json()
        const icons = manifest.icons.map(i => [i.src, i.sizes])
        icons.push([document.querySelector('link[rel=apple-touch-icon]').href, '180x180'])
        for (const link of document.querySelectorAll('link[rel=icon]'))
          icons.push([link.href, link.sizes.value || 'any'])
        icons.push(['/favicon.ico', '32x32'])
        return Promise.all(icons.map(([src, sizes]) => new Promise(done => {
          const img = new Image()
          img.onload = () => done([src, sizes, img.naturalWidth + 'x' + img.naturalHeight])
          img.onerror = () => done([src, sizes, 'error'])
          img.src = src
        })))
    })()""")
    assert len(declared) == 7, declared
    for src, sizes, loaded in declared:
        assert loaded != "error", src
        if sizes != "any":
            assert loaded == sizes, (src, sizes, loaded)
    # The SVG favicon is the source itself, drawn at any size.
    assert any(src.endswith("/static/icons/favicon.svg") and loaded != "0x0" for src, _, loaded in declared)
    status, headers, _ = srv.request("GET", "/favicon.ico")
    assert status == 200 and headers["Content-Type"] == "image/x-icon"


@pytest.fixture
def standalone(server):
    """The app as an installed app's window: a Chromium of its own started with --app=<url>,
    its page turned into the emulated touch phone and loaded again."""
    srv = server(reload_delay=0.3)
    flags = [f"--app={srv.url}/"] + (["--ignore-certificate-errors"] if OVER_TLS else [])
    with launch_chromium(flags) as cdp:
        target = None
        for _ in range(200):
            targets = cdp.send("Target.getTargets")["targetInfos"]
            target = next((t for t in targets if t["type"] == "page" and t["url"].startswith(srv.url)), None)
            if target:
                break
            time.sleep(0.05)
        assert target, targets
        session = cdp.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
        p = phone(Page(cdp, target.get("browserContextId"), target["targetId"], session))
        p.goto(srv.url + "/")
        p.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", 10, "the script to attach")
        yield p, srv


def test_the_app_in_standalone_mode_pulls_refreshes_and_opens_offline(standalone, shot):
    page, srv = standalone
    assert page.eval("matchMedia('(display-mode: standalone)').matches")
    # Standalone styles: the header's own top padding shrinks (the safe area pads the feed once).
    assert page.eval("getComputedStyle(document.querySelector('.feed-header')).paddingTop") == "12px"
    before = page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)")
    mark = page.mark()
    page.drag(195, 150, 320)
    page.wait_for(f"{FEED}.dataset.ptrState === 'idle' && {LIST}.children.length > {len(before)}", 10,
                  "the pull's new items")
    posts = page.requests("/api/refresh", mark, method="POST")
    assert len(posts) == 1, posts
    # What the pull added is marked new for a few seconds, then not.
    added = page.eval(f"{LIST}.children.length") - len(before)
    assert page.eval(f"{LIST}.querySelectorAll('li[data-ptr-new]').length") == added
    page.wait_for(f"{LIST}.querySelectorAll('li[data-ptr-new]').length === 0", 10, "the new mark to clear")
    # The Refresh button goes the same way.
    mark = page.mark()
    page.click(*page.center("[data-ptr-button]"))
    page.wait_for(f"{FEED}.dataset.ptrState === 'idle' && "
                  f"document.querySelector('[data-ptr-status]').textContent !== ''", 10, "the button's refresh")
    assert len(page.requests("/api/refresh", mark, method="POST")) == 1
    # The offline copy opens at the start URL.
    page.wait_for("navigator.serviceWorker.controller !== null", 10, "the service worker to take over")
    # The saved copy is the last page loaded (in-place refreshes change only the open document).
    page.goto(srv.url + "/")
    page.wait_for(f"{FEED}.dataset.ptrState === 'idle'", 10, "the page again")
    saved = page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)")
    page.wait_for("caches.keys().then(async names => { for (const n of names) "
                  "if (await (await caches.open(n)).match('/static/icons/icon-512.png')) return true; "
                  "return false })", 10, "the icons to be precached")
    sessions = [page.session, attach_service_worker(page)]
    emulate_offline(page, sessions, True)
    try:
        page.goto(srv.url + "/")
        page.wait_for("!document.querySelector('[data-ptr-offline]').hidden", 10, "the offline banner")
        assert page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)") == saved
        # The manifest and the icons come from the worker while offline.
        assert page.eval("fetch('/manifest.webmanifest').then(r => r.json()).then(m => m.display)") == "standalone"
        assert page.eval("fetch('/static/icons/icon-192.png').then(r => r.ok)")
        assert page.eval("matchMedia('(display-mode: standalone)').matches")
    finally:
        emulate_offline(page, sessions, False)
    # The network is back: the banner clears itself.
    page.wait_for("document.querySelector('[data-ptr-offline]').hidden", 10, "the banner to clear")
