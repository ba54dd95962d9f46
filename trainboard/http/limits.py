"""Bounds on what one client can hold: request bodies (LimitBodySize: their size and how long they take), and the
server's connections, which `trainboard.http.server.server_of` passes to uvicorn.Config (with
trainboard.http.connections.HeadTimeoutH11Protocol as its `http`)."""

from __future__ import annotations

import asyncio

from starlette.requests import ClientDisconnect
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
# A request's body must arrive within BODY_GRACE_SECONDS plus a second for each MIN_BODY_RATE bytes of it (as
# Kestrel's MinRequestBodyDataRate): a client that sends a body slowly, or stops, gets a 408 and its connection is
# closed, on every route; a 4 MiB upload chunk may take 74 s, a 512 MiB one 2.3 hours.
BODY_GRACE_SECONDS = 10.0
MIN_BODY_RATE = 64 * 1024


class BodyTooLarge(Exception):
    pass


class BodyTooSlow(Exception):
    pass


class LimitBodySize:
    """413 for a body over the limit (uploads': `upload_limit`), by its Content-Length or, when streamed, as soon as it
    passes the limit; 408 for a body that does not arrive in time (`BODY_GRACE_SECONDS`, `MIN_BODY_RATE`). A client
    that goes away mid-body ends its request quietly (no traceback: nothing went wrong in the server)."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int = MAX_BODY_BYTES,
        upload_limit: int = MAX_UPLOAD_BYTES,
        grace: float = BODY_GRACE_SECONDS,
        rate: int = MIN_BODY_RATE,
    ) -> None:
        self.app = app
        self.default_limit = limit
        self.upload_limit = upload_limit
        self.grace = grace
        self.rate = rate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.upload_limit if scope["path"].endswith(UPLOAD_PATH_SUFFIX) else self.default_limit
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > limit:
            await self._refuse(scope, receive, send, 413, f"request body over {limit} bytes")
            return
        received = 0
        complete = False
        loop = asyncio.get_running_loop()
        started = loop.time()

        async def counted() -> Message:
            nonlocal received, complete
            if complete:
                # After the body: a wait for the client to go away, which has no deadline.
                return await receive()
            deadline = started + self.grace + received / self.rate
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0))
            except TimeoutError:
                raise BodyTooSlow from None
            received += len(message.get("body", b""))
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            if received > limit:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await self._refuse(scope, receive, send, 413, f"request body over {limit} bytes")
        except BodyTooSlow:
            await self._refuse(scope, receive, send, 408, "the request body did not arrive in time")
        except ClientDisconnect:
            pass

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int, message: str) -> None:
        response = TextResponse(message, status_code=status)
        # The rest of the body is not read: the connection closes after the answer.
        response.headers["Connection"] = "close"
        await response(scope, receive, send)


# Buffers from this size up are mapped and unmapped on their own (glibc's mallopt M_MMAP_THRESHOLD, whose default
# rises to 32 MiB after the first large free): an upload's windows and records go back to the system once freed, not
# into the heaps of the threads that held them. bench/memory.py: four 256 MiB uploads at once left 173 MB RSS held
# (idle 55 MB) without it, 63 MB with it.
MMAP_THRESHOLD = 1024 * 1024
_M_MMAP_THRESHOLD = -3


def return_large_buffers() -> None:
    """Set MMAP_THRESHOLD where the C library is glibc (elsewhere nothing is done)."""
    import ctypes

    # The symbols the process has loaded, its C library's among them.
    loaded = ctypes.CDLL(None)
    if hasattr(loaded, "gnu_get_libc_version"):
        loaded.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
