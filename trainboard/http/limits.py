"""A bound on request bodies: no client can make the server buffer more than MAX_BODY_BYTES for one request."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trainboard.http.responses import TextResponse

MAX_BODY_BYTES = 16 * 1024 * 1024


class BodyTooLarge(Exception):
    pass


class LimitBodySize:
    """413 for a body over the limit, by its Content-Length or, when streamed, as soon as it passes the limit."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.limit:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = TextResponse(f"request body over {self.limit} bytes", status_code=413)
        await response(scope, receive, send)
