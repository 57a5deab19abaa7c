"""The river's scriptable loopback feeds (river_server.py, next to this file) for the Python
suites (cluster, browser): started as a subprocess on a free port, stopped by its PID."""
import http.client
import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "river_server.py")


class RiverUpstream:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
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
