"""The owner of a database, made the way an operator makes one: `pullrefresh owner
set-password` (the password on stdin) and `pullrefresh owner token create` (the token on
stdout). Shared by the suites that sign in (Tests/owner, Tests/browser)."""
import subprocess

from harness.server import binary

PASSWORD = "correct horse battery staple"


def owner_command(database, *args, stdin=None):
    """`pullrefresh owner ARGS --database FILE`: its stdout, asserting it succeeded."""
    done = subprocess.run([binary(), "owner", *args, "--database", database], input=stdin, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def make_owner(database):
    """Sets the owner's password (PASSWORD) and makes an app token: the token."""
    owner_command(database, "set-password", stdin=PASSWORD + "\n")
    return owner_command(database, "token", "create", "tests").strip().splitlines()[-1]
