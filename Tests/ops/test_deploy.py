"""deploy/: the systemd unit passes `systemd-analyze verify`; the nginx site passes `nginx -t`
and serves the page, the API and a refresh over TLS + HTTP/2 in front of a real pullrefresh."""
import os
import re
import shutil
import subprocess

import pytest

from harness import ROOT, free_port
from harness.nginx import SiteNginx
from harness.nginx import executable as nginx_executable
from harness.server import binary

UNIT = os.path.join(ROOT, "deploy", "pullrefresh.service")
SITE = os.path.join(ROOT, "deploy", "nginx", "pullrefresh.conf")


def test_systemd_unit_verifies(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.fail("systemd-analyze not found (Debian package systemd)")
    unit = open(UNIT).read()
    for key in ("DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "Restart=on-failure",
                "KillSignal=SIGTERM", "CapabilityBoundingSet=\n", "ProtectHome=yes", "PrivateTmp=yes",
                "RestrictAddressFamilies="):
        assert key in unit, key
    # The stop timeout must leave room for the --grace drain.
    grace = int(re.search(r"--grace (\d+)", unit).group(1))
    stop = int(re.search(r"^TimeoutStopSec=(\d+)s$", unit, re.M).group(1))
    assert stop > grace
    # verify checks that ExecStart exists: point it at the binary we built, in a temp copy.
    copy = unit.replace("/usr/local/bin/pullrefresh", binary()).replace("/usr/local/share/pullrefresh", ROOT)
    path = tmp_path / "pullrefresh.service"
    path.write_text(copy)
    done = subprocess.run([analyze, "verify", str(path)], capture_output=True, text=True, timeout=60)
    problems = [line for line in (done.stdout + done.stderr).splitlines() if "pullrefresh.service" in line]
    assert done.returncode == 0 and not problems, done.stdout + done.stderr

    # And the checker does catch a broken unit, so a pass above means something.
    broken = tmp_path / "broken.service"
    broken.write_text(copy.replace("Restart=on-failure", "Restart=sometimes"))
    done = subprocess.run([analyze, "verify", str(broken)], capture_output=True, text=True, timeout=60)
    assert "broken.service" in done.stdout + done.stderr and "restart" in (done.stdout + done.stderr).lower()


@pytest.fixture
def nginx(tmp_path, certs):
    if not nginx_executable():
        pytest.fail("nginx not found: apt-get install nginx")
    made = []

    def make(upstream_port):
        n = SiteNginx(tmp_path, certs.cert, certs.key, upstream_port)
        made.append(n)
        return n
    yield make
    for n in made:
        n.stop()


def test_nginx_site_passes_nginx_t(nginx):
    n = nginx(free_port())
    done = n.test()
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr and "test is successful" in done.stderr
    site = open(SITE).read()
    for directive in ("http2", "keepalive 32;", "proxy_http_version 1.1;", 'proxy_set_header Connection "";',
                      "gzip off;", "proxy_buffering off;", "proxy_read_timeout 1h;"):
        assert directive in site, directive
    # nginx -t is a real check: a typo fails it.
    with open(os.path.join(n.dir, "site.conf"), "a") as f:
        f.write("server { listen 127.0.0.1:1; proxy_buffering maybe; }\n")
    assert n.test().returncode != 0


def curl(certs, url, *args):
    done = subprocess.run(["curl", "-sS", "--http2", "--cacert", certs.ca, "-D", "-",
                           "-w", "\n@@version=%{http_version}", *args, url], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    # Bytes, not text mode: universal newlines would turn the header block's CRLFs into LFs.
    head, _, rest = done.stdout.decode().partition("\r\n\r\n")
    body, _, version = rest.rpartition("\n@@version=")
    headers = {}
    for line in head.splitlines()[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(head.split()[1]), headers, body, version


def test_page_api_and_refresh_through_nginx(nginx, server, certs):
    srv = server("--reload-delay", "0.2", "--log-format", "json")
    n = nginx(srv.port)
    n.start()
    base = f"https://localhost:{n.https_port}"

    status, headers, body, version = curl(certs, base + "/")
    assert (status, version) == (200, "2"), (status, version)
    assert "data-pull-to-refresh" in body
    assert headers["strict-transport-security"] == "max-age=31536000"
    assert "content-encoding" not in headers  # nginx adds no gzip of its own

    status, headers, body, _ = curl(certs, base + "/api/items?limit=2")
    assert status == 200
    import json
    listed = json.loads(body)
    assert len(listed["items"]) == 2
    # nginx's $request_id reaches pullrefresh, comes back, and is in pullrefresh's log.
    rid = headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", rid), rid
    srv.wait_line("out", lambda line: f'"request_id":"{rid}"' in line)

    status, headers, body, _ = curl(certs, base + f"/api/refresh?since={listed['version']}", "-X", "POST")
    assert status == 200
    refreshed = json.loads(body)
    assert refreshed["version"] == listed["version"] + 1 and refreshed["added"]

    status, _, _, _ = curl(certs, base + "/metrics")
    assert status == 404  # scraped on the upstream port only

    # Plain HTTP on the site's port 80 stand-in redirects to HTTPS.
    done = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                           f"http://localhost:{n.http_port}/api/items"], capture_output=True, text=True, timeout=30)
    assert done.stdout.startswith("301 https://localhost/api/items"), done.stdout


def test_nginx_keeps_upstream_connections_alive(nginx, server, certs):
    srv = server("--reload-delay", "0")
    n = nginx(srv.port)
    n.start()
    from conftest import request
    from metrics_text import parse, value
    for _ in range(10):
        assert curl(certs, f"https://localhost:{n.https_port}/healthz")[0] == 200
    # Ten proxied requests over kept-alive upstream connections: nginx holds at most a few
    # open to pullrefresh (one worker, sequential requests → one), plus our scrape.
    open_now = value(parse(request(srv, "GET", "/metrics").text), "pullrefresh_http_open_connections")
    assert 2 <= open_now <= 3, open_now
