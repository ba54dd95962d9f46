"""The Python API: an experiment's every point as pandas or polars data frames (`trainboard.open`)."""

from trainboard.api.experiment import Experiment
from trainboard.api.experiment_frames import ExperimentFrames

__all__ = ["Experiment", "ExperimentFrames"]
