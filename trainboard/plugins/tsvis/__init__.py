"""TS-VIS's API (seed 004) over the same store as TensorBoard's: one module per TS-VIS component."""
