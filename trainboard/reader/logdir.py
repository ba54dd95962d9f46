"""A log directory on any filesystem fsspec knows (local paths, file://, s3://, gs://, ...) and its runs."""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

from trainboard.reader.dialect import PROJECTOR_ASSETS, PROJECTOR_CONFIG, file_dialect, is_structure_graph_file


@dataclass(frozen=True, slots=True)
class FileStat:
    size: int
    # Seconds since the epoch; a file replaced by another of the same size has another.
    mtime: float


def walk_order(run: str) -> tuple[str, ...]:
    """A sort key of run names in the order of a sorted walk of the logdir: a run before the runs in its
    subdirectories ("." is the logdir itself), siblings by name. TensorBoard answers in the order of its walk, which
    lists directories as the filesystem does (by name on some, hashed on ext4); the store keeps no such order, and
    this one is the same whatever order ingest saw the runs in."""
    return () if run == "." else tuple(run.split("/"))


class RunSource(Protocol):
    """Where runs and their event files come from: one LogDir, or several (LogDirSpec)."""

    url: str

    def runs(self) -> dict[str, list[str]]: ...

    def open(self, path: str) -> BinaryIO: ...

    def stat(self, path: str) -> FileStat: ...

    def resolve(self, name: str, config_path: str) -> str | None:
        """Where a path that a file (a projector config) names lies, against that file's directory; None when it
        leaves that directory."""


class LogDir:
    def __init__(self, url: str, storage_options: dict[str, Any] | None = None) -> None:
        self.url = url
        self.storage_options = storage_options or {}
        self._local = "://" not in url or url.startswith("file://")
        if self._local:
            # Local paths need no fsspec, whose import (it scans every installed package's entry points) is slow.
            self._fs: Any = None
            self._root = os.path.realpath(url.removeprefix("file://"))
        else:
            import fsspec

            self._fs, root = fsspec.core.url_to_fs(url, **self.storage_options)
            self._root = root.rstrip("/")

    @property
    def local_root(self) -> str | None:
        """The logdir's real path when it is on the local filesystem, else None."""
        return self._root if self._local else None

    def runs(self) -> dict[str, list[str]]:
        """Every directory that directly holds an event file (or a TS-VIS structure graph), by run name ("." for the
        root) in the order of the walk (TensorBoard's), files sorted by name. A projector config belongs to the run of
        its directory, or else to the run whose `plugins/projector` folder holds it; one at the root makes "." a run
        even without event files, as TensorBoard's projector reads the root too."""
        runs: dict[str, list[str]] = {}
        configs: list[tuple[str, str]] = []
        for directory, names in self._directories():
            files = sorted(name for name in names if file_dialect(name) is not None or is_structure_graph_file(name))
            run = self._run_name(directory)
            if files:
                runs[run] = [self._join(directory, name) for name in files]
            if PROJECTOR_CONFIG in names:
                configs.append((run, self._join(directory, PROJECTOR_CONFIG)))
        assets = "/".join(PROJECTOR_ASSETS)
        for run, path in configs:
            owner = "." if run == assets else run.removesuffix("/" + assets) if run.endswith("/" + assets) else None
            if run in runs or (owner not in runs and run == "."):
                runs.setdefault(run, []).append(path)
            elif owner in runs:
                runs[owner].append(path)
        return runs

    def open(self, path: str) -> BinaryIO:
        self._check_inside(path)
        if not self._local:
            stream: BinaryIO = self._fs.open(path, "rb")
            return stream
        # Opened without blocking and checked: a FIFO put in a file's place after discovery must not stall ingest.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            raise OSError(errno.EINVAL, "not a regular file", path)
        return os.fdopen(descriptor, "rb")

    def stat(self, path: str) -> FileStat:
        self._check_inside(path)
        if self._local:
            found = os.stat(path)
            return FileStat(size=found.st_size, mtime=found.st_mtime)
        self._fs.invalidate_cache(path)
        info = self._fs.info(path)
        modified = info.get("mtime", info.get("LastModified", info.get("last_modified", 0)))
        mtime = modified.timestamp() if hasattr(modified, "timestamp") else float(modified or 0)
        return FileStat(size=int(info["size"]), mtime=mtime)

    def resolve(self, name: str, config_path: str) -> str | None:
        """On a local disk, symbolic links followed; elsewhere, paths joined as URLs' paths are."""
        if not self._local:
            return resolve_posix(name, config_path)
        directory = os.path.realpath(os.path.dirname(config_path))
        candidate = os.path.realpath(os.path.join(directory, os.path.expanduser(name)))
        try:
            inside = os.path.commonpath([directory, candidate]) == directory
        except ValueError:
            inside = False
        return candidate if inside else None

    def _directories(self) -> list[tuple[str, list[str]]]:
        if self._local:
            if not os.path.isdir(self._root):
                return []
            return [
                (directory, [n for n in names if self._is_readable_file(os.path.join(directory, n))])
                for directory, _, names in os.walk(self._root)
            ]
        # Every cached listing, not only the root's: a directory listed before may hold new runs now.
        self._fs.invalidate_cache()
        if not self._fs.exists(self._root):
            return []
        return [(directory, names) for directory, _, names in self._fs.walk(self._root)]

    def _run_name(self, directory: str) -> str:
        if self._local:
            relative = os.path.relpath(directory, self._root)
            return relative.replace(os.sep, "/")
        relative = posixpath.relpath(directory.rstrip("/"), self._root)
        return relative

    def _join(self, directory: str, name: str) -> str:
        return os.path.join(directory, name) if self._local else posixpath.join(directory, name)

    def _is_readable_file(self, path: str) -> bool:
        """A regular file inside the logdir: never a FIFO or device, whose reads could block ingest forever."""
        return self._is_inside(path) and os.path.isfile(path)

    def contains(self, path: str) -> bool:
        if self._local:
            return self._is_inside(path)
        return path.startswith(self._root + "/")

    def _is_inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self._root or real.startswith(self._root + os.sep)

    def _check_inside(self, path: str) -> None:
        if self._local and not self._is_inside(path):
            raise PermissionError(f"{path} is outside the log directory {self._root}")


def resolve_posix(name: str, config_path: str) -> str | None:
    """`name` against the directory of `config_path`, both '/'-separated paths without links (absolute, or relative to
    a logdir's root); None outside that directory."""
    directory = posixpath.dirname(config_path)
    candidate = posixpath.normpath(posixpath.join(directory, name))
    if not directory:
        return None if candidate == ".." or candidate.startswith(("../", "/")) else candidate
    return candidate if candidate.startswith(directory + "/") else None
