"""What a handler needs from the app: the experiment its URL names, with its provider and sampling hints."""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from starlette.requests import Request

from trainboard.analysis.projection_cache import ProjectionCache
from trainboard.errors import NoSuchExperiment, NotFoundError
from trainboard.http import params
from trainboard.provider.provider import DataProvider
from trainboard.settings import ALL_PLUGINS
from trainboard.store.values import Pin, PinRow
from trainboard.store.writer import StoreKeeper

# The experiment id TensorBoard's own UI puts in its URLs; it and "" name the experiment served at /.
DEFAULT_EXPERIMENT_IDS = ("", "defaultExperimentId")
# Pinned views kept with their caches, the most recently asked for.
PINNED_VIEWS = 64


class Progress(Protocol):
    """How far ingest has come, as /data/ingest_progress serves it."""

    def as_json(self) -> dict[str, object]: ...


@dataclass(eq=False)
class ServedExperiment:
    id: str
    provider: DataProvider
    progress: Progress
    # --samples_per_plugin: plugin name -> points per series (None: all).
    sampling: dict[str, int | None] = field(default_factory=dict)
    # --max_projection_points: the largest embedding the server projects (None: any).
    max_projection_points: int | None = None
    projections: ProjectionCache = field(default_factory=ProjectionCache)

    def samples(self, plugin_name: str, default: int) -> int | None:
        return self.sampling.get(plugin_name, self.sampling.get(ALL_PLUGINS, default))


class Experiments:
    """The experiments an app serves: every one of its store under /experiment/<id>/, and `default` at /; each as of
    any of its pins under .../at/<pin>/; `keeper` records pins and deletes experiments."""

    def __init__(
        self,
        provider: DataProvider,
        keeper: StoreKeeper,
        *,
        progress: Mapping[str, Progress],
        elsewhere: Progress,
        default: str | None = None,
        sampling: dict[str, int | None] | None = None,
        max_projection_points: int | None = None,
    ) -> None:
        self.provider = provider
        self._keeper = keeper
        self.default = default
        # The progress of each experiment this process ingests, and of those other processes ingest.
        self._progress = progress
        self._elsewhere = elsewhere
        self._sampling = sampling or {}
        self._max_projection_points = max_projection_points
        self._served: dict[str, ServedExperiment] = {}
        # (experiment id, pin) -> the experiment as of the pin, with a provider and caches of its own.
        self._pinned: OrderedDict[tuple[str, str], ServedExperiment] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, experiment_id: str, pin: str | None = None) -> ServedExperiment:
        """The experiment, as of `pin` when one is given; `NoSuchExperiment` for an experiment or a pin that does
        not exist."""
        live = self._live(experiment_id)
        if pin is None:
            return live
        key = (live.id, pin)
        with self._lock:
            found = self._pinned.get(key)
            if found is not None:
                self._pinned.move_to_end(key)
                return found
        pinned = self.provider.at(experiment_id=live.id, pin=pin)
        found = dataclasses.replace(live, provider=pinned, projections=ProjectionCache())
        with self._lock:
            found = self._pinned.setdefault(key, found)
            while len(self._pinned) > PINNED_VIEWS:
                self._pinned.popitem(last=False)
        return found

    @property
    def keeper(self) -> StoreKeeper:
        """The store's writes that are not ingest's: pins, deletion, run metadata and saved views."""
        return self._keeper

    def pin(self, experiment_id: str, creator: int | None = None) -> Pin:
        """Record the experiment's ingest position now, made by the user `creator`."""
        live = self._live(experiment_id)
        pin = self._keeper.create_pin(live.id, creator)
        if pin is None:
            raise NoSuchExperiment()
        return pin

    def pins(self, experiment_id: str) -> list[PinRow]:
        return self._keeper.pins(self._live(experiment_id).id)

    def pin_count(self, creator: int) -> int:
        return self._keeper.pin_count(creator)

    def delete_pin(self, experiment_id: str, pin_id: str) -> None:
        """`NoSuchExperiment` for an experiment or a pin that does not exist."""
        live = self._live(experiment_id)
        if not self._keeper.delete_pin(live.id, pin_id):
            raise NoSuchExperiment()
        with self._lock:
            self._pinned.pop((live.id, pin_id), None)

    def pinned_at(self, experiment_id: str, pin_id: str) -> float:
        """When the pin was made (Unix seconds); `NoSuchExperiment` for an experiment or a pin that does not exist."""
        live = self._live(experiment_id)
        pin = self._keeper.pin(live.id, pin_id)
        if pin is None:
            raise NoSuchExperiment()
        return pin.created

    def delete(self, experiment_id: str) -> bool:
        """Delete the experiment and everything of it; False while another process writes it."""
        live = self._live(experiment_id)
        if not self._keeper.delete_experiment(live.id):
            return False
        with self._lock:
            self._served.pop(live.id, None)
            for key in [key for key in self._pinned if key[0] == live.id]:
                del self._pinned[key]
        return True

    def check(self) -> None:
        """Raise `StoreUnavailable` unless the store answers now (`StoreKeeper.check`)."""
        self._keeper.check()

    def _live(self, experiment_id: str) -> ServedExperiment:
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
            raise NoSuchExperiment()
        found = ServedExperiment(
            id=experiment_id,
            provider=self.provider,
            progress=self._progress.get(experiment_id, self._elsewhere),
            sampling=self._sampling,
            max_projection_points=self._max_projection_points,
        )
        with self._lock:
            return self._served.setdefault(experiment_id, found)


def experiment(request: Request) -> ServedExperiment:
    """The experiment the request's URL names, as of the pin it names under .../at/<pin>/."""
    experiments: Experiments = request.app.state.experiments
    return experiments.get(request.path_params.get("experiment_id", ""), request.path_params.get("pin"))


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
