"""The served client as a whole, in headless Chromium against the real server: two self-contained
scripts built by esbuild from Client/src (the gesture component, pull-to-refresh.js, and the page's
enhancements, feed.js), fetched side by side with no import chain, their source maps (named by the
SourceMap header) that lead back to Client/src, and relative item times in the page's language
(feed.js).
"""
import datetime
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import ROOT, make_items

FEED = "document.getElementById('feed')"
TIMES = "[...document.querySelectorAll('time[data-ptr-time]')]"


def open_feed(page, url):
    page.goto(url)
    page.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the script to attach")


def http_get(url):
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, dict(resp.headers), resp.read()


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- one request per script, no import chain ---------------------------------------------------
SCRIPTS = ["pull-to-refresh.js", "feed.js"]


def test_the_page_requests_the_gesture_and_the_feed_script_once_each_and_its_stylesheet(page, server):
    srv = server()
    mark = page.mark()
    open_feed(page, srv.url + "/")
    page.wait_for("[...document.querySelectorAll('time[data-ptr-time]')]"
                  ".every(t => !t.textContent.endsWith('UTC'))", what="feed.js to render the times")
    sent = [ev["params"] for ev in page.cdp.events[mark:]
            if ev["method"] == "Network.requestWillBeSent" and ev.get("sessionId") == page.session]
    # every script the page fetched, wherever from: exactly the two, each once
    scripts = [p for p in sent if p.get("type") == "Script"
               or p["request"]["url"].split("?")[0].endswith((".js", ".mjs"))]
    assert sorted(p["request"]["url"] for p in scripts) == sorted(
        f"{srv.url}/static/{name}" for name in SCRIPTS), [p["request"]["url"] for p in scripts]
    # both found by the HTML parser in the page itself: neither was requested by the other (an
    # import would show as a request initiated by a script)
    for p in scripts:
        assert p["initiator"]["type"] == "parser", (p["request"]["url"], p["initiator"])
        assert p["initiator"]["url"].split("?")[0] == srv.url + "/", p["initiator"]
    static = [p["request"]["url"] for p in sent if "/static/" in p["request"]["url"]]
    assert not any("ptr-core" in u for u in static), static
    assert sorted(u for u in static if u.endswith(".css")) == [
        srv.url + "/static/app.css", srv.url + "/static/pull-to-refresh.css"]
    # still an ES module with the same API: default export, named attach, window.PullToRefresh
    assert page.eval("import('/static/pull-to-refresh.js').then(m => m.default === window.PullToRefresh"
                     " && m.PullToRefresh === m.default && m.attach === m.default.attach)")
    assert page.eval(f"{FEED}.ptr === window.PullToRefresh.attach({FEED})")


@pytest.mark.parametrize("asset", SCRIPTS)
def test_each_script_is_self_contained(server, asset):
    # no static import, re-export or dynamic import left in the served file
    srv = server()
    _, _, body = http_get(f"{srv.url}/static/{asset}")
    code = body.decode()
    assert not re.search(r"""\bimport\s*[{*("']|\bfrom\s*["']|\bimport\.meta""", code), code[:300]


def test_the_gesture_bundle_carries_no_page_feature(server):
    # relative times are the page's (feed.js): the gesture's budget pays for the gesture only
    srv = server()
    gesture = http_get(f"{srv.url}/static/pull-to-refresh.js")[2].decode()
    feed = http_get(f"{srv.url}/static/feed.js")[2].decode()
    assert "RelativeTimeFormat" not in gesture and "setInterval" not in gesture
    assert "RelativeTimeFormat" in feed and "touchmove" not in feed and "dispatchEvent" not in feed
    # feed.js reaches the gesture only through its two documented hooks (docs/gesture.md, Hooks):
    # it listens to them and fires none of the gesture's events
    assert sorted(set(re.findall(r'"(ptr:[a-z]+)"', feed))) == ["ptr:items", "ptr:refresh"]


# --- source maps ---------------------------------------------------------------------------------
_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _segments(mappings):
    """Decodes a source map's `mappings` (base64 VLQ) into (line, column, source, line, column)."""
    out, source, src_line, src_col = [], 0, 0, 0
    for line, group in enumerate(mappings.split(";")):
        column = 0
        for segment in filter(None, group.split(",")):
            values, shift, value = [], 0, 0
            for ch in segment:
                digit = _B64[ch]
                value += (digit & 31) << shift
                if digit & 32:
                    shift += 5
                else:
                    values.append(-(value >> 1) if value & 1 else value >> 1)
                    shift = value = 0
            column += values[0]
            if len(values) >= 4:
                source, src_line, src_col = source + values[1], src_line + values[2], src_col + values[3]
                out.append((line, column, source, src_line, src_col))
    return out


def test_the_stylesheet_is_served_minified_without_a_source_map(server):
    # The map's link would cost 34 gzipped bytes of the size budget; the CSS source is short.
    srv = server()
    status, _, body = http_get(f"{srv.url}/static/pull-to-refresh.css")
    css = body.decode()
    assert status == 200 and "sourceMappingURL" not in css
    assert "@keyframes ptr-spin" in css and "overflow-anchor:none" in css and "\n\n" not in css
    with pytest.raises(urllib.error.HTTPError) as missing:
        http_get(f"{srv.url}/static/pull-to-refresh.css.map")
    assert missing.value.code == 404


# Strings of each minified script, and the source line each must map back to.
MAP_TOKENS = {
    "pull-to-refresh.js": ['"touchmove"', '"aria-busy"', '"pagehide"', "queueMicrotask"],
    "feed.js": ["RelativeTimeFormat", "MutationObserver", '"datetime"', "setInterval"],
}


@pytest.mark.parametrize("asset", SCRIPTS)
def test_the_script_source_map_is_served_and_resolves_to_the_client_source(server, asset):
    tokens = MAP_TOKENS[asset]
    srv = server()
    status, headers, body = http_get(f"{srv.url}/static/{asset}")
    generated = body.decode()
    # The map is named by the standard SourceMap header, not by a `//# sourceMappingURL=` line
    # (which cost the gesture 24 B of its gzip budget).
    assert "sourceMappingURL" not in generated
    assert headers["SourceMap"] == f"/static/{asset}.map"

    map_url = urllib.parse.urljoin(f"{srv.url}/static/{asset}", headers["SourceMap"])
    status, headers, raw = http_get(map_url)
    assert status == 200
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    smap = json.loads(raw)
    assert smap["version"] == 3 and len(smap["sources"]) == len(smap["sourcesContent"])
    # every source, resolved against the map's URL, is a file of Client/src, content included
    for source, content in zip(smap["sources"], smap["sourcesContent"]):
        path = urllib.parse.urlparse(urllib.parse.urljoin(map_url, source)).path.lstrip("/")
        assert path.startswith("Client/src/"), path
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            assert f.read() == content, f"{path}: sourcesContent differs from the file (stale bundle?)"
    # and positions in the minified file map back to the source lines that wrote them
    segments = [s for s in _segments(smap["mappings"]) if s[0] == 0]
    for token in tokens:
        column = generated.index(token)
        _, _, source, line, _ = max((s for s in segments if s[1] <= column), key=lambda s: s[1])
        source_line = smap["sourcesContent"][source].split("\n")[line]
        assert token.strip('"') in source_line, (token, smap["sources"][source], source_line)


@pytest.mark.parametrize("asset", SCRIPTS)
def test_devtools_sees_the_source_map_of_the_script(page, server, asset):
    srv = server()
    page.send("Debugger.enable")
    mark = page.mark()
    open_feed(page, srv.url + "/")
    _, ev = page.cdp.wait_event("Debugger.scriptParsed", page.session, mark, timeout=10,
                                predicate=lambda p: p["url"].endswith(f"/static/{asset}"))
    # Found through the SourceMap header: the script itself names no map.
    assert ev["params"]["sourceMapURL"] == f"/static/{asset}.map"
    assert ev["params"]["isModule"] is True
    page.send("Debugger.disable")


# --- relative times ------------------------------------------------------------------------------
def _aged_items(now):
    """Three items 5 min 20 s, 3 h 10 min and 40 days old (newest first on the page)."""
    ages = [datetime.timedelta(days=40), datetime.timedelta(hours=3, minutes=10),
            datetime.timedelta(minutes=5, seconds=20)]
    return [{"id": i + 1, "title": f"Item {i + 1}", "body": "Body.", "createdAt": iso(now - age)}
            for i, age in enumerate(ages)]


EXPECTED = {
    "en": ["5 minutes ago", "3 hours ago", "last month"],
    "tr": ["5 dakika önce", "3 saat önce", "geçen ay"],
    "ko": ["5분 전", "3시간 전", "지난달"],
    "ja": ["5 分前", "3 時間前", "先月"],
}


@pytest.mark.parametrize("lang", ["en", "tr", "ko", "ja"])
def test_item_times_are_relative_in_the_page_language_with_absolute_title(page, server, lang):
    now = datetime.datetime.now(datetime.timezone.utc)
    items = _aged_items(now)
    srv = server(items=items)
    open_feed(page, f"{srv.url}/?lang={lang}")
    times = page.eval(f"{TIMES}.filter(t => t.closest('[data-ptr-list]'))"
                      ".map(t => [t.textContent, t.title, t.getAttribute('datetime')])")
    assert [t[0].replace("\u202f", " ") for t in times] == EXPECTED[lang]
    created = [item["createdAt"] for item in reversed(items)]
    for (text, title, stamp), iso_time in zip(times, created):
        # datetime stays the ISO instant; the title is the absolute time in the reader's zone
        assert datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")) == \
            datetime.datetime.fromisoformat(iso_time.replace("Z", "+00:00"))
        assert title and title != text and "UTC" not in title
    expected_title = page.eval(f"new Date({json.dumps(created[0])}).toLocaleString({json.dumps(lang)},"
                               " { dateStyle: 'medium', timeStyle: 'short' })")
    assert times[0][1] == expected_title
    # the "Last updated" time follows the same rule
    updated = page.eval("document.querySelector('[data-ptr-updated]').textContent")
    assert "UTC" not in updated and updated


def test_without_javascript_times_stay_absolute_utc(page, server):
    srv = server(items=make_items(3))
    page.send("Emulation.setScriptExecutionDisabled", value=True)
    page.goto(srv.url + "/")
    times = page.eval(f"{TIMES}.map(t => [t.textContent, t.title])")
    assert times and all(text.endswith(" UTC") and title == "" for text, title in times), times


def test_refreshed_items_get_relative_times_too(page, server):
    srv = server(reload_delay=0.1)
    open_feed(page, srv.url + "/")
    before = page.eval("document.querySelectorAll('[data-ptr-list] > li').length")
    page.eval(f"{FEED}.ptr.refresh()")
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    new = page.eval("[...document.querySelectorAll('[data-ptr-list] > li')]"
                    f".slice(0, document.querySelectorAll('[data-ptr-list] > li').length - {before})"
                    ".map(li => li.querySelector('time')).map(t => [t.textContent, t.title])")
    assert new, "the refresh brought new items"
    assert all(text and "UTC" not in text and title for text, title in new), new


def test_times_update_once_a_minute_in_one_batch(page, server):
    now = datetime.datetime.now(datetime.timezone.utc)
    srv = server(items=_aged_items(now))
    open_feed(page, srv.url + "/")
    # [data-ptr-updated] (the server just started: "now"), then the items, newest first
    assert page.eval(f"{TIMES}.map(t => t.textContent)") == ["now"] + EXPECTED["en"]
    # Record the mutation batches under the root, then let 61 s of page time pass (virtual time:
    # timers fire and the clock moves without waiting).
    page.eval(f"""(() => {{
      window.__batches = []
      new MutationObserver(records => __batches.push(records.length))
        .observe({FEED}, {{ subtree: true, childList: true, attributes: true, characterData: true }})
      return true
    }})()""")
    mark = page.mark()
    page.send("Emulation.setVirtualTimePolicy", policy="advance", budget=61000)
    page.cdp.wait_event("Emulation.virtualTimeBudgetExpired", page.session, mark, timeout=20)
    texts = page.eval(f"{TIMES}.map(t => t.textContent)")
    assert texts == ["1 minute ago", "6 minutes ago", "3 hours ago", "last month"], texts
    # one batch of writes (text + title of the two that changed), not one task per item
    assert page.eval("__batches") == [4]


def test_scrolled_away_the_place_is_kept_after_page_scripts_finish_the_new_items(page, server):
    # feed.js changes new items in a MutationObserver (their times); the gesture measures the
    # inserted height only after such observers ran. A page observer that makes new items much
    # taller shows it: measured too early, the reader's item would move by the extra height.
    srv = server(reload_delay=0.1)
    open_feed(page, srv.url + "/")
    page.eval(f"{FEED}.scrollTo(0, 500)")
    page.wait_for(f"{FEED}.scrollTop === 500", 3)
    page.eval("""(() => {
      new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(n => {
        if (n.nodeType === 1) n.style.paddingTop = '150px'
      }))).observe(document.querySelector('[data-ptr-list]'), { childList: true })
      return true
    })()""")
    anchor = page.eval("(() => { const e = document.elementFromPoint(195, 300).closest('li');"
                       " return [e.dataset.itemId, e.getBoundingClientRect().top] })()")
    page.eval(f"{FEED}.ptr.refresh()")
    page.wait_for(f"{FEED}.dataset.ptrState === 'done'", 10)
    padded = page.eval("[...document.querySelectorAll('[data-ptr-list] > li')]"
                       ".filter(li => li.style.paddingTop === '150px').length")
    assert padded > 0, "the refresh brought new items"
    top = page.eval(f"document.querySelector('[data-item-id=\"{anchor[0]}\"]').getBoundingClientRect().top")
    assert abs(top - anchor[1]) < 1.5, (top, anchor)
