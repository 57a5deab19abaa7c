"""Thumbnails on a cluster: an instance that never read the data file (it joined the feed
stored in Redis) finds an item's picture through that snapshot and makes the thumbnail itself
from the image host; an item id no snapshot holds is a 404 on every instance; after Redis
restarted empty, a version number repeated in the new epoch shows that epoch's picture."""
import json
import signal
import time
import urllib.request

import pytest

from harness import wait_for
from harness.proxy import CutProxy
from harness.redis import Instance, restart_empty_behind
from harness.upstream import serve_images


@pytest.fixture(scope="module")
def image_host():
    yield from serve_images("ptr-cluster-images-")


def host_requests(host, path):
    with urllib.request.urlopen(f"{host}/stats", timeout=10) as response:
        return json.loads(response.read()).get(path, 0)


def test_an_instance_that_joined_the_stored_feed_makes_its_thumbnails(instances, image_host, tmp_path):
    picture = "/f/photo.jpg?t=cluster"
    data = tmp_path / "pictured.json"
    data.write_text(json.dumps({"items": [
        {"id": "pictured", "title": "With a picture", "body": "", "createdAt": "2026-01-01T00:02:00Z",
         "image": image_host + picture},
        {"id": "plain", "title": "Without", "body": "", "createdAt": "2026-01-01T00:01:00Z"}]}))
    empty = tmp_path / "other.json"
    empty.write_text(json.dumps({"items": [
        {"id": "elsewhere", "title": "Never stored", "body": "", "createdAt": "2026-01-01T00:03:00Z"}]}))
    (seeder,) = instances("--data", str(data), "--allow-private-images")
    # The second instance's own file is never read into the feed: it joins what Redis holds.
    (joiner,) = instances("--data", str(empty), "--allow-private-images")
    assert [item["id"] for item in json.loads(joiner.items()[1])["items"]] == ["pictured", "plain"]

    status, headers, body = joiner.request("GET", "/img/pictured?w=96", headers={"Accept": "image/webp"})
    assert status == 200, body[:200]
    assert headers["Content-Type"] == "image/webp" and body[:4] == b"RIFF" and body[8:12] == b"WEBP"
    assert host_requests(image_host, picture) == 1
    # Made once: the repeat is the joiner's own cache, not another fetch.
    assert joiner.request("GET", "/img/pictured?w=96", headers={"Accept": "image/webp"})[0] == 200
    assert host_requests(image_host, picture) == 1
    # The seeder makes its own, from the same snapshot.
    assert seeder.request("GET", "/img/pictured?w=160")[0] == 200
    assert host_requests(image_host, picture) == 2
    # Items without a picture, and ids the stored feed does not hold, have none.
    for instance in (seeder, joiner):
        assert instance.request("GET", "/img/plain?w=96")[0] == 404
        assert instance.request("GET", "/img/elsewhere?w=96")[0] == 404


def write_pictured(path, picture_url, other_id):
    """A --data file: item "p" with the picture at `picture_url` (the newest), and `other_id`."""
    path.write_text(json.dumps({"items": [
        {"id": "p", "title": "pictured", "body": "", "createdAt": "2026-01-01T00:02:00Z", "image": picture_url},
        {"id": other_id, "title": other_id, "body": "", "createdAt": "2026-01-01T00:01:00Z"}]}))


def test_after_an_empty_restart_a_repeated_version_shows_the_new_epochs_picture(redis, image_host, tmp_path):
    # Instance a serves version 2 of one epoch with picture X for item p; Redis restarts empty,
    # b seeds a new epoch and reloads to version 2 again, with picture Y for the same id; a
    # adopts it. Same id, same version number: a must now show Y (its caches follow its
    # revision, which never repeats), as b does.
    old_picture, new_picture = "/f/halves.jpg?t=epochs", "/f/photo.jpg?t=epochs"
    data_a, data_b = tmp_path / "a.json", tmp_path / "b.json"
    write_pictured(data_a, image_host + old_picture, "start")
    write_pictured(data_b, image_host + old_picture, "start")
    proxy = CutProxy(redis.port)
    flags = ["--quiet", "--reload-delay", "0", "--redis-timeout", "500ms", "--allow-private-images"]
    a = Instance(redis.url, *flags, "--data", str(data_a))
    b = Instance(f"redis://127.0.0.1:{proxy.port}/0", *flags, "--data", str(data_b))
    webp = {"Accept": "image/webp"}
    try:
        proxy.cut()
        wait_for(lambda: b.health()["status"] == "degraded", "b to notice it is cut off")
        write_pictured(data_a, image_host + old_picture, "x")
        assert a.refresh()[2]["version"] == 2
        status, _, old_body = a.request("GET", "/img/p?w=96", headers=webp)
        assert status == 200
        assert a.request("GET", "/img/p?w=96", headers=webp)[2] == old_body
        a.signal(signal.SIGSTOP)
        frozen_at = time.monotonic()
        try:
            restart_empty_behind(redis, proxy, b)
            write_pictured(data_b, image_host + new_picture, "y")
            assert b.refresh()[2]["version"] == 2
            wait_for(lambda: time.monotonic() - frozen_at >= 10, "a to have been frozen for 10 s", timeout=15)
        finally:
            a.signal(signal.SIGCONT)
        wait_for(lambda: [item["id"] for item in json.loads(a.items()[1])["items"]] == ["p", "y"],
                 "a to adopt the new epoch's version 2", timeout=10)
        assert a.version() == 2
        status, _, new_body = b.request("GET", "/img/p?w=96", headers=webp)
        assert status == 200 and new_body != old_body
        status, _, body = a.request("GET", "/img/p?w=96", headers=webp)
        assert status == 200
        assert body == new_body, "a answered the old epoch's picture for version 2 of the new one"
        assert host_requests(image_host, new_picture) == 2, "a and b each made the new picture"
    finally:
        a.stop()
        b.stop()
        proxy.close()
