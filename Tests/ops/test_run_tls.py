"""`make run-tls` (scripts/run-tls), the README's way to give a phone on the LAN an HTTPS origin:
the local CA and the server certificate it makes, the server it starts answering over TLS with
them, and Chromium trusting that certificate (by its public key, as a phone trusts the CA)
registering the page's service worker."""
import base64
import hashlib
import os
import re
import socket
import ssl
import subprocess

import pytest

from conftest import request
from harness import ROOT
from harness.chromium import close_tab, launch_chromium, open_tab
from harness.server import Server, binary

SCRIPT = os.path.join(ROOT, "scripts", "run-tls")


def run_tls(folder, *args, extra_names=""):
    """Starts scripts/run-tls on 127.0.0.1, port 0: (Server, the lines it printed first)."""
    env = dict(os.environ, TLS_DIR=str(folder), HOST="127.0.0.1", PORT="0", PULLREFRESH_BIN=binary(),
               EXTRA_NAMES=extra_names)
    srv = Server("--seed", "1", "--quiet", *args, program=SCRIPT, env=env, timeout=60)
    return srv, srv.printed_before_startup()


def openssl(*args):
    return subprocess.run(["openssl", *args], capture_output=True, check=True, timeout=30).stdout


def spki_hash(pem):
    """The base64 SHA-256 of a certificate's public key, as --ignore-certificate-errors-spki-list wants."""
    key = openssl("x509", "-pubkey", "-noout", "-in", pem)
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key, capture_output=True,
                         check=True, timeout=30).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


@pytest.fixture
def tls_server(tmp_path):
    started = []

    def start(*args, extra_names=""):
        srv, printed = run_tls(tmp_path / "tls", *args, extra_names=extra_names)
        started.append(srv)
        return srv, printed

    yield start, tmp_path / "tls"
    for srv in started:
        srv.stop()


def test_the_script_makes_a_ca_and_a_certificate_for_this_machine_and_serves_https_with_them(tls_server):
    start, folder = tls_server
    srv, printed = start(extra_names="phone.test 10.9.8.7")
    assert srv.url.startswith("https://127.0.0.1:")
    text = "\n".join(printed)
    assert "Making a local certificate authority" in text and "Making a server certificate" in text
    assert "iOS:" in text and "Certificate Trust" in text and "Android:" in text
    assert "https://10.9.8.7:<port>/" in text
    ca, cert = str(folder / "ca.pem"), str(folder / "server.pem")
    assert openssl("verify", "-CAfile", ca, cert).strip().endswith(b"OK")
    names = openssl("x509", "-in", cert, "-noout", "-ext", "subjectAltName").decode()
    for name in ("DNS:localhost", f"DNS:{socket.gethostname()}", f"DNS:{socket.gethostname()}.local",
                 "DNS:phone.test", "IP Address:127.0.0.1", "IP Address:10.9.8.7"):
        assert name in names, names
    assert "TLS Web Server Authentication" in openssl("x509", "-in", cert, "-noout", "-ext", "extendedKeyUsage").decode()
    # What a phone does once it trusts the CA: verify the chain and the name.
    trusting = ssl.create_default_context(cafile=ca)
    assert request(srv, "GET", "/healthz", context=trusting).status == 200
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as raw:
        with trusting.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
    with pytest.raises(ssl.SSLCertVerificationError):
        request(srv, "GET", "/healthz", context=ssl.create_default_context())
    # The folder holds secrets: only its owner may read it.
    assert os.stat(folder).st_mode & 0o077 == 0
    assert os.stat(folder / "ca.key").st_mode & 0o077 == 0


def test_the_ca_is_kept_and_the_certificate_made_again_only_when_the_names_change(tls_server):
    start, folder = tls_server
    first, _ = start()
    ca, cert = (folder / "ca.pem").read_bytes(), (folder / "server.pem").read_bytes()
    first.stop()
    again, printed = start()
    assert not any(line.startswith("Making") for line in printed), printed
    assert (folder / "ca.pem").read_bytes() == ca and (folder / "server.pem").read_bytes() == cert
    again.stop()
    _, printed = start(extra_names="new-name.test")
    assert [line for line in printed if line.startswith("Making")] == [
        next(line for line in printed if line.startswith("Making a server certificate"))]
    assert (folder / "ca.pem").read_bytes() == ca and (folder / "server.pem").read_bytes() != cert
    assert b"new-name.test" in openssl("x509", "-in", str(folder / "server.pem"), "-noout", "-ext", "subjectAltName")


def test_chromium_trusting_the_certificate_registers_the_service_worker(tls_server):
    start, folder = tls_server
    srv, _ = start()
    url = srv.url + "/"
    # Trusted by its key, not by ignoring every certificate error: a certificate that is not
    # this one would still be refused.
    flags = [f"--ignore-certificate-errors-spki-list={spki_hash(str(folder / 'server.pem'))}"]
    with launch_chromium(flags) as cdp:
        page = open_tab(cdp)
        try:
            page.goto(url)
            assert page.eval("location.protocol") == "https:" and page.eval("window.isSecureContext")
            page.wait_for("navigator.serviceWorker.controller !== null", 15, "the service worker to take over")
            assert page.eval("navigator.serviceWorker.controller.scriptURL") == srv.url + "/sw.js"
        finally:
            close_tab(cdp, page)
    # Without the trust, the same Chromium refuses the page.
    with launch_chromium([]) as cdp:
        page = open_tab(cdp)
        try:
            result = page.send("Page.navigate", url=url)
            assert re.match(r"net::ERR_CERT_", result.get("errorText", "")), result
        finally:
            close_tab(cdp, page)
