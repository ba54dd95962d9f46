"""Every place where trainboard answers differently from TensorBoard 2.21 on purpose, each with its reason.

A listed difference allows the other answer; it never requires it (so TensorBoard compared with itself passes).
"""

from __future__ import annotations

# JSON object keys left out of the comparison, by route path.
IGNORED_KEYS: dict[str, dict[str, str]] = {
    "/data/environment": {
        "version": "trainboard reports its own version",
        "debug": "TensorBoard describes its own flags and data provider class",
        "creation_time": "trainboard knows when the experiment was created (its first ingest); TensorBoard says 0",
        "experiment_name": "an experiment named by trainboard ingest --experiment shows its name (a logdir's: none)",
    },
}

# Routes whose bodies differ by design, compared for status and content type only.
DIFFERENT_BODIES: dict[str, str] = {
    "/data/experiments": "TensorBoard lists no experiments for a logdir; trainboard lists those of its store",
}

# Calls on which TensorBoard crashes (500 and an HTML page): trainboard answers 4xx text/plain naming the parameter.
TENSORBOARD_CRASHES: dict[str, str] = {
    "GET /data/plugin/histograms/histograms": "TensorBoard raises on the missing run and tag",
    "GET /data/plugin/text/text": "TensorBoard raises on the missing run and tag",
    "GET /data/plugin/pr_curves/pr_curves": "TensorBoard raises on the missing run and tag",
    "GET /data/plugin/images/images?run=train&tag=batch&sample=x": "TensorBoard raises on a sample that is no integer",
    "GET /data/plugin/images/individualImage?blob_key=garbage": "TensorBoard raises on a blob key it cannot decode",
    "GET /data/plugin/graphs/graph?run=train&limit_attr_size=10": "TensorBoard raises without large_attrs_key",
    "GET /data/plugin/graphs/graph?run=train&conceptual=true": "TensorBoard raises: the run has no Keras model",
    "GET /data/plugin/timeseries/imageData?imageId=garbage": "TensorBoard raises on a blob key it cannot decode",
}

# Calls that TensorBoard rejects with werkzeug's HTML error page: trainboard answers the same status in text/plain.
HTML_ERRORS: dict[str, str] = {
    "GET /data/plugin/audio/individualAudio?blob_key=garbage": "the content_type parameter is missing",
    "GET /data/plugin/timeseries/imageData": "the imageId parameter is missing",
    "GET /data/plugin/hparams/experiment": "the request is missing",
    "POST /data/plugin/hparams/session_groups not json": "the request is no JSON",
}
