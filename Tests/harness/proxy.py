"""A TCP proxy on a free 127.0.0.1 port in front of another port, which a test can cut (as a
failed network would) and restore."""
import socket
import threading

from harness import free_port


class CutProxy:
    """A TCP proxy on a free port in front of `target_port`, which a test can cut: `cut()` closes
    every connection through it and refuses new ones (as a failed network would), `restore()`
    accepts again. Threads of its own; `close()` stops it."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.pairs = []
        self.listener = None
        self.accepting = False
        self.restore()

    def restore(self):
        with self.lock:
            if self.listener is not None:
                return
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(64)
            self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self):
        with self.lock:
            listener, self.listener = self.listener, None
            pairs, self.pairs = self.pairs, []
        if listener is not None:
            # shutdown wakes the thread blocked in accept(); close alone would leave the port
            # listening until that call returns.
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for client, upstream in pairs:
            for sock in (client, upstream):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    close = cut

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.listener is not listener:
                    client.close()
                    upstream.close()
                    return
                self.pairs.append((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
