#!/usr/bin/env python3
"""A web site for the discovery tests, on 127.0.0.1, 127.0.0.2 and ::1 (one port).

argv[1] is a JSON file: {"<path with query>": {"status": 200, "type": "text/html",
"body": "...", "headers": {"Location": "..."}, "delay_ms": 0}, ...}; "{port}" in a body or a
header is replaced by the port. Any other path is a 404. Prints "PORT <n>" once every address
listens and serves until its stdin closes (the test process ended). GET /_stats answers
{"total": <requests>, "paths": {"<path with query>": <requests>}} (itself not counted), so a
test can show that a refused address never saw a request.
"""
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

with open(sys.argv[1], encoding="utf-8") as f:
    site = json.load(f)
counts = {}
lock = threading.Lock()
port = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except ConnectionResetError:
            pass  # a client that opened two connections at once (IPv6 and IPv4) closed one

    def send(self, status, body, content_type, headers=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value.replace("{port}", str(port)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading (a cut body): expected

    def do_GET(self):
        if self.path == "/_stats":
            with lock:
                body = json.dumps({"total": sum(counts.values()), "paths": counts}).encode()
            return self.send(200, body, "application/json")
        with lock:
            counts[self.path] = counts.get(self.path, 0) + 1
        page = site.get(self.path) or site.get(self.path.split("?", 1)[0])
        if page is None:
            return self.send(404, b"not found", "text/plain")
        time.sleep(page.get("delay_ms", 0) / 1000)
        body = page.get("body", "").replace("{port}", str(port)).encode("utf-8")
        self.send(page.get("status", 200), body, page.get("type"), page.get("headers"))


class IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def listen(server_class, address, wanted):
    server = server_class((address, wanted), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


for attempt in range(50):
    first = listen(ThreadingHTTPServer, "127.0.0.1", 0)
    port = first.server_address[1]
    others = []
    try:
        others.append(listen(ThreadingHTTPServer, "127.0.0.2", port))
        others.append(listen(IPv6Server, "::1", port))
        break
    except OSError:
        for server in [first] + others:
            server.shutdown()
            server.server_close()
else:
    sys.exit("no port free on 127.0.0.1, 127.0.0.2 and ::1 at once")
print(f"PORT {port}", flush=True)
sys.stdin.read()
