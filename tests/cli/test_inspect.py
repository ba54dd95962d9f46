"""`trainboard --inspect` prints what the real `tensorboard --inspect` prints on the same logdir or event file."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli.process import command
from tests.servers import BIN

pytestmark = pytest.mark.differential

UNIT = re.compile(r"^(?:These tags are in |Event statistics for (?:tag \S+ in )?)(.+):$")
# Statistics that depend on the order a directory's event files are read in.
ORDER_LINES = re.compile(r"^   (?:first_step|last_step|outoforder_steps|steps) ")


def digest(program: str, flags: list[str], cwd: Path) -> str:
    executable = [str(BIN / "tensorboard")] if program == "tensorboard" else command()
    result = subprocess.run([*executable, *flags], capture_output=True, text=True, timeout=300, cwd=cwd)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def comparable(output: str, unordered: set[str]) -> list[str]:
    """The lines of `output`, without the order-dependent statistics of the directories in `unordered`."""
    lines, unit = [], None
    for line in output.splitlines():
        if found := UNIT.match(line):
            unit = found.group(1)
        if not (unit in unordered and ORDER_LINES.match(line)):
            lines.append(line)
    return lines


def listed_out_of_name_order(logdir: str, cwd: Path) -> set[str]:
    """Directories whose event files the filesystem lists out of name order: TensorBoard's inspector reads them in
    listing order, trainboard's in name order (as both loaders do)."""
    unordered = set()
    for directory, _, names in os.walk(cwd / logdir):
        events = [name for name in names if "tfevents" in name]  # in the order the filesystem lists them
        if events != sorted(events):
            unordered.add(os.path.relpath(directory, cwd) if not os.path.isabs(logdir) else directory)
    return unordered


def event_file(logdir: Path, directory: str) -> str:
    return str(min((logdir / directory).glob("*tfevents*")))


@pytest.mark.parametrize(
    "case",
    ["relative logdir", "logdir and tag", "event file", "event file and tag", "missing logdir", "logdir as a file"],
)
def test_inspect_prints_what_tensorboard_prints(case: str, full_logdir: Path) -> None:
    cwd = full_logdir.parent
    flags = {
        "relative logdir": ["--logdir", full_logdir.name],
        "logdir and tag": ["--logdir", str(full_logdir), "--tag", "loss"],
        "event file": ["--event_file", event_file(full_logdir, "legacy")],
        "event file and tag": ["--event_file", event_file(full_logdir, "restart"), "--tag", "loss"],
        "missing logdir": ["--logdir", "missing"],
        "logdir as a file": ["--logdir", "missing/events.out.tfevents.1.host"],
    }[case]
    unordered = listed_out_of_name_order(flags[1], cwd) if flags[0] == "--logdir" else set()
    expected = digest("tensorboard", ["--inspect", *flags], cwd)
    assert len(expected.splitlines()) >= 5  # the header and more
    assert comparable(digest("trainboard", ["--inspect", *flags], cwd), unordered) == comparable(expected, unordered)


def test_a_directory_s_event_files_are_read_in_name_order(full_logdir: Path) -> None:
    # The restart run's second file starts over at step 5: read in name order, the steps go down once, from 9 to 5.
    shown = digest("trainboard", ["--inspect", "--logdir", str(full_logdir / "restart")], full_logdir)
    assert "   outoforder_steps     [(9, 5)]" in shown.splitlines()


def test_an_event_file_that_is_not_there_is_an_error(tmp_path: Path) -> None:
    result = subprocess.run(
        command("--inspect", f"--event_file={tmp_path / 'nothing'}"), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"trainboard: error: cannot read event file {tmp_path / 'nothing'}: No such file or directory"
    )
