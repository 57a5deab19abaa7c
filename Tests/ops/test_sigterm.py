"""SIGTERM under a saturating load, 20 times in a row: the process exits 0 after the drain every
time, the refreshes in flight when the signal came are answered (200, complete), and no
connection ever gets a truncated response (a connection may be closed between responses, which
a client retries, never in the middle of one)."""
import signal
import socket
import subprocess
import threading
import time

from harness import ROOT
from harness.server import binary, read_first_line, startup_url

PATHS = [b"/api/items", b"/", b"/static/app.css", b"/healthz", b"/api/items?limit=3"]


class Exchange:
    """One keep-alive connection's reads: complete responses, or how it ended."""

    def __init__(self, sock):
        self.sock, self.buffer = sock, b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buffer += data

    def response(self):
        """(status, headers, body) of the next response; EOFError if the connection closed before
        its first byte; AssertionError naming the truncation if it closed inside it."""
        started = bool(self.buffer)
        try:
            while b"\r\n\r\n" not in self.buffer:
                self._fill()
                started = True
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ")[1])
            headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
            length = int(headers.get("content-length", "0"))
            while len(self.buffer) < length:
                self._fill()
            body, self.buffer = self.buffer[:length], self.buffer[length:]
            return status, headers, body
        except (EOFError, ConnectionResetError):
            if started:
                raise AssertionError(f"truncated response ({len(self.buffer)} bytes read)")
            raise EOFError


class Load:
    """Client threads sending GETs back to back on keep-alive connections until the server is gone."""

    def __init__(self, port, threads=6):
        self.port, self.done = port, threading.Event()
        self.complete, self.truncated, self.errors = 0, [], []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(n,), daemon=True) for n in range(threads)]
        for thread in self.threads:
            thread.start()

    def _run(self, n):
        count = 0
        while not self.done.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            except OSError:
                return  # the server stopped listening
            exchange = Exchange(sock)
            try:
                while not self.done.is_set():
                    path = PATHS[count % len(PATHS)]
                    count += 1
                    sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
                    status, headers, _ = exchange.response()
                    with self.lock:
                        self.complete += 1
                        if status >= 500 and status != 503:
                            self.errors.append(status)
                    if headers.get("connection", "").lower() == "close":
                        break
            except (EOFError, BrokenPipeError, ConnectionResetError):
                pass  # closed between responses: a client would retry
            except AssertionError as truncated:
                with self.lock:
                    self.truncated.append(str(truncated))
            except OSError as error:
                with self.lock:
                    self.errors.append(repr(error))
            finally:
                sock.close()

    def stop(self):
        self.done.set()
        for thread in self.threads:
            thread.join(10)


def refresh_in_flight(port):
    """A POST /api/refresh sent now; returns a function that reads its response."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(b"POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    exchange = Exchange(sock)

    def answer():
        try:
            return exchange.response()
        finally:
            sock.close()
    return answer


def one_round():
    proc = subprocess.Popen(
        [binary(), "--port", "0", "--quiet", "--reload-delay", "400ms", "--grace", "5"], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        port = int(startup_url(read_first_line(proc)).rsplit(":", 1)[1])
        load = Load(port)
        time.sleep(0.3)
        refreshes = [refresh_in_flight(port) for _ in range(4)]
        time.sleep(0.1)  # read by the server (a request read after the signal would get a 503)
        before = load.complete
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(20)
        answers = [answer() for answer in refreshes]
        load.stop()
        return status, answers, load, before
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def test_sigterm_under_load_exits_zero_and_drains_every_time():
    for round_number in range(20):
        status, answers, load, before = one_round()
        assert status == 0, f"round {round_number}: exit status {status}"
        assert [answer[0] for answer in answers] == [200] * 4, f"round {round_number}: {answers}"
        assert all(b'"version":2' in answer[2] for answer in answers)
        assert load.truncated == [], f"round {round_number}: {load.truncated}"
        assert load.errors == [], f"round {round_number}: {load.errors}"
        assert before > 50, f"round {round_number}: only {before} responses before the signal"


def test_a_second_sigterm_during_the_drain_is_not_fatal():
    proc = subprocess.Popen(
        [binary(), "--port", "0", "--reload-delay", "1s", "--grace", "5"], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        port = int(startup_url(read_first_line(proc)).rsplit(":", 1)[1])
        answer = refresh_in_flight(port)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)  # systemd, or an impatient operator
        assert proc.wait(20) == 0
        assert answer()[0] == 200
        assert b"still draining" in proc.stdout.read() + proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
