"""A reverse proxy on loopback as jupyter-server-proxy is one: `/proxy/<port>/<path>` is `http://127.0.0.1:<port>/<path>`."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.servers import free_port

# Headers that describe one hop's connection, not the message.
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "host"}


async def forward(request: Request) -> Response:
    port, path = request.path_params["port"], request.path_params["path"]
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        answer = await client.request(
            request.method,
            "/" + path,
            params=request.query_params.multi_items(),
            content=await request.body(),
            headers={name: value for name, value in request.headers.items() if name not in HOP_HEADERS},
        )
    headers = {name: value for name, value in answer.headers.items() if name not in HOP_HEADERS}
    return Response(answer.content, status_code=answer.status_code, headers=headers)


@contextmanager
def jupyter_style_proxy() -> Iterator[str]:
    """The proxy's URL template, `%PORT%` for the port it forwards to."""
    port = free_port()
    app = Starlette(routes=[Route("/proxy/{port:int}/{path:path}", forward, methods=["GET", "POST"])])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the proxy did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/proxy/%PORT%/"
    finally:
        server.should_exit = True
        thread.join(30)
