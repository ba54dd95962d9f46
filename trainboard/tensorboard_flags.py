"""TensorBoard 2.21's command line, accepted whole: the flags trainboard ignores (each says why, once, on stderr), and
the flags that run something other than the server (--version, --inspect).

The flags that mean the same thing in both are settings (trainboard/settings.py); every other flag of
`tensorboard --help` is here, so a TensorBoard command line starts trainboard unchanged.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TextIO

from trainboard.errors import CommandError
from trainboard.version import __version__


@dataclass(frozen=True, slots=True)
class IgnoredFlag:
    """A TensorBoard flag that means nothing to trainboard: `--name` (with a value unless `switch`), and why."""

    name: str
    why: str
    switch: bool = False


IGNORED_FLAGS: tuple[IgnoredFlag, ...] = (
    IgnoredFlag(
        "load_fast",
        "trainboard has one loader (compiled kernels for simple scalars, protobuf for the rest), no Rust data server",
    ),
    IgnoredFlag("extra_data_server_flags", "trainboard runs no separate data server"),
    IgnoredFlag("grpc_creds_type", "trainboard runs no gRPC data server: it reads its own store"),
    IgnoredFlag("grpc_data_provider", "trainboard serves from its own store, not from a gRPC data provider"),
    IgnoredFlag(
        "purge_orphaned_data",
        "trainboard always drops the steps a restarted writer logs again, as TensorBoard does by default",
    ),
    IgnoredFlag("db_import", "trainboard always imports the logdir into its store (--db names the file)", switch=True),
    IgnoredFlag("max_reload_threads", "ingest uses one thread per core (at most 8), each loading one run at a time"),
    IgnoredFlag("reload_task", "ingest always runs in background threads while the server answers"),
    IgnoredFlag("reload_multifile", "trainboard always polls every event file of every run"),
    IgnoredFlag(
        "reload_multifile_inactive_secs",
        "trainboard polls every event file however old its last event (one that has not grown costs a small read)",
    ),
    IgnoredFlag("generic_data", "every trainboard plugin reads the data provider"),
    IgnoredFlag(
        "detect_file_replacement",
        "trainboard always detects a replaced event file (its first bytes changed, or it shrank) and reads it again",
    ),
    IgnoredFlag("verbosity", "absl's logging level: trainboard logs its warnings and errors to stderr"),
)

# Used with --inspect only, as in TensorBoard.
INSPECT_ONLY = ("tag", "event_file")


def version() -> str:
    from trainboard.plugins.core import VERSION  # only when asked: not on a server's way to its first answer

    return f"trainboard {__version__} (serving TensorBoard {VERSION}'s HTTP API)"


class _PrintVersion(argparse.Action):
    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> NoReturn:
        print(version())
        parser.exit(0)


def define(parser: argparse.ArgumentParser) -> None:
    """Add TensorBoard's flags that are no settings to `parser`; each is absent from the parsed flags unless given."""
    parser.add_argument("--version", action=_PrintVersion, nargs=0, help="Print trainboard's version and exit.")
    modes = parser.add_argument_group("TensorBoard's flags for other things than serving")
    modes.add_argument("--version_tb", action=_PrintVersion, nargs=0, help="As --version (TensorBoard's name).")
    modes.add_argument("--helpfull", action="help", help="As --help (TensorBoard's name).")
    modes.add_argument(
        "--inspect",
        action="store_true",
        default=argparse.SUPPRESS,
        help="Print a digest of the event files of --logdir (per run directory) or of one --event_file, and exit.",
    )
    modes.add_argument("--tag", metavar="TAG", default=argparse.SUPPRESS, help="With --inspect: only this tag.")
    modes.add_argument(
        "--event_file", metavar="PATH", default=argparse.SUPPRESS, help="With --inspect: this event file only."
    )
    ignored = parser.add_argument_group("TensorBoard's flags that trainboard accepts and ignores")
    for flag in IGNORED_FLAGS:
        if flag.switch:
            ignored.add_argument(f"--{flag.name}", action="store_true", default=argparse.SUPPRESS, help=flag.why)
        else:
            ignored.add_argument(f"--{flag.name}", metavar="VALUE", default=argparse.SUPPRESS, help=flag.why)


def apply(
    parser: argparse.ArgumentParser,
    flags: Mapping[str, object],
    *,
    logdir: str,
    logdir_spec: str,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> None:
    """Say which given flags are ignored, and why (on `stderr`); with --inspect, print the digest (on `stdout`) and
    exit."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    whys = {flag.name: flag for flag in IGNORED_FLAGS}
    inspecting = "inspect" in flags
    for name, value in flags.items():
        if name in whys:
            shown = f"--{name}" if whys[name].switch else f"--{name}={value}"
            print(f"trainboard: ignoring {shown}: {whys[name].why}", file=stderr)
        elif name in INSPECT_ONLY and not inspecting:
            print(f"trainboard: ignoring --{name}={value}: it is used with --inspect only", file=stderr)
    if inspecting:
        _inspect(parser, flags, logdir=logdir, logdir_spec=logdir_spec, stdout=stdout)


def _inspect(
    parser: argparse.ArgumentParser, flags: Mapping[str, object], *, logdir: str, logdir_spec: str, stdout: TextIO
) -> NoReturn:
    from trainboard.inspector import InspectError, inspect

    event_file = str(flags.get("event_file", ""))
    if logdir_spec:
        parser.error("--logdir_spec is not supported with --inspect")
    if logdir and event_file:
        parser.error("--inspect takes either --logdir or --event_file, not both")
    if not (logdir or event_file):
        parser.error("--inspect needs --logdir or --event_file")
    expand = os.path.expanduser
    try:
        inspect(
            stdout,
            logdir=logdir if "://" in logdir else expand(logdir),
            event_file=event_file if "://" in event_file else expand(event_file),
            tag=str(flags.get("tag", "")),
        )
    except InspectError as error:
        stdout.flush()
        raise CommandError(str(error)) from None
    raise SystemExit(0)
