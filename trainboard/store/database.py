"""What a database backend carries out: simple reads and writes, no domain logic.

`trainboard.store.store.Store` builds everything the provider and ingest need on top of these (sampling, step ranges,
chunk packing, restart purges, series summaries), so that SQLite and PostgreSQL share that logic. Every call names the
experiment, and a read finds only that experiment's rows, whatever ids it is given (`tests/store/test_contract.py`);
ids (runs, files, series, chunks, points) are the backend's own and never leave the store.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from trainboard.normaliser.points import DataClass, RunState, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.accounts import AccountsBackend
from trainboard.store.run_filter import RunFilter
from trainboard.store.run_filter_sql import Derived, Matches
from trainboard.store.run_metadata import RunMetadataBackend
from trainboard.store.run_values import HParamRow, ValueRow
from trainboard.store.runs_table import TableQuery
from trainboard.store.summaries import ChunkSummary
from trainboard.store.values import (
    BlobSequenceRow,
    ChunkIndex,
    Definition,
    ExperimentRow,
    Pin,
    PinRow,
    PointIndex,
    RunRow,
    ScalarColumns,
    SeriesRow,
    StepRange,
)


@dataclass(frozen=True, slots=True)
class ScalarChunk:
    """At most CHUNK_POINTS consecutive points of one series, read from one file."""

    series_id: int
    file_id: int
    columns: ScalarColumns
    min_step: int
    max_step: int
    max_wall_time: float
    # trainboard.store.checksums.scalar_checksum of the columns.
    checksum: int
    summary: ChunkSummary


@dataclass(frozen=True, slots=True)
class TensorRecord:
    series_id: int
    file_id: int
    step: int
    wall_time: float
    tensor: bytes | memoryview
    # trainboard.store.checksums.tensor_checksum of the point.
    checksum: int


@dataclass(frozen=True, slots=True)
class BlobSequenceRecord:
    series_id: int
    file_id: int
    step: int
    wall_time: float
    blob_keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SummaryDelta:
    """Points added to a series: added to its count, its maxima raised, and for scalars merged into its summary."""

    series_id: int
    count: int
    max_step: int
    max_wall_time: float
    max_length: int = 0
    scalars: ChunkSummary | None = None


@dataclass(frozen=True, slots=True)
class FileSave:
    """What a write records of one file before its points: its run and the run's state, how far the file was read
    (and from where: None, never read), and the first metadata of the tags its batch holds."""

    run: str
    state: RunState
    cursor: FileCursor
    expected_offset: int | None
    metadata: dict[str, SeriesMetadata]


@dataclass(frozen=True, slots=True)
class SavedFile:
    run_id: int
    file_id: int
    # Every series of the run, by tag.
    series_ids: dict[str, int]


class Transaction(Protocol):
    """One atomic write to one experiment; the experiment's generation and update time move when it commits."""

    def save_files(self, files: Sequence[FileSave]) -> list[SavedFile]:
        """`saved_one_by_one`, in a few statements whatever the number of files where each statement costs a round
        trip worth saving (a Citus coordinator forwards each to a worker)."""

    def save_run(self, run: str, state: RunState) -> int: ...

    def save_file(self, run_id: int, cursor: FileCursor, *, expected_offset: int | None) -> int:
        """Record how far a file was read; raise `StaleOffsetError` unless its stored offset is `expected_offset`
        (None: the file was never read)."""

    def save_series(self, run_id: int, metadata: dict[str, SeriesMetadata]) -> dict[str, int]:
        """Create the series not yet known; the ids of all of the run's series by tag."""

    def save_hparams(self, run_id: int, hparams: list[HParamRow]) -> None:
        """Record the run's hyperparameters (from its hparams session start) not yet known."""

    def insert_scalar_chunks(self, chunks: list[ScalarChunk]) -> None: ...

    def insert_tensors(self, records: list[TensorRecord]) -> None: ...

    def insert_blob_sequences(self, records: list[BlobSequenceRecord]) -> None: ...

    def add_to_summaries(self, deltas: list[SummaryDelta]) -> None: ...

    def series_reaching(self, run_id: int, step: int, tags: Collection[str] | None) -> list[int]:
        """The run's series (of these tags, or all) whose max step is at least `step`."""

    def delete_points_from(self, series_ids: Collection[int], step: int) -> list[str]:
        """Delete tensor and blob points with step >= `step` and scalar chunks wholly at or above it; the blob keys
        the deleted points held."""

    def chunks_straddling(self, series_ids: Collection[int], step: int) -> list[tuple[int, ScalarColumns, int]]:
        """Scalar chunks with points on both sides of `step`: (chunk id, columns, checksum or -1)."""

    def replace_chunk(self, chunk_id: int, chunk: ScalarChunk) -> None: ...

    def delete_file_points(self, file_id: int) -> list[str]:
        """Delete every point read from a file; the blob keys they held."""

    def delete_files(self, paths: Collection[str]) -> list[str]:
        """Forget files (their points and cursors), then series left without points and runs left without files;
        the blob keys of the deleted points."""

    def refresh_summaries(self, series_ids: Collection[int]) -> None:
        """Recompute the summaries of series after points were deleted, and their runs' last step and wall time."""

    def advance_run(self, run_id: int, last_step: int, last_wall_time: float) -> None:
        """Raise the run's last step and wall time to these, points having been added."""

    def save_end_status(self, run_id: int, status: str | None) -> None:
        """Record the end status of the run's hparams session (trainboard.store.summaries)."""

    def unreferenced(self, blob_keys: Collection[str]) -> list[str]:
        """Those of `blob_keys` that no point of the experiment holds any more."""


def saved_one_by_one(transaction: Transaction, files: Sequence[FileSave]) -> list[SavedFile]:
    """`save_run`, `save_file` and `save_series` of each file in turn: a run written by several files keeps the last
    one's state, and a tag's first metadata is kept."""
    saved = []
    for file in files:
        run_id = transaction.save_run(file.run, file.state)
        file_id = transaction.save_file(run_id, file.cursor, expected_offset=file.expected_offset)
        saved.append(SavedFile(run_id, file_id, transaction.save_series(run_id, file.metadata)))
    return saved


class Database(Protocol):
    """A database holding experiments. Reads may run in any thread; `transaction` serialises writes."""

    # Damage found in the database's own structure (None: none found; SQLite reports it, PostgreSQL checks its own):
    # `on_damage` is called when it is first found, and the error raised then ends with `damage_hint`.
    damage: str | None
    on_damage: Callable[[], None]
    damage_hint: str

    @property
    def accounts(self) -> AccountsBackend:
        """Users, tokens and roles, in the same database."""

    @property
    def run_metadata(self) -> RunMetadataBackend:
        """Run metadata and saved views, in the same database."""

    # Experiments.
    def experiments(self) -> list[ExperimentRow]: ...

    def create_experiment(self, experiment_id: str, name: str, description: str, location: str) -> ExperimentRow:
        """A new experiment without an owner, or the existing one of that name without an owner."""

    def generation(self, experiment_id: str) -> int: ...

    def delete_experiment(self, experiment_id: str) -> bool:
        """Delete the experiment and its rows in every table but the blob store's (runs, files, series, points, pins,
        roles), revoke the tokens limited to it and forget its writer claim; False, deleting nothing, while another
        process holds the claim."""

    # Pins.
    def create_pin(self, experiment_id: str, pin_id: str, created: float, creator: int | None) -> None:
        """Record the experiment's runs and the summaries of its series as one snapshot sees them, made by the user
        `creator`; nothing when there is no such experiment."""

    def pin(self, experiment_id: str, pin_id: str) -> Pin | None: ...

    def pins(self, experiment_id: str) -> list[PinRow]:
        """The experiment's pins, oldest first."""

    def pin_count(self, creator: int) -> int:
        """How many pins the user has made, of every experiment."""

    def delete_pin(self, experiment_id: str, pin_id: str) -> bool:
        """False when the experiment has no such pin."""

    # Derived metrics.
    def definitions(self, experiment_id: str) -> list[Definition]:
        """The experiment's derived metrics, by name."""

    def save_definition(self, experiment_id: str, definition: Definition, created: float) -> None:
        """Add the definition or replace the one of its name; the experiment's generation moves."""

    def delete_definition(self, experiment_id: str, name: str) -> bool:
        """False when there is no such definition; else the experiment's generation moves."""

    # Reads.
    def runs(self, experiment_id: str) -> list[RunRow]: ...

    def run_state(self, experiment_id: str, run: str) -> RunState | None:
        """The run's state without `first_metadata`, or None for a run never written."""

    def plugin_names(self, experiment_id: str) -> list[str]: ...

    def series(
        self,
        experiment_id: str,
        *,
        plugin_name: str | None,
        data_class: DataClass | None,
        runs: Collection[str] | None,
        tags: Collection[str] | None,
    ) -> list[SeriesRow]:
        """Ordered by run, then by series creation."""

    def scalar_chunk_index(self, experiment_id: str, series_id: int) -> ChunkIndex: ...

    def scalar_chunks(self, experiment_id: str, chunk_ids: Collection[int]) -> list[tuple[ScalarColumns, int]]:
        """Whole chunks with their checksums (-1: none), in the order of `chunk_ids`."""

    def scalar_picks(self, experiment_id: str, picks: list[tuple[int, list[int]]]) -> ScalarColumns:
        """The points at these positions of these chunks, in the order given: a long series is not read whole."""

    def last_scalars(
        self, experiment_id: str, series_ids: Collection[int]
    ) -> dict[int, tuple[int, int, ScalarColumns]]:
        """The last point of each series that has one, with its chunk's id and checksum (-1: none)."""

    def run_values(
        self,
        experiment_id: str,
        *,
        pin_id: str | None,
        where: RunFilter | None,
        matches: Matches,
        stalled_since: float,
        derived: Derived,
    ) -> list[ValueRow]:
        """The runs (as of the pin, if one is named) that the filter keeps, with their hyperparameters and final metric
        values, in run order; `matches` and `derived` as `trainboard.store.run_filter_sql` takes them, and a run
        without an end status and without points since `stalled_since` is stalled."""

    def runs_table(
        self,
        experiment_id: str,
        *,
        pin_id: str | None,
        query: TableQuery,
        matches: Matches,
        stalled_since: float,
        derived: Derived,
    ) -> list[tuple[object, ...]]:
        """The rows of `trainboard.store.runs_table.table_sql` (as of the pin, if one is named)."""

    def table_fields(self, experiment_id: str) -> tuple[list[str], list[str]]:
        """The names of the experiment's hyperparameters and of its scalar tags, each sorted."""

    def hparam_texts(self, experiment_id: str, name: str) -> list[str]:
        """The texts the hyperparameter of this name has in the experiment's runs."""

    def tensor_index(self, experiment_id: str, series_id: int, steps: StepRange) -> PointIndex:
        """The series' tensor points within `steps` (bounds only), in order, without their values."""

    def tensor_values(self, experiment_id: str, point_ids: Collection[int]) -> list[tuple[bytes, int]]:
        """Tensors with their checksums (-1: none), in the order of `point_ids`."""

    def blob_sequences(self, experiment_id: str, series_id: int, steps: StepRange) -> list[BlobSequenceRow]:
        """Within `steps` (bounds only), in order."""

    def file_cursors(self, experiment_id: str) -> dict[str, FileCursor]: ...

    def file_cursor(self, experiment_id: str, path: str) -> FileCursor | None:
        """One file's cursor, by the (experiment, path) index: None for a file never read."""

    def file_run(self, experiment_id: str, path: str) -> str | None:
        """The name of the run whose file `path` is; None for a file not stored."""

    def damaged_files(
        self,
        experiment_id: str,
        *,
        chunk_ids: Collection[int] = (),
        tensor_ids: Collection[int] = (),
        blob_keys: Collection[str] = (),
    ) -> list[str]:
        """The files whose points these chunks, tensor points or blobs are (found damaged), sorted."""

    # Writes.
    def claim_writer(self, experiment_id: str) -> bool:
        """Become the experiment's one writer until `close` (or the process ends, however it ends); False when another
        process is."""

    def transaction(self, experiment_id: str) -> AbstractContextManager[Transaction]: ...

    def settle(self) -> None:
        """After an ingest pass that wrote: make what was written as fast to read as the rest."""

    def check(self) -> None:
        """Raise `StoreUnavailable` unless the database answers now with the migrations of this trainboard."""

    def pool_stats(self) -> dict[str, int]:
        """The use of its pool of connections (psycopg_pool's counters: pool_size, pool_available,
        requests_waiting, ...); {} for a backend without one."""

    def close(self) -> None: ...
