"""Bounds on what one client can hold: request bodies (LimitBodySize), and the server's connections, which
`trainboard.http.server.server_of` passes to uvicorn.Config (with trainboard.http.connections.HeadTimeoutH11Protocol
as its `http`)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trainboard.http.responses import TextResponse

MAX_BODY_BYTES = 16 * 1024 * 1024
# An upload's body: a chunk of an event file (4 MiB as `trainboard upload` sends them), or a record larger than that
# whole, or a projector config with the files it names.
MAX_UPLOAD_BYTES = 512 * 1024 * 1024
UPLOAD_PATH_SUFFIX = "/upload/file"
# uvicorn.Config(timeout_keep_alive=...): an idle connection between requests is closed after this many seconds.
KEEP_ALIVE_SECONDS = 5
# HeadTimeoutH11Protocol: a request's line and headers must arrive within this many seconds of the connection or of
# the previous response (uvicorn itself waits forever for a client that connects and sends nothing or drips bytes).
HEAD_TIMEOUT_SECONDS = 10.0
# uvicorn.Config(limit_concurrency=...): past this many connections or requests at once, a new request gets a 503.
# Below the usual limit of 1,024 open files, with room for the store and the event files.
MAX_CONCURRENCY = 512
# uvicorn.Config(h11_max_incomplete_event_size=...): the most bytes of a request's line and headers held while they
# arrive (h11's default is 16 KiB; a query parameter may hold 32 KiB characters, percent-encoded up to three times).
MAX_HEAD_BYTES = 128 * 1024


class BodyTooLarge(Exception):
    pass


class LimitBodySize:
    """413 for a body over the limit (uploads': `upload_limit`), by its Content-Length or, when streamed, as soon as it
    passes the limit."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES, upload_limit: int = MAX_UPLOAD_BYTES) -> None:
        self.app = app
        self.default_limit = limit
        self.upload_limit = upload_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.upload_limit if scope["path"].endswith(UPLOAD_PATH_SUFFIX) else self.default_limit
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > limit:
            await self._refuse(scope, receive, send, limit)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await self._refuse(scope, receive, send, limit)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = TextResponse(f"request body over {limit} bytes", status_code=413)
        await response(scope, receive, send)
