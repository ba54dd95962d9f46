"""TensorBoard's HTTP API: every route here, with who may call it; each module of the package holds one plugin's
handlers.

The runs and the scalars are imported at start: a dashboard's first answers. Every other module is imported when the
first request for one of its routes comes (`trainboard.http.lazy`): its handlers are named here, not imported.
"""

from __future__ import annotations

from starlette.routing import BaseRoute

from trainboard.http.lazy import LazyEndpoint
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.http.tensorboard import core, scalars

READ = Policy.READ
GET_OR_POST = ("GET", "POST")


def _later(module: str, name: str) -> LazyEndpoint:
    """The handler `name` of this package's `module`, imported on its first request."""
    return LazyEndpoint(f"{__name__}.{module}", name)


def routes() -> list[BaseRoute]:
    return [
        PolicyRoute("/data/logdir", core.logdir, READ),
        PolicyRoute("/data/environment", core.environment, READ),
        PolicyRoute("/data/runs", core.runs, READ),
        PolicyRoute("/data/runs_by_type", core.runs_by_type, READ),
        PolicyRoute("/data/plugins_listing", core.plugins_listing, READ),
        PolicyRoute("/data/ingest_progress", core.ingest_progress, READ),
        PolicyRoute("/data/plugin/scalars/tags", scalars.tags, READ),
        PolicyRoute("/data/plugin/scalars/scalars", scalars.series, READ),
        PolicyRoute("/data/plugin/scalars/scalars_multirun", scalars.series_multirun, READ, methods=["POST"]),
        # Imported on their first request.
        PolicyRoute("/data/scalars", _later("classic", "scalar_series"), READ),
        PolicyRoute("/data/histograms", _later("classic", "histogram_series"), READ),
        PolicyRoute("/data/compressedHistograms", _later("classic", "compressed_histogram_series"), READ),
        PolicyRoute("/data/images", _later("classic", "image_series"), READ),
        PolicyRoute("/data/individualImage", _later("media", "individual_image"), READ),
        PolicyRoute("/data/audio", _later("classic", "audio_series"), READ),
        PolicyRoute("/data/individualAudio", _later("media", "individual_audio"), READ),
        PolicyRoute("/data/graph", _later("graphs", "graph"), READ),
        PolicyRoute("/data/run_metadata", _later("graphs", "run_metadata"), READ),
        PolicyRoute("/data/blob/{blob_key}", _later("media", "blob"), READ),
        PolicyRoute("/data/plugin/custom_scalars/layout", _later("custom_scalars", "layout"), READ),
        PolicyRoute("/data/plugin/custom_scalars/scalars", _later("custom_scalars", "scalars_by_regex"), READ),
        PolicyRoute("/data/plugin/custom_scalars/download_data", _later("custom_scalars", "download_data"), READ),
        PolicyRoute("/data/plugin/graphs/info", _later("graphs", "info"), READ),
        PolicyRoute("/data/plugin/graphs/runs", _later("graphs", "runs"), READ),
        PolicyRoute("/data/plugin/graphs/graph", _later("graphs", "graph"), READ),
        PolicyRoute("/data/plugin/graphs/run_metadata", _later("graphs", "run_metadata"), READ),
        PolicyRoute("/data/plugin/histograms/tags", _later("histograms", "tags"), READ),
        PolicyRoute("/data/plugin/histograms/histograms", _later("histograms", "histogram_series"), READ),
        PolicyRoute("/data/plugin/distributions/tags", _later("histograms", "tags"), READ),
        PolicyRoute("/data/plugin/distributions/distributions", _later("histograms", "distribution_series"), READ),
        # The hparams plugin's request is JSON, in a POST body or in ?request= on GET.
        PolicyRoute(
            "/data/plugin/hparams/experiment", _later("hparams", "experiment_route"), READ, methods=GET_OR_POST
        ),
        PolicyRoute(
            "/data/plugin/hparams/session_groups", _later("hparams", "session_groups"), READ, methods=GET_OR_POST
        ),
        PolicyRoute("/data/plugin/hparams/metric_evals", _later("hparams", "metric_evals"), READ, methods=GET_OR_POST),
        PolicyRoute("/data/plugin/hparams/download_data", _later("hparams", "download"), READ, methods=GET_OR_POST),
        PolicyRoute("/data/plugin/images/tags", _later("media", "image_tags"), READ),
        PolicyRoute("/data/plugin/images/images", _later("media", "image_series"), READ),
        PolicyRoute("/data/plugin/images/individualImage", _later("media", "individual_image"), READ),
        PolicyRoute("/data/plugin/audio/tags", _later("media", "audio_tags"), READ),
        PolicyRoute("/data/plugin/audio/audio", _later("media", "audio_series"), READ),
        PolicyRoute("/data/plugin/audio/individualAudio", _later("media", "individual_audio"), READ),
        PolicyRoute("/data/plugin/mesh/tags", _later("mesh", "tags"), READ),
        PolicyRoute("/data/plugin/mesh/meshes", _later("mesh", "meshes"), READ),
        PolicyRoute("/data/plugin/mesh/data", _later("mesh", "data"), READ),
        PolicyRoute("/data/plugin/pr_curves/tags", _later("pr_curves", "tags"), READ),
        PolicyRoute("/data/plugin/pr_curves/pr_curves", _later("pr_curves", "curves"), READ),
        PolicyRoute("/data/plugin/projector/projection", _later("projector", "projection"), READ),
        PolicyRoute("/data/plugin/projector/runs", _later("projector", "runs"), READ),
        PolicyRoute("/data/plugin/projector/info", _later("projector", "info"), READ),
        PolicyRoute("/data/plugin/projector/tensor", _later("projector", "tensor"), READ),
        PolicyRoute("/data/plugin/projector/metadata", _later("projector", "metadata"), READ),
        PolicyRoute("/data/plugin/projector/bookmarks", _later("projector", "bookmarks"), READ),
        PolicyRoute("/data/plugin/projector/sprite_image", _later("projector", "sprite_image"), READ),
        PolicyRoute("/data/plugin/text/tags", _later("text", "tags"), READ),
        PolicyRoute("/data/plugin/text/text", _later("text", "series"), READ),
        PolicyRoute("/data/plugin/timeseries/tags", _later("timeseries", "tags"), READ),
        PolicyRoute(
            "/data/plugin/timeseries/timeSeries", _later("timeseries", "time_series"), READ, methods=GET_OR_POST
        ),
        PolicyRoute("/data/plugin/timeseries/imageData", _later("timeseries", "image_data"), READ),
    ]
