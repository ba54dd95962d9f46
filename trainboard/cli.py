"""The `trainboard` command: TensorBoard's flags where they make sense, plus --db and --ui; and its team commands,
`trainboard ingest` (a logdir into one experiment of a store, without serving), `trainboard serve` (every experiment
of a store, reading no logdir), `trainboard upload` (a logdir to a `trainboard serve`), the account commands and
`trainboard stores` (the local stores). Every command fails the one way: it raises `CommandError`, which `main` prints.

Flags mean what TensorBoard's mean: 127.0.0.1 unless --host or --bind_all (not both) is given, port 6006 or the next
free one when --port is not given, --logdir or --logdir_spec (not both). Without either, a demo logdir is served.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import gc
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import FrameType
from typing import Any, NoReturn

from trainboard import kernels, tensorboard_flags
from trainboard.errors import CommandError, UsageError
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.terminal import follow
from trainboard.settings import DEFAULT_PORT, SETTINGS, Setting, Settings, parse_switch
from trainboard.version import __version__

# When --port is not given, as TensorBoard: 6006, else the next free port of the 100 after it.
PORT_ATTEMPTS = 100
BACKLOG = 2048


class ListenError(CommandError):
    """Why the server could not listen, worded for the user."""


COMMANDS = {
    "trainboard": "A fast, lossless dashboard for training logs. Commands: `trainboard ingest --help`, "
    "`trainboard serve --help`, `trainboard upload --help`.",
    "ingest": "Ingest a logdir into one experiment of a store (SQLite or PostgreSQL), without serving; exits when the "
    "logdir is read unless --watch. Several may run at once on different logdirs into one database.",
    "serve": "Serve every experiment of a store at /experiment/<id>/, reading no logdir: run any number of replicas "
    "behind a proxy. Private: every request needs a token (Authorization: Bearer), unless --no_auth.",
    "export": "Export every point of an experiment (a logdir, ingested first, or --experiment of --db) to Parquet "
    "(a dataset per kind, partitioned by run), CSV or JSON Lines (a file per kind) under --out.",
    "upload": "Upload a logdir into an experiment of a `trainboard serve` (created when new, owned by the token's"
    " user): resumable and exactly once; with --watch, streams while training runs.",
    "users add": "Add a user to a store.",
    "tokens create": "Create a token of a user and print it, once, alone on standard output; the store keeps only its "
    "hash.",
    "tokens revoke": "Revoke a token, named by its id (or the start of it) as `trainboard tokens list` shows it.",
    "tokens list": "List the tokens of a store (or of one user), without their secrets.",
    "audit": "Print a store's audit log, one line per event, oldest first: sign-ins, authentication failures, tokens,"
    " roles, sharing, renames, deletions, uploads, pins (docs/access.md).",
    "stores": "List the local stores: the SQLite file in the user's cache directory that `trainboard --logdir` reads"
    " each logdir into (its logdir, whether that still exists, its size, when it was last used). `trainboard stores"
    " prune` removes them.",
    "stores prune": "Remove the local stores whose logdir is gone and, with --unused_days, those unused for that many"
    " days; never one that a running trainboard has open.",
}
# What each command cannot do without.
REQUIRED = {
    "ingest": ("db", "experiment"),
    "serve": ("db",),
    "export": ("out",),
    "upload": ("server", "experiment", "logdir"),
    "users add": ("db",),
    "tokens create": ("db", "user"),
    "tokens revoke": ("db",),
    "tokens list": ("db",),
    "audit": ("db",),
}


def parse_flags(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] = os.environ, *, command: str = "trainboard"
) -> tuple[Settings, frozenset[str]]:
    """The settings of `command` from flags, then TRAINBOARD_* variables, then defaults; and the names a flag or
    variable gave."""
    settings, given, _ = parse_command(argv, environ, command=command)
    return settings, given


def parse_command(
    argv: Sequence[str] | None,
    environ: Mapping[str, str] = os.environ,
    *,
    command: str,
    positional: Sequence[str] = (),
) -> tuple[Settings, frozenset[str], dict[str, str]]:
    """As `parse_flags`, and the values of the command's `positional` arguments by name."""
    parser = _Parser(
        prog="trainboard" if command == "trainboard" else f"trainboard {command}",
        description=COMMANDS[command] + " Every flag can also be set by its TRAINBOARD_* environment variable "
        "(TRAINBOARD_PORT=6007); a flag wins. See docs/settings.md.",
    )
    settings_of_command = [setting for setting in SETTINGS if command in setting.commands]
    for setting in settings_of_command:
        if isinstance(setting.default, bool) and setting.parse is None:
            parser.add_argument(f"--{setting.name}", action="store_true", default=argparse.SUPPRESS, help=setting.help)
        else:
            shown = f" Default: {setting.default}." if setting.default else ""
            parser.add_argument(
                f"--{setting.name}", type=_parser_of(setting), default=argparse.SUPPRESS, help=setting.help + shown
            )
    if command == "trainboard":
        tensorboard_flags.define(parser)
    for name in positional:
        parser.add_argument(name)
    flags = vars(parser.parse_args(argv))
    arguments = {name: flags.pop(name) for name in positional}
    # Each value as its setting's parse made it: the type of its field.
    values: dict[str, Any] = {}
    for setting in settings_of_command:
        variable = f"TRAINBOARD_{setting.name.upper()}"
        if setting.name in flags:
            value = flags[setting.name]
        elif variable in environ:
            parse = parse_switch if isinstance(setting.default, bool) else _parser_of(setting)
            try:
                value = parse(environ[variable])
            except (ValueError, argparse.ArgumentTypeError) as error:
                parser.error(f"environment variable {variable}={environ[variable]!r}: {error}")
        else:
            value = None
        if value is not None:
            values[setting.name] = value
    settings, given = Settings(**values), frozenset(values)
    if command == "trainboard":
        tensorboard_flags.apply(parser, flags, logdir=settings.logdir, logdir_spec=settings.logdir_spec)
    _check(parser, settings, given)
    for name in REQUIRED.get(command, ()):
        if name not in given:
            parser.error(f"--{name} is required")
    if command == "ingest" and not (settings.logdir or settings.logdir_spec):
        parser.error("--logdir (or --logdir_spec) is required")
    if command == "export" and not (settings.logdir or settings.db):
        parser.error("--logdir or --db is required")
    return settings, given, arguments


class _Parser(argparse.ArgumentParser):
    """Its errors raised as `UsageError`, which `main` prints as it prints every command's failure."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.format_usage())


def _parser_of(setting: Setting) -> Callable[[str], object]:
    return setting.parse or type(setting.default)


def _check(parser: argparse.ArgumentParser, settings: Settings, given: frozenset[str]) -> None:
    """Combinations TensorBoard refuses, and a --ui whose package is missing."""
    if settings.logdir and settings.logdir_spec:
        parser.error("may not give both --logdir and --logdir_spec")
    if settings.bind_all and "host" in given:
        parser.error("may not give both --host and --bind_all")
    if settings.ui == "tensorboard":
        from trainboard.http.ui import tensorboard_ui

        if tensorboard_ui.webfiles_zip() is None:
            parser.error(tensorboard_ui.MISSING)
    if settings.ui == "tsvis":
        from trainboard.http.ui import tsvis_ui

        if tsvis_ui.frontend_directory() is None:
            parser.error(tsvis_ui.MISSING)
        if settings.path_prefix.strip("/"):
            parser.error("--ui tsvis cannot be served under --path_prefix: TS-VIS's UI names its files from the root")


def listen(settings: Settings, *, scan: bool) -> socket.socket:
    """A listening socket at --host (or every interface with --bind_all) and --port; with `scan`, the first free
    port from 6006 on."""
    ports = range(DEFAULT_PORT, DEFAULT_PORT + PORT_ATTEMPTS) if scan else range(settings.port, settings.port + 1)
    host = None if settings.bind_all else settings.host
    for port in ports:
        try:
            return _bind(host, port, reuse_port=settings.reuse_port)
        except OSError as error:
            if error.errno == errno.EADDRINUSE and scan:
                continue
            raise ListenError(_bind_failure(error, host, port)) from None
    raise ListenError(f"could not bind to any port from {ports.start} to {ports.stop - 1}: all are in use")


def _bind(host: str | None, port: int, *, reuse_port: bool = False) -> socket.socket:
    """A socket listening at host:port; host None: every interface, IPv6 and IPv4 on one socket where possible."""
    try:
        addresses = socket.getaddrinfo(
            host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, socket.IPPROTO_TCP, socket.AI_PASSIVE
        )
    except socket.gaierror as error:
        raise ListenError(f"could not resolve host {host!r}: {error.strerror}") from None
    if host is None:
        # As TensorBoard's --bind_all: the IPv6 wildcard, which also takes IPv4, when the system has one.
        addresses.sort(key=lambda address: address[0] != socket.AF_INET6)
    family, kind, protocol, _, address = addresses[0]
    listener = socket.socket(family, kind, protocol)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if host is None and family == socket.AF_INET6:
            with contextlib.suppress(OSError):
                listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        listener.bind(address)
        listener.listen(BACKLOG)
    except OSError:
        listener.close()
        raise
    return listener


def _bind_failure(error: OSError, host: str | None, port: int) -> str:
    if error.errno == errno.EADDRINUSE:
        return f"could not bind to port {port}: it is already in use (pick another with --port, or 0 for any)"
    if error.errno == errno.EACCES:
        return f"could not bind to port {port}: only the superuser may"
    if error.errno == errno.EADDRNOTAVAIL:
        return f"could not bind to unavailable address {host}"
    return f"could not listen on {host or 'every interface'} port {port}: {error.strerror}"


def url(settings: Settings, listener: socket.socket) -> str:
    """Where users reach the server, as TensorBoard words it: the machine's name with --bind_all."""
    port = int(listener.getsockname()[1])
    if settings.bind_all:
        host = socket.getfqdn()
        try:
            socket.create_connection((host, port), timeout=1).close()
        except OSError:
            host = "localhost"
    else:
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"http://{host}:{port}{settings.path_prefix}/"


def main(argv: Sequence[str] | None = None) -> None:
    # Ctrl+C or SIGTERM: uvicorn shuts down cleanly (the app's lifespan closes the store), then raises the signal
    # again for its default effect: a KeyboardInterrupt (after asyncio's CancelledError), or death by SIGTERM. A
    # shutdown the user asked for is no failure: exit 0, no traceback. Before the server runs, the same.
    # A command that fails raises CommandError: one line on stderr (after the usage for a wrong command line).
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        _run(argv)
    except KeyboardInterrupt:
        raise SystemExit(0) from None
    except CommandError as error:
        usage = error.usage if isinstance(error, UsageError) else ""
        print(f"{usage}trainboard: error: {error}", file=sys.stderr)
        raise SystemExit(error.exit_code) from None


def _interrupt(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _account_command(arguments: list[str]) -> None:
    from trainboard.account_commands import COMMANDS as ACCOUNT_COMMANDS
    from trainboard.account_commands import run_account_command

    group, *rest = arguments
    command = f"{group} {rest[0]}" if rest else group
    if command not in ACCOUNT_COMMANDS:
        choices = ", ".join(f"`trainboard {name}`" for name in ACCOUNT_COMMANDS if name.startswith(group))
        raise UsageError(f"expected one of {choices}", f"usage: trainboard {group} ...\n")
    settings, given, values = parse_command(rest[1:], command=command, positional=ACCOUNT_COMMANDS[command])
    run_account_command(command, settings, given, values)


def _stores_command(arguments: list[str]) -> None:
    from trainboard.store_commands import list_stores, prune_stores

    if arguments[:1] == ["prune"]:
        settings, _ = parse_flags(arguments[1:], command="stores prune")
        prune_stores(settings.unused_days or None)
    else:
        parse_flags(arguments, command="stores")
        list_stores()


def _run(argv: Sequence[str] | None) -> None:
    arguments = list(sys.argv[1:] if argv is None else argv)
    from trainboard.store.errors import StoreUnavailable
    from trainboard.store.experiment_names import AmbiguousName

    try:
        _command(arguments)
    except (StoreUnavailable, AmbiguousName) as error:
        raise CommandError(str(error)) from None


def _command(arguments: list[str]) -> None:
    if arguments and arguments[0] in ("users", "tokens"):
        _account_command(arguments)
        return
    if arguments and arguments[0] == "stores":
        _stores_command(arguments[1:])
        return
    if arguments and arguments[0] == "audit":
        from trainboard.audit_command import run_audit

        run_audit(parse_flags(arguments[1:], command="audit")[0])
        return
    command = (
        arguments.pop(0) if arguments and arguments[0] in ("ingest", "serve", "export", "upload") else "trainboard"
    )
    settings, given = parse_flags(arguments, command=command)
    if command == "ingest":
        _ingest(settings)
    elif command == "upload":
        from trainboard.uploader.command import run_upload

        run_upload(settings)
    elif command == "export":
        from trainboard.wiring import export

        export(settings)
    else:
        _serve(settings, given, command)


def _ingest(settings: Settings) -> None:
    from trainboard.wiring import ingest

    progress = IngestProgress()
    stop = threading.Event()
    shown = threading.Thread(target=follow, args=(progress, sys.stderr, stop), name="trainboard-progress", daemon=True)

    def started() -> None:
        print(f"Ingesting {settings.logdir or settings.logdir_spec} into {settings.experiment!r}", file=sys.stderr)
        shown.start()

    try:
        ingest(settings, progress, stop, started)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        if shown.is_alive():
            shown.join(timeout=1)


@contextlib.contextmanager
def _uncollected() -> Iterator[None]:
    """The cyclic garbage collector paused while the server's modules are imported and its app is built, then those
    objects kept out of its later passes (frozen): they live as long as the process, and the passes over them during
    start-up cost ~7 % of a restart's way to its first answer."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _serve(settings: Settings, given: frozenset[str], command: str) -> None:
    from trainboard.http.log_format import JSON, configure_logging, notify

    configure_logging(settings.log_format)

    def say(notice: str, *, warning: bool = False) -> None:
        notify(settings.log_format, notice, warning=warning)

    listener = listen(settings, scan="port" not in given)
    if command == "trainboard" and not settings.logdir and not settings.logdir_spec:
        from trainboard.demo import demo_logdir  # only without a logdir: not on a server's way to its first answer

        settings = dataclasses.replace(settings, logdir=str(demo_logdir()))
        say(
            f"No --logdir given: serving a demo logdir that trainboard wrote to {settings.logdir}\n"
            "  (serve your own with: trainboard --logdir DIR)"
        )
    location = settings.logdir or settings.logdir_spec
    progress = IngestProgress()
    with _uncollected():
        from trainboard.http.exposure import exposure_warnings
        from trainboard.http.server import server_of
        from trainboard.wiring import local_app, store_app

        # The store opens here, so that its errors come before the URL.
        app = local_app(settings, progress) if command == "trainboard" else store_app(settings)
    say(f"trainboard {__version__} at {url(settings, listener)} (Press CTRL+C to quit)")
    if note := kernels.pure_python_note():
        say(note)
    for warning in exposure_warnings(settings):
        say(f"{warning}.", warning=True)
    if not settings.bind_all and "host" not in given:
        say(f"Serving on {settings.host} only; to expose to the network, use a proxy or pass --bind_all")
    if settings.metrics_port:
        host = f"[{settings.metrics_host}]" if ":" in settings.metrics_host else settings.metrics_host
        say(f"Metrics at http://{host}:{settings.metrics_port}/metrics")
    stop = threading.Event()
    if command == "trainboard":
        say(f"Reading {location}")
        # Progress redrawn on a terminal's line: not for a log collector.
        if settings.log_format != JSON:
            threading.Thread(
                target=follow, args=(progress, sys.stderr, stop), name="trainboard-progress", daemon=True
            ).start()
    else:
        say(f"Serving every experiment of {settings.db}")
    try:
        server_of(app, settings.log_format).run(sockets=[listener])
    finally:
        stop.set()
        listener.close()
