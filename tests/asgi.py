"""The app called in the test's own thread: an httpx client whose transport hands each request to the ASGI app on an
event loop of the calling thread, the app's lifespan run around it.

For the tests that send thousands of requests and ask only what the app answers (tests/http/test_route_policies.py):
a server in a thread of the test process (tests.servers.in_process) takes each request through the loopback socket,
HTTP parsing on both sides and two thread hand-overs, which, on a loaded two-core machine, took half of each request's
time. Here a request is one call: the app, its middleware, guard and stores are the same objects `trainboard serve`
runs (the caller builds them with the same wiring); what is left out is uvicorn, which tests/cli and the tests on
`in_process` servers keep."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.cookiejar import Cookie, CookieJar, DefaultCookiePolicy
from typing import Any

import httpx
from starlette.types import ASGIApp, Message

# Where a request comes from, as uvicorn reports a loopback client (rate limits and the audit log key on it).
CLIENT = ("127.0.0.1", 50000)


class InThreadTransport(httpx.BaseTransport):
    """Each request a call of `app` on `loop`, run until the app has answered; the answer's body read whole."""

    def __init__(self, app: ASGIApp, loop: asyncio.AbstractEventLoop) -> None:
        self.app = app
        self.loop = loop

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        url = request.url
        scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "method": request.method,
            "scheme": url.scheme,
            "path": url.path,
            "raw_path": url.raw_path.split(b"?", 1)[0],
            "query_string": url.query,
            "root_path": "",
            "headers": [(name.lower(), value) for name, value in request.headers.raw],
            "server": (url.host, url.port or 80),
            "client": CLIENT,
        }
        started: list[Message] = []
        chunks: list[bytes] = []
        received = False

        async def receive() -> Message:
            nonlocal received
            if received:
                # As a client that keeps its connection open: no disconnect until the answer is complete.
                await asyncio.Event().wait()
            received = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.append(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        self.loop.run_until_complete(self.app(scope, receive, send))
        assert started, f"{request.method} {url.path}: the app sent no response"
        return httpx.Response(
            started[0]["status"], headers=started[0]["headers"], stream=httpx.ByteStream(b"".join(chunks))
        )


@contextmanager
def in_thread_client(app: ASGIApp, base_url: str) -> Iterator[httpx.Client]:
    """A client of `app` at `base_url`, between the app's lifespan start-up and shut-down (as uvicorn runs it), that
    keeps no cookie: a test sends those it means to."""
    loop = asyncio.new_event_loop()
    to_app: asyncio.Queue[Message] = asyncio.Queue()
    from_app: asyncio.Queue[Message] = asyncio.Queue()

    async def run_lifespan() -> None:
        await app({"type": "lifespan", "asgi": {"version": "3.0"}}, to_app.get, from_app.put)

    lifespan = loop.create_task(run_lifespan())
    to_app.put_nowait({"type": "lifespan.startup"})
    started = loop.run_until_complete(from_app.get())
    assert started["type"] == "lifespan.startup.complete", started
    try:
        with httpx.Client(
            transport=InThreadTransport(app, loop), base_url=base_url, cookies=CookieJar(_NoCookies()), timeout=None
        ) as client:
            yield client
    finally:
        to_app.put_nowait({"type": "lifespan.shutdown"})
        stopped = loop.run_until_complete(from_app.get())
        loop.run_until_complete(lifespan)
        loop.close()
        assert stopped["type"] == "lifespan.shutdown.complete", stopped


class _NoCookies(DefaultCookiePolicy):
    def set_ok(self, cookie: Cookie, request: urllib.request.Request) -> bool:
        return False
