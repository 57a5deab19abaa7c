"""HTTPS through libmicrohttpd's own TLS: a certificate made by openssl at test time, curl and
Python clients, HSTS, bad certificate/key files, plain HTTP sent to the TLS port."""
import os
import re
import socket
import ssl
import subprocess

import pytest

from conftest import request, run
from harness import ROOT


def tls_args(certs, cert=None, key=None):
    return ["--tls-cert", cert or certs.cert, "--tls-key", key or certs.key]


def test_https_with_python_and_curl(server, certs):
    srv = server(*tls_args(certs))
    assert srv.url.startswith("https://127.0.0.1:")
    reply = request(srv, "GET", "/api/items?limit=2", context=certs.context())
    assert reply.status == 200
    assert len(reply.json()["items"]) == 2
    # No HSTS unless asked for.
    assert reply.header("Strict-Transport-Security") is None

    out = subprocess.run(["curl", "-sS", "--cacert", certs.ca, "-o", "/dev/null", "-w", "%{http_code} %{ssl_verify_result}",
                          f"https://localhost:{srv.port}/"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "200 0"


def test_post_refresh_over_https(server, certs):
    srv = server(*tls_args(certs), "--reload-delay", "0")
    reply = request(srv, "POST", "/api/refresh?since=1", context=certs.context())
    assert reply.status == 200
    assert reply.json()["version"] == 2


def test_a_client_that_does_not_trust_the_certificate_is_refused(server, certs):
    srv = server(*tls_args(certs))
    with pytest.raises(ssl.SSLCertVerificationError):
        request(srv, "GET", "/healthz", context=ssl.create_default_context())
    # …and the server still serves clients that do.
    assert request(srv, "GET", "/healthz", context=certs.context()).status == 200


def test_hsts_only_when_asked(server, certs):
    srv = server(*tls_args(certs), "--hsts")
    for path in ("/", "/api/items", "/static/app.css", "/nope"):
        reply = request(srv, "GET", path, context=certs.context())
        assert reply.header("Strict-Transport-Security") == "max-age=31536000", path


def test_plain_http_to_the_tls_port_is_closed_and_service_goes_on(server, certs):
    srv = server(*tls_args(certs), "--timeout", "2")
    # Plain HTTP bytes where a TLS ClientHello belongs: the handshake fails, the server closes.
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try:
            data = s.recv(4096)
        except ConnectionResetError:
            data = b""
        assert not data.startswith(b"HTTP/"), data
    # A client that connects and says nothing is closed by the connection timeout.
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as silent:
        received = b""
        try:
            # At most a TLS alert (content type 0x15), then EOF; a recv timeout fails the test.
            while chunk := silent.recv(4096):
                received += chunk
        except ConnectionResetError:
            pass
        assert received == b"" or received[0] == 0x15, received
    # Meanwhile and afterwards, real HTTPS works.
    assert request(srv, "GET", "/healthz", context=certs.context()).status == 200
    warning = srv.wait_line("err", lambda line: "libmicrohttpd" in line)
    assert "handshake" in warning.lower() or "tls" in warning.lower(), warning


def one_line_failure(status, stderr, *fragments):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("which", ["cert", "key"])
def test_missing_file_is_one_line_and_exit_1(certs, which):
    missing = os.path.join(certs.dir, "does-not-exist.pem")
    args = tls_args(certs, cert=missing) if which == "cert" else tls_args(certs, key=missing)
    status, out, err = run(*args)
    assert status == 1
    one_line_failure(status, err, "TLS", missing, "no such file")
    assert "listening" not in out


def test_unreadable_files_are_one_line_and_exit_1(certs, tmp_path):
    # A folder where the key belongs (root reads any file, so permissions cannot stand in here).
    status, _, err = run(*tls_args(certs, key=str(tmp_path)))
    assert status == 1
    one_line_failure(status, err, "TLS", str(tmp_path), "directory")
    if os.geteuid() != 0:
        locked = tmp_path / "locked.key"
        locked.write_text(open(certs.key).read())
        locked.chmod(0)
        status, _, err = run(*tls_args(certs, key=str(locked)))
        assert status == 1
        one_line_failure(status, err, "TLS", "not readable")


def test_mismatched_key_is_one_line_and_exit_1(certs):
    status, out, err = run(*tls_args(certs, key=certs.other_key))
    assert status == 1
    one_line_failure(status, err, "TLS", "do not match")
    assert "listening" not in out


@pytest.mark.parametrize("case", ["garbage cert", "garbage key", "corrupt cert", "key as cert", "encrypted key"])
def test_bad_pem_is_one_line_and_exit_1(certs, case):
    cert, key = {
        "garbage cert": (certs.garbage, certs.key),
        "garbage key": (certs.cert, certs.garbage),
        "corrupt cert": (certs.corrupt_cert, certs.key),
        "key as cert": (certs.key, certs.key),
        "encrypted key": (certs.cert, certs.encrypted_key),
    }[case]
    status, out, err = run(*tls_args(certs, cert=cert, key=key))
    assert status == 1, (out, err)
    one_line_failure(status, err, "pullrefresh: TLS")
    assert "listening" not in out


@pytest.mark.parametrize("args, fragment", [
    (["--tls-cert", "x.pem"], "--tls-cert and --tls-key must be given together"),
    (["--tls-key", "x.key"], "--tls-cert and --tls-key must be given together"),
    (["--hsts"], "--hsts needs --tls-cert and --tls-key"),
    (["--metrics", "maybe"], "--metrics must be 'on' or 'off'"),
    (["--log-format", "xml"], "--log-format must be 'text' or 'json'"),
])
def test_flag_misuse_is_a_usage_error(args, fragment):
    status, _, err = run(*args)
    assert status == 2
    one_line_failure(status, err, fragment)


def test_version_comes_from_the_one_constant():
    source = open(os.path.join(ROOT, "Sources", "pullrefresh", "PullRefreshVersion.swift")).read()
    version = re.search(r'static let current = "([^"]+)"', source).group(1)
    status, out, err = run("--version")
    assert status == 0, err
    assert out == f"pullrefresh {version}\n"
