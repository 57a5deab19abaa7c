"""/metrics on a live server: promtool accepts the scrape, and counters move by exactly the
requests the test sent."""
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from conftest import request
from harness.upstream import RiverUpstream
from metrics_text import parse, value


def scrape(srv, **kw):
    reply = request(srv, "GET", "/metrics", **kw)
    assert reply.status == 200
    assert reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8"
    return reply.text


def test_promtool_accepts_a_live_scrape(server, tmp_path):
    promtool = shutil.which("promtool")
    if not promtool:
        pytest.fail("promtool not found: apt-get install prometheus")
    srv = server("--reload-delay", "0")
    for method, path in (("GET", "/"), ("GET", "/api/items"), ("POST", "/api/refresh"), ("GET", "/nope"),
                         ("GET", "/static/app.css"), ("GET", "/healthz")):
        request(srv, method, path)
    text = scrape(srv)
    check = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stdout + check.stderr
    # promtool lint findings are printed even on success; there must be none.
    assert check.stdout.strip() == "" and check.stderr.strip() == "", check.stdout + check.stderr
    for family in ("pullrefresh_http_requests_total", "pullrefresh_http_request_duration_seconds",
                   "pullrefresh_http_response_bytes_total", "pullrefresh_http_open_connections",
                   "pullrefresh_refresh_waiters", "pullrefresh_reloads_started_total",
                   "pullrefresh_reloads_succeeded_total", "pullrefresh_reloads_failed_total",
                   "pullrefresh_reload_duration_seconds", "pullrefresh_feed_version",
                   "pullrefresh_response_cache_hits_total", "pullrefresh_response_cache_misses_total",
                   "pullrefresh_http_stored_responses_total", "process_start_time_seconds", "pullrefresh_build_info"):
        assert f"# TYPE {family} " in text, family


def test_counters_move_by_exactly_what_was_sent(server):
    srv = server("--reload-delay", "0")
    before = parse(scrape(srv))
    items = [request(srv, "GET", "/api/items?limit=3") for _ in range(3)]
    for _ in range(2):
        assert request(srv, "GET", "/no/such/page").status == 404
    assert request(srv, "GET", "/api/items?limit=0").status == 400
    refreshed = request(srv, "POST", "/api/refresh")
    assert refreshed.status == 200
    health = request(srv, "GET", "/healthz")
    after = parse(scrape(srv))

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("pullrefresh_http_requests_total", route="/api/items", status="2xx") == 3
    assert delta("pullrefresh_http_requests_total", route="/api/items", status="4xx") == 1
    assert delta("pullrefresh_http_requests_total", route="unmatched", status="4xx") == 2
    assert delta("pullrefresh_http_requests_total", route="/api/refresh", status="2xx") == 1
    assert delta("pullrefresh_http_requests_total", route="/healthz", status="2xx") == 1
    # The first scrape is counted once it was answered, so the second one sees it.
    assert delta("pullrefresh_http_requests_total", route="/metrics", status="2xx") == 1
    assert delta("pullrefresh_http_requests_total", route="/", status="2xx") == 0
    assert delta("pullrefresh_http_request_duration_seconds_count", route="/api/items") == 4
    ok_bytes = sum(len(r.body) for r in items)
    error_bytes = delta("pullrefresh_http_response_bytes_total", route="/api/items") - ok_bytes
    assert error_bytes > 0  # the 400's JSON envelope
    assert delta("pullrefresh_http_response_bytes_total", route="/healthz") == len(health.body)
    assert delta("pullrefresh_reloads_started_total") == 1
    assert delta("pullrefresh_reloads_succeeded_total") == 1
    assert delta("pullrefresh_reloads_failed_total") == 0
    assert delta("pullrefresh_reload_duration_seconds_count") == 1
    assert value(after, "pullrefresh_feed_version") == health.json()["version"] == refreshed.json()["version"]
    # Three identical GETs at one version: one render; the server stored that answer and sent
    # it for the other two without routing them (so the app's cache saw no hit).
    assert delta("pullrefresh_response_cache_misses_total", cache="items") == 1
    assert delta("pullrefresh_http_stored_responses_total") == 2
    assert delta("pullrefresh_response_cache_hits_total", cache="items") == 0
    assert value(after, "process_start_time_seconds") <= time.time()
    assert value(after, "process_start_time_seconds") > time.time() - 600
    # Histogram buckets are cumulative and end at the count.
    bucket = value(after, "pullrefresh_http_request_duration_seconds_bucket", route="/api/items", le="+Inf")
    assert bucket == value(after, "pullrefresh_http_request_duration_seconds_count", route="/api/items")


def test_failed_reload_is_counted(server, tmp_path):
    data = tmp_path / "feed.json"
    data.write_text(json.dumps({"items": [{"id": 1, "title": "One", "body": "", "createdAt": "2026-01-01T00:00:00Z"}]}))
    srv = server("--reload-delay", "0", "--data", str(data))
    before = parse(scrape(srv))
    data.write_text("{not json")
    assert request(srv, "POST", "/api/refresh").status == 502
    after = parse(scrape(srv))
    assert value(after, "pullrefresh_reloads_failed_total") - value(before, "pullrefresh_reloads_failed_total") == 1
    assert value(after, "pullrefresh_reloads_succeeded_total") == value(before, "pullrefresh_reloads_succeeded_total")
    assert value(after, "pullrefresh_http_requests_total", route="/api/refresh", status="5xx") == 1


def wait_for_metric(srv, name, expected, timeout=10, **labels):
    deadline = time.monotonic() + timeout
    while True:
        got = value(parse(scrape(srv)), name, **labels)
        if got == expected:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{name}{labels} stayed {got}, expected {expected}")
        time.sleep(0.05)


def test_open_connections_and_refresh_waiters_gauges(server):
    srv = server("--reload-delay", "3")
    # Three idle keep-alive connections plus the scraping one.
    idle = [socket.create_connection(("127.0.0.1", srv.port), timeout=10) for _ in range(3)]
    try:
        wait_for_metric(srv, "pullrefresh_http_open_connections", 4)
    finally:
        for s in idle:
            s.close()
    wait_for_metric(srv, "pullrefresh_http_open_connections", 1)

    results = []
    threads = [threading.Thread(target=lambda: results.append(request(srv, "POST", "/api/refresh").status))
               for _ in range(3)]
    for t in threads:
        t.start()
    wait_for_metric(srv, "pullrefresh_refresh_waiters", 3)
    for t in threads:
        t.join(15)
    assert results == [200, 200, 200]
    wait_for_metric(srv, "pullrefresh_refresh_waiters", 0)
    samples = parse(scrape(srv))
    assert value(samples, "pullrefresh_reloads_started_total") == 1  # one shared reload


def test_metrics_off_is_404(server):
    srv = server("--metrics", "off")
    assert request(srv, "GET", "/metrics").status == 404
    assert request(srv, "GET", "/healthz").status == 200


def test_metrics_over_https(server, certs):
    srv = server("--tls-cert", certs.cert, "--tls-key", certs.key)
    samples = parse(scrape(srv, context=certs.context()))
    assert value(samples, "pullrefresh_http_requests_total", route="/metrics", status="2xx") == 0
    assert value(samples, "pullrefresh_build_info", version=os.popen(f"{srv.proc.args[0]} --version").read().split()[1]) == 1


def test_a_rivers_per_source_series_pass_promtool_and_count_each_fetch(server):
    """Two loopback feeds, one failing: promtool accepts the per-source series, and they count
    the startup fetch and one pull exactly, the failure under its reason."""
    feeds = RiverUpstream()
    try:
        feeds.set("broken", "mode=500")
        srv = server("--quiet", "--source", feeds.url("working"), "--source", feeds.url("broken"))
        sources = json.loads(request(srv, "GET", "/api/sources").text)["sources"]
        working, broken = (s["key"] for s in sources)
        assert request(srv, "POST", "/api/refresh").status == 200
        text = scrape(srv)
        check = subprocess.run([shutil.which("promtool"), "check", "metrics"], input=text, capture_output=True,
                               text=True, timeout=30)
        assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr
        samples = parse(text)
        fetches = "pullrefresh_source_fetches_total"
        assert value(samples, fetches, source=working, result="ok") == 1
        assert value(samples, fetches, source=working, result="not_modified") == 1
        assert value(samples, fetches, source=broken, result="failed") == 2
        assert value(samples, "pullrefresh_source_failures_total", reason="status") == 2
        assert value(samples, "pullrefresh_source_fetch_duration_seconds_count", source=working) == 2
    finally:
        feeds.stop()
