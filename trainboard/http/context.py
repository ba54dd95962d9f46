"""What a handler needs from the app: the experiment its URL names, with its provider and sampling hints."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request

from trainboard.analysis.projection_cache import ProjectionCache
from trainboard.analysis.projections import MAX_POINTS
from trainboard.errors import NotFoundError
from trainboard.http import params
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import RunSource
from trainboard.settings import ALL_PLUGINS

# The experiment id TensorBoard's own UI puts in its URLs; it and "" name the default experiment.
DEFAULT_EXPERIMENT_IDS = ("", "defaultExperimentId")


@dataclass
class Experiment:
    id: str
    provider: DataProvider
    progress: IngestProgress
    # The log directory itself, for plugins that read files beside the event files (the projector's).
    logdir: RunSource
    # --samples_per_plugin: plugin name -> points per series (None: all).
    sampling: dict[str, int | None] = field(default_factory=dict)
    # --max_projection_points: the largest embedding the server projects.
    max_projection_points: int = MAX_POINTS
    projections: ProjectionCache = field(default_factory=ProjectionCache)

    def samples(self, plugin_name: str, default: int) -> int | None:
        return self.sampling.get(plugin_name, self.sampling.get(ALL_PLUGINS, default))


def experiment(request: Request) -> Experiment:
    experiments: dict[str, Experiment] = request.app.state.experiments
    experiment_id = request.path_params.get("experiment_id", "")
    if experiment_id in DEFAULT_EXPERIMENT_IDS:
        return next(iter(experiments.values()))
    try:
        return experiments[experiment_id]
    except KeyError:
        raise NotFoundError(f"no experiment with id {experiment_id!r}") from None


@dataclass(frozen=True, slots=True)
class SeriesRequest:
    """The series a request names by its `run` and `tag` parameters, and how many of its points to return."""

    provider: DataProvider
    run: str
    tag: str
    samples: int | None


def series_request(request: Request, plugin_name: str, default_samples: int) -> SeriesRequest:
    query = request.query_params
    run, tag = params.required(query, "run"), params.required(query, "tag")
    found = experiment(request)
    return SeriesRequest(found.provider, run, tag, found.samples(plugin_name, default_samples))
