"""The dashboards TensorBoard 2.21 lists, in its order, and which data plugins turn each one on."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Dashboard:
    name: str
    tab_name: str
    # Element name of a custom-element dashboard, or the loading mechanism's type ("NG_COMPONENT", "IFRAME").
    element: str
    data_plugins: tuple[str, ...] = ()
    disable_reload: bool = False
    module_path: str = ""

    def loading_mechanism(self, url_prefix: str) -> dict[str, str]:
        if self.element == "NG_COMPONENT":
            return {"type": "NG_COMPONENT"}
        if self.element == "IFRAME":
            return {"type": "IFRAME", "module_path": url_prefix + self.module_path}
        return {"type": "CUSTOM_ELEMENT", "element_name": self.element}


GRAPH_PLUGINS = (
    "graphs",
    "graph_run_metadata",
    "graph_run_metadata_graph",
    "graph_keras_model",
    "graph_tagged_run_metadata",
)

DASHBOARDS: tuple[Dashboard, ...] = (
    Dashboard("timeseries", "Time Series", "NG_COMPONENT", ("scalars", "histograms", "images")),
    Dashboard("scalars", "scalars", "tf-scalar-dashboard", ("scalars",)),
    Dashboard("custom_scalars", "Custom Scalars", "tf-custom-scalar-dashboard", ("custom_scalars",)),
    Dashboard("images", "images", "tf-image-dashboard", ("images",)),
    Dashboard("audio", "audio", "tf-audio-dashboard", ("audio",)),
    Dashboard("debugger-v2", "Debugger V2", "NG_COMPONENT"),
    Dashboard("graphs", "graphs", "tf-graph-dashboard", GRAPH_PLUGINS, disable_reload=True),
    Dashboard("distributions", "distributions", "tf-distribution-dashboard", ("histograms",)),
    Dashboard("histograms", "histograms", "tf-histogram-dashboard", ("histograms",)),
    Dashboard("text", "text", "tf-text-dashboard", ("text",)),
    Dashboard("pr_curves", "PR Curves", "tf-pr-curve-dashboard", ("pr_curves",)),
    Dashboard("profile_redirect", "Profile", "tf-profile-redirect-dashboard"),
    Dashboard("hparams", "hparams", "tf-hparams-dashboard", ("hparams",)),
    Dashboard("mesh", "mesh", "mesh-dashboard", ("mesh",)),
    Dashboard("wit_redirect", "What-If Tool", "tf-wit-redirect-dashboard"),
    Dashboard(
        "projector",
        "projector",
        "IFRAME",
        ("projector",),
        disable_reload=True,
        module_path="/data/plugin/projector/index.js",
    ),
)
