"""--log-format json: every access line and every warning/error is one JSON object, and the
X-Request-Id a client sends (or the one made up) is on the response and in the log."""
import json
import re

import pytest

from conftest import request

ACCESS_KEYS = {"time", "level", "method", "path", "status", "bytes", "duration_ms", "peer", "request_id"}
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
GENERATED = re.compile(r"^[0-9a-f]{16}$")


def access_line(srv, request_id):
    line = srv.wait_line("out", lambda l: f'"request_id":"{request_id}"' in l)
    return json.loads(line)


def test_access_lines_are_json_with_the_clients_request_id(server):
    srv = server("--log-format", "json")
    sent = "Req.ID_42-abc"
    reply = request(srv, "GET", "/api/items?limit=1", headers={"X-Request-Id": sent})
    assert reply.header("X-Request-Id") == sent
    entry = access_line(srv, sent)
    assert set(entry) == ACCESS_KEYS
    assert entry["level"] == "info" and TIME.match(entry["time"])
    assert (entry["method"], entry["path"], entry["status"]) == ("GET", "/api/items", 200)
    assert entry["bytes"] == len(reply.body)
    assert entry["peer"] == "127.0.0.1"
    assert isinstance(entry["duration_ms"], (int, float)) and entry["duration_ms"] >= 0
    # The startup line is JSON too, and so is every other line written so far.
    for line in list(srv.out):
        json.loads(line)


def test_a_missing_request_id_is_generated_and_unique(server):
    srv = server("--log-format", "json")
    ids = set()
    for path in ("/", "/api/items", "/healthz", "/nope"):
        reply = request(srv, "GET", path)
        rid = reply.header("X-Request-Id")
        assert GENERATED.match(rid), rid
        entry = access_line(srv, rid)
        assert entry["path"] == path and entry["status"] == reply.status
        ids.add(rid)
    assert len(ids) == 4


@pytest.mark.parametrize("bad", ["", "has space", "x" * 65, "semi;colon", "quote\"", "ünïcode"])
def test_an_unsafe_request_id_is_replaced_and_logged(server, bad):
    srv = server("--log-format", "json")
    reply = request(srv, "GET", "/healthz", headers={"X-Request-Id": bad.encode("utf-8")})
    assert reply.status == 200
    rid = reply.header("X-Request-Id")
    assert GENERATED.match(rid), rid
    access_line(srv, rid)
    warning = json.loads(srv.wait_line("err", lambda l: "X-Request-Id" in l))
    assert warning["level"] == "warning" and warning["request_id"] == rid
    assert TIME.match(warning["time"]) and "ignored X-Request-Id" in warning["message"]


def test_the_longest_safe_id_is_kept(server):
    srv = server("--log-format", "json")
    sent = "a" * 64
    assert request(srv, "GET", "/healthz", headers={"X-Request-Id": sent}).header("X-Request-Id") == sent


def test_warnings_and_errors_are_json(server, tmp_path):
    data = tmp_path / "feed.json"
    data.write_text(json.dumps({"items": [{"id": 1, "title": "One", "body": "", "createdAt": "2026-01-01T00:00:00Z"}]}))
    srv = server("--log-format", "json", "--reload-delay", "0", "--data", str(data))
    data.write_text("[1, 2")
    reply = request(srv, "POST", "/api/refresh", headers={"X-Request-Id": "refresh-1"})
    assert reply.status == 502
    warning = json.loads(srv.wait_line("err", lambda l: "refresh failed" in l))
    assert set(warning) >= {"time", "level", "message"} and warning["level"] == "warning"
    assert access_line(srv, "refresh-1")["status"] == 502
    srv.stop()
    for line in srv.out + srv.err:
        json.loads(line)


def test_text_lines_carry_the_request_id(server):
    srv = server()
    request(srv, "GET", "/healthz", headers={"X-Request-Id": "text-7"})
    line = srv.wait_line("out", lambda l: "id=text-7" in l)
    assert line.startswith("GET /healthz 200 ")
