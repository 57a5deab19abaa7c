"""Subscriptions over the wire (issue 32): a server over a database with an owner, feeds on
loopback (--allow-private-feeds), the app speaking with its token and the browser with its
session cookie and CSRF token. Add by feed URL and by site URL (discovery: a relative link, a
<base>, several, none, the usual paths), already subscribed, rename and move, ?folder=, removal
(items leave), OPML import and export, the share target, a restart."""
import http.client
import json
import time
import urllib.parse
import xml.etree.ElementTree as ElementTree

from harness.owner import make_owner
from harness import wait_for
from subscriptions_harness import OwnerServer

RSS = "application/rss+xml"
ATOM = "application/atom+xml"


def page_with(*links, base=None):
    """An HTML page whose head names `links`: (type, href, title)."""
    head = f'<base href="{base}">' if base else ""
    head += "".join(f'<link rel="alternate" type="{kind}" href="{href}" title="{title}">' for kind, href, title in links)
    return f"<!doctype html><html><head><title>A site</title>{head}</head><body><p>Hello</p></body></html>"


def items_of(server, key, query=""):
    return [item for item in server.items(query) if item["id"].startswith(key + ":")]


# --- adding ----------------------------------------------------------------------------------
def test_a_feed_url_subscribes_and_its_items_arrive(owned, upstream):
    server = owned()
    status, headers, source = server.api("POST", "/api/sources", {"url": upstream.url("alpha"), "folder": "News"})
    assert status == 201, source
    assert headers["Location"] == f"/api/sources/{source['key']}"
    assert source["url"] == upstream.url("alpha") and source["folder"] == "News"
    # Fetched at once: its item reaches the river without a refresh.
    wait_for(lambda: items_of(server, source["key"]), "the new source's items")
    listed = server.sources()
    assert [s["key"] for s in listed["sources"]] == [source["key"]]
    assert listed["folders"] == ["News"]


def test_an_open_event_stream_hears_of_the_new_sources_items(owned, upstream):
    """The issue: "its items reach open pages through the event stream". A stream opened before
    the subscription gets a `version` event whose `added` counts the new source's items."""
    server = owned()
    stream = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    stream.request("GET", "/api/events", headers={"Authorization": f"Bearer {server.token}"})
    response = stream.getresponse()
    assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
    status, _, source = server.api("POST", "/api/sources", {"url": upstream.url("alpha")})
    assert status == 201, source
    deadline = time.monotonic() + 10
    added = None
    while added is None and time.monotonic() < deadline:
        line = response.fp.readline().decode()
        assert line, "the stream ended before the new version's event"
        if line.startswith("data:"):
            event = json.loads(line[len("data:"):])
            if event.get("added"):
                added = event
    stream.close()
    assert added is not None, "no version event with added items within 10 s"
    # The first subscription replaces the demo items, so the river is now the new source's.
    fresh = [item for item in server.items() if item["id"].startswith(source["key"] + ":")]
    assert fresh and added["added"] >= 1 and added["version"] >= 1


def test_a_site_url_finds_its_feed_by_a_relative_link(owned, sites):
    sites.page("/blog/", page_with((RSS, "feed.xml", "Posts")))
    sites.feed("/blog/feed.xml", "Blog")
    server = owned()
    status, _, source = server.api("POST", "/api/sources", {"url": sites.url("/blog/")})
    assert status == 201, source
    assert source["url"] == sites.url("/blog/feed.xml")


def test_a_base_element_resolves_the_link(owned, sites):
    sites.page("/deep/page.html", page_with((ATOM, "atom.xml", "Atom"), base=sites.url("/feeds/")))
    sites.feed("/feeds/atom.xml", "Based")
    server = owned()
    status, _, source = server.api("POST", "/api/sources", {"url": sites.url("/deep/page.html")})
    assert status == 201, source
    assert source["url"] == sites.url("/feeds/atom.xml")


def test_several_feeds_let_the_person_choose(owned, sites):
    sites.page("/", page_with((RSS, "/rss.xml", "Everything"), (ATOM, "/comments.atom", "Comments")))
    sites.feed("/rss.xml", "Everything")
    sites.feed("/comments.atom", "Comments")
    server = owned()
    status, _, answer = server.api("POST", "/api/sources", {"url": sites.url("/")})
    assert status == 409, answer
    assert answer["error"]["code"] == "several_feeds"
    assert [(c["url"], c["title"], c["type"]) for c in answer["error"]["candidates"]] == [
        (sites.url("/rss.xml"), "Everything", "rss"), (sites.url("/comments.atom"), "Comments", "atom")]
    # The page: a chooser whose radio buttons post the chosen URL back.
    server.sign_in()
    status, _, html = server.form("/feeds", {"address": sites.url("/"), "folder": "", "newFolder": "Sites"})
    assert status == 409
    assert f'name="address" value="{sites.url("/comments.atom")}"' in html
    status, headers, _ = server.form("/feeds", {"address": sites.url("/comments.atom"), "folder": "Sites"})
    assert status == 303, headers
    assert headers["Location"].startswith("/feeds?done=added&key=")
    assert [s["folder"] for s in server.sources()["sources"]] == ["Sites"]


def test_the_usual_paths_are_tried_when_the_page_names_none(owned, sites):
    sites.page("/", page_with())
    sites.feed("/index.xml", "Probed")
    server = owned()
    status, _, source = server.api("POST", "/api/sources", {"url": sites.url("/")})
    assert status == 201, source
    assert source["url"] == sites.url("/index.xml")


def test_no_feed_is_a_clear_422(owned, sites):
    sites.page("/", page_with())
    server = owned()
    status, _, answer = server.api("POST", "/api/sources", {"url": sites.url("/")})
    assert status == 422, answer
    assert answer["error"]["code"] == "no_feed" and answer["error"]["message"]
    # Every usual path was asked for, on the same origin.
    for path in ("/feed", "/rss", "/rss.xml", "/atom.xml", "/index.xml", "/feed.json"):
        assert path in sites.requests, sites.requests
    server.sign_in()
    status, _, html = server.form("/feeds", {"address": sites.url("/")})
    assert status == 422
    assert 'role="alert"' in html and answer["error"]["message"].split(":")[0] in html
    assert server.sources()["sources"] == []


def test_already_subscribed_says_so_and_links_it(owned, upstream):
    server = owned()
    _, _, source = server.api("POST", "/api/sources", {"url": upstream.url("beta")})
    status, headers, answer = server.api("POST", "/api/sources", {"url": upstream.url("beta")})
    assert status == 409
    assert answer["error"]["code"] == "already_subscribed" and answer["error"]["key"] == source["key"]
    server.sign_in()
    status, _, html = server.form("/feeds", {"address": upstream.url("beta")})
    assert status == 409
    assert f'href="/?source={source["key"]}"' in html


# --- changing ----------------------------------------------------------------------------------
def test_rename_move_and_the_folder_filter(owned, upstream):
    server = owned()
    keys = [server.api("POST", "/api/sources", {"url": upstream.url(name)})[2]["key"] for name in ("c1", "c2", "c3")]
    for key in keys:
        wait_for(lambda key=key: items_of(server, key), f"items of {key}")
    status, _, moved = server.api("PATCH", f"/api/sources/{keys[0]}", {"title": "First", "folder": "Work"})
    assert status == 200 and moved["title"] == "First" and moved["folder"] == "Work"
    server.sign_in()
    status, headers, _ = server.form(f"/feeds/{keys[1]}", {"title": "Second", "folder": "Work", "newFolder": ""})
    assert status == 303, headers
    listed = {s["key"]: s for s in server.sources()["sources"]}
    assert (listed[keys[1]]["title"], listed[keys[1]]["folder"]) == ("Second", "Work")
    assert listed[keys[2]]["folder"] is None
    # ?folder= filters the river like ?source=.
    shown = {item["id"].split(":")[0] for item in server.items("&folder=Work")}
    assert shown == {keys[0], keys[1]}
    assert server.request("GET", "/?folder=Work", headers={"Cookie": server.cookie})[0] == 200
    assert server.api("GET", "/api/items?folder=Nowhere")[0] == 404
    status, _, html = server.page("/feeds")
    assert '<a href="/?folder=Work">Work</a>' in html


def test_removal_takes_the_items_out(owned, upstream):
    server = owned()
    keep = server.api("POST", "/api/sources", {"url": upstream.url("keep")})[2]["key"]
    gone = server.api("POST", "/api/sources", {"url": upstream.url("gone")})[2]["key"]
    wait_for(lambda: items_of(server, gone) and items_of(server, keep), "both sources' items")
    status, _, body = server.api("DELETE", f"/api/sources/{gone}")
    assert status == 204 and body is None
    wait_for(lambda: not items_of(server, gone), "the removed source's items to leave")
    assert items_of(server, keep)
    assert server.api("GET", f"/api/items?source={gone}")[0] == 404
    # The page's way: a confirmation step, then the removal.
    server.sign_in()
    status, _, html = server.page(f"/feeds/{keep}/remove")
    assert status == 200 and f'action="/feeds/{keep}/remove"' in html
    status, headers, _ = server.form(f"/feeds/{keep}/remove", {})
    assert status == 303 and headers["Location"] == "/feeds?done=removed"
    assert server.sources()["sources"] == []


# --- OPML ----------------------------------------------------------------------------------------
def test_opml_import_and_export_round_trip(owned, upstream, tmp_path):
    document = f"""<?xml version="1.0"?>
<opml version="2.0"><head><title>Mine</title></head><body>
  <outline text="Reading">
    <outline type="rss" text="One" xmlUrl="{upstream.url('o1')}"/>
    <outline type="rss" text="Two" xmlUrl="{upstream.url('o2')}"/>
  </outline>
  <outline type="rss" text="Three" xmlUrl="{upstream.url('o3')}"/>
</body></opml>""".encode()
    server = owned()
    status, _, outcome = server.api("POST", "/api/sources.opml", document, content_type="text/x-opml")
    assert status == 200, outcome
    assert (outcome["added"], outcome["skipped"]) == (3, 0)
    status, _, outcome = server.api("POST", "/api/sources.opml", document, content_type="text/x-opml")
    assert (outcome["added"], outcome["skipped"]) == (0, 3)
    status, headers, exported = server.request("GET", "/api/sources.opml",
                                               headers={"Authorization": f"Bearer {server.token}"})
    assert status == 200 and headers["Content-Type"].startswith("text/x-opml")
    body = ElementTree.fromstring(exported).find("body")
    folders = [o for o in body if o.get("xmlUrl") is None]
    assert [f.get("text") for f in folders] == ["Reading"]
    assert sorted(o.get("xmlUrl") for o in folders[0]) == [upstream.url("o1"), upstream.url("o2")]
    assert [o.get("xmlUrl") for o in body if o.get("xmlUrl")] == [upstream.url("o3")]
    # The export, uploaded through the page's form to another owner's server, gives the same list.
    server.stop(10)
    second_database = str(tmp_path / "second.sqlite")
    second = OwnerServer(second_database, make_owner(second_database), folder=tmp_path)
    try:
        second.sign_in()
        status, headers, _ = second.upload("/feeds/import", "opml", "export.opml", exported)
        assert status == 303, headers
        assert headers["Location"] == "/feeds?done=imported&added=3&skipped=0"
        listed = second.sources()
        assert listed["folders"] == ["Reading"]
        assert sorted((s["url"], s["folder"]) for s in listed["sources"]) == [
            (upstream.url("o1"), "Reading"), (upstream.url("o2"), "Reading"), (upstream.url("o3"), None)]
    finally:
        second.stop(10)


def test_an_upload_over_one_mebibyte_is_refused(owned):
    # The body may be larger (--max-body 2 MiB): the form's own bound on the file answers.
    server = owned("--max-body", str(2 << 20))
    server.sign_in()
    status, _, html = server.upload("/feeds/import", "opml", "big.opml", b"<opml>" + b" " * (1 << 20) + b"</opml>")
    assert status == 413, html[:300]
    assert server.sources()["sources"] == []


# --- the share target, the page itself, a restart -------------------------------------------------
def test_sharing_opens_the_add_form_with_the_address(owned):
    server = owned()
    status, _, manifest = server.request("GET", "/manifest.webmanifest")
    target = json.loads(manifest)["share_target"]
    assert target == {"action": "/share", "method": "GET", "enctype": "application/x-www-form-urlencoded",
                      "params": {"title": "title", "text": "text", "url": "url"}}
    server.sign_in()
    shared = urllib.parse.urlencode({"title": "A post", "text": "Read this https://blog.example/post please"})
    status, headers, html = server.page(f"/share?{shared}")
    assert status == 200 and headers["Cache-Control"] == "no-store"
    assert 'value="https://blog.example/post"' in html


def test_the_feeds_page_is_per_session_and_the_river_is_not(owned, upstream):
    server = owned()
    server.sign_in()
    status, headers, html = server.page("/feeds")
    assert status == 200 and headers["Cache-Control"] == "no-store"
    forms = html.count("<form")
    assert forms >= 2 and html.count(f'name="csrf" value="{server.csrf}"') == forms
    _, _, river = server.page("/")
    assert 'href="/feeds"' in river and server.csrf not in river


def test_subscriptions_survive_a_restart(owned, upstream):
    server = owned()
    _, _, source = server.api("POST", "/api/sources", {"url": upstream.url("kept"), "title": "Kept", "folder": "Keep"})
    wait_for(lambda: items_of(server, source["key"]), "the source's items")
    server.stop(10)
    again = owned()
    listed = again.sources()
    assert [(s["key"], s["title"], s["folder"]) for s in listed["sources"]] == [(source["key"], "Kept", "Keep")]
    assert items_of(again, source["key"])
