"""Several real pullrefresh instances on one real Redis: one feed, one reload cluster-wide, and
each fault of issue 12 as one test. Timing is made deterministic with generous reload delays and
explicit conditions (a lease held by a given PID, a key gone), never with timed assertions."""
import json
import os
import signal
import socket
import subprocess
import threading

import pytest
from harness import ROOT, free_port, wait_for
from harness.server import binary


def run_pullrefresh(*args, env=None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("PORT", "REDIS_URL")}
    full_env.update(env or {})
    return subprocess.run([binary(), *args], cwd=ROOT, capture_output=True, text=True, timeout=30, env=full_env)


def lease_holder(redis):
    value = redis.get("lease")
    return int(value.split("-")[0]) if value else None


def in_background(function):
    """Runs `function` on a thread; `.result()` joins it and returns (or re-raises)."""
    box = {}

    def target():
        try:
            box["value"] = function()
        except BaseException as error:  # handed to the test thread
            box["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    class Pending:
        @staticmethod
        def result():
            thread.join(60)
            assert not thread.is_alive(), "background request never finished"
            if "error" in box:
                raise box["error"]
            return box["value"]

    return Pending()


def bodies_by_version(instances, seen):
    """Records each instance's GET /api/items body under its position (epoch, version): one body
    per position."""
    for instance in instances:
        headers, body = instance.items()
        listed = json.loads(body)
        seen.setdefault((listed["epoch"], listed["version"]), set()).add(body)
    return seen


# --- startup -------------------------------------------------------------------------------
def test_unreachable_redis_at_startup_is_one_line_and_exit_1():
    port = free_port()
    result = run_pullrefresh("--port", "0", "--redis", f"redis://127.0.0.1:{port}")
    assert result.returncode == 1
    lines = result.stderr.strip().split("\n")
    assert len(lines) == 1, result.stderr
    assert f"Redis at redis://127.0.0.1:{port}/0 unreachable" in lines[0]
    assert "Connection refused" in lines[0]
    from_env = run_pullrefresh("--port", "0", env={"REDIS_URL": f"redis://127.0.0.1:{port}/2"})
    assert from_env.returncode == 1
    assert f"redis://127.0.0.1:{port}/2 unreachable" in from_env.stderr


@pytest.mark.parametrize("args, message", [
    (["--redis", "rediss://127.0.0.1:6379"], "hiredis 0.14.1 has no TLS"),
    (["--redis", "127.0.0.1:6379"], "must look like redis://"),
    (["--redis", "redis://host:99999"], "port must be an integer"),
    (["--redis-timeout", "0"], "--redis-timeout must be more than 0"),
    (["--lease", "soon"], "--lease must be a duration"),
    (["--redis-prefix", ""], "--redis-prefix must be non-empty"),
    (["--lease", "1s", "--reload-delay", "2s"], "--lease must be longer than --reload-delay"),
])
def test_bad_redis_flags_are_usage_errors(args, message):
    result = run_pullrefresh(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().split("\n")) == 1


def test_password_is_never_printed():
    result = run_pullrefresh("--port", "0", "--redis", f"redis://:hunter2@127.0.0.1:{free_port()}")
    assert result.returncode == 1
    assert "hunter2" not in result.stderr
    assert ":***@" in result.stderr


# --- one feed ------------------------------------------------------------------------------
def test_instances_share_versions_items_and_etags(redis, instances):
    a, b = instances("--reload-delay", "0", count=2)
    assert a.items()[1] == b.items()[1]
    status, headers, body = a.refresh()
    assert status == 200 and body["version"] == 2
    wait_for(lambda: b.version() == 2, "b to learn version 2")
    (ha, ba), (hb, bb) = a.items(), b.items()
    assert ba == bb
    assert ha["ETag"] == hb["ETag"]
    # A client revalidating on the other instance gets 304.
    status, _, _ = b.request("GET", "/api/items", headers={"If-None-Match": ha["ETag"]})
    assert status == 304
    # Items keep the version they first appeared in, whichever instance reloaded.
    status, _, body = b.refresh()
    assert body["version"] == 3
    wait_for(lambda: a.version() == 3, "a to learn version 3")
    items = json.loads(a.items()[1])["items"]
    assert {item["version"] for item in items} == {1, 2, 3}
    assert a.health() == {"status": "ok", "version": 3, "epoch": json.loads(a.items()[1])["epoch"],
                          "redis": "connected"}


def test_storm_of_300_refreshes_over_3_instances_runs_one_reload(redis, instances):
    nodes = instances("--reload-delay", "1500ms", count=3)
    before = int(redis.get("version"))
    sockets = []
    for index in range(300):
        node = nodes[index % 3]
        sock = socket.create_connection(("127.0.0.1", node.port), timeout=30)
        sock.sendall(b"POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        sockets.append(sock)
    versions = set()
    statuses = []
    for sock in sockets:
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        sock.close()
        head, _, body = data.partition(b"\r\n\r\n")
        statuses.append(int(head.split(b" ")[1]))
        versions.add(json.loads(body)["version"])
    assert statuses == [200] * 300
    assert versions == {before + 1}
    assert int(redis.get("reloads")) == 1
    assert int(redis.get("version")) == before + 1
    bodies = {node.items()[1] for node in nodes}
    etags = {node.items()[0]["ETag"] for node in nodes}
    assert len(bodies) == 1 and len(etags) == 1
    assert json.loads(bodies.pop())["version"] == before + 1


# --- faults --------------------------------------------------------------------------------
def test_dropped_subscriptions_are_remade_and_missed_versions_caught_up(redis, instances):
    a, b = instances("--reload-delay", "0", count=2)
    for round_number in range(3):
        # Drop every subscriber (pub/sub is at-most-once) and commit at once on b: a either still
        # gets the message or misses it and re-reads the version after re-subscribing.
        assert redis.cli("CLIENT", "KILL", "TYPE", "pubsub") >= 2
        status, _, body = b.refresh()
        assert status == 200
        wait_for(lambda: a.version() == body["version"], "a to catch up after its subscription dropped")
        assert a.items()[1] == b.items()[1]
    wait_for(lambda: a.health()["status"] == "ok" and b.health()["status"] == "ok", "both subscribed again")
    assert "redis subscriber" in a.stderr()



def test_redis_going_away_keeps_gets_and_refuses_refreshes_with_503(redis, instances):
    a, b = instances("--reload-delay", "0", "--redis-timeout", "1s", count=2)
    assert a.refresh()[0] == 200
    wait_for(lambda: b.version() == 2, "b to learn version 2")
    served = a.items()[1]
    redis.stop()
    for node in (a, b):
        headers, body = node.items()
        assert body == served
        status, page_headers, page = node.request("GET", "/")
        assert status == 200 and b"data-ptr-list" in page
    wait_for(lambda: a.health()["status"] == "degraded", "a to report degraded")
    assert a.health() == {"status": "degraded", "version": 2, "epoch": json.loads(served)["epoch"],
                          "redis": "unreachable"}
    status, headers, body = a.refresh(timeout=10)
    assert status == 503
    assert headers["Retry-After"].isdigit()
    assert body["error"]["code"] == "store_unavailable"
    assert "Redis" in body["error"]["message"]
    status, _, page = a.request("POST", "/refresh", timeout=10)
    assert status == 503 and b"<html" in page.lower()
    assert "refresh failed" in a.stderr()
    # Back (empty): both reconnect, re-seed version 2 and refreshes work again.
    redis.start()
    for node in (a, b):
        wait_for(lambda: node.health()["status"] == "ok", "instance to reconnect")
    assert int(redis.get("version")) == 2
    status, _, body = b.refresh()
    assert status == 200 and body["version"] == 3
    wait_for(lambda: a.version() == 3, "a to learn version 3")


def test_frozen_redis_answers_refresh_503_instead_of_hanging(redis, instances):
    (a,) = instances("--reload-delay", "0", "--redis-timeout", "500ms")
    redis.proc.send_signal(signal.SIGSTOP)
    try:
        status, headers, body = a.refresh(timeout=10)
        assert status == 503 and "Retry-After" in headers
        assert body["error"]["code"] == "store_unavailable"
        assert a.request("GET", "/api/items", timeout=10)[0] == 200
        wait_for(lambda: a.health()["status"] == "degraded", "a to notice the silent subscriber")
    finally:
        redis.proc.send_signal(signal.SIGCONT)
    wait_for(lambda: a.health()["status"] == "ok", "a to recover")
    assert a.refresh()[2]["version"] == 2


def test_redis_restarted_empty_is_reseeded_and_versions_never_go_back(redis, instances):
    nodes = instances("--reload-delay", "0", count=3)
    seen = {}
    for node in nodes:
        assert node.refresh()[0] == 200
    top = int(redis.get("version"))
    assert top == 4
    wait_for(lambda: all(node.version() == top for node in nodes), "every instance at the top version")
    bodies_by_version(nodes, seen)
    stored = json.loads(redis.get(f"snap:{top}"))
    old_epoch = redis.get("epoch")
    old_epoch_tag = json.loads(nodes[0].items()[1])["epoch"]
    redis.restart_empty()
    wait_for(lambda: redis.get("version") == str(top), "the instances to re-seed the version")
    assert json.loads(redis.get(f"snap:{top}")) == stored
    # The seed begins a new epoch: the ETags change once, so no cache mixes the two.
    assert redis.get("epoch") not in (None, old_epoch)
    for node in nodes:
        wait_for(lambda: node.health()["status"] == "ok", "instance to reconnect")
        assert node.version() == top
    bodies_by_version(nodes, seen)
    new_epoch_tag = json.loads(nodes[0].items()[1])["epoch"]
    status, _, body = nodes[1].refresh()
    assert status == 200 and body["version"] == top + 1
    wait_for(lambda: all(node.version() == top + 1 for node in nodes), "every instance at the new version")
    bodies_by_version(nodes, seen)
    # Version `top` in the old epoch and in the new one (the same items: the seed kept them), then
    # `top + 1` in the new one.
    assert sorted(version for _, version in seen) == [top, top, top + 1]
    assert {epoch for epoch, _ in seen} == {old_epoch_tag, new_epoch_tag}
    assert all(len(bodies) == 1 for bodies in seen.values()), "two different snapshots under one position"
    reseeded = [json.loads(next(iter(seen[(tag, top)])))["items"] for tag in (old_epoch_tag, new_epoch_tag)]
    assert reseeded[0] == reseeded[1]


def test_killed_lease_holder_lets_another_instance_finish_after_the_lease(redis, instances):
    a, b = instances("--reload-delay", "2s", "--lease", "3s", count=2)
    pending = in_background(lambda: a.refresh(timeout=30))
    wait_for(lambda: lease_holder(redis) == a.pid, "a to hold the lease")
    a.signal(signal.SIGKILL)
    a.proc.wait(10)
    with pytest.raises(Exception):
        pending.result()  # the killed instance's client sees its connection drop
    status, headers, body = b.refresh(timeout=30)
    assert status == 200
    assert body["version"] == 2
    assert int(redis.get("version")) == 2
    assert int(redis.get("reloads")) == 2  # the killed reload and b's
    assert redis.get("lease") is None


def test_frozen_holder_past_its_lease_has_its_commit_refused(redis, instances):
    a, b = instances("--reload-delay", "2s", "--lease", "3s", count=2)
    pending = in_background(lambda: a.refresh(timeout=60))
    wait_for(lambda: lease_holder(redis) == a.pid, "a to hold the lease")
    a.signal(signal.SIGSTOP)
    try:
        wait_for(lambda: redis.get("lease") is None, "a's lease to expire")
        status, _, body = b.refresh(timeout=30)
        assert status == 200 and body["version"] == 2
    finally:
        a.signal(signal.SIGCONT)
    status, _, body = pending.result()
    # a's own reload (built on version 1) was refused; it answers with the cluster's newest.
    assert status == 200
    assert body["version"] == 2
    assert int(redis.get("version")) == 2
    assert "refused" in a.stderr()
    wait_for(lambda: a.version() == 2, "a to serve version 2")
    assert a.items()[1] == b.items()[1]
    assert a.refresh()[2]["version"] == 3
