"""The upstreams a server under test fetches from, on loopback: the river's scriptable feeds
(river_server.py, beside the Swift river tests' fixtures) and the image host of the thumbnail
tests (Tests/images: make-images.py's pictures served by image_host.py). Each is a subprocess
on a free port, stopped by its PID."""
import glob
import http.client
import json
import os
import subprocess
import sys
import tempfile

from harness import ROOT

IMAGES = os.path.join(ROOT, "Tests", "images")


def _river_script():
    """river_server.py, found by name under Tests/: the Swift tests own it, with their fixtures."""
    found = sorted(glob.glob(os.path.join(ROOT, "Tests", "**", "river_server.py"), recursive=True))
    if not found:
        raise AssertionError("river_server.py not found under Tests/")
    return found[0]


class RiverUpstream:
    """river_server.py: many feeds on one port (`url(name)`), each scripted by `set` and `add`."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, _river_script()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        words = self.proc.stdout.readline().split()
        assert words[:1] == ["PORT"], words
        self.port = int(words[1])

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/r/{name}.xml"

    def _request(self, method, path):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path)
            response = connection.getresponse()
            return response.read()
        finally:
            connection.close()

    def set(self, name, settings):
        self._request("POST", f"/r/{name}/set?{settings}")

    def put(self, name, items):
        """Replaces the items of `name`: (guid, title, seconds since 1970), newest first."""
        text = ",".join(f"{guid}:{title}:{stamp}" for guid, title, stamp in items)
        self._request("POST", f"/r/{name}/put?items={text}")

    def add(self, name, guid):
        self._request("POST", f"/r/{name}/add?guid={guid}")

    def stats(self):
        return json.loads(self._request("GET", "/stats"))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc.stdin.close()
        self.proc.stdout.close()


def serve_images(prefix="ptr-images-"):
    """The image host: yields its URL (`http://127.0.0.1:<port>`, also on 127.0.0.2) and stops it
    when resumed; `yield from serve_images()` in a pytest fixture."""
    folder = tempfile.mkdtemp(prefix=prefix)
    subprocess.run([sys.executable, os.path.join(IMAGES, "make-images.py"), folder], check=True, timeout=120)
    proc = subprocess.Popen([sys.executable, os.path.join(IMAGES, "image_host.py"), folder],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().split()
    assert line[:1] == ["PORT"], line
    yield f"http://127.0.0.1:{line[1]}"
    proc.stdin.close()
    proc.wait(10)
    proc.stdout.close()
