"""`ClosingServer`: uvicorn's server, which ends the app's event streams when it shuts down (uvicorn waits for every
response to end, and an event stream does not end on its own); `server_of(app)`: the one a trainboard command runs."""

from __future__ import annotations

from typing import Any

import uvicorn
from starlette.applications import Starlette
from uvicorn.config import LOGGING_CONFIG

from trainboard.http import limits
from trainboard.http.connections import HeadTimeoutH11Protocol
from trainboard.http.log_format import JSON, TEXT
from trainboard.http.trainboard_api.events import close


class ClosingServer(uvicorn.Server):
    def __init__(self, app: Starlette, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._app = app

    async def shutdown(self, sockets: Any = None) -> None:
        close(self._app)
        await super().shutdown(sockets)


def server_of(app: Starlette, log_format: str = TEXT) -> ClosingServer:
    """uvicorn serving `app` as `trainboard` and `trainboard serve` do: slow or idle clients cannot hold connections
    (heads must arrive in time, idle ones close; the listening socket and its backlog are the caller's); logging in
    `log_format` (`trainboard.http.log_format`)."""
    json = log_format == JSON
    limits.return_large_buffers()
    return ClosingServer(
        app,
        uvicorn.Config(
            app,
            # In json, the handler `configure_logging` gave the root (none of uvicorn's own), and the access log on.
            log_config=None if json else LOGGING_CONFIG,
            log_level="info" if json else "warning",
            http=HeadTimeoutH11Protocol,
            timeout_keep_alive=limits.KEEP_ALIVE_SECONDS,
            limit_concurrency=limits.MAX_CONCURRENCY,
            h11_max_incomplete_event_size=limits.MAX_HEAD_BYTES,
        ),
    )
