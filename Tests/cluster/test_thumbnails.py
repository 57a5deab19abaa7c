"""Thumbnails on a cluster: an instance that never read the data file (it joined the feed
stored in Redis) finds an item's picture through that snapshot and makes the thumbnail itself
from the image host; an item id no snapshot holds is a 404 on every instance."""
import json
import urllib.request

import pytest

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
