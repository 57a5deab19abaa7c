"""`pullrefresh --source http://127.0.0.1:PORT/feed.xml`: a real RSS upstream (a small
http.server in this process) served with pull-to-refresh; a pull fetches the new entry."""
import json
import threading
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from test_pull_to_refresh import FEED, X, open_feed

ENTRIES = []


class Feed(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        items = "".join(
            f"<item><title>{title}</title><link>{link}</link><guid>{guid}</guid>"
            f"<pubDate>{formatdate(stamp, usegmt=True)}</pubDate><description>&lt;p&gt;About {title}&lt;/p&gt;"
            "</description></item>" for guid, title, link, stamp in ENTRIES)
        body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>{items}</channel></rss>'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def upstream():
    ENTRIES[:] = [(f"g{n}", f"Entry {n}", f"/entries/{n}", 1767225600 + n * 60) for n in range(1, 4)]
    ENTRIES.append(("bad", "Hostile", "javascript:alert(1)", 1767225600))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Feed)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def ids(page):
    """The feed's own ids on the page, in order (a river's ids are `<source key>:<feed id>`)."""
    return page.eval("[...document.querySelectorAll('[data-ptr-list] > li')]"
                     ".map(e => e.dataset.itemId.slice(e.dataset.itemId.indexOf(':') + 1))")


def source_key(srv):
    return json.loads(srv.request("GET", "/api/sources")[2])["sources"][0]["key"]


def test_a_real_rss_source_is_served_and_a_pull_brings_its_new_entry(page, server, upstream):
    srv = server(reload_delay=0, source=upstream + "/feed.xml")
    open_feed(page, srv.url + "/")
    assert ids(page) == ["g3", "g2", "g1", "bad"]
    key = source_key(srv)
    link = page.eval(f"(() => {{ const a = document.querySelector('[data-item-id=\"{key}:g3\"] a');"
                     f" return [a.href, a.rel, a.textContent] }})()")
    assert link == [upstream + "/entries/3", "noopener", "Entry 3"]
    assert page.eval(f"document.querySelector('[data-item-id=\"{key}:bad\"] a')") is None
    assert "javascript:" not in page.eval("document.documentElement.outerHTML")
    ENTRIES.insert(0, ("g4", "Entry 4", "/entries/4", 1767225600 + 10 * 60))
    mark = page.mark()
    page.drag(X, 150, 320, steps=16)
    page.wait_for(f"{FEED}.dataset.ptrVersion === '2'", 15, "the page to show version 2")
    assert ids(page)[0] == "g4"
    assert len(page.requests("/api/refresh", mark)) == 1
