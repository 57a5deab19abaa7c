"""A page from an earlier epoch, in Chromium against real servers.

The server restarts on the same port (a new in-memory store is a new epoch, as is a Redis that
was emptied and seeded again): its version numbers count from 1 again, so the number the page
shows says nothing about which items it has. The page sends its position, `<epoch>-<version>`;
the server reads one from another epoch as 0 and sends every item; the page lists each item
once (the new copy replaces the old) and adopts the new epoch.
"""
import json
import signal

from conftest import make_items

FEED = "document.getElementById('feed')"
LIST = "document.querySelector('[data-ptr-list]')"
STATUS = "document.querySelector('[data-ptr-status]')"


def item_ids(page):
    return page.eval(f"[...{LIST}.children].map(li => li.dataset.itemId)")


def test_a_page_of_an_earlier_epoch_pulls_every_item_and_lists_each_once(page, server):
    first = server(reload_delay=0, items=make_items(3))
    page.goto(first.url + "/")
    page.wait_for(f"{FEED} && {FEED}.dataset.ptrState === 'idle'", what="the script to attach")
    old_epoch = page.eval(f"{FEED}.dataset.ptrEpoch")
    assert old_epoch and page.eval(f"{FEED}.dataset.ptrVersion") == "1"
    assert sorted(item_ids(page)) == ["1", "2", "3"]

    # The same port, a new process: a new epoch whose version 1 has two more items.
    port = first.url.rsplit(":", 1)[1]
    first.proc.send_signal(signal.SIGTERM)
    assert first.proc.wait(10) == 0
    second = server(reload_delay=0, items=make_items(5), extra_args=("--port", port))
    assert second.url == first.url
    listed = json.loads(second.request("GET", "/api/items")[2])
    new_epoch = listed["epoch"]
    assert new_epoch != old_epoch and listed["version"] == 1
    # The trap the epoch closes: the bare number the page shows reads as "nothing new".
    assert json.loads(second.request("GET", "/api/items?since=1")[2])["items"] == []

    mark = page.mark()
    page.drag(195, 300, 220)
    page.wait_for(f"{FEED}.dataset.ptrEpoch === '{new_epoch}'", 10, "the page to adopt the new epoch")
    page.wait_for(f"{FEED}.dataset.ptrState === 'idle'", 10, "the pull's refresh to settle")
    posts = [r for r in page.requests("/api/refresh", since=mark, method="POST")]
    assert len(posts) == 1 and posts[0]["url"].endswith(f"?since={old_epoch}-1"), posts
    # Every item of the new epoch, each once, newest first; two of them were new to the page.
    assert item_ids(page) == ["5", "4", "3", "2", "1"]
    assert page.eval(f"{FEED}.dataset.ptrVersion") == "1"
    assert page.eval(f"{STATUS}.textContent") == "2 new items"
