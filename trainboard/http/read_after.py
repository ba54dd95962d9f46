"""A client's read floor (trainboard.store.postgres.standbys) carried in a cookie from each response to its next
request (`serve --read_db`): whichever replica answers, the client reads its own writes and never older data than it
has read. The cookie holds a position in the primary's log, which says nothing about the data; a client that raises
its own only sends its own reads to the primary."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trainboard.store.postgres.standbys import client_floor

COOKIE = "trainboard_read_after"


class ReadAfter:
    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = _position(HTTPConnection(scope).cookies.get(COOKIE, ""))
        with client_floor(given) as floor:

            async def sending(message: Message) -> None:
                # What the answer read or wrote before its headers; a stream's later reads count from its next request.
                if message["type"] == "http.response.start" and floor.lsn > given:
                    MutableHeaders(scope=message).append(
                        "set-cookie", f"{COOKIE}={floor.lsn}; Path={self.path}; HttpOnly; SameSite=Lax"
                    )
                await send(message)

            await self.app(scope, receive, sending)


def _position(text: str) -> int:
    """The cookie's position; 0 (no floor) for anything but a plain number."""
    return int(text) if text.isdecimal() and len(text) <= 20 else 0
