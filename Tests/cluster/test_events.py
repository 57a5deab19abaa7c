"""Live events across instances: a reload on one instance reaches the event streams of every
instance on the same Redis, each with the version Redis committed."""
import json
import socket


def open_stream(port):
    """A raw GET /api/events; returns the socket after reading the head."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"text/event-stream" in head
    return sock, head.split(b"\r\n\r\n", 1)[1]


def read_until(sock, received, marker):
    """Reads (chunk framing and all) until `marker` appears; returns everything received."""
    while marker not in received:
        data = sock.recv(4096)
        assert data, "stream closed before " + repr(marker)
        received += data
    return received


def headers_tag(instance):
    """The epoch tag at the start of an instance's `GET /api/items` ETag (`"<tag>-v<version>"`)."""
    headers, _ = instance.items()
    return headers["ETag"].strip('W/"').split("-v", 1)[0]


def test_a_reload_on_one_instance_reaches_streams_on_all(redis, instances):
    a, b = instances("--reload-delay", "0", count=2)
    streams = [open_stream(a.port), open_stream(b.port), open_stream(b.port)]
    streams = [(sock, read_until(sock, early, b"retry:")) for sock, early in streams]
    status, headers, body = a.refresh()
    assert status == 200
    version = body["version"]
    for sock, received in streams:
        received = read_until(sock, received, b"}\n")
        event = received.split(b"data: ", 1)[1].split(b"\n", 1)[0]
        data = json.loads(event)
        assert data["version"] == version
        # The id is the epoch's tag (the ETag's prefix) and the version.
        assert headers_tag(a) == data["epoch"]
        assert f"id: {data['epoch']}-{version}\nevent: version\n".encode() in received
        assert data["added"] == int(headers["X-Feed-Added"])
        sock.close()
