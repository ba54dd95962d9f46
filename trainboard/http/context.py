"""What a handler needs from the app: the experiment its URL names, with its provider and sampling hints."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from starlette.requests import Request

from trainboard.analysis.projection_cache import ProjectionCache
from trainboard.analysis.projections import MAX_POINTS
from trainboard.errors import NotFoundError
from trainboard.http import params
from trainboard.provider.provider import DataProvider
from trainboard.settings import ALL_PLUGINS

# The experiment id TensorBoard's own UI puts in its URLs; it and "" name the experiment served at /.
DEFAULT_EXPERIMENT_IDS = ("", "defaultExperimentId")


class Progress(Protocol):
    """How far ingest has come, as /data/ingest_progress serves it."""

    def as_json(self) -> dict[str, object]: ...


@dataclass(eq=False)
class Experiment:
    id: str
    provider: DataProvider
    progress: Progress
    # --samples_per_plugin: plugin name -> points per series (None: all).
    sampling: dict[str, int | None] = field(default_factory=dict)
    # --max_projection_points: the largest embedding the server projects.
    max_projection_points: int = MAX_POINTS
    projections: ProjectionCache = field(default_factory=ProjectionCache)

    def samples(self, plugin_name: str, default: int) -> int | None:
        return self.sampling.get(plugin_name, self.sampling.get(ALL_PLUGINS, default))


class Experiments:
    """The experiments an app serves: every one of its store under /experiment/<id>/, and `default` at /."""

    def __init__(
        self,
        provider: DataProvider,
        *,
        progress: Mapping[str, Progress],
        elsewhere: Progress,
        default: str | None = None,
        sampling: dict[str, int | None] | None = None,
        max_projection_points: int = MAX_POINTS,
    ) -> None:
        self.provider = provider
        self.default = default
        # The progress of each experiment this process ingests, and of those other processes ingest.
        self._progress = progress
        self._elsewhere = elsewhere
        self._sampling = sampling or {}
        self._max_projection_points = max_projection_points
        self._served: dict[str, Experiment] = {}
        self._lock = threading.Lock()

    def get(self, experiment_id: str) -> Experiment:
        if experiment_id in DEFAULT_EXPERIMENT_IDS:
            if self.default is None:
                raise NotFoundError("this server has no default experiment: /data/experiments lists its experiments")
            experiment_id = self.default
        with self._lock:
            found = self._served.get(experiment_id)
        if found is not None:
            return found
        if experiment_id not in self._progress and not any(
            e.experiment_id == experiment_id for e in self.provider.list_experiments()
        ):
            raise NotFoundError(f"no experiment with id {experiment_id!r}")
        found = Experiment(
            id=experiment_id,
            provider=self.provider,
            progress=self._progress.get(experiment_id, self._elsewhere),
            sampling=self._sampling,
            max_projection_points=self._max_projection_points,
        )
        with self._lock:
            return self._served.setdefault(experiment_id, found)


def experiment(request: Request) -> Experiment:
    experiments: Experiments = request.app.state.experiments
    return experiments.get(request.path_params.get("experiment_id", ""))


@dataclass(frozen=True, slots=True)
class SeriesRequest:
    """The series a request names by its `run` and `tag` parameters, and how many of its points to return."""

    provider: DataProvider
    id: str
    run: str
    tag: str
    samples: int | None


def series_request(request: Request, plugin_name: str, default_samples: int) -> SeriesRequest:
    query = request.query_params
    run, tag = params.required(query, "run"), params.required(query, "tag")
    found = experiment(request)
    return SeriesRequest(found.provider, found.id, run, tag, found.samples(plugin_name, default_samples))
