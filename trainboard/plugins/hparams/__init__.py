"""The HParams dashboard (seed 002): an experiment's hyperparameters and metrics, and its sessions grouped, filtered,
sorted, aggregated and paged, answering as TensorBoard 2.21's hparams plugin does on the same data."""
