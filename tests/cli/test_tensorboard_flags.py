"""TensorBoard 2.21's command line starts trainboard unchanged: every flag `tensorboard --help` lists is accepted; the
ones that mean nothing here say so, once each, and why."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import pytest
import tensorboard.version

from tests import loopback
from tests.cli.logs import write_run
from tests.cli.process import command, trainboard
from tests.servers import BIN
from trainboard import __version__
from trainboard.cli import parse_flags
from trainboard.settings import SETTINGS
from trainboard.tensorboard_flags import IGNORED_FLAGS, INSPECT_ONLY

# `  --name METAVAR` or `  -h, --help` at the start of a line of the options section; a switch has no metavar.
HELP_FLAG = re.compile(r"^  (?:-\w, )?--(\w+)(?: (\{[^}]*\}|\S+))?", re.MULTILINE)
# Flags that print something and exit, tested on their own.
EXITING = ("help", "helpfull", "version_tb", "inspect")
# A value of the kind TensorBoard's help names, for the flags trainboard ignores.
BY_METAVAR = {"BOOL": "false", "COUNT": "4", "SECONDS": "60", "TYPE": "auto", "PORT": "localhost:6806"}
WHYS = {flag.name: flag.why for flag in IGNORED_FLAGS}


@functools.cache
def tensorboard_help_flags() -> dict[str, str | None]:
    """Every flag of the real `tensorboard --help`, with its metavar (None for a switch)."""
    shown = subprocess.run(
        [str(BIN / "tensorboard"), "--help"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    options = shown.split("\noptions:\n", 1)[1]
    return {found.group(1): found.group(2) for found in HELP_FLAG.finditer(options)}


def argument(name: str, metavar: str | None, tmp_path: Path) -> str:
    """`--name=value` with a value TensorBoard would take (trainboard reads those of its settings)."""
    if metavar is None:
        return f"--{name}"
    values = {
        "logdir": str(tmp_path / "logs"),
        "logdir_spec": f"a:{tmp_path / 'logs'}",
        "host": "127.0.0.1",
        "port": "0",
        "reuse_port": "true",
        "reload_interval": "0",
        "samples_per_plugin": "scalars=100",
        "path_prefix": "/board",
        "window_title": "runs",
        "db": str(tmp_path / "store.sqlite"),
        "tag": "loss",
        "event_file": str(tmp_path / "events.out.tfevents.1"),
    }
    if name in values:
        return f"--{name}={values[name]}"
    if metavar.startswith("{"):
        return f"--{name}={metavar.strip('{}').split(',')[-1]}"
    return f"--{name}={BY_METAVAR.get(metavar, 'x')}"


def test_the_help_lists_the_flags_this_test_knows() -> None:
    flags = tensorboard_help_flags()
    # The parse of the help itself: a few flags of each kind.
    assert flags["logdir"] == "PATH"
    assert flags["bind_all"] is None
    assert flags["load_fast"] == "{false,auto,true}"
    assert len(flags) >= 29  # 2.21 lists 29, -h and --helpfull among them


def test_every_flag_of_tensorboard_help_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = {setting.name for setting in SETTINGS}
    refused, wrong = [], []
    for name, metavar in tensorboard_help_flags().items():
        if name in EXITING:
            continue
        flag = argument(name, metavar, tmp_path)
        try:
            _, given = parse_flags([flag], environ={})
        except SystemExit:
            refused.append(f"{flag}: {capsys.readouterr().err.splitlines()[-1]}")
            continue
        printed = capsys.readouterr().err
        if name in WHYS:
            expected = f"trainboard: ignoring {flag}: {WHYS[name]}\n"
        elif name in INSPECT_ONLY:
            expected = f"trainboard: ignoring {flag}: it is used with --inspect only\n"
        else:
            expected = ""
            if name not in settings or name not in given:
                wrong.append(f"{flag} is neither ignored nor a setting")
        if printed != expected:
            wrong.append(f"{flag} printed {printed!r}, not {expected!r}")
    assert refused == []
    assert wrong == []


def test_trainboard_serves_with_every_ignored_flag_saying_why_once(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", steps=3)
    flags = tensorboard_help_flags()
    # --verbosity is absl's, listed by --helpfull only.
    ignored = [argument(name, flags.get(name, "VALUE"), tmp_path) for name in (*WHYS, *INSPECT_ONLY)]
    meant = [f"--logdir={tmp_path / 'logs'}", "--port=0", "--reload_interval=0", f"--db={tmp_path / 'db.sqlite'}"]
    with trainboard(tmp_path / "run", *meant, *ignored, "--reuse_port=true") as server:
        assert loopback.get(f"{server.url}data/runs").json() == ["run"]
        lines = server.errors().splitlines()
    for flag in ignored:
        assert sum(line.startswith(f"trainboard: ignoring {flag}: ") for line in lines) == 1, flag


@pytest.mark.parametrize("flag", ["--version", "--version_tb"])
def test_version_names_trainboard_and_the_tensorboard_api_it_serves(flag: str) -> None:
    result = subprocess.run(command(flag), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout == f"trainboard {__version__} (serving TensorBoard {tensorboard.version.VERSION}'s HTTP API)\n"


def test_helpfull_is_help() -> None:
    result = subprocess.run(command("--helpfull"), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith("usage: trainboard ")
    assert "TensorBoard's flags that trainboard accepts and ignores" in result.stdout


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--inspect"], "--inspect needs --logdir or --event_file"),
        (["--inspect", "--logdir=a", "--event_file=b"], "--inspect takes either --logdir or --event_file, not both"),
        (["--inspect", "--logdir_spec=a:b"], "--logdir_spec is not supported with --inspect"),
        (["--reuse_port=maybe"], "argument --reuse_port: expected true or false, not 'maybe'"),
    ],
)
def test_what_tensorboard_refuses_is_refused(flags: list[str], message: str) -> None:
    result = subprocess.run(command(*flags), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result
    assert result.stderr.splitlines()[-1] == f"trainboard: error: {message}"
