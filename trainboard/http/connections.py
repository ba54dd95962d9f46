"""uvicorn's h11 protocol with a deadline for each request's head.

uvicorn waits forever for the first request of a connection, and any byte cancels its keep-alive timer, so a client
that connects and sends nothing, or sends a header line a minute, holds a connection (and a file) for as long as it
likes; a few hundred of them take every connection. Here a connection whose request line and headers are not
complete HEAD_TIMEOUT_SECONDS after it opened, or after its previous response, is closed.

A request uvicorn cannot parse (a head over MAX_HEAD_BYTES, say) gets its 400, and the connection then reads and drops
what the client still sends until the client closes it or LINGER_SECONDS pass: uvicorn closes at once, and closing a
socket with unread bytes resets the connection, which throws the 400 away before the client reads it.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from trainboard.http.limits import HEAD_TIMEOUT_SECONDS

LINGER_SECONDS = 2.0


class HeadTimeoutH11Protocol(H11Protocol):
    head_timeout = HEAD_TIMEOUT_SECONDS
    _head_deadline: asyncio.TimerHandle | None = None
    _lingering = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_deadline()
        super().connection_lost(exc)

    def _arm_head_deadline(self) -> None:
        self._disarm_head_deadline()
        if not self.transport.is_closing():
            self._head_deadline = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        # Waiting for a head: no request yet, or the last one answered. A request being served, or a connection
        # upgraded to another protocol, is left alone.
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and self.transport.get_protocol() is self and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if not self._lingering:
            super().data_received(data)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's 400, then a lingering close: the answer is sent and the rest of the request dropped."""
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
        for event in (h11.Response(status_code=400, headers=headers), h11.Data(data=msg.encode()), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self._lingering = True
        self._disarm_head_deadline()
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)
