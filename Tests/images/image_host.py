#!/usr/bin/env python3
"""An image host for the thumbnail tests, on 127.0.0.1 and 127.0.0.2 (the same port).

argv[1] is the folder of fixtures (make-images.py). Prints "PORT <n>" once both listen, serves
until its stdin closes (the test process ended). Routes:
  /f/<name>                    the fixture, Content-Type from its extension
  /as/<type>/<name>            the fixture sent as <type> ("image_jpeg" for image/jpeg)
  /slow/<ms>/<name>            the fixture after <ms> milliseconds
  /redirect?to=<url>           302 to <url>
  /stats                       {"<path and query>": requests so far} as JSON (a query such as
                               ?t=<test> keeps each test's counts apart)
"""
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

folder = sys.argv[1]
counts = {}
lock = threading.Lock()
TYPES = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp", "avif": "image/avif",
         "gif": "image/gif", "svg": "image/svg+xml", "html": "text/html; charset=utf-8"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the fetcher stopped reading (a cut body): expected

    def fixture(self, name, content_type=None):
        path = os.path.join(folder, os.path.basename(name))
        if not os.path.isfile(path):
            return self.send(404, b"no such fixture", "text/plain")
        with open(path, "rb") as f:
            body = f.read()
        self.send(200, body, content_type or TYPES.get(name.rsplit(".", 1)[-1], "application/octet-stream"))

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.split("/")
        if url.path == "/stats":
            with lock:
                body = json.dumps(counts).encode()
            return self.send(200, body, "application/json")
        with lock:
            counts[self.path] = counts.get(self.path, 0) + 1
        if len(parts) == 3 and parts[1] == "f":
            return self.fixture(parts[2])
        if len(parts) == 4 and parts[1] == "as":
            return self.fixture(parts[3], parts[2].replace("_", "/", 1))
        if len(parts) == 4 and parts[1] == "slow":
            time.sleep(int(parts[2]) / 1000)
            return self.fixture(parts[3])
        if url.path == "/redirect":
            target = urllib.parse.parse_qs(url.query).get("to", [""])[0]
            return self.send(302, b"", "text/plain", [("Location", target)])
        self.send(404, b"not found", "text/plain")


def listen(address, port):
    server = ThreadingHTTPServer((address, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


for attempt in range(50):
    first = listen("127.0.0.1", 0)
    port = first.server_address[1]
    try:
        listen("127.0.0.2", port)
        break
    except OSError:
        first.shutdown()
        first.server_close()
else:
    sys.exit("no port free on both 127.0.0.1 and 127.0.0.2")
print(f"PORT {port}", flush=True)
sys.stdin.read()
