"""A real uvicorn server with trainboard's connection bounds (trainboard.http.limits, HeadTimeoutH11Protocol): a
client that sends no request head, or drips it, is disconnected; requests that take long and keep-alive pauses are
not; past the concurrency bound a request gets a 503."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.types import Receive, Scope, Send

from tests.servers import free_port
from trainboard.http import limits
from trainboard.http.connections import HeadTimeoutH11Protocol

HEAD_TIMEOUT = 0.5
REQUEST = b"GET /%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class QuickHeadTimeout(HeadTimeoutH11Protocol):
    head_timeout = HEAD_TIMEOUT


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(3 * HEAD_TIMEOUT)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@contextmanager
def serving(limit_concurrency: int = limits.MAX_CONCURRENCY) -> Iterator[int]:
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        http=QuickHeadTimeout,
        timeout_keep_alive=limits.KEEP_ALIVE_SECONDS,
        limit_concurrency=limit_concurrency,
        h11_max_incomplete_event_size=limits.MAX_HEAD_BYTES,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(30)


def closed_within(connection: socket.socket, seconds: float) -> bool:
    """Whether the server closes the connection within `seconds` (whatever it sends first is read and dropped)."""
    connection.settimeout(seconds)
    try:
        while connection.recv(4096):
            pass
    except TimeoutError:
        return False
    return True


def response(connection: socket.socket) -> bytes:
    connection.settimeout(10)
    received = b""
    while b"\r\n\r\n" not in received or not received.endswith(b"ok") and b" 503 " not in received:
        chunk = connection.recv(4096)
        if not chunk:
            break
        received += chunk
    return received


def test_a_connection_without_a_request_head_is_closed() -> None:
    with (
        serving() as port,
        socket.create_connection(("127.0.0.1", port)) as silent,
        socket.create_connection(("127.0.0.1", port)) as dripping,
    ):
        dripping.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        for index in range(20):  # a header byte every 0.1 s: more than the whole deadline
            if time.monotonic() - started > 4 * HEAD_TIMEOUT:
                break
            try:
                dripping.sendall(b"X-Drip-%d: 1\r\n" % index)
            except OSError:
                break
            time.sleep(0.1)
        assert closed_within(dripping, 5)
        assert closed_within(silent, 5)


def test_slow_answers_and_keep_alive_pauses_are_not_cut() -> None:
    with serving() as port, socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(REQUEST % b"slow")
        assert response(connection).startswith(b"HTTP/1.1 200")
        time.sleep(HEAD_TIMEOUT / 2)
        connection.sendall(REQUEST % b"")
        assert response(connection).startswith(b"HTTP/1.1 200")
        # Then, idle past the deadline, it is closed.
        assert closed_within(connection, 5)


def test_past_the_concurrency_bound_a_request_gets_a_503() -> None:
    with serving(limit_concurrency=2) as port:
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        try:
            time.sleep(0.2)
            with socket.create_connection(("127.0.0.1", port)) as extra:
                extra.sendall(REQUEST % b"")
                assert response(extra).startswith(b"HTTP/1.1 503")
        finally:
            for connection in held:
                connection.close()


def test_a_head_over_the_bound_gets_its_400_whole() -> None:
    """The client is still sending its over-long head when the server answers: the 400 must reach it, not a reset
    (found by schemathesis: a 32 KiB parameter of non-ASCII characters, percent-encoded, is past MAX_HEAD_BYTES)."""
    head = b"GET /?run=" + b"%F0%9D%84%9E" * (4 * limits.MAX_HEAD_BYTES // 12) + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with serving() as port:
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port)) as connection:
                connection.sendall(head)
                assert response(connection).startswith(b"HTTP/1.1 400 ")
