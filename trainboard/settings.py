"""Every setting, declared once: a field of `Settings` with its type, default and help. CLI flags and TRAINBOARD_*
variables set them (trainboard/cli.py), and docs/settings.md documents them (a test checks it). A leaf: it imports
nothing of trainboard, so that every layer may take its settings."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

Value = TypeVar("Value")

# --stalled_after's default, also that of a provider built without settings (the Python API's).
STALLED_AFTER = 600.0
# The commands that take a setting, by the names cli.py gives them.
SERVING = ("trainboard", "serve")
INGEST = ("trainboard", "ingest")
STORE = ("trainboard", "ingest", "serve")
ACCOUNTS = ("users add", "tokens create", "tokens revoke", "tokens list", "audit")


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting, as `SETTINGS` lists it: `--name` on the command line, `TRAINBOARD_NAME` in the environment.

    `parse` turns the text of either into a value (raising ValueError or argparse.ArgumentTypeError with a message
    for the user); by default the default's type does. A parsed None means "as if not given".
    """

    name: str
    default: object
    help: str
    parse: Callable[[str], object] | None = None
    # The commands that take it: `trainboard` itself (serve a logdir), `trainboard ingest`, `trainboard serve`, ...
    commands: tuple[str, ...] = SERVING


def _setting(
    default: Value,
    help: str,
    parse: Callable[[str], Value | None] | None = None,
    *,
    commands: tuple[str, ...] = SERVING,
) -> Value:
    """A field of `Settings`: its default, and the rest of its `Setting` kept in the field's metadata."""
    return dataclasses.field(default=default, metadata={"help": help, "parse": parse, "commands": commands})


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


def parse_metrics_port(text: str) -> int:
    """A TCP port, or 0 for none."""
    port = parse_port(text)
    if port is None:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}: expected a number (0: no metrics)")
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


def parse_since(text: str, now: Callable[[], float] = time.time) -> float:
    """A moment as Unix seconds: an ISO 8601 date or time (UTC unless it names a zone), or an age before now: a
    number and s, m, h or d (90m, 7d)."""
    age = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd])", text.strip())
    if age:
        return now() - float(age.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86_400}[age.group(2)]
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid time {text!r}: expected a date or time (2026-11-01, 2026-11-01T09:30) or an age (12h, 7d)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


def parse_path_prefix(text: str) -> str:
    """TensorBoard's rule: a trailing slash is dropped, a prefix must start with one."""
    prefix = text.rstrip("/")
    if prefix and not prefix.startswith("/"):
        raise argparse.ArgumentTypeError(f"must start with a slash, but got {text!r}")
    return prefix


def parse_logdir(text: str) -> str:
    """A local path with `~` expanded, or an fsspec URL as given."""
    return text if "://" in text else os.path.expanduser(text)


def _choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text.strip().lower() not in choices:
            raise argparse.ArgumentTypeError(f"must be one of {', '.join(choices)}, not {text!r}")
        return text.strip().lower()

    return parse


def parse_sampling(text: str) -> str:
    """--samples_per_plugin, checked (`Settings.sampling` reads it)."""
    try:
        parse_samples_per_plugin(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


# The port when --port is not given; trainboard takes the next free one if it is taken, as TensorBoard does.
DEFAULT_PORT = 6006
# The web UIs --ui may serve at /.
UIS = ("trainboard", "tensorboard", "tsvis")
EXPORT_FORMATS = ("parquet", "csv", "jsonl", "tfevents")
LOG_FORMATS = ("text", "json")


@dataclass(frozen=True, slots=True)
class Settings:
    logdir: str = _setting(
        "",
        "Log directory (local path or fsspec URL such as s3://bucket/runs); a demo if empty. For upload, a local path.",
        parse_logdir,
        commands=(*INGEST, "export", "upload"),
    )
    logdir_spec: str = _setting("", "Comma-separated name:path pairs, as TensorBoard's --logdir_spec.", commands=INGEST)
    host: str = _setting("127.0.0.1", "Address to listen on (only this machine by default); excludes --bind_all.")
    bind_all: bool = _setting(False, "Listen on every interface, IPv4 and IPv6, instead of --host.")
    allowed_hosts: str = _setting(
        "",
        "Comma-separated Host names to answer besides localhost and --host (against DNS rebinding); * for any.",
    )
    port: int = _setting(
        DEFAULT_PORT,
        f"Port to listen on: {DEFAULT_PORT} or the next free one when not given, 0 for any free port.",
        parse_port,
    )
    reuse_port: bool = _setting(
        False,
        "true: set SO_REUSEPORT on the listening socket, so that another process may listen on the port too.",
        parse_true_false,
    )
    reload_interval: float = _setting(
        5.0, "Seconds between looks for new data; 0 loads once.", parse_seconds, commands=(*INGEST, "upload")
    )
    samples_per_plugin: str = _setting(
        "",
        "Points per series by plugin, e.g. 'scalars=500,images=all' (0 or all: every point).",
        parse_sampling,
    )
    path_prefix: str = _setting("", "Serve under this URL path prefix, e.g. /tensorboard.", parse_path_prefix)
    window_title: str = _setting("", "Browser window title.")
    db: str = _setting(
        "",
        "Store: a path, sqlite:PATH, sqlite:///PATH or postgresql://...; by default one SQLite file per logdir in the"
        " user's cache directory.",
        commands=(*STORE, *ACCOUNTS, "export"),
    )
    blobs: str = _setting(
        "",
        "Blob store for images, audio and other blobs: s3://bucket/prefix (AWS_* environment and config files for"
        " credentials and endpoint); by default blobs stay in the database.",
        commands=(*STORE, "export"),
    )
    read_db: str = _setting(
        "",
        "Hot standbys of the PostgreSQL --db that take its reads: postgresql:// URLs separated by commas; writes go to"
        " --db, and each client reads its own writes at once.",
        commands=("serve",),
    )
    experiment: str = _setting(
        "",
        "Name of the experiment to ingest or upload into (created when new); for tokens create, the one experiment"
        " the token is limited to; for export, the experiment of --db to export; for audit, its events only (name or"
        " id).",
        commands=("ingest", "tokens create", "export", "upload", "audit"),
    )
    watch: bool = _setting(
        False,
        "Keep ingesting (or uploading) new data every --reload_interval instead of exiting.",
        commands=("ingest", "upload"),
    )
    server: str = _setting(
        "", "URL of the trainboard serve to upload to, e.g. https://board.example.org.", commands=("upload",)
    )
    token: str = _setting(
        "",
        "Token to upload with (better given as TRAINBOARD_TOKEN, which process listings do not show).",
        commands=("upload",),
    )
    forget_deleted: bool = _setting(
        False,
        "Files deleted from the logdir leave the experiment too; only when this logdir is its one source.",
        commands=("upload",),
    )
    no_auth: bool = _setting(
        False,
        "Serve every experiment to anyone who can connect, without tokens: only on a trusted network.",
        commands=("serve",),
    )
    metrics_port: int = _setting(
        0,
        "Serve Prometheus metrics at http://--metrics_host:PORT/metrics, apart from the app; 0: no metrics.",
        parse_metrics_port,
    )
    metrics_host: str = _setting(
        "127.0.0.1", "Address the metrics listen on (only this machine by default): 0.0.0.0 or :: for every one."
    )
    log_format: str = _setting(
        "text",
        "How the server logs: text (lines for people) or json (one JSON object per line, for log collectors).",
        _choice(LOG_FORMATS),
    )
    upload_rate: float = _setting(
        20.0,
        "Upload requests per second each token may make after its --upload_burst (per replica); 0: no limit.",
        parse_rate,
        commands=("serve",),
    )
    upload_burst: int = _setting(
        100,
        "Upload requests a token may make at once before --upload_rate applies (per replica).",
        parse_positive_count,
        commands=("serve",),
    )
    auth_failure_burst: int = _setting(
        20,
        "Failed authentications (tokens unknown, revoked or expired) allowed from one client address, and with one"
        " token id, before --auth_failure_rate applies; past it 429 (per replica).",
        parse_positive_count,
        commands=("serve",),
    )
    auth_failure_rate: float = _setting(
        0.2,
        "Failed authentications per second allowed per client address and per token id after --auth_failure_burst"
        " (per replica); 0: no limit.",
        parse_rate,
        commands=("serve",),
    )
    stalled_after: float = _setting(
        STALLED_AFTER,
        "Seconds without a new point after which a run without an hparams session end is stalled, not running (its"
        " status in the runs table and the run filter).",
        parse_seconds,
        commands=(*SERVING, "serve"),
    )
    audit_days: float = _setting(
        365.0,
        "Days the audit log keeps an event; older ones are deleted at start and every hour. 0: keep every event.",
        parse_seconds,
        commands=("serve",),
    )
    since: float = _setting(
        0.0,
        "Only the events since this time: a date or time (2026-11-01, 2026-11-01T09:30, UTC unless it says), or an"
        " age: 12h, 7d.",
        parse_since,
        commands=("audit",),
    )
    oidc_issuer: str = _setting(
        "",
        "Single sign-on: the OpenID provider's issuer URL (its /.well-known/openid-configuration is read); needs"
        " trainboard[sso].",
        commands=("serve",),
    )
    oidc_client_id: str = _setting("", "Single sign-on: this server's client id at the provider.", commands=("serve",))
    oidc_client_secret: str = _setting(
        "",
        "Single sign-on: this server's client secret (better given as TRAINBOARD_OIDC_CLIENT_SECRET, which process"
        " listings do not show).",
        commands=("serve",),
    )
    oidc_scopes: str = _setting(
        "openid email",
        "Single sign-on: the scopes asked for, space-separated (add the one of groups).",
        commands=("serve",),
    )
    oidc_email_domains: str = _setting(
        "",
        "Single sign-on: comma-separated email domains whose users may sign in (the provider must say the address is"
        " verified); * for any.",
        commands=("serve",),
    )
    oidc_groups: str = _setting(
        "", "Single sign-on: comma-separated groups whose members may sign in.", commands=("serve",)
    )
    oidc_groups_claim: str = _setting(
        "groups", "Single sign-on: the claim that lists a user's groups.", commands=("serve",)
    )
    oidc_roles: str = _setting(
        "",
        "Single sign-on: roles by claim, [EXPERIMENT:]CLAIM:VALUE=ROLE,... with CLAIM group, email or domain, e.g."
        " 'group:admins=admin,mnist:group:ml=read'; given at each sign-in.",
        commands=("serve",),
    )
    max_pins_per_user: int = _setting(
        100,
        "Pins each user may have made, of every experiment; more are refused (409) until they delete some.",
        parse_positive_count,
        commands=("serve",),
    )
    user: str = _setting(
        "",
        "The user whose token to create, or whose tokens to list; for audit, the user who acted or was acted on.",
        commands=("tokens create", "tokens list", "audit"),
    )
    role: str = _setting(
        "",
        "With --experiment: the token's role there, read, write or admin (read when not given); the user is given it.",
        commands=("tokens create",),
    )
    expires: float = _setting(
        0.0, "Days until the token expires; never when not given.", parse_days, commands=("tokens create",)
    )
    format: str = _setting(
        "parquet",
        "Export format: parquet, csv, jsonl or tfevents.",
        _choice(EXPORT_FORMATS),
        commands=("export",),
    )
    out: str = _setting("", "Directory to export into (created when missing).", commands=("export",))
    ui: str = _setting("trainboard", "Web UI to serve at /: trainboard, tensorboard or tsvis.", _choice(UIS))
    max_projection_points: int = _setting(
        100_000,
        "Most points an embedding projection (PCA, t-SNE, UMAP) takes; larger embeddings are refused.",
        parse_positive_count,
    )
    unused_days: float = _setting(
        0.0,
        "Also remove the local stores unused for this many days (fractions allowed).",
        parse_days,
        commands=("stores prune",),
    )

    @property
    def sampling(self) -> dict[str, int | None]:
        """--samples_per_plugin parsed: plugin name -> points per series (None: all)."""
        return parse_samples_per_plugin(self.samples_per_plugin)


SETTINGS: tuple[Setting, ...] = tuple(
    Setting(field.name, field.default, **field.metadata) for field in dataclasses.fields(Settings)
)


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
            raise ValueError(f"expected name=count pairs, not {item!r}")
        count = count.strip().lower()
        if count == "all":
            sampling[name.strip()] = None
            continue
        try:
            value = int(count)
        except ValueError:
            raise ValueError(f"the count for {name.strip()!r} must be an integer or 'all'") from None
        if value < 0:
            raise ValueError(f"the count for {name.strip()!r} must not be negative")
        sampling[name.strip()] = None if value == 0 else value
    return sampling
