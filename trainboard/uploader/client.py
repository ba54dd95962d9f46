"""The client of a `trainboard serve`'s upload routes (docs/upload.md), speaking `trainboard.ingest.upload_protocol`,
with retries: a dropped connection, a 5xx or a 429 is tried again after a pause (the server's Retry-After, else
growing), so that a server restarting or a proxy in trouble only slows an upload down. Retrying a chunk is safe: the
server commits a file's bytes only from its stored offset, and answers a chunk it has already committed with a 409
naming where to go on."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

from trainboard.ingest.upload_protocol import Chunk, OffsetMismatch, Receipt, chunk_request, forget_body, read_files
from trainboard.reader.tail import FileCursor
from trainboard.store.experiment_names import AmbiguousName, find_experiment

logger = logging.getLogger("trainboard.upload")

RETRY_FIRST_SECONDS = 0.5
RETRY_MOST_SECONDS = 30.0
TIMEOUT_SECONDS = 120.0


class UploadError(Exception):
    """An upload that cannot go on, worded for the user."""


@dataclass(frozen=True, slots=True)
class Listed:
    """An experiment as `GET /data/experiments` lists it: whether the token may upload into it (a role of write or
    more, or no access control at all), and whether its user owns it."""

    id: str
    name: str
    writable: bool
    owned: bool

    @classmethod
    def of_json(cls, found: dict[str, Any]) -> Listed:
        role = found.get("role")
        return cls(str(found["id"]), str(found["name"]), role in (None, "write", "admin"), bool(found.get("owned")))


@dataclass(frozen=True, slots=True)
class Sent:
    """The file's committed offset after a chunk (None: nothing of it is stored), the points the chunk added, and
    whether the server had moved on already (a 409: `offset` is where it reads from now)."""

    offset: int | None
    points: int
    refused: bool = False


class UploadClient:
    """Talks to the upload routes of the `trainboard serve` at `url`, with `token`."""

    def __init__(
        self,
        url: str,
        token: str,
        *,
        retry_for_seconds: float = 120.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = url.rstrip("/")
        self._client = httpx.Client(base_url=self.url, headers=headers, timeout=TIMEOUT_SECONDS)
        self._retry_for_seconds = retry_for_seconds
        self._sleep = sleep

    def close(self) -> None:
        self._client.close()

    def experiment_id(self, name: str) -> str:
        """The experiment of this id; else the one of this name that the token may write, the user's own first, else
        the only other one (`trainboard.store.experiment_names`); created (owned by the token's user) when none. An
        UploadError listing the ids when several others have the name."""
        listed = [Listed.of_json(found) for found in self._json("GET", "/data/experiments")]
        if any(experiment.id == name for experiment in listed):
            return name  # whether the token may write it, the upload's answers say
        try:
            found = find_experiment(
                [experiment for experiment in listed if experiment.writable],
                name,
                own=lambda experiment: experiment.owned,
            )
        except AmbiguousName as error:
            raise UploadError(str(error)) from None
        if found is not None:
            return found.id
        created = self._request("POST", "/data/experiments", content=orjson.dumps({"name": name}))
        _check(created)
        return str(created.json()["id"])

    def cursors(self, experiment_id: str) -> dict[str, FileCursor]:
        return read_files(self._json("GET", f"/experiment/{experiment_id}/upload/files"))

    def send(self, experiment_id: str, chunk: Chunk) -> Sent:
        query, body = chunk_request(chunk)
        response = self._request("POST", f"/experiment/{experiment_id}/upload/file", params=query, content=body)
        if response.status_code == 409:
            answer = response.json()
            if "expected" not in answer:
                raise UploadError(str(answer.get("error", "refused")))  # another run's file: no retry mends it
            refused = OffsetMismatch.of_json(chunk.path, answer)
            return Sent(offset=refused.expected, points=0, refused=True)
        _check(response)
        receipt = Receipt.of_json(chunk.path, response.json())
        return Sent(offset=None if receipt.cursor is None else receipt.cursor.offset, points=receipt.points)

    def forget(self, experiment_id: str, paths: list[str]) -> None:
        _check(self._request("POST", f"/experiment/{experiment_id}/upload/forget", content=forget_body(paths)))

    def _json(self, method: str, path: str) -> Any:
        response = self._request(method, path)
        _check(response)
        return response.json()

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """The answer, after retrying what a later try may fix until `retry_for_seconds` have passed."""
        deadline = time.monotonic() + self._retry_for_seconds
        pause = RETRY_FIRST_SECONDS
        while True:
            try:
                response = self._client.request(method, path, **kwargs)
            except httpx.TransportError as error:
                problem, wait = f"{type(error).__name__}: {error}", pause
            else:
                if response.status_code != 429 and response.status_code < 500:
                    return response
                problem, wait = f"HTTP {response.status_code}", _retry_after(response) or pause
            if time.monotonic() + wait > deadline:
                raise UploadError(f"{self.url}{path}: {problem}; run the upload again to resume")
            logger.info("%s %s: %s; trying again in %.1f s", method, path, problem, wait)
            self._sleep(wait)
            pause = min(pause * 2, RETRY_MOST_SECONDS)


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None


def _check(response: httpx.Response) -> None:
    if response.status_code == 401:
        raise UploadError("the server wants a valid token: pass --token or set TRAINBOARD_TOKEN")
    if response.status_code == 404:
        raise UploadError(f"{response.request.url.path}: not found (no such experiment for this token, or no server)")
    if response.status_code >= 400:
        raise UploadError(f"{response.request.method} {response.request.url.path}: {response.text[:500]}")
