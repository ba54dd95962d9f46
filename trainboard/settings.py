"""Every setting, declared once: its flag, type, default and help. CLI flags and TRAINBOARD_* variables set them."""

from __future__ import annotations

import argparse
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from trainboard.analysis import MAX_PROJECTION_POINTS


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting: `--name` on the command line, `TRAINBOARD_NAME` in the environment.

    `parse` turns the text of either into a value (raising ValueError or argparse.ArgumentTypeError with a message
    for the user); by default the default's type does. A parsed None means "as if not given".
    """

    name: str
    default: object
    help: str
    parse: Callable[[str], object] | None = None
    # The commands that take it: `trainboard` itself (serve a logdir), `trainboard ingest`, `trainboard serve`.
    commands: tuple[str, ...] = ("trainboard", "serve")


def parse_port(text: str) -> int | None:
    """A TCP port, 0 for any free one, or TensorBoard's `default` (None): 6006 or the next free port after it."""
    if text == "default":
        return None
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}: expected a number or 'default'") from None
    if not 0 <= port <= 0xFFFF:
        raise argparse.ArgumentTypeError(f"invalid port {port}: must be between 0 and 65535")
    return port


def parse_seconds(text: str) -> float:
    """A non-negative number of seconds, as TensorBoard's --reload_interval."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of seconds {text!r}") from None
    if not seconds >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be non-negative: {text!r}")
    return seconds


def parse_positive_count(text: str) -> int:
    """A whole number above zero, with optional _ or , separators (100_000, 100,000)."""
    try:
        count = int(text.replace(",", "_"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid count {text!r}: expected a whole number") from None
    if count <= 0:
        raise argparse.ArgumentTypeError(f"must be above zero: {text!r}")
    return count


def parse_switch(text: str) -> bool:
    """An on/off environment variable: 1/true/yes/on or 0/false/no/off (or empty)."""
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("", "0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError("expected 1/true/yes/on or 0/false/no/off")


def parse_true_false(text: str) -> bool:
    """TensorBoard's BOOL flags: true or false, in any case."""
    value = {"true": True, "false": False}.get(text.lower())
    if value is None:
        raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")
    return value


def parse_rate(text: str) -> float:
    """A non-negative number per second."""
    try:
        rate = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid rate {text!r}: expected a number per second") from None
    if not 0 <= rate < float("inf"):  # NaN too
        raise argparse.ArgumentTypeError(f"must be a non-negative number per second: {text!r}")
    return rate


def parse_days(text: str) -> float:
    """A number of days above zero, fractions allowed."""
    try:
        days = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of days {text!r}") from None
    if not days > 0 or days == float("inf"):  # NaN too
        raise argparse.ArgumentTypeError(f"must be a number of days above zero: {text!r}")
    return days


def parse_role(text: str) -> str:
    if text.strip().lower() not in ROLES:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(ROLES)}, not {text!r}")
    return text.strip().lower()


EXPORT_FORMATS = ("parquet", "csv", "jsonl", "tfevents")


def parse_export_format(text: str) -> str:
    if text.strip().lower() not in EXPORT_FORMATS:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(EXPORT_FORMATS)}, not {text!r}")
    return text.strip().lower()


def parse_path_prefix(text: str) -> str:
    """TensorBoard's rule: a trailing slash is dropped, a prefix must start with one."""
    prefix = text.rstrip("/")
    if prefix and not prefix.startswith("/"):
        raise argparse.ArgumentTypeError(f"must start with a slash, but got {text!r}")
    return prefix


LOCAL = ("trainboard",)
INGEST = ("trainboard", "ingest")
STORE = ("trainboard", "ingest", "serve")
# The account commands (trainboard/account_commands.py).
ACCOUNTS = ("users add", "tokens create", "tokens revoke", "tokens list")
ROLES = ("read", "write", "admin")

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "logdir",
        "",
        "Log directory (local path or fsspec URL such as s3://bucket/runs); a demo if empty. For upload, a local path.",
        commands=(*INGEST, "export", "upload"),
    ),
    Setting("logdir_spec", "", "Comma-separated name:path pairs, as TensorBoard's --logdir_spec.", commands=INGEST),
    Setting("host", "127.0.0.1", "Address to listen on (only this machine by default); excludes --bind_all."),
    Setting("bind_all", False, "Listen on every interface, IPv4 and IPv6, instead of --host."),
    Setting(
        "allowed_hosts",
        "",
        "Comma-separated Host names to answer besides localhost and --host (against DNS rebinding); * for any.",
    ),
    Setting(
        "port",
        6006,
        "Port to listen on: 6006 or the next free one when not given, 0 for any free port.",
        parse_port,
    ),
    Setting(
        "reuse_port",
        False,
        "true: set SO_REUSEPORT on the listening socket, so that another process may listen on the port too.",
        parse_true_false,
    ),
    Setting(
        "reload_interval",
        5.0,
        "Seconds between looks for new data; 0 loads once.",
        parse_seconds,
        commands=(*INGEST, "upload"),
    ),
    Setting(
        "samples_per_plugin", "", "Points per series by plugin, e.g. 'scalars=500,images=all' (0 or all: every point)."
    ),
    Setting("path_prefix", "", "Serve under this URL path prefix, e.g. /tensorboard.", parse_path_prefix),
    Setting("window_title", "", "Browser window title."),
    Setting(
        "db",
        "",
        "Store: a path, sqlite:PATH, sqlite:///PATH or postgresql://...; by default one SQLite file per logdir in the"
        " user's cache directory.",
        commands=(*STORE, *ACCOUNTS, "export"),
    ),
    Setting(
        "blobs",
        "",
        "Blob store for images, audio and other blobs: s3://bucket/prefix (AWS_* environment and config files for"
        " credentials and endpoint); by default blobs stay in the database.",
        commands=(*STORE, "export"),
    ),
    Setting(
        "experiment",
        "",
        "Name of the experiment to ingest or upload into (created when new); for tokens create, the one experiment"
        " the token is limited to; for export, the experiment of --db to export.",
        commands=("ingest", "tokens create", "export", "upload"),
    ),
    Setting(
        "watch",
        False,
        "Keep ingesting (or uploading) new data every --reload_interval instead of exiting.",
        commands=("ingest", "upload"),
    ),
    Setting(
        "server", "", "URL of the trainboard serve to upload to, e.g. https://board.example.org.", commands=("upload",)
    ),
    Setting(
        "token",
        "",
        "Token to upload with (better given as TRAINBOARD_TOKEN, which process listings do not show).",
        commands=("upload",),
    ),
    Setting(
        "forget_deleted",
        False,
        "Files deleted from the logdir leave the experiment too; only when this logdir is its one source.",
        commands=("upload",),
    ),
    Setting(
        "no_auth",
        False,
        "Serve every experiment to anyone who can connect, without tokens: only on a trusted network.",
        commands=("serve",),
    ),
    Setting(
        "upload_rate",
        20.0,
        "Upload requests per second each token may make after its --upload_burst (per replica); 0: no limit.",
        parse_rate,
        commands=("serve",),
    ),
    Setting(
        "upload_burst",
        100,
        "Upload requests a token may make at once before --upload_rate applies (per replica).",
        parse_positive_count,
        commands=("serve",),
    ),
    Setting(
        "user",
        "",
        "The user whose token to create, or whose tokens to list.",
        commands=("tokens create", "tokens list"),
    ),
    Setting(
        "role",
        "",
        "With --experiment: the token's role there, read, write or admin (read when not given); the user is given it.",
        parse_role,
        commands=("tokens create",),
    ),
    Setting(
        "expires", 0.0, "Days until the token expires; never when not given.", parse_days, commands=("tokens create",)
    ),
    Setting(
        "format",
        "parquet",
        "Export format: parquet, csv, jsonl or tfevents.",
        parse_export_format,
        commands=("export",),
    ),
    Setting("out", "", "Directory to export into (created when missing).", commands=("export",)),
    Setting("ui", "trainboard", "Web UI to serve at /: trainboard, tensorboard or tsvis."),
    Setting(
        "max_projection_points",
        MAX_PROJECTION_POINTS,
        "Most points an embedding projection (PCA, t-SNE, UMAP) takes; larger embeddings are refused.",
        parse_positive_count,
    ),
)


@dataclass(frozen=True, slots=True)
class Settings:
    logdir: str = ""
    logdir_spec: str = ""
    host: str = "127.0.0.1"
    bind_all: bool = False
    allowed_hosts: str = ""
    port: int = 6006
    reuse_port: bool = False
    reload_interval: float = 5.0
    samples_per_plugin: str = ""
    path_prefix: str = ""
    window_title: str = ""
    db: str = ""
    blobs: str = ""
    experiment: str = ""
    watch: bool = False
    server: str = ""
    token: str = ""
    forget_deleted: bool = False
    no_auth: bool = False
    upload_rate: float = 20.0
    upload_burst: int = 100
    user: str = ""
    role: str = ""
    expires: float = 0.0
    format: str = "parquet"
    out: str = ""
    ui: str = "trainboard"
    max_projection_points: int = MAX_PROJECTION_POINTS
    sampling: dict[str, int | None] = field(default_factory=dict)

    def store_url(self, logdir: str) -> str:
        """The store for a logdir: --db, or a SQLite file in the cache directory keyed by the logdir."""
        if self.db:
            return self.db
        key = hashlib.sha256(_normalised(logdir).encode()).hexdigest()[:16]
        return str(Path(platformdirs.user_cache_dir("trainboard")) / f"{key}.sqlite")


def _normalised(logdir: str) -> str:
    return logdir if "://" in logdir else os.path.abspath(os.path.expanduser(logdir))


# The key of --samples_per_plugin's bare `all`.
ALL_PLUGINS = "*"


def parse_samples_per_plugin(spec: str) -> dict[str, int | None]:
    """TensorBoard's `name=count,...` syntax; 0 or `all` keeps every point (None); a bare `all`: every plugin."""
    sampling: dict[str, int | None] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        if item.lower() == "all":
            sampling[ALL_PLUGINS] = None
            continue
        name, equals, count = item.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"--samples_per_plugin expects name=count pairs, got {item!r}")
        count = count.strip().lower()
        if count == "all":
            sampling[name.strip()] = None
            continue
        try:
            value = int(count)
        except ValueError:
            raise ValueError(f"--samples_per_plugin count for {name.strip()!r} must be an integer or 'all'") from None
        if value < 0:
            raise ValueError(f"--samples_per_plugin count for {name.strip()!r} must not be negative")
        sampling[name.strip()] = None if value == 0 else value
    return sampling
