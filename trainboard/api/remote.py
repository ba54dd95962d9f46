"""`RemoteExperiment`: an experiment of a trainboard server, read over HTTP: `ExperimentFrames`, the same data frames
as `Experiment` gives from a store. The server builds each table with trainboard.api and sends it losslessly
as Arrow IPC (/data/trainboard/frames/{kind}, trainboard/api/transport.py); a token goes as a bearer."""

from __future__ import annotations

from typing import Any

import httpx

from trainboard.api.frames import FrameLibrary, Table, check_backend, frame
from trainboard.api.selection import Names, Steps, step_range
from trainboard.api.transport import MEDIA_TYPE, from_arrow
from trainboard.errors import InvalidArgumentError
from trainboard.plugins.runs_table import Terms
from trainboard.store.errors import StoreUnavailable

TIMEOUT = httpx.Timeout(30.0, read=600.0)


class RemoteExperiment:
    """`url`: the server's experiment, `http://host:port/` (`trainboard --logdir`) or
    `http://host/experiment/<id>/` (`trainboard serve`), perhaps below a pin (`.../at/<pin>/`)."""

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
        self, runs: Names = None, tags: Names = None, steps: Steps = None, *, backend: str | None = None
    ) -> Any:
        return self._frame("scalars", backend, runs, tags, steps)

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
