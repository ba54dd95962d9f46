"""`ClosingServer`: uvicorn's server, which ends the app's event streams when it shuts down (uvicorn waits for every
response to end, and an event stream does not end on its own)."""

from __future__ import annotations

from typing import Any

import uvicorn
from starlette.applications import Starlette

from trainboard.http.trainboard_api.events import close


class ClosingServer(uvicorn.Server):
    def __init__(self, app: Starlette, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._app = app

    async def shutdown(self, sockets: Any = None) -> None:
        close(self._app)
        await super().shutdown(sockets)
