"""`RemoteExperiment`: an experiment of a trainboard server, read over HTTP: `ExperimentFrames`, the same data frames
as `Experiment` gives from a store. The server builds each table with trainboard.api and sends it losslessly
as Arrow IPC (/data/trainboard/frames/{kind}, trainboard/api/transport.py); a token goes as a bearer."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx

from trainboard.api.frames import FrameLibrary, Table, check_backend, frame
from trainboard.api.run_metadata import RunMetadataMethods
from trainboard.api.scalar_groups import GroupQuery, ScalarGroups
from trainboard.api.selection import Names, Steps, step_range
from trainboard.api.transport import MEDIA_TYPE, from_arrow
from trainboard.errors import ConflictError, InvalidArgumentError, NotFoundError
from trainboard.plugins.runs_table import Terms
from trainboard.store.errors import StoreUnavailable
from trainboard.store.run_metadata import RunMetadata

TIMEOUT = httpx.Timeout(30.0, read=600.0)
JSON = "application/json"


class RemoteExperiment(RunMetadataMethods, ScalarGroups):
    """`url`: the server's experiment, `http://host:port/` (`trainboard --logdir`) or
    `http://host/experiment/<id>/` (`trainboard serve`), perhaps below a pin (`.../at/<pin>/`). Run metadata and
    saved views are read and written by the server's routes (/data/trainboard/run_metadata, /data/trainboard/views):
    writing them needs the write role on a server with accounts."""

    def __init__(self, url: str, *, token: str | None = None, backend: str = "pandas") -> None:
        self.url = url.rstrip("/") + "/"
        self.backend = check_backend(backend)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(headers=headers, timeout=TIMEOUT, follow_redirects=False)
        self.name = self.id = self.url

    def __repr__(self) -> str:
        return f"<trainboard.RemoteExperiment {self.url}>"

    def __enter__(self) -> RemoteExperiment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def runs(
        self, filter: str | None = None, sort: Terms = None, columns: Terms = None, *, backend: str | None = None
    ) -> Any:
        options = {"filter": filter, "sort": _joined(sort), "columns": _joined(columns)}
        chosen: FrameLibrary = self.backend if backend is None else check_backend(backend)
        return frame(self.table("runs", options=options), chosen)

    def hparams(self, *, backend: str | None = None) -> Any:
        return self._frame("hparams", backend)

    def scalars(
        self,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        x: str | None = None,
        backend: str | None = None,
    ) -> Any:
        chosen: FrameLibrary = self.backend if backend is None else check_backend(backend)
        return frame(self.table("scalars", runs, tags, steps, options={"x": x}), chosen)

    def histograms(
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None
    ) -> Any:
        return self._frame("histograms", backend, runs, tags, steps)

    def tensors(
        self,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        plugin: str | None = None,
        backend: str | None = None,
    ) -> Any:
        return self._frame("tensors", backend, runs, tags, steps, plugin=plugin)

    def images(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        return self._frame("images", backend, runs, tags, steps)

    def text(self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None) -> Any:
        return self._frame("text", backend, runs, tags, steps)

    def define(self, name: str, expression: str, *, align: str = "exact") -> None:
        body = {"name": name, "expression": expression, "align": align}
        self._json("POST", "data/trainboard/definitions", json=body)

    def undefine(self, name: str) -> None:
        self._json("DELETE", "data/trainboard/definitions", params={"name": name})

    def definitions(self) -> list[dict[str, str]]:
        found: list[dict[str, str]] = self._json("GET", "data/trainboard/definitions")["definitions"]
        return found

    def compare(self, a: str, b: str, metric: str) -> dict[str, Any]:
        found: dict[str, Any] = _numbers(
            self._json("POST", "data/trainboard/compare", data={"a": a, "b": b, "metric": metric})
        )
        return found

    def _groups(self, query: GroupQuery) -> list[dict[str, Any]]:
        """Sampled as the server samples a chart's groups (--samples_per_plugin)."""
        answer = _numbers(self._json("POST", "data/trainboard/groups/scalars", data=query.form()))
        found: list[dict[str, Any]] = answer["groups"]
        return found

    def table(
        self,
        kind: str,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        plugin: str | None = None,
        options: dict[str, str | None] | None = None,
    ) -> Table:
        """The server's table of `kind` (runs, hparams, scalars, histograms, tensors, images, text); `options`: more
        query parameters (the runs table's filter, sort and columns), None for one not given."""
        import pyarrow as pa

        query: list[tuple[str, str | int | float | bool | None]] = [
            *_names("run", runs),
            *_names("tag", tags),
            *_steps(steps),
        ]
        if plugin is not None:
            query.append(("plugin", plugin))
        query += [(name, value) for name, value in (options or {}).items() if value is not None]
        try:
            response = self._client.get(f"{self.url}data/trainboard/frames/{kind}", params=query)
        except httpx.HTTPError as error:
            raise StoreUnavailable(f"{self.url}: no trainboard server answers ({error})") from None
        _check(response)
        with pa.ipc.open_stream(response.content) as reader:
            return from_arrow(reader.read_all())

    # Run metadata and saved views (trainboard/api/run_metadata.py).

    def _change_run_metadata(self, runs: list[str], change: dict[str, Any]) -> None:
        self._json("POST", "data/trainboard/run_metadata", {"runs": runs, **change})

    def _run_metadata(self) -> tuple[list[str], list[RunMetadata]]:
        runs: list[str] = self._json("GET", "data/runs")
        found = self._json("GET", "data/trainboard/run_metadata")["runs"]
        return runs, [
            RunMetadata(
                run,
                display_name=row["display_name"],
                notes=row["notes"],
                labels=tuple(row["labels"]),
                starred=row["starred"],
                color=row["color"],
            )
            for run, row in found.items()
        ]

    def views(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._json("GET", "data/trainboard/views")["views"]
        return found

    def view(self, key: str) -> dict[str, Any]:
        found: dict[str, Any] = self._json("GET", f"data/trainboard/views/{quote(key, safe='')}")
        return found

    def save_view(self, name: str, state: dict[str, Any] | str) -> dict[str, Any]:
        body = {"name": name, "state": json.loads(state) if isinstance(state, str) else state}
        return _view(self._json("POST", "data/trainboard/views", body))

    def rename_view(self, key: str, name: str) -> dict[str, Any]:
        return _view(self._json("POST", f"data/trainboard/views/{quote(key, safe='')}/rename", {"name": name}))

    def delete_view(self, key: str) -> None:
        self._json("DELETE", f"data/trainboard/views/{quote(key, safe='')}")

    def _json(self, method: str, path: str, body: object = None, **request: Any) -> Any:
        """The server's JSON answer to `body` sent as JSON (or to httpx's `request` arguments: params, data); its
        refusal raised as the error the store would raise."""
        if body is not None:
            request["json"] = body
        try:
            response = self._client.request(method, self.url + path, **request)
        except httpx.HTTPError as error:
            raise StoreUnavailable(f"{self.url}: no trainboard server answers ({error})") from None
        if response.status_code in (400, 404, 409) and response.headers.get("content-type", "").startswith(JSON):
            message = str(response.json().get("error", response.text[:300]))
            refusal = {400: InvalidArgumentError, 404: NotFoundError, 409: ConflictError}[response.status_code]
            # Without the kind the server's message starts with, which the error raised adds again.
            raise refusal(message.partition(": ")[2] or message)
        if response.status_code in (401, 403) or (method != "GET" and response.status_code == 404):
            raise PermissionError(f"{self.url}: this token may not do that ({response.status_code}): {response.text}")
        if response.status_code != 200:
            raise StoreUnavailable(f"{self.url}{path}: HTTP {response.status_code}: {response.text[:300].strip()}")
        return response.json()

    def _frame(
        self,
        kind: str,
        backend: str | None,
        runs: Names = None,
        tags: Names = None,
        steps: Steps = None,
        *,
        plugin: str | None = None,
    ) -> Any:
        chosen: FrameLibrary = self.backend if backend is None else check_backend(backend)
        return frame(self.table(kind, runs, tags, steps, plugin=plugin), chosen)


def _view(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key != "ok"}


def _joined(terms: Terms) -> str | None:
    """Terms of the run filter language as one parameter: a list joined by commas."""
    return terms if terms is None or isinstance(terms, str) else ", ".join(terms)


def _names(name: str, wanted: Names) -> list[tuple[str, str]]:
    """A list as the parameter repeated; one string as a regular expression (RE2 on the server, which `re` mostly
    agrees with)."""
    if wanted is None:
        return []
    if isinstance(wanted, str):
        return [(f"{name}_regex", wanted)]
    names = list(wanted)
    # An empty list selects nothing: a name no series has.
    return [(name, value) for value in names] if names else [(name, "\x01")]


def _steps(steps: Steps) -> list[tuple[str, str]]:
    found = step_range(steps)
    bounds = {"first_step": found.first, "last_step": found.last, "latest": found.latest}
    return [(name, str(value)) for name, value in bounds.items() if value is not None]


def _check(response: httpx.Response) -> None:
    if response.status_code == 200 and response.headers.get("content-type", "").startswith(MEDIA_TYPE):
        return
    text = response.text[:300].strip()
    where = str(response.request.url.copy_with(query=None))
    if response.status_code == 400:
        raise InvalidArgumentError(f"{where}: {text}")
    if response.status_code == 401:
        raise PermissionError(f"{where}: the server wants a valid token (token=...): {text}")
    if response.status_code == 403:
        raise PermissionError(f"{where}: this token may not read the experiment: {text}")
    if response.status_code == 404:
        raise StoreUnavailable(f"{where}: no such experiment on this server, or not a trainboard server: {text}")
    if response.status_code == 200:
        raise StoreUnavailable(f"{where}: not a trainboard server's frames ({response.headers.get('content-type')})")
    raise StoreUnavailable(f"{where}: HTTP {response.status_code}: {text}")


def _numbers(found: Any) -> Any:
    """JSON's "NaN", "Infinity" and "-Infinity" (as trainboard sends non-finite numbers) as floats."""
    if isinstance(found, str) and found in ("NaN", "Infinity", "-Infinity"):
        return float(found.lower().replace("infinity", "inf"))
    if isinstance(found, list):
        return [_numbers(item) for item in found]
    if isinstance(found, dict):
        return {key: _numbers(item) for key, item in found.items()}
    return found
