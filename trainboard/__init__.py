"""trainboard: a fast, lossless dashboard for machine-learning training logs (TensorBoard and TS-VIS compatible)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os

    from trainboard.api.experiment_frames import ExperimentFrames

from trainboard.version import __version__

__all__ = ["__version__", "load_ipython_extension", "open"]


def open(
    source: str | os.PathLike[str],
    *,
    experiment: str | None = None,
    db: str | None = None,
    blobs: str | None = None,
    ingest: bool = True,
    backend: str = "pandas",
    token: str | None = None,
) -> ExperimentFrames:
    """An experiment as data frames: `trainboard.open("runs/")` or `trainboard.open("sqlite:x.sqlite",
    experiment="mnist")` or `trainboard.open("https://server/experiment/<id>/", token=...)`; see
    `trainboard.wiring.open_experiment` and docs/python.md. Imported on first call, so
    that `import trainboard` stays light for the server."""
    from trainboard.wiring import open_experiment

    return open_experiment(
        source, experiment=experiment, db=db, blobs=blobs, ingest=ingest, backend=backend, token=token
    )


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext trainboard` in Jupyter or IPython: the `%trainboard` magic (trainboard/notebook.py)."""
    from trainboard.notebook import load_ipython_extension as load

    load(ipython)
