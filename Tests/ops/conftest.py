"""Fixtures for the operations suite: test certificates made by openssl, real pullrefresh
processes (port 0 on 127.0.0.1, stopped by PID), free ports, and HTTPS/HTTP clients.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
"""
import http.client
import json
import os
import select
import signal
import socket
import ssl
import subprocess
import threading
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def binary():
    path = os.environ.get("PULLREFRESH_BIN") or os.path.join(ROOT, ".build", "debug", "pullrefresh")
    if not os.path.isabs(path):
        path = os.path.join(ROOT, path)
    if not os.path.exists(path):
        pytest.fail(f"server binary not found at {path}: run `swift build` or set PULLREFRESH_BIN")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


# --- certificates ---------------------------------------------------------------------------
class Certs:
    """A test CA, a server certificate for localhost/127.0.0.1 signed by it, and bad files."""

    def __init__(self, folder):
        self.dir = str(folder)
        p = lambda name: os.path.join(self.dir, name)  # noqa: E731
        self.ca, self.ca_key = p("ca.pem"), p("ca.key")
        self.cert, self.key = p("server.pem"), p("server.key")
        self.other_key = p("other.key")
        self.garbage = p("garbage.pem")
        self.corrupt_cert = p("corrupt.pem")
        self.encrypted_key = p("encrypted.key")
        d = self.dir
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                "-days", "2", "-subj", "/CN=PullRefresh test CA", cwd=d)
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                "-subj", "/CN=localhost", cwd=d)
        with open(p("ext.cnf"), "w") as f:
            f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf", cwd=d)
        openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "other.key", cwd=d)
        openssl("pkey", "-in", "server.key", "-aes256", "-passout", "pass:secret", "-out", "encrypted.key", cwd=d)
        with open(self.garbage, "w") as f:
            f.write("this is not a certificate\n")
        with open(self.corrupt_cert, "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\nAAAAnotbase64derAAAA\n-----END CERTIFICATE-----\n")

    def context(self):
        """A client TLS context that trusts only the test CA and checks the host name."""
        ctx = ssl.create_default_context(cafile=self.ca)
        return ctx


@pytest.fixture(scope="session")
def certs(tmp_path_factory):
    return Certs(tmp_path_factory.mktemp("certs"))


# --- servers --------------------------------------------------------------------------------
class Server:
    """A running pullrefresh: its URL, and its stdout/stderr lines as they arrive."""

    def __init__(self, proc, url):
        self.proc, self.url = proc, url
        self.scheme, rest = url.split("://")
        self.port = int(rest.rsplit(":", 1)[1])
        self.out, self.err = [], []
        self.lock = threading.Condition()
        for stream, sink in ((proc.stdout, self.out), (proc.stderr, self.err)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()

    def _pump(self, stream, sink):
        for raw in iter(stream.readline, b""):
            with self.lock:
                sink.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.lock.notify_all()

    def wait_line(self, sink, predicate, timeout=10):
        """The first line of `sink` (self.out or self.err) matching predicate; bounded wait."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for line in sink:
                    if predicate(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no matching line in {timeout}s; have {sink[-10:]!r}")
                self.lock.wait(left)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def read_first_line(proc, timeout=20):
    deadline = time.monotonic() + timeout
    line = b""
    while b"\n" not in line:
        left = deadline - time.monotonic()
        if left <= 0 or proc.poll() is not None:
            proc.kill()
            raise AssertionError(f"server did not start: {line!r} {proc.stderr.read()[-2000:]!r}")
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 1)
            if chunk:
                line += chunk
    return line.decode()


def startup_url(line):
    """The URL of the startup line, text (`pullrefresh listening on URL`) or JSON."""
    text = line.strip()
    if text.startswith("{"):
        text = json.loads(text)["message"]
    assert text.startswith("pullrefresh listening on "), line
    return text.split()[-1]


@pytest.fixture
def server():
    """Factory: server(*args) -> Server, on port 0 with the repository's templates."""
    started = []

    def start(*args, port="0"):
        cmd = [binary(), "--port", port, "--seed", "1", "--templates", os.path.join(ROOT, "Templates"),
               "--public", os.path.join(ROOT, "Public"), *args]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        url = startup_url(read_first_line(proc))
        srv = Server(proc, url)
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


def run(*args, timeout=20):
    """Runs pullrefresh to completion: (status, stdout, stderr)."""
    done = subprocess.run([binary(), "--port", "0", "--templates", os.path.join(ROOT, "Templates"),
                           "--public", os.path.join(ROOT, "Public"), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


# --- clients --------------------------------------------------------------------------------
class Reply:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        return self.headers.get(name.lower())

    def json(self):
        return json.loads(self.body)

    @property
    def text(self):
        return self.body.decode()


def request(srv_or_url, method, path, body=None, headers=None, context=None, timeout=15):
    """One request on a fresh connection (http.client), over TLS when the URL is https."""
    url = srv_or_url.url if isinstance(srv_or_url, Server) else srv_or_url
    scheme, rest = url.split("://")
    host, port = rest.rsplit(":", 1)
    if scheme == "https":
        conn = http.client.HTTPSConnection("localhost", int(port), timeout=timeout, context=context)
    else:
        conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        res = conn.getresponse()
        data = res.read()
        return Reply(res.status, {k.lower(): v for k, v in res.getheaders()}, data)
    finally:
        conn.close()
