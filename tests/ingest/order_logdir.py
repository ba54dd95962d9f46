"""One logdir with every plugin, hparams groups whose sessions differ, and TS-VIS runs; and the same logdir arriving
one run (or one file) at a time, in any order, as training jobs finish."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.hparams.logdirs import ACCURACY, LOSS, write_session, write_writers_logdir
from tests.logdirs import write_full_logdir
from tests.tsvis.logdirs import FIXTURES, write_graph_runs
from trainboard.reader.dialect import file_dialect, is_projector_config, is_structure_graph_file

# One group, four sessions with different hparams, statuses and start times: which session's hparams the group shows
# depends on the run order and on the statuses asked for.
DIFFERING = {
    "b_second": ({"lr": 0.2, "optimizer": "sgd", "layers": 2}, "STATUS_FAILURE"),
    "a_first": ({"lr": 0.1, "optimizer": "adam"}, "STATUS_SUCCESS"),
    "c_third": ({"lr": 0.3, "optimizer": "momentum 50%", "batch_norm": True}, "STATUS_RUNNING"),
    "a_first/nested": ({"lr": 0.4, "layers": 4}, None),
}


def write_order_logdir(root: Path) -> Path:
    """The hparams writers' experiment summary at the root and their sessions below, a group of differing sessions
    under differ/, the differential suite's full logdir under full/ (its experiment summary comes second), and TS-VIS's
    sample runs, hparams files and graph runs under tsvis/."""
    write_writers_logdir(root, trials=6)
    write_full_logdir(root / "full")
    for index, (name, (hparams, status)) in enumerate(DIFFERING.items()):
        metrics = {LOSS: [1.0 / (index + 1), 0.5 / (index + 1)], ACCURACY: [0.5 + index / 10]}
        write_session(
            root / "differ" / name, hparams, trial_id="shared", status=status, metrics=metrics, start_offset=index
        )
    shutil.copytree(FIXTURES / "logs", root / "tsvis" / "logs")
    shutil.copytree(FIXTURES / "hp", root / "tsvis" / "hp")
    write_graph_runs(root / "tsvis")
    for path in (root / "tsvis").rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def is_log_file(name: str) -> bool:
    return file_dialect(name) is not None or is_structure_graph_file(name)


def run_units(source: Path) -> dict[str, list[Path]]:
    """The files of each run (relative paths, as a writer makes them: log files by name, then the run's other files
    such as projector assets and configs), by run directory; a file outside any run belongs to its nearest run above,
    else to its own directory."""
    directories = {path.parent for path in source.rglob("*") if path.is_file() and is_log_file(path.name)}
    units: dict[str, list[Path]] = {}
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        owner = next((d for d in (path.parent, *path.parent.parents) if d in directories), path.parent)
        units.setdefault(owner.relative_to(source).as_posix(), []).append(path.relative_to(source))
    return {
        run: sorted(files, key=lambda file: (not is_log_file(file.name), is_projector_config(file.name), str(file)))
        for run, files in units.items()
    }


def arrive(source: Path, target: Path, file: Path) -> None:
    """Copies `file` (a path relative to both) from `source` into `target`."""
    (target / file).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / file, target / file)
