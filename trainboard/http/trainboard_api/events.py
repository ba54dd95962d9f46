"""/data/trainboard/events: server-sent events when an experiment's data changes or its ingest moves on.

The data may be written by this process's ingest, another process's or an upload through another replica, so each
replica looks at the store: one watcher per experiment (not one per client) reads the experiment's generation and
its ingest progress every POLL_SECONDS, and sends the same JSON as /data/ingest_progress to every open stream of the
experiment when it changed (an `event: progress`; the first at once). A comment every KEEP_ALIVE_SECONDS keeps
proxies from closing an idle stream. At most MAX_STREAMS are open at once (a 503 past it), and `close(app)` ends them
all, so that the server can shut down while browsers hold streams. A pinned view never changes: 204, which tells an
EventSource not to reconnect. A client that does not accept text/event-stream (EventSource always does) gets the one
event of now and the end of the response.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio.to_thread
import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from trainboard.errors import PublicError
from trainboard.http.context import ServedExperiment, experiment
from trainboard.http.openapi import declare
from trainboard.http.responses import SECURITY_HEADERS

MEDIA_TYPE = "text/event-stream"
POLL_SECONDS = 1.0
KEEP_ALIVE_SECONDS = 15.0
MAX_STREAMS = 128
# What says the data or the ingest moved (its rate and elapsed time move on their own).
_MOVES = ("generation", "files_total", "files_done", "bytes_read", "points", "passes", "done")


class TooManyStreamsError(PublicError):
    http_code = 503
    kind = "Service unavailable"


def snapshot(found: ServedExperiment) -> dict[str, object]:
    return {**found.progress.as_json(), "generation": found.provider.generation(experiment_id=found.id)}


class Watcher:
    """Reads one experiment's snapshot every POLL_SECONDS while anyone listens, and hands each change to them."""

    def __init__(self, found: ServedExperiment) -> None:
        self._experiment = found
        self.listeners: set[asyncio.Queue[dict[str, object]]] = set()
        self.last: dict[str, object] | None = None
        self._task: asyncio.Task[None] | None = None

    def add(self, queue: asyncio.Queue[dict[str, object]]) -> None:
        self.listeners.add(queue)
        if self.last is not None:
            queue.put_nowait(self.last)
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    def remove(self, queue: asyncio.Queue[dict[str, object]]) -> None:
        self.listeners.discard(queue)
        if not self.listeners and self._task is not None:
            self._task.cancel()
            self._task = None
            self.last = None

    async def _run(self) -> None:
        while True:
            try:
                found = await anyio.to_thread.run_sync(snapshot, self._experiment)
            except Exception:  # the store is briefly unavailable: try again at the next look
                found = None
            if found is not None and (self.last is None or _moved(self.last, found)):
                self.last = found
                for queue in self.listeners:
                    with contextlib.suppress(asyncio.QueueFull):
                        # A slow reader gets the latest snapshot; older ones are dropped.
                        while not queue.empty():
                            queue.get_nowait()
                        queue.put_nowait(found)
            await asyncio.sleep(POLL_SECONDS)


def _moved(before: dict[str, object], now: dict[str, object]) -> bool:
    return any(before.get(key) != now.get(key) for key in _MOVES)


class Streams:
    """The app's open streams and the watchers they share."""

    def __init__(self) -> None:
        self.watchers: dict[str, Watcher] = {}
        self.open = 0
        self.closing = asyncio.Event()

    async def follow(self, found: ServedExperiment) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[dict[str, object]] = asyncio.Queue(maxsize=1)
        watcher = self.watchers.setdefault(found.id, Watcher(found))
        watcher.add(queue)
        closing = asyncio.ensure_future(self.closing.wait())
        getting: asyncio.Future[dict[str, object]] | None = None
        try:
            yield b"retry: 2000\n\n"
            while not self.closing.is_set():
                getting = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait(
                    {getting, closing}, timeout=KEEP_ALIVE_SECONDS, return_when="FIRST_COMPLETED"
                )
                if getting in done:
                    yield _event(getting.result())
                else:
                    getting.cancel()
                    if not done:
                        yield b": keep-alive\n\n"
        finally:
            # The client left while waiting: its wait ends here too (else a pending task is destroyed).
            closing.cancel()
            if getting is not None:
                getting.cancel()
            watcher.remove(queue)
            if not watcher.listeners:
                self.watchers.pop(found.id, None)


def _event(found: dict[str, object]) -> bytes:
    return b"event: progress\ndata: " + orjson.dumps(found) + b"\n\n"


def streams_of(app: Any) -> Streams:
    found: Streams | None = getattr(app.state, "event_streams", None)
    if found is None:
        found = app.state.event_streams = Streams()
    return found


def close(app: Any) -> None:
    """End every open stream (the server is shutting down)."""
    found: Streams | None = getattr(app.state, "event_streams", None)
    if found is not None:
        found.closing.set()


@declare("Server-sent events: the data changed or ingest moved on (as /data/ingest_progress)", returns=MEDIA_TYPE)
async def events(request: Request) -> Response:
    found = await anyio.to_thread.run_sync(experiment, request)
    if "pin" in request.path_params:
        return Response(status_code=204, headers=SECURITY_HEADERS)
    headers = {**SECURITY_HEADERS, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if MEDIA_TYPE not in request.headers.get("accept", ""):
        # Not an EventSource (which always accepts text/event-stream): the one event of now, and the end.
        now = await anyio.to_thread.run_sync(snapshot, found)
        return Response(_event(now), media_type=MEDIA_TYPE, headers=headers)
    streams = streams_of(request.app)
    if streams.open >= MAX_STREAMS:
        raise TooManyStreamsError(f"{MAX_STREAMS} event streams are open: poll /data/ingest_progress instead")
    # Counted at once, not when its body starts: requests that arrive together cannot all pass the bound.
    streams.open += 1
    return _Stream(streams, streams.follow(found), headers)


class _Stream(StreamingResponse):
    """An event stream that holds one of the app's MAX_STREAMS places until it ends, however it ends (a client that
    leaves before its body starts too)."""

    def __init__(self, streams: Streams, body: AsyncIterator[bytes], headers: dict[str, str]) -> None:
        super().__init__(body, media_type=MEDIA_TYPE, headers=headers)
        self._streams = streams

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._streams.open -= 1
