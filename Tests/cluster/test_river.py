"""A river of feeds on a cluster: three instances on one Redis with --refresh-every 2s make one
fetch per source per interval (counted at the loopback upstreams), and keep the per-source state
in Redis. Also the command line's OPML errors."""
import json
import os
import subprocess
import tempfile
import time

import pytest

from harness import ROOT, wait_for
from harness.redis import PREFIX
from harness.server import binary
from harness.upstream import RiverUpstream


@pytest.fixture
def upstream():
    server = RiverUpstream()
    yield server
    server.stop()


def test_three_instances_fetch_each_source_once_per_interval(instances, redis, upstream):
    names = [f"cluster{n}" for n in range(4)]
    for name in names:
        upstream.set(name, "busy=1")  # a new item on every fetch: the interval never stretches
    sources = [arg for name in names for arg in ("--source", upstream.url(name))]
    cluster = instances("--refresh-every", "2s", *sources, count=3)
    # Every instance fetched each source once at startup; then the schedule takes over.
    time.sleep(3)
    before = upstream.stats()
    window = 20.0
    time.sleep(window)
    after = upstream.stats()
    per_interval = [(after[name]["requests"] - before[name]["requests"]) / (window / 2) for name in names]
    # One fetch per slot: 10 slots in the window, give or take the one at each edge.
    assert all(0.9 <= rate <= 1.1 for rate in per_interval), per_interval
    # The pages followed: every instance shows the newest version Redis holds.
    versions = [instance.version() for instance in cluster]
    assert max(versions) - min(versions) <= 1
    # The state each instance carries on from lives in one Redis hash, validators included.
    state = json.loads(redis.cli("HGET", PREFIX + "sources", key_of(cluster[0], names[0])))
    assert state["etag"].startswith('"') and state["failures"] == 0
    sources_ok = cluster[2].health()["sources"]
    assert sources_ok == {"ok": 4, "failing": []}
    # All three gone, then one back: it joins the stored feed without fetching anything first.
    # (What is stored is read once all three stopped: until then the schedule kept committing.)
    for instance in cluster:
        instance.stop()
    stopped = upstream.stats()
    stored_version = int(redis.get("version"))
    stored = json.loads(redis.get(f"snap:{stored_version}"))
    (restarted,) = instances("--refresh-every", "2s", *sources)
    assert upstream.stats() == stopped, "the restarted instance fetched at startup"
    joined = json.loads(restarted.items()[1])
    assert joined["version"] == stored_version
    assert [item["id"] for item in joined["items"][:3]] == [entry["id"] for entry in stored["entries"][:3]]
    # Its schedule carries on from the shared next fetch times.
    wait_for(lambda: all(upstream.stats()[n]["requests"] > stopped[n]["requests"] for n in names),
             "the restarted instance's schedule to fetch every source", timeout=10)


def key_of(instance, name):
    status, _, body = instance.request("GET", "/api/sources")
    assert status == 200
    return next(s["key"] for s in json.loads(body)["sources"] if s["url"].endswith(f"/r/{name}.xml"))


def run(*args):
    return subprocess.run([binary(), "--port", "0", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("document, reason", [
    ("<opml><body><outline xmlUrl=\"ftp://example.org/feed\"/></body></opml>", "not an http:// or https:// URL"),
    ("<opml><body><outline", "not well-formed XML"),
    ("<html/>", "not an OPML document"),
])
def test_a_bad_subscription_list_is_one_line_and_exit_2(document, reason):
    with tempfile.NamedTemporaryFile("w", suffix=".opml", delete=False) as handle:
        handle.write(document)
    try:
        result = run("--sources", handle.name)
    finally:
        os.unlink(handle.name)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0] and handle.name in lines[0], result.stderr


def test_a_missing_subscription_list_is_exit_2():
    result = run("--sources", "/nonexistent/subscriptions.opml")
    assert result.returncode == 2 and "cannot read /nonexistent/subscriptions.opml" in result.stderr
