"""Which writer's schema an event file follows, told by its name: TensorBoard's or TS-VIS's.

TensorBoard reads only names containing "tfevents". TS-VIS writes `events.out.<time>.<host>`, and
`hparams.events.out.*` and `projector.events.out.*` beside it; its records differ from TensorBoard's on a few field
numbers (see trainboard/reader/protos/tsvis.proto), so a logdir may hold files of both dialects.
"""

from __future__ import annotations

import enum
import posixpath
import re

TSVIS_NAME = re.compile(r"(?:hparams\.|projector\.)?events\.out\.")
PROJECTOR_CONFIG = "projector_config.pbtxt"
# Where a run's plugin assets keep a projector config, below the run's directory.
PROJECTOR_ASSETS = ("plugins", "projector")


class Dialect(enum.Enum):
    TENSORBOARD = "tensorboard"
    TSVIS = "tsvis"


def file_dialect(path: str) -> Dialect | None:
    """The dialect of the event file at `path` (a local or URL path), or None when it is no event file."""
    name = posixpath.basename(path)
    if "tfevents" in name:
        return Dialect.TENSORBOARD
    if TSVIS_NAME.match(name):
        return Dialect.TSVIS
    return None


def is_structure_graph_file(path: str) -> bool:
    """TS-VIS's structure graphs are JSON files beside the event files (see reader/structure_graph.py)."""
    return posixpath.basename(path).endswith(".json")


def is_projector_config(path: str) -> bool:
    """TensorBoard's projector reads a `projector_config.pbtxt` beside a run's event files (see reader/projector.py)."""
    return posixpath.basename(path) == PROJECTOR_CONFIG
