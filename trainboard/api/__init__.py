"""The Python API: an experiment's every point as pandas or polars data frames (`trainboard.open`)."""

from trainboard.api.experiment import Experiment
from trainboard.api.opening import open_experiment

__all__ = ["Experiment", "open_experiment"]
