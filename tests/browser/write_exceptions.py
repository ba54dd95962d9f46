"""Run with TS-VIS's Python (.venv-tsvis): writes exception tensors with TS-VIS's own SummaryWriter under LOGDIR/run:
a 3-D tensor over five steps whose values have clear outliers (and a NaN and an infinity at step 4), and a 4-D one.
Prints [] (run_in_tsvis reads JSON).

Usage: python write_exceptions.py LOGDIR
"""

import os
import sys

import numpy as np
from tsvis import SummaryWriter

rng = np.random.default_rng(5)
writer = SummaryWriter(os.path.join(sys.argv[1], "run"))
for step in range(5):
    values = rng.normal(step / 10, 1, size=(4, 6, 5)).astype(np.float32)
    values[1, 2, 3] = 40.0
    values[3, 0, 1] = -35.0
    if step == 4:
        values[0, 0, 0] = np.nan
        values[2, 5, 4] = np.inf
    writer.add_exception("activations", values, step)
writer.add_exception("conv", rng.normal(size=(2, 3, 4, 4)).astype(np.float32), 0)
writer.close()
print("[]")
