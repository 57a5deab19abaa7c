"""Fixtures for the operations suite: test certificates made by openssl, real pullrefresh
processes (the shared harness: port 0 on 127.0.0.1, stopped by PID) and HTTPS/HTTP clients.

Env: PULLREFRESH_BIN (server binary, default .build/debug/pullrefresh).
"""
import http.client
import json
import os
import ssl
import subprocess

import pytest

from harness.server import Server, repository_flags
from harness.server import run as run_binary


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
@pytest.fixture
def server(tmp_path):
    """Factory: server(*args) -> Server (harness/server.py), on port 0 with the repository's
    templates and static files."""
    started = []

    def start(*args, port="0"):
        srv = Server("--port", port, "--seed", "1", *repository_flags(), *args, folder=tmp_path / "servers")
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop(15)


def run(*args, timeout=20):
    """Runs pullrefresh to completion on port 0 with the repository's files: (status, stdout,
    stderr)."""
    return run_binary("--port", "0", *repository_flags(), *args, timeout=timeout)


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
    url = srv_or_url if isinstance(srv_or_url, str) else srv_or_url.url
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
