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

    def runs(self, *, backend: str | None = None) -> Any:
        return self._frame("runs", backend)

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

    def groups(
        self,
        tag: str,
        by: str,
        *,
        band: str = "std",
        align: str = "exact",
        filter: str | None = None,
        backend: str | None = None,
    ) -> Any:
        """As `Experiment.groups`, sampled as the server samples a chart's groups (--samples_per_plugin)."""
        from trainboard.api.experiment import _group_columns

        form = {"tag": tag, "by": by, "band": band, "align": align, **({"filter": filter} if filter else {})}
        found = _numbers(self._json("POST", "data/trainboard/groups/scalars", data=form))
        chosen: FrameLibrary = self.backend if backend is None else check_backend(backend)
        return frame(_group_columns(found["groups"]), chosen)

    def _json(self, method: str, path: str, **request: Any) -> Any:
        try:
            response = self._client.request(method, f"{self.url}{path}", **request)
        except httpx.HTTPError as error:
            raise StoreUnavailable(f"{self.url}: no trainboard server answers ({error})") from None
        if response.status_code == 400:  # as the store's experiment raises it
            found = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
            raise InvalidArgumentError(str(found.get("error", response.text))[:1000].removeprefix("Invalid argument: "))
        if response.status_code != 200:
            _check(response)
        return response.json()

    def table(
        self, kind: str, runs: Names = None, tags: Names = None, steps: Steps = None, *, plugin: str | None = None
    ) -> Table:
        """The server's table of `kind` (runs, hparams, scalars, histograms, tensors, images, text)."""
        import pyarrow as pa

        query: list[tuple[str, str | int | float | bool | None]] = [
            *_names("run", runs),
            *_names("tag", tags),
            *_steps(steps),
        ]
        if plugin is not None:
            query.append(("plugin", plugin))
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
