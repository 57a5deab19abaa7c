"""Debian's nginx in front of two instances on one Redis, with the config from the repo
(deploy/nginx-cluster.conf): the page and the API work through it, and a refresh through nginx
is seen by the instance that did not serve it."""
import http.client
import json
import os
import shutil
import subprocess
import tempfile

import pytest
from harness import ROOT, free_port, wait_for

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


class Nginx:
    def __init__(self, backends):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="ptr-nginx-")
        os.chmod(self.dir, 0o755)
        template = open(os.path.join(ROOT, "deploy", "nginx-cluster.conf")).read()
        servers = "\n        ".join(f"server 127.0.0.1:{port};" for port in backends)
        config = (template.replace("__DIR__", self.dir).replace("__PORT__", str(self.port))
                  .replace("__SERVERS__", servers))
        self.config = os.path.join(self.dir, "nginx.conf")
        with open(self.config, "w") as handle:
            handle.write(config)
        self.proc = subprocess.Popen(
            [NGINX, "-p", self.dir, "-c", self.config, "-e", os.path.join(self.dir, "error.log"),
             "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(self.ready, "nginx to accept connections")

    def ready(self):
        if self.proc.poll() is not None:
            raise AssertionError("nginx exited: " + self.proc.stderr.read().decode())
        try:
            return self.request("GET", "/healthz")[0] == 200
        except OSError:
            return False

    def request(self, method, path, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.proc.stderr.close()


@pytest.fixture
def nginx_pair(instances):
    if not os.path.exists(NGINX):
        pytest.fail("nginx not found: apt-get install -y --no-install-recommends nginx")
    pair = instances("--reload-delay", "300ms", count=2)
    proxy = Nginx([node.port for node in pair])
    yield proxy, pair
    proxy.stop()


def test_page_api_and_refresh_work_through_nginx(nginx_pair):
    proxy, (a, b) = nginx_pair
    status, headers, page = proxy.request("GET", "/")
    assert status == 200 and b"data-ptr-list" in page
    assert "Content-Security-Policy" in headers
    status, _, script = proxy.request("GET", "/static/pull-to-refresh.js")
    assert status == 200 and len(script) > 0
    status, headers, body = proxy.request("GET", "/api/items")
    assert status == 200 and json.loads(body)["version"] == 1
    # Round robin: consecutive revalidations land on both instances and all get 304.
    for _ in range(4):
        assert proxy.request("GET", "/api/items", {"If-None-Match": headers["ETag"]})[0] == 304

    status, headers, body = proxy.request("POST", "/api/refresh?since=1")
    assert status == 200
    refreshed = json.loads(body)
    assert refreshed["version"] == 2 and refreshed["added"]
    # Whichever instance served the refresh, both now serve version 2, byte for byte.
    for node in (a, b):
        wait_for(lambda: node.version() == 2, "both instances to serve version 2")
    assert a.items()[1] == b.items()[1]
    for _ in range(4):
        status, _, body = proxy.request("GET", "/api/items")
        assert status == 200 and json.loads(body)["version"] == 2

    # The no-JS refresh form through nginx: 303 back to the page, which shows version 3.
    status, headers, _ = proxy.request("POST", "/refresh")
    assert status == 303 and headers["Location"] == "/"
    for node in (a, b):
        wait_for(lambda: node.version() == 3, "both instances to serve version 3")
    status, _, page = proxy.request("GET", "/")
    assert b'data-ptr-version="3"' in page
