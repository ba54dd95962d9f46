"""Analyses computed on the server from logged tensors: TS-VIS's exception view and embedding projections."""

# The most points a projection takes (the default of --max_projection_points). Here, not in `projections`, so that
# the settings declare it without importing numpy: commands that never project (`trainboard upload`) start light.
MAX_PROJECTION_POINTS = 100_000
