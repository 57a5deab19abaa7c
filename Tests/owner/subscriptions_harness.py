"""What the subscription wire tests add to the shared harness (Tests/harness): a server over a
database with an owner (password set and an app token made by the CLI), the owner's browser
session (cookie and CSRF token, as /signin and /feeds hand them out), and the sites discovery
reads, served in-process on loopback.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
"""
import http.server
import json
import re
import threading
import urllib.parse

from harness.owner import PASSWORD
from harness.server import Server, repository_flags

class OwnerServer(Server):
    """`pullrefresh --database FILE --allow-private-feeds` with an owner: `api` speaks as an app
    (Bearer token), `form` and `page` as the signed-in browser (cookie and CSRF token)."""

    def __init__(self, database, token, *extra, folder=None):
        super().__init__("--port", "0", "--quiet", "--reload-delay", "0", "--database", database,
                         "--allow-private-feeds", *repository_flags(), *extra, folder=folder)
        self.database, self.token = database, token
        self.cookie, self.csrf = None, None

    # --- as an app ------------------------------------------------------------------------
    def api(self, method, path, body=None, content_type="application/json"):
        """(status, headers, JSON or None) with the app token."""
        headers = {"Authorization": f"Bearer {self.token}"}
        if body is not None:
            headers["Content-Type"] = content_type
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
        status, response_headers, raw = self.request(method, path, body=body, headers=headers)
        return status, response_headers, (json.loads(raw) if raw else None)

    def sources(self):
        status, _, document = self.api("GET", "/api/sources")
        assert status == 200, document
        return document

    def items(self, query=""):
        status, _, document = self.api("GET", "/api/items?limit=100" + query)
        assert status == 200, document
        return document["items"]

    # --- as the signed-in browser -----------------------------------------------------------
    def sign_in(self):
        """POST /signin with the password: keeps the session cookie and the Feeds page's token."""
        status, headers, body = self.request(
            "POST", "/signin", body=urllib.parse.urlencode({"password": PASSWORD, "next": "/feeds"}),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": self.url})
        assert status == 303, (status, body[:300])
        cookie = headers.get("Set-Cookie") or headers.get("set-cookie")
        assert cookie, headers
        self.cookie = cookie.split(";", 1)[0]
        status, _, html = self.page("/feeds")
        assert status == 200
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', html).group(1)

    def page(self, path):
        """(status, headers, text) of a page with the session cookie."""
        status, headers, body = self.request("GET", path, headers={"Cookie": self.cookie} if self.cookie else {})
        return status, headers, body.decode()

    def form(self, path, fields):
        """A form post with the cookie, the CSRF token and a same-origin Origin: (status, headers, text)."""
        fields = {"csrf": self.csrf, **fields}
        status, headers, body = self.request(
            "POST", path, body=urllib.parse.urlencode(fields),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": self.cookie,
                     "Origin": self.url})
        return status, headers, body.decode()

    def upload(self, path, name, filename, content):
        """A multipart/form-data post of one file, as a browser's file input sends it."""
        boundary = "----PullRefreshTestBoundary7MA4YWxk"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{self.csrf}\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n"
                f"Content-Type: text/x-opml\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
        status, headers, raw = self.request(
            "POST", path, body=body,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "Cookie": self.cookie,
                     "Origin": self.url})
        return status, headers, raw.decode()


class Sites:
    """Web sites on one loopback port, in this process: `page(path, html)` serves an HTML page,
    `feed(path, title)` an RSS document with one item; anything else is a 404. `requests` lists
    the paths asked for, in order."""

    def __init__(self):
        self.pages, self.requests, self.lock = {}, [], threading.Lock()
        sites = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                with sites.lock:
                    sites.requests.append(path)
                    found = sites.pages.get(path)
                status, kind, body = found or (404, "text/plain", b"not here")
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def page(self, path, html):
        self.pages[path] = (200, "text/html; charset=utf-8", html.encode())

    def feed(self, path, title):
        slug = path.strip("/").replace("/", "-")
        document = (f'<?xml version="1.0"?><rss version="2.0"><channel><title>{title}</title>'
                    f"<link>{self.url('/')}</link><item><title>{title} post</title><guid>{slug}-1</guid>"
                    f"<pubDate>Thu, 01 Jan 2026 00:00:00 GMT</pubDate></item></channel></rss>")
        self.pages[path] = (200, "application/rss+xml", document.encode())

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
