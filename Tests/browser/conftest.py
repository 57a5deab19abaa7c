"""Fixtures for the browser suite: one headless Chromium per session, a real PullRefresh server
per test (port 0, 127.0.0.1), a fresh emulated phone tab per test.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh), CHROMIUM (browser binary),
PTR_UPDATE_SCREENSHOTS=1 (copy the state screenshots into docs/screenshots/),
PTR_BROWSER_TLS=1 (the whole suite over HTTPS: every server gets a certificate made by openssl for
this run, Chromium runs with --ignore-certificate-errors, Python clients trust the certificate).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile

import pytest

from harness import ROOT
from harness.chromium import launch_chromium
from harness.fixtures import phone_page  # noqa: F401  (the `page` fixture)
from harness.server import Server, repository_flags

HERE = os.path.dirname(os.path.abspath(__file__))
ARTIFACTS = os.path.join(HERE, "artifacts")
CACHE = os.path.join(HERE, ".cache")
SCREENSHOTS = os.path.join(ROOT, "docs", "screenshots")
AXE_WHEEL = "axe-playwright-python==0.1.8"
OVER_TLS = os.environ.get("PTR_BROWSER_TLS") == "1"


def _make_test_certificate():
    """A self-signed certificate for 127.0.0.1 and localhost, valid for this run only. Python's
    default HTTPS context reads SSL_CERT_FILE each time it is made, so urllib trusts it."""
    folder = tempfile.mkdtemp(prefix="ptr-tls-")
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=60)
    os.environ["SSL_CERT_FILE"] = cert
    return cert, key


TEST_CERTIFICATE = _make_test_certificate() if OVER_TLS else None


# --- the browser ------------------------------------------------------------------------
@pytest.fixture(scope="session")
def browser():
    with launch_chromium(["--ignore-certificate-errors"] if OVER_TLS else []) as cdp:
        yield cdp


# --- the server -------------------------------------------------------------------------
class FeedServer(Server):
    """A running pullrefresh (harness/server.py) with its --data file (when given items) and
    its stdout: the startup line, and with access_log=True one line a request."""

    def __init__(self, *args, data, folder):
        super().__init__(*args, folder=folder)
        self.data = data

    def write_data(self, items=None, raw=None):
        """Rewrite the --data file (re-read by the server on each reload)."""
        with open(self.data, "w") as f:
            f.write(raw if raw is not None else json.dumps({"items": items}))

    def access_log(self):
        return self.out_text()

    def access_lines(self, method, path_prefix):
        """The access-log lines of requests `method path_prefix…` so far (needs access_log=True)."""
        return [line for line in self.access_log().splitlines() if line.startswith(f"{method} {path_prefix}")]

    def request(self, method, path, headers=None):
        """One request from Python, as curl would make it: (status, headers, body)."""
        req = urllib.request.Request(self.url + path, method=method, headers=headers or {})
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()

    def metric(self, name):
        """The value of an unlabelled sample in GET /metrics."""
        text = self.request("GET", "/metrics")[2].decode()
        return float(re.search(rf"^{re.escape(name)} (\S+)$", text, re.M).group(1))


def make_items(n, start=1):
    return [{"id": i, "title": f"Item number {i}", "body": f"Body text of item {i}.",
             "createdAt": "2026-01-01T%02d:%02d:00Z" % (i // 60 % 24, i % 60)} for i in range(start, start + n)]


@pytest.fixture
def server(tmp_path):
    """Factory: server(reload_delay=0.3, items=None, source=None, heartbeat=None, access_log=False,
    extra_args=()) -> FeedServer; extra_args are more flags (e.g. --allow-private-images).
    items=list uses a --data file; source=URL a real upstream (--source); heartbeat the event
    streams' --heartbeat (e.g. "1s"); access_log=True keeps the access log (instead of --quiet)
    for FeedServer.access_lines. Over HTTPS when PTR_BROWSER_TLS=1."""
    started = []

    def start(reload_delay=0.3, items=None, source=None, heartbeat=None, access_log=False, extra_args=()):
        n = len(started)
        args = ["--port", "0", "--reload-delay", str(reload_delay), "--seed", "1", *repository_flags()]
        if not access_log:
            args.append("--quiet")
        data = None
        if items is not None:
            data = str(tmp_path / f"data{n}.json")
            with open(data, "w") as f:
                json.dump({"items": items}, f)
            args += ["--data", data]
        if source is not None:
            args += ["--source", source]
        if heartbeat is not None:
            args += ["--heartbeat", heartbeat]
        args += list(extra_args)
        if TEST_CERTIFICATE:
            args += ["--tls-cert", TEST_CERTIFICATE[0], "--tls-key", TEST_CERTIFICATE[1]]
        srv = FeedServer(*args, data=data, folder=tmp_path)
        started.append(srv)
        assert srv.url.startswith(("https" if OVER_TLS else "http") + "://127.0.0.1:"), srv.url
        return srv

    yield start
    for srv in started:
        srv.stop(5)


@pytest.fixture
def shot(request):
    """shot(page, name): save a PNG in Tests/browser/artifacts (and docs/screenshots when asked)."""
    os.makedirs(ARTIFACTS, exist_ok=True)

    def take(page, name):
        path = os.path.join(ARTIFACTS, f"{name}.png")
        page.screenshot(path)
        if os.environ.get("PTR_UPDATE_SCREENSHOTS") == "1":
            os.makedirs(SCREENSHOTS, exist_ok=True)
            shutil.copy(path, os.path.join(SCREENSHOTS, f"{name}.png"))
        return path
    return take


# --- axe-core, read out of the axe-playwright-python wheel (no playwright needed) -------------
def axe_source():
    cached = os.path.join(CACHE, "axe.min.js")
    if not os.path.exists(cached):
        os.makedirs(CACHE, exist_ok=True)
        wheels = glob.glob(os.path.join(CACHE, "axe_playwright_python-*.whl"))
        if not wheels:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", AXE_WHEEL,
                            "-d", CACHE], check=True, timeout=180)
            wheels = glob.glob(os.path.join(CACHE, "axe_playwright_python-*.whl"))
        with zipfile.ZipFile(wheels[0]) as z:
            name = next(n for n in z.namelist() if n.endswith("axe.min.js"))
            with open(cached + ".tmp", "wb") as f:
                f.write(z.read(name))
        os.replace(cached + ".tmp", cached)
    with open(cached, encoding="utf-8") as f:
        return f.read()
