"""Debian's nginx in a folder of its own (configuration, logs, pid and temporary files), from the
repository's deploy/ configurations with test ports, never the system's: the cluster's load
balancer (deploy/nginx-cluster.conf) and the single-server HTTPS site (deploy/nginx/)."""
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from harness import ROOT, free_port, wait_for

SITE = os.path.join(ROOT, "deploy", "nginx", "pullrefresh.conf")
CLUSTER = os.path.join(ROOT, "deploy", "nginx-cluster.conf")


def executable():
    """The nginx binary, or None when it is not installed."""
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return found if os.path.exists(found) else None


class ClusterNginx:
    """deploy/nginx-cluster.conf on a free port in front of `backends` (instance ports), started
    and answering `/healthz` through them."""

    def __init__(self, backends):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="ptr-nginx-")
        os.chmod(self.dir, 0o755)
        with open(CLUSTER) as handle:
            template = handle.read()
        servers = "\n        ".join(f"server 127.0.0.1:{port};" for port in backends)
        config = (template.replace("__DIR__", self.dir).replace("__PORT__", str(self.port))
                  .replace("__SERVERS__", servers))
        self.config = os.path.join(self.dir, "nginx.conf")
        with open(self.config, "w") as handle:
            handle.write(config)
        self.proc = subprocess.Popen(
            [executable() or "nginx", "-p", self.dir, "-c", self.config, "-e", os.path.join(self.dir, "error.log"),
             "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(self.ready, "nginx to accept connections")

    def ready(self):
        if self.proc.poll() is not None:
            raise AssertionError("nginx exited: " + self.proc.stderr.read().decode())
        try:
            return self.request("GET", "/healthz")[0] == 200
        except OSError:
            return False

    def request(self, method, path, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.proc.stderr.close()


class SiteNginx:
    """deploy/nginx/pullrefresh.conf in `folder`, proxying to `upstream_port`, with the test
    certificate `cert`/`key` for localhost on free loopback ports (HTTPS and HTTP). `test()`
    runs `nginx -t`; `start()` and `stop()` run it."""

    def __init__(self, folder, cert, key, upstream_port):
        self.dir = str(folder)
        self.https_port, self.http_port = free_port(), free_port()
        with open(SITE) as handle:
            site = handle.read()
        site = site.replace("127.0.0.1:8080", f"127.0.0.1:{upstream_port}")
        site = site.replace("/etc/ssl/certs/pullrefresh.pem", cert)
        site = site.replace("/etc/ssl/private/pullrefresh.key", key)
        site = site.replace("listen 443 ", f"listen 127.0.0.1:{self.https_port} ")
        site = site.replace("listen 80;", f"listen 127.0.0.1:{self.http_port};")
        site = re.sub(r"^\s*listen \[::\].*$", "", site, flags=re.M)  # loopback IPv4 only in tests
        site = site.replace("feed.example.org", "localhost")
        with open(os.path.join(self.dir, "site.conf"), "w") as f:
            f.write(site)
        temp = lambda name: os.path.join(self.dir, name)  # noqa: E731
        user = "user root;\n" if os.geteuid() == 0 else ""
        main = f"""{user}worker_processes 1;
pid {temp('nginx.pid')};
error_log {temp('error.log')} warn;
daemon off;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    access_log {temp('access.log')};
    client_body_temp_path {temp('body')};
    proxy_temp_path {temp('proxy')};
    fastcgi_temp_path {temp('fastcgi')};
    uwsgi_temp_path {temp('uwsgi')};
    scgi_temp_path {temp('scgi')};
    include {temp('site.conf')};
}}
"""
        self.conf = temp("nginx.conf")
        with open(self.conf, "w") as f:
            f.write(main)
        self.proc = None

    def command(self, *extra):
        return [executable() or "nginx", "-p", self.dir, "-e", os.path.join(self.dir, "error.log"), "-c", self.conf,
                *extra]

    def test(self):
        return subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=30)

    def start(self):
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.https_port), timeout=1):
                    return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("nginx did not start: " + open(os.path.join(self.dir, "error.log")).read())
                time.sleep(0.05)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful; its workers exit with the master
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
