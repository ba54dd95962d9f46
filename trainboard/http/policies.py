"""Who may call each route of `trainboard serve`: one declared policy per route, by its path as an experiment's
routes declare it (the same path serves the default experiment at / and every experiment under /experiment/<id>,
live and below /at/<pin>).

A route that is not in this table is refused to everyone (`trainboard.http.guard`), and the route-policy test fails
on it: a new route must be added here, with the least it needs.
"""

from __future__ import annotations

from enum import Enum

from trainboard.access.roles import Role


class Policy(Enum):
    # Anyone, even without a token.
    ANYONE = "anyone"
    # Any valid token; the route answers only with what the token may see.
    SIGNED_IN = "signed in"
    # A role on the experiment the URL names (at /, the default experiment; without one, a valid token).
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"

    @property
    def role(self) -> Role | None:
        return {"read": Role.READ, "write": Role.WRITE, "admin": Role.ADMIN}.get(self.value)


_READ_ROUTES = (
    # TensorBoard's core and classic API.
    "/data/logdir",
    "/data/environment",
    "/data/runs",
    "/data/runs_by_type",
    "/data/plugins_listing",
    "/data/ingest_progress",
    "/data/scalars",
    "/data/histograms",
    "/data/compressedHistograms",
    "/data/images",
    "/data/individualImage",
    "/data/audio",
    "/data/individualAudio",
    "/data/graph",
    "/data/run_metadata",
    "/data/blob/{blob_key}",
    # TensorBoard's plugins.
    "/data/plugin/custom_scalars/layout",
    "/data/plugin/custom_scalars/scalars",
    "/data/plugin/custom_scalars/download_data",
    "/data/plugin/graphs/info",
    "/data/plugin/graphs/runs",
    "/data/plugin/graphs/graph",
    "/data/plugin/graphs/run_metadata",
    "/data/plugin/histograms/tags",
    "/data/plugin/histograms/histograms",
    "/data/plugin/distributions/tags",
    "/data/plugin/distributions/distributions",
    "/data/plugin/hparams/experiment",
    "/data/plugin/hparams/session_groups",
    "/data/plugin/hparams/metric_evals",
    "/data/plugin/hparams/download_data",
    "/data/plugin/images/tags",
    "/data/plugin/images/images",
    "/data/plugin/images/individualImage",
    "/data/plugin/audio/tags",
    "/data/plugin/audio/audio",
    "/data/plugin/audio/individualAudio",
    "/data/plugin/mesh/tags",
    "/data/plugin/mesh/meshes",
    "/data/plugin/mesh/data",
    "/data/plugin/pr_curves/tags",
    "/data/plugin/pr_curves/pr_curves",
    "/data/plugin/projector/projection",
    "/data/plugin/projector/runs",
    "/data/plugin/projector/info",
    "/data/plugin/projector/tensor",
    "/data/plugin/projector/metadata",
    "/data/plugin/projector/bookmarks",
    "/data/plugin/projector/sprite_image",
    "/data/plugin/scalars/tags",
    "/data/plugin/scalars/scalars",
    "/data/plugin/scalars/scalars_multirun",
    "/data/plugin/text/tags",
    "/data/plugin/text/text",
    "/data/plugin/timeseries/tags",
    "/data/plugin/timeseries/timeSeries",
    "/data/plugin/timeseries/imageData",
    # trainboard's own: every point as CSV, JSON or Parquet, frames for trainboard.open, live events, run filters and
    # groups.
    "/data/trainboard/scalars",
    "/data/trainboard/frames/{kind}",
    "/data/trainboard/events",
    "/data/trainboard/capabilities",
    "/data/trainboard/runs",
    "/data/trainboard/groups/scalars",
    # TS-VIS's API.
    "/api/init",
    "/api/getCategory",
    "/api/scalar",
    "/api/image",
    "/api/image_raw",
    "/api/audio",
    "/api/audio_raw",
    "/api/text",
    "/api/histogram",
    "/api/distribution",
    "/api/hyperparm",
    "/api/graph",
    "/api/projector",
    "/api/projector_raw",
    "/api/projector_sample",
    "/api/projector_data",
    "/api/exception",
    "/api/exception_data",
    "/api/exception_hist",
    "/api/exception_box",
    # The web UIs' pages (--ui trainboard, tensorboard, tsvis).
    "/",
    "/index.html",
    "/index.js",
    "/icon_bundle.svg",
    "/chart_worker.js",
    "/data/plugin_entry.html",
    "/data/plugin/projector/index.js",
    "/data/plugin/projector/projector_binary.html",
    "/data/plugin/projector/projector_binary.js",
    "/audio",
    "/events",
    "/graphs",
    "/histograms",
    "/images",
)

POLICIES: dict[str, Policy] = {
    **dict.fromkeys(_READ_ROUTES, Policy.READ),
    # Anyone who may read an experiment may pin it: a pin changes nothing of what it shows.
    "/pins": Policy.READ,
    "/pins/{pin_id}": Policy.READ,
    "/data/experiments": Policy.SIGNED_IN,
    "/upload/files": Policy.WRITE,
    "/upload/file": Policy.WRITE,
    "/upload/forget": Policy.WRITE,
    "/admin/share": Policy.ADMIN,
    "/admin/public": Policy.ADMIN,
    "/admin/rename": Policy.ADMIN,
    "/admin/access": Policy.ADMIN,
    "/admin/delete": Policy.ADMIN,
    # The OpenAPI document of the routes: it describes them, and holds no data.
    "/openapi.json": Policy.ANYONE,
    # Who is signed in (no one, without a session), signing in with a token, signing out.
    "/auth/me": Policy.ANYONE,
    "/auth/session": Policy.ANYONE,
    "/auth/signin": Policy.ANYONE,
    "/auth/signout": Policy.ANYONE,
}

# Folders of the web UIs' built files: every file in them, as the page that loads them.
FOLDERS: dict[str, Policy] = {
    "/assets/": Policy.READ,
    "/font-roboto/": Policy.READ,
    "/tf-imports/": Policy.READ,
    "/static/": Policy.READ,
}


# trainboard's own UI (--ui trainboard) holds no data in its page and built files, and its page signs a visitor in:
# anyone may load them. TensorBoard's and TS-VIS's pages, which cannot sign anyone in, need the role.
OPEN_PAGES = ("/", "/index.html")
OPEN_FOLDER = "/assets/"


def policy_of(path: str, ui: str = "trainboard") -> Policy | None:
    """The policy of a route by its declared path (or, in a folder of built files, by any path in it) in an app
    serving the web UI `ui` (--ui)."""
    if ui == "trainboard" and (path in OPEN_PAGES or path.startswith(OPEN_FOLDER)):
        return Policy.ANYONE
    found = POLICIES.get(path)
    if found is not None:
        return found
    return next((policy for folder, policy in FOLDERS.items() if path.startswith(folder)), None)
