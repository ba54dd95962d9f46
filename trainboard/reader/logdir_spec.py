"""TensorBoard's --logdir_spec: several log directories at once, each run named after its directory's group.

`name:path` puts the runs of `path` under `name/` (a run at the root of `path` is `name/.`, as TensorBoard names
it); a bare `path` (or a URL such as s3://b/x) keeps its runs' own names. Unlike TensorBoard, empty items (a trailing
comma) are ignored rather than read as the current directory, and an event file that two items reach is read once,
into the run of the first item, since the store keeps one read offset per file.
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import BinaryIO

from trainboard.reader.logdir import FileStat, LogDir

URL = re.compile(r"[a-zA-Z][0-9a-zA-Z.]*://.*")


def parse_logdir_spec(spec: str) -> dict[str, str | None]:
    """{path: group name or None}, as TensorBoard parses the flag: `name:path` names a group, but a URL, an item
    starting with / (`/a:b` is a path with a colon) or a Windows drive (`C:\\logs`) does not."""
    groups: dict[str, str | None] = {}
    for item in filter(None, spec.split(",")):
        if URL.match(item) is None and ":" in item and not item.startswith("/") and not os.path.splitdrive(item)[0]:
            name, _, path = item.partition(":")
            group: str | None = name
        else:
            path, group = item, None
        if URL.match(path) is None:
            path = os.path.realpath(os.path.expanduser(path))
        groups[path] = group
    return groups


class LogDirSpec:
    """Several LogDirs as one: runs named by group, files opened through the LogDir that holds them."""

    def __init__(self, spec: str) -> None:
        self.url = spec
        self._groups = [(LogDir(path), name) for path, name in parse_logdir_spec(spec).items()]
        self._owners: dict[str, LogDir] = {}

    def runs(self) -> dict[str, list[str]]:
        runs: dict[str, list[str]] = {}
        claimed: set[str] = set()
        for logdir, name in self._groups:
            for run, paths in logdir.runs().items():
                mine = [path for path in paths if path not in claimed]
                claimed.update(mine)
                if mine:
                    runs.setdefault(posixpath.join(name, run) if name else run, []).extend(mine)
                    self._owners.update(dict.fromkeys(mine, logdir))
        return runs

    def open(self, path: str) -> BinaryIO:
        return self._owner(path).open(path)

    def stat(self, path: str) -> FileStat:
        return self._owner(path).stat(path)

    def resolve(self, name: str, config_path: str) -> str | None:
        return self._owner(config_path).resolve(name, config_path)

    def _owner(self, path: str) -> LogDir:
        owner = self._owners.get(path)
        if owner is None:
            # Files that no walk lists (those a projector config names) belong to the log directory they lie in.
            owner = next((logdir for logdir, _ in self._groups if logdir.contains(path)), None)
        if owner is None:
            raise PermissionError(f"{path} is in none of the log directories")
        return owner
