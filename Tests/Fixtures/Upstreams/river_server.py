#!/usr/bin/env python3
"""Many feeds on one loopback port, each scriptable, for the river tests (Swift and Python).

Prints "PORT <n>" once listening; stops when its stdin closes or on SIGTERM. Feeds are made on
first use; every name is its own feed (its own URL, so its own source key):
  GET  /r/<name>.xml        RSS; ETag per content (304 on a match)
  POST /r/<name>/add?guid=G&title=T   prepends an item (guid defaults to item-<n>)
  POST /r/<name>/put?items=G:T:D,...  replaces the items: guid G, title T, date D (seconds
                            since 1970; absent: after the newest so far), newest first
  POST /r/<name>/set?mode=ok|500|429|503|invalid|slow&delay=S&maxage=N&retry=N&busy=0|1&title=T&ttl=M&items=N
                            mode invalid: not XML; junk: an ill-formed document libxml2
                            recovers one junk item from; slow: waits `delay` s; 429/503 send Retry-After
                            `retry` when given; maxage: Cache-Control max-age; busy: a new item on
                            every 200; title: the channel title; items: replace the items by N
                            mode gate&count=N: holds each request until N requests of the feed
                            arrived (then all answer as ok), or answers 504 after 10 s
  GET  /stats               {"<name>": {"requests", "ok", "notModified", "failed", "conditional"}}
                            (conditional: GETs with If-None-Match or If-Modified-Since)
  GET  /connections         {"feedConnections": connections that carried a feed GET,
                             "inFlight", "peakInFlight": feed GETs being answered now, at most}
Every feed starts with one item whose guid is "same" (two feeds share it).
"""
import hashlib
import json
import os
import signal
import sys
import threading
import time
import urllib.parse
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
FEEDS = {}
CONNECTIONS = {"feedConnections": 0, "inFlight": 0, "peakInFlight": 0}
GATE = threading.Condition(LOCK)
BASE = 1767225600  # 2026-01-01


def feed(name):
    if name not in FEEDS:
        FEEDS[name] = {"items": [("same", f"{name} first", BASE)], "mode": "ok", "delay": 0.0, "maxage": None,
                       "count": 0, "held": 0, "retry": None, "busy": False, "title": f"Feed {name}", "ttl": None,
                       "stats": {"requests": 0, "ok": 0, "notModified": 0, "failed": 0, "conditional": 0}}
    return FEEDS[name]


def document(state, name):
    items = "".join(
        f"<item><title>{title}</title><guid>{guid}</guid><link>http://127.0.0.1/{name}/{guid}</link>"
        f"<pubDate>{formatdate(stamp, usegmt=True)}</pubDate></item>" for guid, title, stamp in state["items"])
    ttl = f"<ttl>{state['ttl']}</ttl>" if state["ttl"] else ""
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>{state["title"]}</title>'
            f"<link>https://{name}.example.org/</link>{ttl}{items}</channel></rss>").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.carried_feed = False  # one handler per connection

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        parts = url.path.strip("/").split("/")
        if len(parts) != 3 or parts[0] != "r":
            return self.reply(404)
        with LOCK:
            state = feed(parts[1])
            if parts[2] == "add":
                number = len(state["items"]) + 1
                guid = query.get("guid", f"item-{number}")
                stamp = max(s for _, _, s in state["items"]) + 60
                state["items"].insert(0, (guid, query.get("title", f"{parts[1]} {guid}"), stamp))
            elif parts[2] == "put":
                items = []
                newest = max(s for _, _, s in state["items"]) if state["items"] else BASE
                for number, text in enumerate(query.get("items", "").split(",")):
                    if not text:
                        continue
                    guid, title, stamp = (text.split(":") + ["", ""])[:3]
                    items.append((guid, title or f"{parts[1]} {guid}", int(stamp) if stamp else newest + 60 * (100 - number)))
                state["items"] = items
            elif parts[2] == "set":
                for key in ("mode", "title"):
                    if key in query:
                        state[key] = query[key]
                for key in ("delay",):
                    if key in query:
                        state[key] = float(query[key])
                for key in ("maxage", "retry", "ttl", "count"):
                    if key in query:
                        state[key] = int(query[key]) if query[key] != "" else None
                if "items" in query:
                    count = int(query["items"])
                    state["items"] = [(f"n{k}", f"{parts[1]} item {k}", BASE + k * 60) for k in range(count, 0, -1)]
                if "busy" in query:
                    state["busy"] = query["busy"] == "1"
            else:
                return self.reply(404)
        self.reply(200, b"ok")

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/stats":
            with LOCK:
                body = json.dumps({name: state["stats"] for name, state in FEEDS.items()}).encode()
            return self.reply(200, body, [("Content-Type", "application/json")])
        if url.path == "/connections":
            with LOCK:
                body = json.dumps(CONNECTIONS).encode()
            return self.reply(200, body, [("Content-Type", "application/json")])
        if not (url.path.startswith("/r/") and url.path.endswith(".xml")):
            return self.reply(404)
        name = url.path[3:-4]
        with LOCK:
            state = feed(name)
            state["stats"]["requests"] += 1
            if self.headers.get("If-None-Match") or self.headers.get("If-Modified-Since"):
                state["stats"]["conditional"] += 1
            if not self.carried_feed:
                self.carried_feed = True
                CONNECTIONS["feedConnections"] += 1
            mode, delay = state["mode"], state["delay"]
            CONNECTIONS["inFlight"] += 1
            CONNECTIONS["peakInFlight"] = max(CONNECTIONS["peakInFlight"], CONNECTIONS["inFlight"])
        try:
            self.answer_feed(name, state, mode, delay)
        finally:
            with LOCK:
                CONNECTIONS["inFlight"] -= 1

    def answer_feed(self, name, state, mode, delay):
        if mode == "slow":
            time.sleep(delay)
        if mode == "gate":
            with GATE:
                state["held"] += 1
                GATE.notify_all()
                opened = GATE.wait_for(lambda: state["held"] >= state["count"], timeout=10)
            if not opened:
                return self.reply(504)
        with LOCK:
            if mode in ("500", "429", "503"):
                state["stats"]["failed"] += 1
                headers = [("Retry-After", str(state["retry"]))] if state["retry"] is not None else []
                return self.reply(int(mode), b"", headers)
            if mode == "invalid":
                state["stats"]["failed"] += 1
                return self.reply(200, b"<rss><channel><item>", [("Content-Type", "application/rss+xml")])
            if mode == "junk":
                return self.reply(200, b"<rss><channel><item><title>junk</title><guid>junk</guid><description>&#1;<",
                                  [("Content-Type", "application/rss+xml")])
            body = document(state, name)
            etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
            headers = [("ETag", etag), ("Content-Type", "application/rss+xml")]
            if state["maxage"] is not None:
                headers.append(("Cache-Control", f"max-age={state['maxage']}"))
            if self.headers.get("If-None-Match") == etag:
                state["stats"]["notModified"] += 1
                return self.reply(304, b"", headers[:1] + headers[2:])
            state["stats"]["ok"] += 1
            if state["busy"]:  # the next request finds one more item
                stamp = max(s for _, _, s in state["items"]) + 60
                state["items"].insert(0, (f"busy-{stamp}", f"{name} at {stamp}", stamp))
        self.reply(200, body, headers)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def main():
    server = Server(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
