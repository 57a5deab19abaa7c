"""--database against the real binary: restart after TERM and KILL as if nothing happened, one
process per file, bad files refused untouched, KILL during reloads, backup while serving."""
import hashlib
import os
import random
import sqlite3
import threading
import time

import pytest

from harness.server import run
from store_harness import integrity

NOW = int(time.time())


def digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.mark.parametrize("how", ["TERM", "KILL"])
def test_restart_keeps_items_epoch_version_and_the_first_reload_is_conditional(how, upstream, servers, folder):
    names = [f"restart-{how.lower()}-{n}" for n in range(3)]
    for number, name in enumerate(names):
        upstream.put(name, [(f"{name}-b", "B", NOW - 60 - number), (f"{name}-a", "A", NOW - 600 - number)])
    database = os.path.join(folder, "feed.sqlite")
    args = ["--database", database, "--refresh-every", "1h", "--quiet"]
    args += [arg for name in names for arg in ("--source", upstream.url(name))]
    first = servers(*args)
    # A feed rolls: its first items leave the document, a new one arrives. All stay.
    upstream.put(names[0], [(f"{names[0]}-c", "C", NOW)])
    status, _, refreshed = first.json("POST", "/api/refresh")
    assert status == 200, refreshed
    page, before = first.all_items()
    assert len(before) == 7
    sources = first.json("GET", "/api/sources")[2]["sources"]
    if how == "TERM":
        assert first.stop() == 0
    else:
        first.kill()
    stats = upstream.stats()
    second = servers(*args)
    # Nothing fetched at start-up: the schedule carries on from the stored next-fetch times.
    time.sleep(1)
    assert upstream.stats() == stats
    again_page, after = second.all_items()
    assert [item["id"] for item in after] == [item["id"] for item in before]
    assert after == before
    assert again_page["epoch"] == page["epoch"]
    assert again_page["version"] >= page["version"]
    # The sources list counts what each source holds before any reload.
    assert second.json("GET", "/api/sources")[2]["sources"] == sources
    # The first reload asks every source conditionally, and each answers 304.
    status, _, _ = second.json("POST", "/api/refresh")
    assert status == 200
    later = upstream.stats()
    for name in names:
        assert later[name]["requests"] == stats[name]["requests"] + 1
        assert later[name]["conditional"] == stats[name]["conditional"] + 1
        assert later[name]["notModified"] == stats[name]["notModified"] + 1
    assert second.all_items()[1] == before
    assert integrity(database) == "ok"


def test_a_second_process_on_the_same_file_is_refused_naming_the_holder(upstream, servers, folder):
    database = os.path.join(folder, "feed.sqlite")
    upstream.put("lock", [("one", "One", NOW)])
    holder = servers("--database", database, "--source", upstream.url("lock"), "--quiet")
    status, out, err = run("--port", "0", "--database", database, "--source", upstream.url("lock"))
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert database in lines[0] and f"process {holder.pid}" in lines[0], lines[0]
    # The holder is unharmed.
    assert holder.json("GET", "/api/items")[0] == 200


def write_sqlite(path, statements):
    connection = sqlite3.connect(path)
    connection.executescript(statements)
    connection.commit()
    connection.close()


@pytest.mark.parametrize("kind", ["text", "newer-schema", "other-application"])
def test_bad_files_are_refused_untouched(kind, folder):
    database = os.path.join(folder, f"{kind}.sqlite")
    if kind == "text":
        with open(database, "w") as handle:
            handle.write("not a database, just some words\n" * 200)
        expected = "is not a SQLite database"
    elif kind == "newer-schema":
        write_sqlite(database, "PRAGMA application_id = 1347569234; PRAGMA user_version = 99; CREATE TABLE feed (id);")
        expected = "schema version 99, newer than this pullrefresh reads"
    else:
        write_sqlite(database, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
        expected = "another application"
    before = digest(database)
    status, _, err = run("--port", "0", "--database", database)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and database in lines[0] and expected in lines[0], err
    assert digest(database) == before
    assert not os.path.exists(database + "-wal") and not os.path.exists(database + "-shm")


def test_an_unusable_location_and_redis_are_refused(folder):
    missing = os.path.join(folder, "no-such-folder", "feed.sqlite")
    status, _, err = run("--port", "0", "--database", missing)
    assert status == 2 and len(err.strip().splitlines()) == 1 and missing in err, err
    assert not os.path.exists(os.path.dirname(missing))
    status, _, err = run("--port", "0", "--database", os.path.join(folder, "x.sqlite"), "--redis",
                         "redis://127.0.0.1:1/0")
    assert status == 2 and "--database and --redis cannot be used together" in err, err
    assert not os.path.exists(os.path.join(folder, "x.sqlite"))
    if os.geteuid() != 0:  # root writes anywhere: the permission check needs another user
        locked = os.path.join(folder, "locked")
        os.mkdir(locked, 0o555)
        status, _, err = run("--port", "0", "--database", os.path.join(locked, "feed.sqlite"))
        assert status == 2 and "locked" in err, err


def test_kill_during_reloads_never_corrupts_the_file_or_loses_an_item_an_answer_listed(upstream, servers, folder):
    database = os.path.join(folder, "feed.sqlite")
    names = [f"kill-{n}" for n in range(3)]
    for name in names:
        upstream.set(name, "busy=1")  # a new item on every fetch: every reload writes
    args = ["--database", database, "--keep-days", "36500", "--refresh-every", "0", "--quiet"]
    args += [arg for name in names for arg in ("--source", upstream.url(name))]
    listed = set()
    rounds = 8
    random.seed(30)
    for _ in range(rounds):
        server = servers(*args)
        stop = threading.Event()

        def refresh_loop():
            while not stop.is_set():
                try:
                    status, _, body = server.json("POST", "/api/refresh")
                except (OSError, ValueError):
                    return  # killed mid-answer: what it did not answer, it did not list
                if status == 200:
                    listed.update(item["id"] for item in body["items"])

        workers = [threading.Thread(target=refresh_loop) for _ in range(2)]
        for worker in workers:
            worker.start()
        time.sleep(random.uniform(0.3, 1.2))
        server.kill()
        stop.set()
        for worker in workers:
            worker.join(30)
        assert integrity(database) == "ok"
    final = servers(*args)
    _, items = final.all_items()
    kept = {item["id"] for item in items}
    assert len(listed) > 3 * rounds
    assert listed <= kept, sorted(listed - kept)[:5]


def test_backup_while_serving_makes_a_copy_a_server_starts_on(upstream, servers, folder):
    database = os.path.join(folder, "feed.sqlite")
    copy = os.path.join(folder, "copy.sqlite")
    names = [f"backup-{n}" for n in range(2)]
    for name in names:
        upstream.set(name, "busy=1")
    args = ["--keep-days", "36500", "--refresh-every", "0", "--quiet"]
    args += [arg for name in names for arg in ("--source", upstream.url(name))]
    server = servers("--database", database, *args)
    stop = threading.Event()

    def refresh_loop():
        while not stop.is_set():
            server.json("POST", "/api/refresh")

    worker = threading.Thread(target=refresh_loop)
    worker.start()
    try:
        time.sleep(0.5)
        status, out, err = run("backup", "--database", database, copy)
    finally:
        stop.set()
        worker.join(30)
    assert status == 0, err
    assert copy in out
    assert integrity(copy) == "ok"
    # The original keeps serving; the copy is a database a server starts on.
    page, items = server.all_items()
    restored = servers("--database", copy, *args)
    copy_page, copied = restored.all_items()
    assert copy_page["epoch"] == page["epoch"] and 1 < copy_page["version"] <= page["version"]
    assert {item["id"] for item in copied} <= {item["id"] for item in items}
    assert len(copied) > 2
    # Never over an existing file.
    status, _, err = run("backup", "--database", database, copy)
    assert status == 1 and "exists already" in err


def test_a_database_locked_by_another_program_fails_one_reload_with_503_and_loses_nothing(upstream, servers, folder):
    database = os.path.join(folder, "feed.sqlite")
    upstream.put("locked", [("one", "One", NOW - 60)])
    server = servers("--database", database, "--source", upstream.url("locked"), "--refresh-every", "0")
    _, before = server.all_items()
    # Another program takes the write lock and keeps it past the server's 2 s busy timeout.
    other = sqlite3.connect(database, timeout=1, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        upstream.put("locked", [("two", "Two", NOW), ("one", "One", NOW - 60)])
        status, headers, body = server.json("POST", "/api/refresh")
        assert status == 503, body
        assert headers.get("Retry-After") == "5"
        assert "SQLITE_BUSY" in body["error"]["message"]
        assert server.all_items()[1] == before  # reads keep serving what was committed
    finally:
        other.execute("ROLLBACK")
        other.close()
    status, _, body = server.json("POST", "/api/refresh")
    assert status == 200, body
    assert [item["id"].split(":")[1] for item in server.all_items()[1]] == ["two", "one"]
    assert sum("refresh failed" in line and "SQLITE_BUSY" in line for line in server.err_text().splitlines()) == 1
    assert integrity(database) == "ok"
