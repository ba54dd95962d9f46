"""trainboard: a fast, lossless dashboard for machine-learning training logs (TensorBoard and TS-VIS compatible)."""

__version__ = "0.1.0"
