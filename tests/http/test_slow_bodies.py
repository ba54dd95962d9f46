"""A real `trainboard serve` with tokens: a request body that does not arrive in time gets a 408 on a route anyone
may call (trainboard.http.limits.LimitBodySize), its connection closed; a client that goes away mid-body leaves no
traceback in the server's log."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from tests.upload.team import TeamStore, started_server
from trainboard.http.limits import BODY_GRACE_SECONDS

HEAD = "POST /auth/session HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"


def answer(connection: socket.socket, seconds: float) -> bytes:
    """What the server sends until it closes the connection, or within `seconds`."""
    connection.settimeout(seconds)
    received = b""
    try:
        while chunk := connection.recv(4096):
            received += chunk
    except TimeoutError:
        pass
    return received


def drip(connection: socket.socket, stop: threading.Event) -> None:
    """A byte of the body every half second until the server closes the connection."""
    while not stop.wait(0.5):
        try:
            connection.sendall(b" ")
        except OSError:
            return


def test_a_slow_body_gets_a_408_in_bounded_time_and_a_client_gone_mid_body_no_traceback(tmp_path: Path) -> None:
    store = TeamStore(f"sqlite:{tmp_path / 'team.sqlite'}", (), None)
    with started_server(store, tmp_path, 0, tokens=True) as (url, _):
        address = urlsplit(url)
        assert address.hostname is not None and address.port is not None
        where = (address.hostname, address.port)
        head = HEAD.format(host=address.netloc).encode()
        stop = threading.Event()
        with socket.create_connection(where) as stalled, socket.create_connection(where) as dripping:
            stalled.sendall(head + b'{"token": "')
            dripping.sendall(head)
            dripper = threading.Thread(target=drip, args=(dripping, stop))
            dripper.start()
            started = time.monotonic()
            try:
                for connection in (stalled, dripping):
                    found = answer(connection, BODY_GRACE_SECONDS + 10 - (time.monotonic() - started))
                    assert found.startswith(b"HTTP/1.1 408 "), found[:200]
            finally:
                stop.set()
                dripper.join()
            assert time.monotonic() - started < BODY_GRACE_SECONDS + 10
        # A client that sends half a body and goes away.
        for _ in range(3):
            with socket.create_connection(where) as leaving:
                leaving.sendall(head + b'{"token": ')
            time.sleep(0.3)
        time.sleep(1.0)
        (log,) = tmp_path.glob("serve-*.log")
        printed = log.read_text(errors="replace")
        assert "Traceback" not in printed and "Exception in ASGI application" not in printed, printed[-3000:]
