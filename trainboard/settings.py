"""Every setting, declared once: its flag, type, default and help. CLI flags and TRAINBOARD_* variables set them."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    default: object
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("logdir", "", "Log directory (local path or fsspec URL such as s3://bucket/runs); a demo if empty."),
    Setting("logdir_spec", "", "Comma-separated name:path pairs, as TensorBoard's --logdir_spec."),
    Setting("host", "127.0.0.1", "Address to listen on."),
    Setting("bind_all", False, "Listen on all IPv4 addresses (0.0.0.0) instead of --host."),
    Setting("port", 6006, "Port to listen on (0 picks a free one)."),
    Setting("reload_interval", 5.0, "Seconds between looks for new data; 0 loads once."),
    Setting(
        "samples_per_plugin", "", "Points per series by plugin, e.g. 'scalars=500,images=all' (0 or all: every point)."
    ),
    Setting("path_prefix", "", "Serve under this URL path prefix, e.g. /tensorboard."),
    Setting("window_title", "", "Browser window title."),
    Setting("db", "", "Store file; by default one per logdir in the user's cache directory."),
    Setting("ui", "trainboard", "Web UI to serve at /: trainboard or tensorboard."),
)


@dataclass(frozen=True, slots=True)
class Settings:
    logdir: str = ""
    logdir_spec: str = ""
    host: str = "127.0.0.1"
    bind_all: bool = False
    port: int = 6006
    reload_interval: float = 5.0
    samples_per_plugin: str = ""
    path_prefix: str = ""
    window_title: str = ""
    db: str = ""
    ui: str = "trainboard"
    sampling: dict[str, int | None] = field(default_factory=dict)

    def store_path(self, logdir: str) -> Path:
        """The store file for a logdir: --db, or a file in the cache directory keyed by the logdir."""
        if self.db:
            return Path(self.db)
        key = hashlib.sha256(_normalised(logdir).encode()).hexdigest()[:16]
        return Path(platformdirs.user_cache_dir("trainboard")) / f"{key}.sqlite"


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
