"""Debian's nginx in front of two instances on one Redis, with the config from the repo
(deploy/nginx-cluster.conf): the page and the API work through it, and a refresh through nginx
is seen by the instance that did not serve it."""
import json

import pytest
from harness import wait_for
from harness.nginx import ClusterNginx
from harness.nginx import executable as nginx_executable

@pytest.fixture
def nginx_pair(instances):
    if not nginx_executable():
        pytest.fail("nginx not found: apt-get install -y --no-install-recommends nginx")
    pair = instances("--reload-delay", "300ms", count=2)
    proxy = ClusterNginx([node.port for node in pair])
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
