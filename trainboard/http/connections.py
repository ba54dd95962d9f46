"""uvicorn's h11 protocol with a deadline for each request's head.

uvicorn waits forever for the first request of a connection, and any byte cancels its keep-alive timer, so a client
that connects and sends nothing, or sends a header line a minute, holds a connection (and a file) for as long as it
likes; a few hundred of them take every connection. Here a connection whose request line and headers are not
complete HEAD_TIMEOUT_SECONDS after it opened, or after its previous response, is closed.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

from trainboard.http.limits import HEAD_TIMEOUT_SECONDS


class HeadTimeoutH11Protocol(H11Protocol):
    head_timeout = HEAD_TIMEOUT_SECONDS
    _head_deadline: asyncio.TimerHandle | None = None

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
