"""The empty-Redis gap: one instance cut off across an empty Redis restart while another
commits. A version number names one snapshot only within an epoch; every ETag and event id
carries the epoch, so no ETag ever names two different lists, and the instance that comes back
from the older epoch adopts the cluster's snapshot instead of keeping (or republishing) its own."""
import json
import os
import signal
import subprocess
import tempfile
import time

from harness import wait_for
from harness.proxy import CutProxy
from harness.redis import Instance, Redis, restart_empty_behind
from harness.server import write_items


def etag_of(headers):
    return headers["ETag"].removeprefix("W/")


class Ledger:
    """Every (ETag → body) either instance answered: one body per ETag, or the test fails."""

    def __init__(self):
        self.bodies = {}

    def get(self, node, path="/api/items", headers=None):
        status, response_headers, body = node.request("GET", path, headers=headers, timeout=10)
        if status == 200:
            tag = etag_of(response_headers)
            known = self.bodies.setdefault(tag, body)
            assert known == body, f"ETag {tag} named two different bodies"
        return status, response_headers, body

    def titles(self, node):
        _, _, body = self.get(node)
        return [item["title"] for item in json.loads(body)["items"]]


def test_a_frozen_instance_across_an_empty_restart_never_shares_an_etag_with_other_content(redis):
    folder = tempfile.mkdtemp(prefix="ptr-epochs-")
    data_a, data_b = os.path.join(folder, "a.json"), os.path.join(folder, "b.json")
    write_items(data_a, ["start"])
    write_items(data_b, ["start"])
    proxy = CutProxy(redis.port)
    # b reaches Redis only through the proxy; short timeouts so both notice faults quickly.
    flags = ["--quiet", "--reload-delay", "0", "--redis-timeout", "500ms"]
    a = Instance(redis.url, *flags, "--data", data_a)
    b = Instance(f"redis://127.0.0.1:{proxy.port}/0", *flags, "--data", data_b)
    ledger = Ledger()
    try:
        assert ledger.titles(a) == ledger.titles(b) == ["start"]
        # b is cut off: it misses what a commits next.
        proxy.cut()
        wait_for(lambda: b.health()["status"] == "degraded", "b to notice it is cut off")
        write_items(data_a, ["X", "start"])
        assert a.refresh()[2]["version"] == 2
        _, x_headers, x_body = ledger.get(a)
        x_tag = etag_of(x_headers)
        assert ledger.titles(a) == ["X", "start"]
        # a freezes; Redis restarts empty; b comes back and seeds it with what it has (version 1).
        a.signal(signal.SIGSTOP)
        frozen_at = time.monotonic()
        try:
            restart_empty_behind(redis, proxy, b)
            epoch = redis.get("epoch")
            assert epoch is not None and redis.get("version") == "1"
            # Past the settle window, b reloads different content: version 2 again, new epoch.
            write_items(data_b, ["Y", "start"])
            status, _, body = b.refresh()
            assert status == 200 and body["version"] == 2
            _, y_headers, _ = ledger.get(b)
            y_tag = etag_of(y_headers)
            assert y_tag != x_tag, "version 2 of two epochs shares an ETag"
            # A browser holding X revalidates against b: a 200 with Y, never a 304.
            status, _, body = ledger.get(b, headers={"If-None-Match": x_headers["ETag"]})
            assert status == 200 and json.loads(body)["items"][0]["title"] == "Y"
            wait_for(lambda: time.monotonic() - frozen_at >= 10, "a to have been frozen for 10 s", timeout=15)
        finally:
            a.signal(signal.SIGCONT)
        # a comes back from the older epoch and adopts the cluster's snapshot.
        wait_for(lambda: ledger.titles(a) == ["Y", "start"], "a to adopt the cluster's snapshot", timeout=10)
        assert ledger.titles(b) == ["Y", "start"]
        status, a_headers, _ = ledger.get(a)
        assert etag_of(a_headers) == y_tag
        status, _, _ = ledger.get(a, headers={"If-None-Match": x_headers["ETag"]})
        assert status == 200
        assert a.request("GET", "/api/items", headers={"If-None-Match": y_headers["ETag"]})[0] == 304
        # a never republished X under a number of the new epoch.
        assert redis.get("epoch") == epoch and redis.get("version") == "2"
        assert json.loads(redis.get("snap:2"))["entries"][0]["title"] == "Y"
        # Both go on as one feed.
        write_items(data_a, ["Z", "Y", "start"])
        assert a.refresh()[2]["version"] == 3
        wait_for(lambda: ledger.titles(b) == ["Z", "Y", "start"], "b to learn a's commit")
        assert x_body not in [body for tag, body in ledger.bodies.items() if tag != x_tag]
    finally:
        a.stop()
        b.stop()
        proxy.close()


DEPLOY_CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "redis.conf")


class PersistentRedis(Redis):
    """redis-server from deploy/redis.conf, with only the port, address and folder overridden."""

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", DEPLOY_CONFIG, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.ping(), "redis-server to answer PING")


def test_the_deploy_config_persists_and_a_restart_keeps_the_epoch_and_every_etag():
    redis = PersistentRedis()
    node = None
    try:
        assert redis.cli("CONFIG", "GET", "appendonly") == ["appendonly", "yes"]
        assert redis.cli("CONFIG", "GET", "appendfsync") == ["appendfsync", "everysec"]
        assert redis.cli("CONFIG", "GET", "maxmemory-policy") == ["maxmemory-policy", "noeviction"]
        node = Instance(redis.url, "--quiet", "--reload-delay", "0")
        assert node.refresh()[2]["version"] == 2
        epoch = redis.get("epoch")
        etag = node.items()[0]["ETag"]
        redis.stop()  # SIGTERM: Redis writes the append-only file out and exits
        redis.start()
        wait_for(lambda: node.health()["status"] == "ok", "the instance to reconnect")
        # Nothing was lost, so nothing was seeded: the same epoch, version and ETag.
        assert redis.get("epoch") == epoch and redis.get("version") == "2"
        assert node.items()[0]["ETag"] == etag
        assert node.request("GET", "/api/items", headers={"If-None-Match": etag})[0] == 304
        assert node.refresh()[2]["version"] == 3
    finally:
        if node:
            node.stop()
        redis.stop()
