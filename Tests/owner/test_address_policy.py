"""The server's network stays closed (issue 32), over the wire: an address the owner adds
through the API is refused with `422 refused_address` when it is inside the network, in every
loopback spelling (literals by their spelling, before connecting; `localhost` on the address
connected to), and the site never sees a request; with --allow-private-feeds the same addresses
subscribe; the operator's --source on loopback is unaffected.

Only loopback is ever connected to (127.0.0.1 and ::1, one site on one port:
Tests/Fixtures/Upstreams/site_server.py). Redirects, links and probes leading inside the network
are tested in Swift (Tests/FeedParsingTests/FeedFinderTests.swift, where the first hop can be
allowed alone); the other private ranges and the octal spellings are judged without any
connection in Tests/HTTPClientTests/HostAddressTests.swift.
"""
import json
import os
import subprocess
import tempfile
import urllib.request

import pytest
from harness import ROOT, stop_process, wait_for
from harness.owner import make_owner
from harness.server import Server, repository_flags

SPELLINGS = ["127.0.0.1", "2130706433", "0x7f000001", "127.1", "[::1]", "[::ffff:127.0.0.1]", "localhost"]


def rss(title):
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>{title}</title>'
            f"<item><title>{title} post</title><guid>{title}-1</guid>"
            f"<pubDate>Thu, 01 Jan 2026 00:00:00 GMT</pubDate></item></channel></rss>")


class Site:
    """site_server.py serving `pages` ({path: body}, RSS) on 127.0.0.1, 127.0.0.2 and ::1; it
    counts every request it answers."""

    def __init__(self, pages):
        spec = {path: {"type": "application/rss+xml", "body": body} for path, body in pages.items()}
        handle, self.spec_path = tempfile.mkstemp(prefix="ptr-site-", suffix=".json")
        with os.fdopen(handle, "w") as f:
            json.dump(spec, f)
        script = os.path.join(ROOT, "Tests", "Fixtures", "Upstreams", "site_server.py")
        self.proc = subprocess.Popen(["python3", script, self.spec_path], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        words = self.proc.stdout.readline().decode().split()
        assert len(words) == 2 and words[0] == "PORT", words
        self.port = int(words[1])

    def url(self, path, host="127.0.0.1"):
        return f"http://{host}:{self.port}{path}"

    def requests(self):
        """{"total": n, "paths": {path: n}} (the stats request itself is not counted)."""
        with urllib.request.urlopen(self.url("/_stats"), timeout=10) as response:
            return json.load(response)

    def stop(self):
        self.proc.stdin.close()
        stop_process(self.proc)
        os.unlink(self.spec_path)


@pytest.fixture
def site():
    started = []

    def start(pages):
        server = Site(pages)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def owner_server(tmp_path):
    """Factory: owner_server(*flags) -> (a server over a database with an owner, its app token)."""
    database = str(tmp_path / "pullrefresh.sqlite")
    token = make_owner(database)
    started = []

    def start(*flags):
        server = Server("--port", "0", "--quiet", "--reload-delay", "0", "--database", database,
                        *repository_flags(), *flags, folder=tmp_path)
        started.append(server)
        return server, token

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.stop(10)


def add(server, token, url):
    """POST /api/sources {"url": url} as the app: (status, JSON)."""
    status, _, body = server.request(
        "POST", "/api/sources", body=json.dumps({"url": url}),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    return status, json.loads(body) if body else None


def sources(server, token):
    status, _, body = server.request("GET", "/api/sources", headers={"Authorization": f"Bearer {token}"})
    assert status == 200, body
    return json.loads(body)["sources"]


def test_every_loopback_spelling_is_refused_and_the_site_sees_nothing(owner_server, site):
    feeds = site({"/feed.xml": rss("Inside")})
    server, token = owner_server()
    for host in SPELLINGS:
        status, answer = add(server, token, feeds.url("/feed.xml", host))
        assert status == 422, (host, answer)
        assert answer["error"]["code"] == "refused_address", (host, answer)
        assert "inside the network" in answer["error"]["message"], (host, answer)
        assert "--allow-private-feeds" in answer["error"]["message"], (host, answer)
    # A literal is named by its spelling: refused before any connection.
    _, answer = add(server, token, feeds.url("/feed.xml", "0x7f000001"))
    assert "0x7f000001 is the address 127.0.0.1 (loopback)" in answer["error"]["message"], answer
    assert feeds.requests()["total"] == 0
    assert sources(server, token) == []
    # Each refusal is logged; no startup warning, the flag being off.
    refusals = [line for line in server.err if "refused (refused_address)" in line]
    assert len(refusals) == len(SPELLINGS) + 1, server.err
    assert not any(line.startswith("warning: --allow-private-feeds") for line in server.err), server.err


def test_with_allow_private_feeds_the_same_addresses_subscribe(owner_server, site):
    paths = {host: f"/feed-{index}.xml" for index, host in enumerate(SPELLINGS)}
    feeds = site({path: rss(f"Feed{index}") for index, path in enumerate(paths.values())})
    server, token = owner_server("--allow-private-feeds")
    server.wait_line("err", lambda line: line.startswith("warning: --allow-private-feeds"))
    for host, path in paths.items():
        status, source = add(server, token, feeds.url(path, host))
        assert status == 201, (host, source)
    asked = feeds.requests()["paths"]
    assert all(asked.get(path, 0) >= 1 for path in paths.values()), asked
    assert len(sources(server, token)) == len(SPELLINGS)


def test_the_operators_source_on_loopback_is_unaffected(owner_server, site):
    feeds = site({"/operator.xml": rss("Operator")})
    server, token = owner_server("--source", feeds.url("/operator.xml", "127.1"))

    def items():
        status, _, body = server.request("GET", "/api/items", headers={"Authorization": f"Bearer {token}"})
        return status == 200 and [item for item in json.loads(body)["items"] if "Operator" in item["title"]]

    wait_for(items, "the operator's loopback source's items")
    # The owner adding the very same feed is still refused: the policy is the owner's.
    status, answer = add(server, token, feeds.url("/operator.xml", "2130706433"))
    assert status == 422 and answer["error"]["code"] == "refused_address", answer
