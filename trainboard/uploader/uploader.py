"""One logdir uploaded into one experiment: each pass asks the server how far each file is committed and sends every
file's bytes from there, by the rules a local logdir is read by (`trainboard.ingest.upload_protocol.expected_offset`).

Event files go in chunks of whole records (a record larger than a chunk goes alone), so the server never waits on a
cut record; a record still being written is sent by a later pass. Structure graphs and projector configs (with the
files they name) go whole, whenever they change.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
from collections.abc import Iterator
from typing import BinaryIO

from trainboard.ingest.files import config_place
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.upload_protocol import Chunk, expected_offset
from trainboard.names import loggable
from trainboard.reader.dialect import is_projector_config, is_structure_graph_file
from trainboard.reader.frames import FOOTER_SIZE, HEADER_SIZE, MAX_RECORD_SIZE, masked_crc
from trainboard.reader.logdir import FileStat, LogDir, resolve_posix
from trainboard.reader.projector import MAX_CONFIG_SIZE, named_paths
from trainboard.reader.structure_graph import MAX_SIZE as MAX_STRUCTURE_GRAPH_SIZE
from trainboard.reader.structure_graph import looks_like_structure_graph
from trainboard.reader.tail import HEAD_SIZE, FileCursor
from trainboard.uploader.client import UploadClient

logger = logging.getLogger("trainboard.upload")

CHUNK_BYTES = 4 * 1024 * 1024
# Refusals in a row after which a file waits for the next pass (the server keeps moving it: another uploader).
MAX_REFUSALS = 3
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


class Uploader:
    def __init__(
        self,
        logdir: LogDir,
        client: UploadClient,
        experiment_id: str,
        progress: IngestProgress,
        *,
        forget_deleted: bool = False,
        chunk_bytes: int = CHUNK_BYTES,
    ) -> None:
        root = logdir.local_root
        if root is None:
            raise ValueError("trainboard upload reads a local logdir")
        self.logdir = logdir
        self.root = root
        self.client = client
        self.experiment_id = experiment_id
        self.progress = progress
        self.forget_deleted = forget_deleted
        self.chunk_bytes = chunk_bytes

    def poll(self) -> None:
        """One pass: every file's bytes that the server has not committed."""
        runs = self.logdir.runs()
        cursors = self.client.cursors(self.experiment_id)
        local = {self._relative(path): path for paths in runs.values() for path in paths}
        if self.forget_deleted:
            gone = [path for path in cursors if path not in local]
            if gone:
                self.client.forget(self.experiment_id, gone)
        stats = {path: _stat(local_path) for path, local_path in local.items()}
        done = sum(min(cursors[path].offset, stat.size) for path, stat in stats.items() if path in cursors)
        self.progress.begin_pass(len(stats), 0, sum(stat.size for stat in stats.values()), done)
        for position, (run, paths) in enumerate(runs.items()):
            for local_path in paths:
                path = self._relative(local_path)
                try:
                    self._send_file(run, path, local_path, cursors.get(path), position, config_place(path, paths))
                except OSError as error:
                    logger.warning("skipping %s for now: %s", loggable(local_path), error)
                self.progress.file_done()
        self.progress.end_pass()

    def run_forever(self, reload_interval: float, stop: threading.Event) -> None:
        """Poll until `stop` is set; a reload interval of 0 polls once."""
        while not stop.is_set():
            self.poll()
            if reload_interval <= 0:
                return
            stop.wait(reload_interval)

    def _send_file(
        self, run: str, path: str, local_path: str, cursor: FileCursor | None, position: int, place: int
    ) -> None:
        whole = is_structure_graph_file(path) or is_projector_config(path)
        with open(local_path, "rb") as stream:
            stat, head = _stat_and_head(stream)
            offset = expected_offset(cursor, stat, head, whole=whole)
            if whole:
                if cursor is None or (cursor.size, cursor.mtime, cursor.head) != (stat.size, stat.mtime, head):
                    self._send_whole(run, path, local_path, stat, head, position, place)
                return
            if cursor is not None and offset == cursor.offset == stat.size == cursor.size:
                return
            refusals = 0
            while data := _next_records(stream, offset, self.chunk_bytes):
                stat, head = _stat_and_head(stream)
                size = max(stat.size, offset + len(data))
                chunk = Chunk(run, path, offset, FileStat(size, stat.mtime), head, data, position, place)
                sent = self.client.send(self.experiment_id, chunk)
                if sent.refused:
                    # Committed meanwhile (a chunk retried after its answer was lost), or the file changed: go on
                    # from where the server reads it.
                    refusals += 1
                    if sent.offset is None or refusals > MAX_REFUSALS:
                        logger.warning(
                            "%s: the server keeps refusing its chunks; trying in the next pass", loggable(path)
                        )
                        return
                    offset = sent.offset
                    continue
                refusals = 0
                self.progress.add(bytes_read=len(data), points=sent.points)
                if sent.offset is None or sent.offset <= offset:
                    return
                offset = sent.offset

    def _send_whole(
        self,
        run: str,
        path: str,
        local_path: str,
        stat: FileStat,
        head: bytes,
        position: int,
        place: int,
    ) -> None:
        limit = MAX_CONFIG_SIZE if is_projector_config(path) else MAX_STRUCTURE_GRAPH_SIZE
        if is_structure_graph_file(path) and not looks_like_structure_graph(head):
            return  # other JSON, which the server would not keep either
        if stat.size > limit:
            logger.warning("%s: %d bytes, more than such a file holds; not uploaded", loggable(local_path), stat.size)
            return
        with open(local_path, "rb") as whole:
            data = whole.read()
        named = dict(self._named_files(path, local_path, data)) if is_projector_config(path) else {}
        chunk = Chunk(run, path, 0, FileStat(len(data), stat.mtime), head, data, position, place, named)
        sent = self.client.send(self.experiment_id, chunk)
        self.progress.add(bytes_read=len(data) + sum(map(len, named.values())), points=sent.points)

    def _named_files(self, path: str, local_path: str, config: bytes) -> Iterator[tuple[str, bytes]]:
        """The files a projector config names that lie inside its directory, by the path the server resolves."""
        for name in named_paths(config):
            found = self.logdir.resolve(name, local_path)
            remote = resolve_posix(name, path)
            if found is None or remote is None or not os.path.isfile(found):
                continue
            with open(found, "rb") as named:
                yield remote, named.read()

    def _relative(self, local_path: str) -> str:
        return os.path.relpath(local_path, self.root).replace(os.sep, "/")


def _stat(path: str) -> FileStat:
    try:
        found = os.stat(path)
    except OSError:
        return FileStat(size=0, mtime=0.0)
    return FileStat(size=found.st_size, mtime=found.st_mtime)


def _stat_and_head(stream: BinaryIO) -> tuple[FileStat, bytes]:
    found = os.fstat(stream.fileno())
    stream.seek(0)
    return FileStat(size=found.st_size, mtime=found.st_mtime), stream.read(HEAD_SIZE)


def _next_records(stream: BinaryIO, offset: int, chunk_bytes: int) -> bytes:
    """Whole records from `offset`, about `chunk_bytes` of them (a larger record alone); empty when none is whole
    yet (a record still being written is sent by a later pass). Bytes that do not frame (a damaged header) go as
    they are: the server skips them by the rules of a logdir."""
    stream.seek(offset)
    data = stream.read(chunk_bytes)
    end = _records_end(data)
    if end == 0 and len(data) >= HEADER_SIZE:
        wanted = _record_size(data, 0)
        if wanted is None:
            end = len(data)
        elif wanted > len(data):
            data += stream.read(wanted - len(data))
            end = wanted if len(data) >= wanted else 0
    return data[:end]


def _records_end(data: bytes) -> int:
    """The end of the last whole record with a sound header in `data` (0: none)."""
    position = 0
    while position + HEADER_SIZE <= len(data):
        size = _record_size(data, position)
        if size is None or position + size > len(data):
            break
        position += size
    return position


def _record_size(data: bytes, position: int) -> int | None:
    header = data[position : position + 8]
    (length,) = _LENGTH.unpack(header)
    if length > MAX_RECORD_SIZE or _CRC.unpack_from(data, position + 8)[0] != masked_crc(header):
        return None
    return HEADER_SIZE + int(length) + FOOTER_SIZE
