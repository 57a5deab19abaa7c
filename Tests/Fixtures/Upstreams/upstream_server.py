#!/usr/bin/env python3
"""A deliberately awkward upstream for the Upstream tests, on 127.0.0.1 and a free port.

Prints "PORT <n> BLACKHOLE <m>" once listening (m: a port that never completes a connection); stops when its stdin closes (the test process ended) or on
SIGTERM. Routes:
  /feed/<file>          a fixture, with ETag and Last-Modified (304 on a match); ?type= overrides
                        the Content-Type, ?validators=etag|lastmod|none picks which are sent
  /live.xml             RSS whose items POST /live/add?title=… appends to (ETag per version)
  /gzip.xml             the RSS fixture gzip-encoded when the request accepts gzip
  /slow.xml?s=N         waits N seconds before answering
  /loop                 redirects to itself
  /hop/<n>              redirects n + 1 times in all, the last to /feed/rss.xml
  /to-file              redirects to file:///etc/passwd
  /huge.xml             a 50 MB body, streamed in 64 KiB chunks; counts what it managed to send
  /truncated.xml        promises 5,000 bytes, sends 1,000, closes
  /laughs.xml           the billion laughs
  /xxe.xml?file=P       an entity pointing at file://P;  /xxe-dtd.xml?file=P  an external DTD
  /stats                JSON: per path#tag, requests, 304s, and the last request's headers
"""
import gzip
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = {"rss.xml": "application/rss+xml", "atom.xml": "application/atom+xml",
         "feed.json": "application/feed+json", "latin1.xml": "application/rss+xml; charset=ISO-8859-1"}
LAST_MODIFIED = formatdate(1767225600, usegmt=True)
LOCK = threading.Lock()
STATS = {}
LIVE = [("first", "First entry", "Mon, 05 Jan 2026 10:00:00 GMT")]


def live_feed():
    items = "".join(
        f"<item><title>{title}</title><guid>{guid}</guid><pubDate>{date}</pubDate>"
        f"<description>Entry {guid}</description></item>" for guid, title, date in LIVE)
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>Live</title>{items}</channel></rss>'.encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, key, **extra):
        key = key + "#" + self.tag  # each test passes its own ?tag= so its counts are its own
        with LOCK:
            entry = STATS.setdefault(key, {"requests": 0, "notModified": 0})
            entry["requests"] += 1
            entry["headers"] = {k: v for k, v in self.headers.items()}
            for name, value in extra.items():
                entry[name] = entry.get(name, 0) + value

    def send_body(self, body, content_type, status=200, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def conditional(self, key, body, content_type, validators="both"):
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        headers = []
        if validators in ("both", "etag"):
            headers.append(("ETag", etag))
        if validators in ("both", "lastmod"):
            headers.append(("Last-Modified", LAST_MODIFIED))
        matched = (validators in ("both", "etag") and self.headers.get("If-None-Match") == etag) or (
            validators == "lastmod" and self.headers.get("If-Modified-Since") == LAST_MODIFIED)
        if matched:
            self.record(key, notModified=1)
            self.send_response(304)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.record(key)
        self.send_body(body, content_type, headers=headers)

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/live/add":
            with LOCK:
                guid = f"entry-{len(LIVE) + 1}"
                LIVE.append((guid, query.get("title", guid), formatdate(time.time(), usegmt=True)))
            self.send_body(guid.encode(), "text/plain")
        else:
            self.send_body(b"no", "text/plain", status=404)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        query = dict(urllib.parse.parse_qsl(url.query))
        self.tag = query.get("tag", "")
        if path.startswith("/feed/"):
            name = os.path.basename(path)
            with open(os.path.join(HERE, name), "rb") as handle:
                body = handle.read()
            self.conditional(path, body, query.get("type", TYPES.get(name, "application/xml")),
                             query.get("validators", "both"))
        elif path == "/live.xml":
            with LOCK:
                body = live_feed()
            self.conditional(path, body, "application/rss+xml")
        elif path == "/gzip.xml":
            self.record(path)
            with open(os.path.join(HERE, "rss.xml"), "rb") as handle:
                body = handle.read()
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                self.send_body(gzip.compress(body), "application/rss+xml", headers=[("Content-Encoding", "gzip")])
            else:
                self.send_body(body, "application/rss+xml")
        elif path == "/slow.xml":
            self.record(path)
            time.sleep(float(query.get("s", "30")))
            self.send_body(live_feed(), "application/rss+xml")
        elif path == "/loop":
            self.record(path)
            self.send_body(b"", "text/plain", status=302, headers=[("Location", "/loop")])
        elif path.startswith("/hop/"):
            self.record("/hop")
            left = int(path.rsplit("/", 1)[1])
            target = f"/hop/{left - 1}" if left > 0 else "/feed/rss.xml"
            self.send_body(b"", "text/plain", status=302, headers=[("Location", target)])
        elif path == "/to-file":
            self.record(path)
            self.send_body(b"", "text/plain", status=302, headers=[("Location", "file:///etc/passwd")])
        elif path == "/huge.xml":
            self.record(path)
            total = 50 * 1000 * 1000
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", str(total))
            self.end_headers()
            chunk = b"<!-- " + b"x" * (65536 - 9) + b" -->"
            sent = 0
            try:
                while sent < total:
                    part = chunk[: total - sent]
                    self.wfile.write(part)
                    sent += len(part)
            except OSError:
                pass
            with LOCK:
                STATS[path + "#" + self.tag]["bytesSent"] = sent
            self.close_connection = True
        elif path == "/truncated.xml":
            self.record(path)
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(live_feed()[:120].ljust(1000, b" "))
            self.wfile.flush()
            self.close_connection = True
        elif path == "/laughs.xml":
            self.record(path)
            lines = ['<?xml version="1.0"?>', "<!DOCTYPE rss [", ' <!ENTITY lol "lol">']
            for level in range(1, 10):
                previous = "&lol;" if level == 1 else f"&lol{level - 1};"
                lines.append(f' <!ENTITY lol{level} "{previous * 10}">')
            lines.append("]>")
            lines.append('<rss version="2.0"><channel><item><title>&lol9;</title><guid>l</guid></item></channel></rss>')
            self.send_body("\n".join(lines).encode(), "application/rss+xml")
        elif path in ("/xxe.xml", "/xxe-dtd.xml"):
            self.record(path)
            target = query.get("file", "/etc/passwd")
            if path == "/xxe.xml":
                doc = (f'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY secret SYSTEM "file://{target}">]>'
                       '<rss version="2.0"><channel><item><title>&secret;</title><guid>x</guid>'
                       '<description>&secret;</description></item></channel></rss>')
            else:
                doc = (f'<?xml version="1.0"?><!DOCTYPE rss SYSTEM "file://{target}">'
                       '<rss version="2.0"><channel><item><title>Title &secret;</title><guid>x</guid>'
                       '</item></channel></rss>')
            self.send_body(doc.encode(), "application/rss+xml")
        elif path == "/stats":
            with LOCK:
                body = json.dumps(STATS).encode()
            self.send_body(body, "application/json")
        else:
            self.send_body(b"not here", "text/plain", status=404)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the tests connect in parallel; 5 would drop SYNs (1 s retries)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # A port whose accept queue is full and never drained: new connections get no SYN-ACK, so a
    # client's connect can only time out (the connect-timeout test), all on loopback.
    blackhole = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    blackhole.bind(("127.0.0.1", 0))
    blackhole.listen(0)
    fillers = []
    for _ in range(4):
        filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        filler.setblocking(False)
        try:
            filler.connect(blackhole.getsockname())
        except BlockingIOError:
            pass
        fillers.append(filler)
    print(f"PORT {server.server_address[1]} BLACKHOLE {blackhole.getsockname()[1]}", flush=True)
    sys.stdin.read()  # the test process closing our stdin (or exiting) stops us
    os._exit(0)


if __name__ == "__main__":
    main()
