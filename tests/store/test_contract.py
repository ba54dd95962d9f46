"""The store contract: every backend must pass these."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable

import numpy as np
import pytest

from trainboard.normaliser.points import (
    Batch,
    BlobSequencePoint,
    DataClass,
    Purge,
    RunState,
    ScalarPoint,
    ScalarSeries,
    SeriesMetadata,
    TensorPoint,
)
from trainboard.reader.tail import FileCursor
from trainboard.store.batches import CHUNK_POINTS
from trainboard.store.downsample import sample_indices
from trainboard.store.errors import StaleOffsetError
from trainboard.store.store import Store
from trainboard.store.values import SeriesRow, StepRange
from trainboard.store.writer import FileWrite

StoreOpener = Callable[[], Store]

SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR, display_name="loss")
HISTOGRAMS = SeriesMetadata(plugin_name="histograms", data_class=DataClass.TENSOR, plugin_content=b"\x01")
IMAGES = SeriesMetadata(plugin_name="images", data_class=DataClass.BLOB_SEQUENCE)


EXPERIMENT = "logs"


def cursor(path: str, offset: int) -> FileCursor:
    return FileCursor(path=path, offset=offset, size=offset, mtime=1.0, head=b"head")


def write(store: Store, run: str, at: FileCursor, state: RunState, batch: Batch, *, restarted: bool) -> None:
    """A batch read from where the store says the file was read up to, as ingest writes it."""
    experiment_id = store.create_experiment(EXPERIMENT).id
    previous = store.file_cursors(experiment_id).get(at.path)
    store.write_batch(experiment_id, FileWrite(run, at, state, batch, restarted=restarted, previous=previous))


def eid(store: Store) -> str:
    return store.create_experiment(EXPERIMENT).id


def scalar_batch(tag: str, steps: Iterable[int], value: float = 0.5) -> Batch:
    return Batch(
        operations=[ScalarPoint(tag=tag, step=s, wall_time=1000.0 + s, value=value * s) for s in steps],
        metadata={tag: SCALARS},
    )


def series_by_tag(store: Store, run: str) -> dict[str, SeriesRow]:
    return {row.tag: row for row in store.series(eid(store), runs=[run])}


def test_scalars_round_trip_in_order(store: Store) -> None:
    steps = [5, 3, 9, 1]  # insertion order is kept, even when steps are not sorted
    batch = Batch(
        operations=[ScalarPoint(tag="loss", step=s, wall_time=s / 3, value=float(s) / 7) for s in steps],
        metadata={"loss": SCALARS},
    )
    write(store, "train", cursor("/logs/train/a", 100), RunState(start_time=1.0), batch, restarted=False)
    (row,) = store.series(eid(store), plugin_name="scalars")
    assert (row.run, row.tag, row.point_count, row.max_step) == ("train", "loss", 4, 9)
    assert row.max_wall_time == 9 / 3
    assert row.metadata == SCALARS
    columns = store.scalars(eid(store), row.id)
    assert columns.steps.tolist() == steps
    assert columns.wall_times.tolist() == [s / 3 for s in steps]
    assert columns.values.tolist() == [float(s) / 7 for s in steps]


def test_non_finite_values_are_kept(store: Store) -> None:
    batch = Batch(
        operations=[
            ScalarPoint(tag="x", step=i, wall_time=0.0, value=v)
            for i, v in enumerate([float("nan"), float("inf"), -1.0])
        ],
        metadata={"x": SCALARS},
    )
    write(store, "r", cursor("/f", 1), RunState(), batch, restarted=False)
    (row,) = store.series(eid(store))
    values = store.scalars(eid(store), row.id).values
    assert np.isnan(values[0]) and values[1] == np.inf and values[2] == -1.0


def test_series_longer_than_a_chunk_reads_back_whole(store: Store) -> None:
    count = CHUNK_POINTS * 2 + 17
    write(store, "r", cursor("/f", 1), RunState(), scalar_batch("t", range(count)), restarted=False)
    (row,) = store.series(eid(store))
    assert store.scalars(eid(store), row.id).steps.tolist() == list(range(count))
    assert row.point_count == count


def test_downsampled_read_picks_the_same_points_as_a_whole_read(store: Store) -> None:
    # Three batches, so chunks of uneven sizes, one of them straddled by a purge.
    for start, stop in ((0, CHUNK_POINTS + 5), (CHUNK_POINTS + 5, 3 * CHUNK_POINTS), (3 * CHUNK_POINTS, 9000)):
        batch = scalar_batch("t", range(start, stop), value=0.25)
        write(store, "r", cursor("/f", stop), RunState(), batch, restarted=False)
    purge = Batch(operations=[Purge(step=8000, tags=None), *scalar_batch("t", range(8000, 8500)).operations])
    write(store, "r", cursor("/f", 9500), RunState(), purge, restarted=False)
    (row,) = store.series(eid(store))
    whole = store.scalars(eid(store), row.id)
    assert len(whole.steps) == 8500
    for k in (1, 2, 3, 999, 1000, 8499):
        indices = list(sample_indices(8500, k))
        sampled = store.scalars(eid(store), row.id, downsample=k)
        assert sampled.steps.tolist() == whole.steps[indices].tolist()
        assert sampled.wall_times.tolist() == whole.wall_times[indices].tolist()
        assert sampled.values.tolist() == whole.values[indices].tolist()
    assert store.scalars(eid(store), row.id, downsample=8500).steps.tolist() == whole.steps.tolist()
    assert store.scalars(eid(store), row.id, downsample=0).steps.tolist() == []


def test_first_metadata_wins(store: Store) -> None:
    write(store, "r", cursor("/f", 1), RunState(), scalar_batch("t", range(2)), restarted=False)
    later = Batch(
        operations=[ScalarPoint(tag="t", step=9, wall_time=9.0, value=1.0)],
        metadata={"t": SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR, display_name="other")},
    )
    write(store, "r", cursor("/f", 2), RunState(), later, restarted=False)
    (row,) = store.series(eid(store))
    assert row.metadata.display_name == "loss"
    assert row.point_count == 3


def test_purge_all_tags_drops_steps_at_or_after(store: Store) -> None:
    batch = scalar_batch("a", range(CHUNK_POINTS + 10))
    batch.operations += (
        [TensorPoint(tag="h", step=s, wall_time=float(s), tensor=b"t%d" % s) for s in range(20)]
        + [Purge(step=5)]
        + [ScalarPoint(tag="a", step=5, wall_time=1e9, value=-1.0)]
    )
    batch.metadata["h"] = HISTOGRAMS
    write(store, "r", cursor("/f", 1), RunState(), batch, restarted=False)
    rows = series_by_tag(store, "r")
    scalars = store.scalars(eid(store), rows["a"].id)
    assert scalars.steps.tolist() == [0, 1, 2, 3, 4, 5]
    assert scalars.values.tolist()[-1] == -1.0
    assert [t.step for t in store.tensors(eid(store), rows["h"].id)] == [0, 1, 2, 3, 4]
    assert (rows["a"].point_count, rows["a"].max_step, rows["a"].max_wall_time) == (6, 5, 1e9)
    assert (rows["h"].point_count, rows["h"].max_step, rows["h"].max_wall_time) == (5, 4, 4.0)


def test_purge_by_tags_leaves_other_tags(store: Store) -> None:
    batch = scalar_batch("a", range(10))
    batch.operations += scalar_batch("b", range(10)).operations + [Purge(step=3, tags=("b",))]
    batch.metadata["b"] = SCALARS
    write(store, "r", cursor("/f", 1), RunState(), batch, restarted=False)
    rows = series_by_tag(store, "r")
    assert store.scalars(eid(store), rows["a"].id).steps.tolist() == list(range(10))
    assert store.scalars(eid(store), rows["b"].id).steps.tolist() == [0, 1, 2]


def test_purge_spans_batches_and_straddling_chunks(store: Store) -> None:
    write(store, "r", cursor("/f", 1), RunState(), scalar_batch("a", range(100)), restarted=False)
    write(store, "r", cursor("/f", 2), RunState(), scalar_batch("a", range(100, 200)), restarted=False)
    write(store, "r", cursor("/f", 3), RunState(), Batch(operations=[Purge(step=50)]), restarted=False)
    (row,) = store.series(eid(store))
    assert store.scalars(eid(store), row.id).steps.tolist() == list(range(50))
    assert (row.point_count, row.max_step, row.max_wall_time) == (50, 49, 1049.0)


def test_blob_sequences_and_blobs(store: Store) -> None:
    batch = Batch(
        operations=[
            BlobSequencePoint(tag="img", step=1, wall_time=1.5, blobs=(b"w", b"h", b"png1", b"png2")),
            BlobSequencePoint(tag="img", step=2, wall_time=2.5, blobs=(b"w", b"h", b"png3")),
        ],
        metadata={"img": IMAGES},
    )
    write(store, "r", cursor("/f", 1), RunState(), batch, restarted=False)
    (row,) = store.series(eid(store), data_class=DataClass.BLOB_SEQUENCE)
    assert row.max_length == 4
    points = store.blob_sequences(eid(store), row.id)
    assert [(p.step, p.wall_time, len(p.blob_keys)) for p in points] == [(1, 1.5, 4), (2, 2.5, 3)]
    assert store.blob(points[0].blob_keys[3]) == b"png2"
    assert store.blob(points[1].blob_keys[2]) == b"png3"
    # Keys name content, not rows: the same bytes share a key, and a key says nothing of where its point is.
    assert points[0].blob_keys[0] == points[1].blob_keys[0]
    assert points[0].blob_keys[3] == f"{eid(store)}/{hashlib.sha256(b'png2').hexdigest()}"
    assert store.blob(points[1].blob_keys[2].replace(eid(store), "other")) is None


def test_restarted_file_forgets_only_its_own_points(store: Store) -> None:
    write(store, "r", cursor("/f1", 10), RunState(), scalar_batch("a", range(5)), restarted=False)
    write(store, "r", cursor("/f2", 10), RunState(), scalar_batch("a", range(5, 10)), restarted=False)
    write(store, "r", cursor("/f1", 4), RunState(), scalar_batch("a", range(100, 102)), restarted=True)
    (row,) = store.series(eid(store))
    assert store.scalars(eid(store), row.id).steps.tolist() == [5, 6, 7, 8, 9, 100, 101]
    assert row.point_count == 7
    assert store.file_cursors(eid(store))["/f1"].offset == 4


def test_filters_have_cross_product_semantics(store: Store) -> None:
    for run in ("a", "b", "c"):
        batch = scalar_batch("x", range(2))
        batch.operations += scalar_batch("y", range(2)).operations
        batch.metadata["y"] = SCALARS
        write(store, run, cursor(f"/{run}", 1), RunState(), batch, restarted=False)
    selected = {(row.run, row.tag) for row in store.series(eid(store), runs=["a", "c"], tags=["y", "nope"])}
    assert selected == {("a", "y"), ("c", "y")}
    assert store.series(eid(store), runs=[]) == []
    assert store.series(eid(store), plugin_name="images") == []


def test_state_and_cursors_survive_reopen(store: Store, open_test_store: StoreOpener) -> None:
    state = RunState(file_version=2.0, most_recent_step=41, seen_session_start=True, start_time=123.5)
    write(store, "train/a", cursor("/logs/x", 77), state, scalar_batch("t", range(3)), restarted=False)
    reopened = open_test_store()
    experiment_id = reopened.create_experiment(EXPERIMENT).id
    assert experiment_id == eid(store)
    state.first_metadata = {"t": SCALARS}  # rebuilt from the series the store keeps
    assert reopened.run_state(experiment_id, "train/a") == state
    assert reopened.run_state(experiment_id, "nope") is None
    assert reopened.file_cursors(experiment_id)["/logs/x"] == cursor("/logs/x", 77)
    assert [r.name for r in reopened.runs(experiment_id)] == ["train/a"]
    assert reopened.runs(experiment_id)[0].start_time == 123.5


def test_readers_see_committed_data_while_a_write_is_open(store: Store) -> None:
    write(store, "r", cursor("/f", 1), RunState(), scalar_batch("a", range(3)), restarted=False)
    (row,) = store.series(eid(store))
    # Hold a write transaction open in another thread, deleting every point, and read meanwhile.
    entered, release = threading.Event(), threading.Event()

    def slow_write() -> None:
        with store.database.transaction(eid(store)) as transaction:
            transaction.delete_points_from([row.id], 0)
            entered.set()
            release.wait(5)
            raise_to_roll_back()

    def raise_to_roll_back() -> None:
        raise KeyboardInterrupt

    writer = threading.Thread(target=lambda: _swallow(slow_write))
    writer.start()
    assert entered.wait(5)
    assert store.scalars(eid(store), row.id).steps.tolist() == [0, 1, 2]
    release.set()
    writer.join()
    assert store.scalars(eid(store), row.id).steps.tolist() == [0, 1, 2]


def _swallow(function: Callable[[], None]) -> None:
    try:
        function()
    except KeyboardInterrupt:
        pass


def test_column_series_and_points_keep_their_order_and_generation_moves(store: Store) -> None:
    before = store.generation(eid(store))
    assert store.generation(eid(store)) == before
    batch = Batch(
        operations=[
            ScalarPoint(tag="loss", step=1, wall_time=1.0, value=0.1),
            ScalarSeries("loss", np.array([2, 3], dtype=np.int64), np.array([2.0, 3.0]), np.array([0.2, float("nan")])),
            ScalarPoint(tag="loss", step=4, wall_time=4.0, value=0.4),
        ],
        metadata={"loss": SCALARS},
    )
    write(store, "train", cursor("/logs/train/a", 10), RunState(), batch, restarted=False)
    assert store.generation(eid(store)) != before
    (row,) = store.series(eid(store), plugin_name="scalars")
    columns = store.scalars(eid(store), row.id)
    assert columns.steps.tolist() == [1, 2, 3, 4]
    assert columns.wall_times.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert np.isnan(columns.values[2]) and columns.values[[0, 1, 3]].tolist() == [0.1, 0.2, 0.4]
    assert row.point_count == 4 and row.max_step == 4


def test_last_scalars_of_many_series_in_one_read(store: Store) -> None:
    for run in ("a", "b"):
        write(store, run, cursor(f"/logs/{run}/f", 10), RunState(), scalar_batch("loss", range(5000)), restarted=False)
    write(store, "a", cursor("/logs/a/f", 20), RunState(), scalar_batch("loss", range(7000, 7003)), restarted=False)
    rows = {row.run: row.id for row in store.series(eid(store), plugin_name="scalars")}
    lasts = store.last_scalars(eid(store), [rows["a"], rows["b"], 999_999])
    assert set(lasts) == {rows["a"], rows["b"]}
    assert lasts[rows["a"]].steps.tolist() == [7002] and lasts[rows["a"]].values.tolist() == [0.5 * 7002]
    assert lasts[rows["b"]].steps.tolist() == [4999] and lasts[rows["b"]].wall_times.tolist() == [1000.0 + 4999]


def test_plugin_names_are_those_that_own_series(store: Store) -> None:
    assert store.plugin_names(eid(store)) == []
    batch = Batch(
        operations=[
            TensorPoint(tag="h", step=0, wall_time=1.0, tensor=b"t"),
            BlobSequencePoint(tag="i", step=0, wall_time=1.0, blobs=(b"png",)),
        ],
        metadata={"h": HISTOGRAMS, "i": IMAGES},
    )
    write(store, "a", cursor("/logs/a/f", 10), RunState(), batch, restarted=False)
    write(store, "b", cursor("/logs/b/f", 10), RunState(), scalar_batch("loss", range(3)), restarted=False)
    assert store.plugin_names(eid(store)) == ["histograms", "images", "scalars"]


def test_a_batch_from_a_stale_offset_is_refused(store: Store) -> None:
    """Two writers on one file: the second batch read from offset 0 would double every point."""
    experiment_id = eid(store)
    batch = scalar_batch("a", range(100))
    store.write_batch(
        experiment_id, FileWrite("r", cursor("/f", 100), RunState(), batch, restarted=False, previous=None)
    )
    with pytest.raises(StaleOffsetError):
        store.write_batch(
            experiment_id, FileWrite("r", cursor("/f", 100), RunState(), batch, restarted=False, previous=None)
        )
    with pytest.raises(StaleOffsetError):
        store.write_batch(
            experiment_id,
            FileWrite("r", cursor("/f", 200), RunState(), batch, restarted=False, previous=cursor("/f", 50)),
        )
    (row,) = store.series(experiment_id)
    assert row.point_count == 100 and len(store.scalars(experiment_id, row.id)) == 100


def test_step_ranges_and_latest_points(store: Store) -> None:
    steps = list(range(0, 3 * CHUNK_POINTS, 3))  # more than two chunks
    batch = scalar_batch("a", steps)
    batch.operations += [TensorPoint(tag="h", step=s, wall_time=float(s), tensor=b"%d" % s) for s in range(50)]
    batch.operations += [BlobSequencePoint(tag="i", step=s, wall_time=float(s), blobs=(b"%d" % s,)) for s in range(50)]
    batch.metadata.update(h=HISTOGRAMS, i=IMAGES)
    write(store, "r", cursor("/f", 1), RunState(), batch, restarted=False)
    rows = series_by_tag(store, "r")
    experiment_id = eid(store)
    inside = store.scalars(experiment_id, rows["a"].id, steps=StepRange(first=5000, last=9000))
    assert inside.steps.tolist() == [s for s in steps if 5000 <= s <= 9000]
    latest = store.scalars(experiment_id, rows["a"].id, steps=StepRange(latest=CHUNK_POINTS + 7))
    assert latest.steps.tolist() == steps[-(CHUNK_POINTS + 7) :]
    sampled = store.scalars(experiment_id, rows["a"].id, downsample=10, steps=StepRange(last=300))
    within = [s for s in steps if s <= 300]
    assert sampled.steps.tolist() == [within[i] for i in sample_indices(len(within), 10)]
    tensors = store.tensors(experiment_id, rows["h"].id, steps=StepRange(first=10, last=19), downsample=3)
    assert [t.step for t in tensors] == [10, 14, 19] and tensors[1].tensor == b"14"
    assert [t.step for t in store.tensors(experiment_id, rows["h"].id, steps=StepRange(latest=2))] == [48, 49]
    sequences = store.blob_sequences(experiment_id, rows["i"].id, steps=StepRange(latest=1))
    assert [(p.step, store.blob(p.blob_keys[0])) for p in sequences] == [(49, b"49")]


def test_forgotten_files_take_their_points_runs_and_blobs(store: Store) -> None:
    experiment_id = eid(store)
    kept = scalar_batch("a", range(5))
    gone = scalar_batch("a", range(5, 10))
    gone.operations.append(BlobSequencePoint(tag="i", step=1, wall_time=1.0, blobs=(b"only-here",)))
    gone.metadata["i"] = IMAGES
    write(store, "r", cursor("/r/f1", 1), RunState(), kept, restarted=False)
    write(store, "r", cursor("/r/f2", 1), RunState(), gone, restarted=False)
    write(store, "s", cursor("/s/f", 1), RunState(), scalar_batch("b", range(3)), restarted=False)
    (key,) = store.blob_sequences(experiment_id, series_by_tag(store, "r")["i"].id)[0].blob_keys
    store.forget_files(experiment_id, ["/r/f2", "/s/f"])
    assert [run.name for run in store.runs(experiment_id)] == ["r"]
    rows = series_by_tag(store, "r")
    assert set(rows) == {"a"}  # the image series had points from the forgotten file only
    assert store.scalars(experiment_id, rows["a"].id).steps.tolist() == [0, 1, 2, 3, 4]
    assert (rows["a"].point_count, rows["a"].max_step) == (5, 4)
    assert store.blob(key) is None
    assert set(store.file_cursors(experiment_id)) == {"/r/f1"}


def test_experiments_are_apart(store: Store) -> None:
    first = store.create_experiment("first", "the first")
    second = store.create_experiment("second")
    assert store.create_experiment("first") == first and first.id != second.id
    for experiment, count in ((first, 3), (second, 5)):
        store.write_batch(
            experiment.id,
            FileWrite(
                "r", cursor("/f", 1), RunState(), scalar_batch("a", range(count)), restarted=False, previous=None
            ),
        )
    for experiment, count in ((first, 3), (second, 5)):
        (row,) = store.series(experiment.id)
        assert len(store.scalars(experiment.id, row.id)) == count
        assert store.file_cursors(experiment.id)["/f"].offset == 1
    listed = {e.name: e for e in store.experiments()}
    assert listed["first"].description == "the first" and listed["first"].run_count == 1
    assert listed["second"].updated >= listed["second"].created


def test_one_file_cursor_among_ten_thousand_and_of_its_experiment_only(store: Store) -> None:
    """What an upload chunk looks up: one file's cursor, the same as the listing's, in an experiment of 10,000 files
    (and none of another experiment's)."""
    first, second = store.create_experiment("first").id, store.create_experiment("second").id
    writes = [
        FileWrite("r", cursor(f"/r/{index}", index), RunState(), Batch(), restarted=False, previous=None)
        for index in range(10_000)
    ]
    for start in range(0, len(writes), 2_000):
        store.write_batches(first, writes[start : start + 2_000])
    listed = store.file_cursors(first)
    assert len(listed) == 10_000
    for path in ("/r/0", "/r/4321", "/r/9999"):
        assert store.file_cursor(first, path) == listed[path] == cursor(path, int(path[3:]))
    assert store.file_cursor(first, "/r/10000") is None
    assert store.file_cursor(second, "/r/1") is None


def test_a_blob_of_any_size_round_trips(store: Store) -> None:
    big = np.random.default_rng(0).bytes(150 << 20)
    batch = Batch(operations=[BlobSequencePoint(tag="i", step=0, wall_time=0.0, blobs=(big,))], metadata={"i": IMAGES})
    write(store, "r", cursor("/f", 1), RunState(), batch, restarted=False)
    (row,) = store.series(eid(store))
    (point,) = store.blob_sequences(eid(store), row.id)
    assert store.blob(point.blob_keys[0]) == big


def test_large_values_given_as_views_of_a_record_round_trip(store: Store) -> None:
    """The normaliser hands a large record's tensors and blobs over as views of the bytes read, which the backends
    write a piece at a time (SQLite through incremental blob I/O, PostgreSQL in chunks, S3 in parts); small values
    stay bytes, and points keep their order."""
    rng = np.random.default_rng(1)
    record = rng.bytes(60 << 20)
    tensor, image = memoryview(record)[5 : 20 << 20], memoryview(record)[(20 << 20) + 7 :]
    batch = Batch(
        operations=[
            TensorPoint(tag="h", step=0, wall_time=0.0, tensor=b"small"),
            TensorPoint(tag="h", step=1, wall_time=1.0, tensor=tensor),
            TensorPoint(tag="h", step=2, wall_time=2.0, tensor=b"after"),
            BlobSequencePoint(tag="i", step=0, wall_time=0.0, blobs=(b"w", image)),
        ],
        metadata={"h": HISTOGRAMS, "i": IMAGES},
    )
    write(store, "r", cursor("/f", 1), RunState(), batch, restarted=False)
    rows = {row.tag: row for row in store.series(eid(store))}
    assert [point.tensor for point in store.tensors(eid(store), rows["h"].id)] == [b"small", tensor, b"after"]
    (point,) = store.blob_sequences(eid(store), rows["i"].id)
    assert [store.blob(key) for key in point.blob_keys] == [b"w", image]


def test_one_writer_per_experiment(store: Store, open_test_store: StoreOpener) -> None:
    """As two processes would: the second store on one database may write another experiment but not the first's,
    until the first store closes."""
    first, other = store.create_experiment("first").id, store.create_experiment("other").id
    assert store.claim_writer(first)
    second = open_test_store()
    assert not second.claim_writer(first)
    assert second.claim_writer(other)
    store.close()
    assert second.claim_writer(first)


def two_experiments(store: Store) -> tuple[str, str, dict[str, SeriesRow]]:
    """Two experiments holding the same kinds of series (scalars over three chunks, tensors, images) of different
    contents; the first one's series by tag."""
    first, second = store.create_experiment("first").id, store.create_experiment("second").id
    for experiment_id in (first, second):
        content = experiment_id.encode()
        batch = scalar_batch("a", range(2 * CHUNK_POINTS + 5))
        batch.operations += [
            TensorPoint(tag="h", step=s, wall_time=float(s), tensor=content + b"%d" % s) for s in range(20)
        ]
        batch.operations += [
            BlobSequencePoint(tag="i", step=s, wall_time=float(s), blobs=(content + b"%d" % s,)) for s in range(5)
        ]
        batch.metadata.update(h=HISTOGRAMS, i=IMAGES)
        store.write_batch(
            experiment_id, FileWrite("r", cursor("/f", 1), RunState(), batch, restarted=False, previous=None)
        )
    return first, second, {row.tag: row for row in store.series(first)}


def test_scalars_are_not_found_under_another_experiment(store: Store) -> None:
    first, second, rows = two_experiments(store)
    series_id = rows["a"].id
    assert len(store.scalars(first, series_id)) == rows["a"].point_count
    assert len(store.scalars(second, series_id)) == 0
    assert len(store.scalars(second, series_id, downsample=10)) == 0
    assert len(store.scalars(second, series_id, steps=StepRange(first=10, last=CHUNK_POINTS + 10))) == 0
    assert len(store.scalars(second, series_id, steps=StepRange(latest=3))) == 0
    assert store.last_scalars(second, [series_id]) == {}
    # The database's own reads, given the first experiment's chunk ids.
    chunk_ids = store.database.scalar_chunk_index(first, series_id).ids.tolist()
    assert len(chunk_ids) == 3
    assert store.database.scalar_chunk_index(second, series_id).ids.tolist() == []
    assert store.database.scalar_chunks(second, chunk_ids) == []
    assert len(store.database.scalar_picks(second, [(chunk_ids[0], [0, 1]), (chunk_ids[2], [0])])) == 0
    assert store.database.last_scalars(second, [series_id]) == {}
    assert store.database.damaged_files(second, chunk_ids=chunk_ids) == []


def test_tensors_are_not_found_under_another_experiment(store: Store) -> None:
    first, second, rows = two_experiments(store)
    series_id = rows["h"].id
    assert [t.tensor for t in store.tensors(first, series_id, steps=StepRange(latest=1))] == [f"{first}19".encode()]
    assert store.tensors(second, series_id) == []
    assert store.tensors(second, series_id, downsample=3, steps=StepRange(first=2, last=9)) == []
    point_ids = store.database.tensor_index(first, series_id, StepRange()).ids.tolist()
    assert len(point_ids) == 20
    assert store.database.tensor_index(second, series_id, StepRange()).ids.tolist() == []
    assert store.database.tensor_values(second, point_ids) == []
    assert store.database.damaged_files(second, tensor_ids=point_ids) == []


def test_blob_sequences_and_blobs_are_not_found_under_another_experiment(store: Store) -> None:
    first, second, rows = two_experiments(store)
    series_id = rows["i"].id
    keys = [key for point in store.blob_sequences(first, series_id) for key in point.blob_keys]
    assert [store.blob(key) for key in keys] == [f"{first}{s}".encode() for s in range(5)]
    assert store.blob_sequences(second, series_id) == []
    assert store.blob_sequences(second, series_id, steps=StepRange(latest=2)) == []
    assert store.database.blob_sequences(second, series_id, StepRange()) == []
    assert [store.blob(key.replace(first, second, 1)) for key in keys] == [None] * 5
    assert store.database.damaged_files(second, blob_keys=keys) == []
