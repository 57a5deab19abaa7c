"""`pullrefresh owner …` against the real binary and real database files: the password from a
pipe and from a terminal, tokens made, listed and revoked, and all of it while a server runs on
the same file (docs/owner.md)."""
import concurrent.futures
import os
import re

from harness import wait_for
from harness.server import Server, repository_flags
from owner_harness import Terminal, file_bytes, query

PASSWORD = "correct horse battery"


def test_a_short_password_exits_2_and_changes_nothing(owner, database):
    status, out, err = owner("set-password", "--database", database, stdin="too short\n")
    assert status == 2, (out, err)
    assert "at least 10 characters" in err
    assert not os.path.exists(database) or query(database, "SELECT count(*) FROM users") == [(0,)]
    status, _, err = owner("set-password", "--database", database, stdin="")
    assert status == 2 and "at least 10 characters" in err


def test_a_password_from_a_pipe_is_stored_as_an_argon2id_hash(owner, database):
    status, out, err = owner("set-password", "--database", database, stdin=PASSWORD + "\n")
    assert status == 0, err
    assert database in out
    # The file made by the command holds secrets' hashes: its owner alone may read it.
    assert os.stat(database).st_mode & 0o777 == 0o600
    [(name, stored)] = query(database, "SELECT name, password_hash FROM users")
    assert name == "owner"
    assert stored.startswith("$argon2id$v=19$m=65536,t=2,p=1$")
    assert PASSWORD.encode() not in file_bytes(database)
    # Setting it again replaces the hash (a new salt), still one owner.
    status, _, err = owner("set-password", "--database", database, stdin="another long password\n")
    assert status == 0, err
    [(again,)] = query(database, "SELECT password_hash FROM users")
    assert again.startswith("$argon2id$") and again != stored


def test_on_a_terminal_the_password_is_asked_twice_without_echo(database):
    terminal = Terminal("set-password", "--database", database)
    terminal.wait_for(b"New password for the owner")
    terminal.type(PASSWORD)
    terminal.wait_for(b"The same again")
    terminal.type(PASSWORD)
    assert terminal.finish() == 0, terminal.seen
    assert PASSWORD.encode() not in terminal.seen
    assert b"password of the owner set" in terminal.seen
    assert query(database, "SELECT count(*) FROM users") == [(1,)]

    differing = Terminal("set-password", "--database", database)
    differing.wait_for(b"New password for the owner")
    differing.type("first long password")
    differing.wait_for(b"The same again")
    differing.type("second long password")
    assert differing.finish() == 2
    assert b"differ" in differing.seen


def test_tokens_are_made_once_listed_without_themselves_and_revoked(owner, database):
    status, _, err = owner("token", "create", "phone", "--database", database)
    assert status == 1 and "does not exist" in err
    assert owner("set-password", "--database", database, stdin=PASSWORD + "\n")[0] == 0

    status, out, err = owner("token", "create", "phone", "--database", database)
    assert status == 0, err
    token = out.strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token), out
    assert "only this once" in err
    status, out2, _ = owner("token", "create", "laptop", "--database", database)
    assert status == 0 and out2.strip() != token

    status, _, err = owner("token", "create", "phone", "--database", database)
    assert status == 1 and "exists already" in err

    status, listing, err = owner("token", "list", "--database", database)
    assert status == 0, err
    lines = listing.splitlines()
    assert lines[0].split() == ["NAME", "CREATED", "LAST", "USED"]
    assert [line.split()[0] for line in lines[1:]] == ["phone", "laptop"]
    assert all(line.rstrip().endswith("never") for line in lines[1:])
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ", lines[1])
    assert token not in listing
    # The file keeps a keyed hash, never the token.
    assert token.encode() not in file_bytes(database)
    assert [len(h) for (h,) in query(database, "SELECT hash FROM tokens")] == [32, 32]

    status, _, err = owner("token", "revoke", "tablet", "--database", database)
    assert status == 1 and "no token named 'tablet'" in err
    status, out, err = owner("token", "revoke", "phone", "--database", database)
    assert status == 0 and "revoked" in out, err
    listing = owner("token", "list", "--database", database)[1]
    assert [line.split()[0] for line in listing.splitlines()[1:]] == ["laptop"]


def test_usage_errors_exit_2(owner, database):
    assert owner("set-password", stdin=PASSWORD + "\n")[0] == 2
    assert owner("token", "create", "--database", database)[0] == 2
    assert owner("token", "frob", "x", "--database", database)[0] == 2
    assert owner("token", "create", "a\tb", "--database", database)[0] == 2
    status, out, _ = owner("--help")
    assert status == 0 and "owner token revoke NAME" in out


def test_status_says_how_to_set_an_owner(owner, database):
    status, out, _ = owner("status", "--database", database)
    assert status == 0
    assert f"pullrefresh owner set-password --database {database}" in out
    assert not os.path.exists(database)
    owner("set-password", "--database", database, stdin=PASSWORD + "\n")
    status, out, _ = owner("status", "--database", database)
    assert status == 0 and "has an owner" in out


def feed_version(database):
    rows = query(database, "SELECT version FROM feed WHERE id = 1")
    return rows[0][0] if rows else 0


def test_the_commands_work_while_a_server_runs_on_the_file(owner, upstream, database):
    # The server holds the file's lock and refreshes every second a feed that has a new item at
    # each fetch: a write to the same file every second.
    upstream.set("owner-busy", "busy=1")
    server = Server("--port", "0", "--database", database, "--source", upstream.url("owner-busy"),
                    "--refresh-every", "1", "--quiet", *repository_flags())
    try:
        commands_beside(server, owner, database)
    finally:
        server.stop()
    assert query(database, "PRAGMA integrity_check") == [("ok",)]
    assert query(database, "SELECT count(*) FROM users") == [(1,)]
    assert query(database, "SELECT count(*) FROM tokens") == [(5,)]


def commands_beside(server, owner, database):
    """Every command while `server` writes into `database`; the server keeps serving."""
    server.wait_healthy()
    start = wait_for(lambda: feed_version(database), "the server's first write")

    status, _, err = owner("set-password", "--database", database, stdin=PASSWORD + "\n")
    assert status == 0, err
    # Several at once, while the server writes: each waits its turn for the write lock.
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        made = list(pool.map(lambda n: owner("token", "create", f"app-{n}", "--database", database),
                             range(6)))
    assert [status for status, _, _ in made] == [0] * 6, [err for _, _, err in made]
    assert len({out.strip() for _, out, _ in made}) == 6
    status, listing, err = owner("token", "list", "--database", database)
    assert status == 0 and len(listing.splitlines()) == 7, err
    assert owner("token", "revoke", "app-3", "--database", database)[0] == 0

    # The server kept writing and serving all along.
    wait_for(lambda: feed_version(database) > start + 1, "the server's writes going on")
    assert server.proc.poll() is None
    assert server.request("GET", "/healthz")[0] == 200
    assert "database" not in server.err_text(), server.err_text()
    assert server.stop() == 0
