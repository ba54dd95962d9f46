"""Analyses computed on the server: from logged tensors, TS-VIS's exception view and embedding projections; for
groups of runs, the statistics of their means (`statistics`)."""
