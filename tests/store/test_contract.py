"""The store contract: every backend must pass these."""

from __future__ import annotations

import threading

import numpy as np

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
from trainboard.store.downsample import sample_indices
from trainboard.store.protocol import Store
from trainboard.store.sqlite import CHUNK_POINTS, SqliteStore

SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR, display_name="loss")
HISTOGRAMS = SeriesMetadata(plugin_name="histograms", data_class=DataClass.TENSOR, plugin_content=b"\x01")
IMAGES = SeriesMetadata(plugin_name="images", data_class=DataClass.BLOB_SEQUENCE)


def cursor(path: str, offset: int) -> FileCursor:
    return FileCursor(path=path, offset=offset, size=offset, head=b"head")


def scalar_batch(tag: str, steps: range, value: float = 0.5) -> Batch:
    return Batch(
        operations=[ScalarPoint(tag=tag, step=s, wall_time=1000.0 + s, value=value * s) for s in steps],
        metadata={tag: SCALARS},
    )


def series_by_tag(store: Store, run: str) -> dict[str, object]:
    return {row.tag: row for row in store.series(runs=[run])}


def test_scalars_round_trip_in_order(store: Store) -> None:
    steps = [5, 3, 9, 1]  # insertion order is kept, even when steps are not sorted
    batch = Batch(
        operations=[ScalarPoint(tag="loss", step=s, wall_time=s / 3, value=float(s) / 7) for s in steps],
        metadata={"loss": SCALARS},
    )
    store.write_batch("train", cursor("/logs/train/a", 100), RunState(start_time=1.0), batch, restarted=False)
    (row,) = store.series(plugin_name="scalars")
    assert (row.run, row.tag, row.point_count, row.max_step) == ("train", "loss", 4, 9)
    assert row.max_wall_time == 9 / 3
    assert row.metadata == SCALARS
    columns = store.scalars(row.id)
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
    store.write_batch("r", cursor("/f", 1), RunState(), batch, restarted=False)
    (row,) = store.series()
    values = store.scalars(row.id).values
    assert np.isnan(values[0]) and values[1] == np.inf and values[2] == -1.0


def test_series_longer_than_a_chunk_reads_back_whole(store: Store) -> None:
    count = CHUNK_POINTS * 2 + 17
    store.write_batch("r", cursor("/f", 1), RunState(), scalar_batch("t", range(count)), restarted=False)
    (row,) = store.series()
    assert store.scalars(row.id).steps.tolist() == list(range(count))
    assert row.point_count == count


def test_downsampled_read_picks_the_same_points_as_a_whole_read(store: Store) -> None:
    # Three batches, so chunks of uneven sizes, one of them straddled by a purge.
    for start, stop in ((0, CHUNK_POINTS + 5), (CHUNK_POINTS + 5, 3 * CHUNK_POINTS), (3 * CHUNK_POINTS, 9000)):
        batch = scalar_batch("t", range(start, stop), value=0.25)
        store.write_batch("r", cursor("/f", stop), RunState(), batch, restarted=False)
    purge = Batch(operations=[Purge(step=8000, tags=None), *scalar_batch("t", range(8000, 8500)).operations])
    store.write_batch("r", cursor("/f", 9500), RunState(), purge, restarted=False)
    (row,) = store.series()
    whole = store.scalars(row.id)
    assert len(whole.steps) == 8500
    for k in (1, 2, 3, 999, 1000, 8499):
        indices = list(sample_indices(8500, k))
        sampled = store.scalars(row.id, downsample=k)
        assert sampled.steps.tolist() == whole.steps[indices].tolist()
        assert sampled.wall_times.tolist() == whole.wall_times[indices].tolist()
        assert sampled.values.tolist() == whole.values[indices].tolist()
    assert store.scalars(row.id, downsample=8500).steps.tolist() == whole.steps.tolist()
    assert store.scalars(row.id, downsample=0).steps.tolist() == []


def test_first_metadata_wins(store: Store) -> None:
    store.write_batch("r", cursor("/f", 1), RunState(), scalar_batch("t", range(2)), restarted=False)
    later = Batch(
        operations=[ScalarPoint(tag="t", step=9, wall_time=9.0, value=1.0)],
        metadata={"t": SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR, display_name="other")},
    )
    store.write_batch("r", cursor("/f", 2), RunState(), later, restarted=False)
    (row,) = store.series()
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
    store.write_batch("r", cursor("/f", 1), RunState(), batch, restarted=False)
    rows = series_by_tag(store, "r")
    scalars = store.scalars(rows["a"].id)
    assert scalars.steps.tolist() == [0, 1, 2, 3, 4, 5]
    assert scalars.values.tolist()[-1] == -1.0
    assert [t.step for t in store.tensors(rows["h"].id)] == [0, 1, 2, 3, 4]
    assert (rows["a"].point_count, rows["a"].max_step, rows["a"].max_wall_time) == (6, 5, 1e9)
    assert (rows["h"].point_count, rows["h"].max_step, rows["h"].max_wall_time) == (5, 4, 4.0)


def test_purge_by_tags_leaves_other_tags(store: Store) -> None:
    batch = scalar_batch("a", range(10))
    batch.operations += scalar_batch("b", range(10)).operations + [Purge(step=3, tags=("b",))]
    batch.metadata["b"] = SCALARS
    store.write_batch("r", cursor("/f", 1), RunState(), batch, restarted=False)
    rows = series_by_tag(store, "r")
    assert store.scalars(rows["a"].id).steps.tolist() == list(range(10))
    assert store.scalars(rows["b"].id).steps.tolist() == [0, 1, 2]


def test_purge_spans_batches_and_straddling_chunks(store: Store) -> None:
    store.write_batch("r", cursor("/f", 1), RunState(), scalar_batch("a", range(100)), restarted=False)
    store.write_batch("r", cursor("/f", 2), RunState(), scalar_batch("a", range(100, 200)), restarted=False)
    store.write_batch("r", cursor("/f", 3), RunState(), Batch(operations=[Purge(step=50)]), restarted=False)
    (row,) = store.series()
    assert store.scalars(row.id).steps.tolist() == list(range(50))
    assert (row.point_count, row.max_step, row.max_wall_time) == (50, 49, 1049.0)


def test_blob_sequences_and_blobs(store: Store) -> None:
    batch = Batch(
        operations=[
            BlobSequencePoint(tag="img", step=1, wall_time=1.5, blobs=(b"w", b"h", b"png1", b"png2")),
            BlobSequencePoint(tag="img", step=2, wall_time=2.5, blobs=(b"w", b"h", b"png3")),
        ],
        metadata={"img": IMAGES},
    )
    store.write_batch("r", cursor("/f", 1), RunState(), batch, restarted=False)
    (row,) = store.series(data_class=DataClass.BLOB_SEQUENCE)
    assert row.max_length == 4
    points = store.blob_sequences(row.id)
    assert [(p.step, p.wall_time, p.length) for p in points] == [(1, 1.5, 4), (2, 2.5, 3)]
    assert store.blob(points[0].point_id, 3) == b"png2"
    assert store.blob(points[1].point_id, 2) == b"png3"
    assert store.blob(points[1].point_id, 3) is None


def test_restarted_file_forgets_only_its_own_points(store: Store) -> None:
    store.write_batch("r", cursor("/f1", 10), RunState(), scalar_batch("a", range(5)), restarted=False)
    store.write_batch("r", cursor("/f2", 10), RunState(), scalar_batch("a", range(5, 10)), restarted=False)
    store.write_batch("r", cursor("/f1", 4), RunState(), scalar_batch("a", range(100, 102)), restarted=True)
    (row,) = store.series()
    assert store.scalars(row.id).steps.tolist() == [5, 6, 7, 8, 9, 100, 101]
    assert row.point_count == 7
    assert store.file_cursors()["/f1"].offset == 4


def test_filters_have_cross_product_semantics(store: Store) -> None:
    for run in ("a", "b", "c"):
        batch = scalar_batch("x", range(2))
        batch.operations += scalar_batch("y", range(2)).operations
        batch.metadata["y"] = SCALARS
        store.write_batch(run, cursor(f"/{run}", 1), RunState(), batch, restarted=False)
    selected = {(row.run, row.tag) for row in store.series(runs=["a", "c"], tags=["y", "nope"])}
    assert selected == {("a", "y"), ("c", "y")}
    assert store.series(runs=[]) == []
    assert store.series(plugin_name="images") == []


def test_state_and_cursors_survive_reopen(store: Store, tmp_path) -> None:
    state = RunState(file_version=2.0, most_recent_step=41, seen_session_start=True, start_time=123.5)
    store.write_batch("train/a", cursor("/logs/x", 77), state, scalar_batch("t", range(3)), restarted=False)
    if not isinstance(store, SqliteStore):
        return
    reopened = SqliteStore(store.path)
    try:
        state.first_metadata = {"t": SCALARS}  # rebuilt from the series the store keeps
        assert reopened.run_state("train/a") == state
        assert reopened.run_state("nope") is None
        assert reopened.file_cursors()["/logs/x"] == cursor("/logs/x", 77)
        assert [r.name for r in reopened.runs()] == ["train/a"]
        assert reopened.runs()[0].start_time == 123.5
    finally:
        reopened.close()


def test_readers_see_committed_data_while_a_write_is_open(store: Store) -> None:
    if not isinstance(store, SqliteStore):
        return
    store.write_batch("r", cursor("/f", 1), RunState(), scalar_batch("a", range(3)), restarted=False)
    # Hold the writer's transaction open from another thread and read meanwhile.
    entered, release = threading.Event(), threading.Event()

    def slow_write() -> None:
        with store._write_lock:  # the test takes the writer's place to keep its transaction open
            store._writer.execute("BEGIN IMMEDIATE")
            store._writer.execute("DELETE FROM scalar_chunks")
            entered.set()
            release.wait(5)
            store._writer.execute("ROLLBACK")

    writer = threading.Thread(target=slow_write)
    writer.start()
    assert entered.wait(5)
    (row,) = store.series()
    assert store.scalars(row.id).steps.tolist() == [0, 1, 2]
    release.set()
    writer.join()


def test_column_series_and_points_keep_their_order_and_generation_moves(store: Store) -> None:
    before = store.generation()
    assert store.generation() == before
    batch = Batch(
        operations=[
            ScalarPoint(tag="loss", step=1, wall_time=1.0, value=0.1),
            ScalarSeries("loss", np.array([2, 3], dtype=np.int64), np.array([2.0, 3.0]), np.array([0.2, float("nan")])),
            ScalarPoint(tag="loss", step=4, wall_time=4.0, value=0.4),
        ],
        metadata={"loss": SCALARS},
    )
    store.write_batch("train", cursor("/logs/train/a", 10), RunState(), batch, restarted=False)
    assert store.generation() != before
    (row,) = store.series(plugin_name="scalars")
    columns = store.scalars(row.id)
    assert columns.steps.tolist() == [1, 2, 3, 4]
    assert columns.wall_times.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert np.isnan(columns.values[2]) and columns.values[[0, 1, 3]].tolist() == [0.1, 0.2, 0.4]
    assert row.point_count == 4 and row.max_step == 4


def test_last_scalars_of_many_series_in_one_read(store: Store) -> None:
    for run in ("a", "b"):
        store.write_batch(
            run, cursor(f"/logs/{run}/f", 10), RunState(), scalar_batch("loss", range(5000)), restarted=False
        )
    store.write_batch(
        "a", cursor("/logs/a/f", 20), RunState(), scalar_batch("loss", range(7000, 7003)), restarted=False
    )
    rows = {row.run: row.id for row in store.series(plugin_name="scalars")}
    lasts = store.last_scalars([rows["a"], rows["b"], 999_999])
    assert set(lasts) == {rows["a"], rows["b"]}
    assert lasts[rows["a"]].steps.tolist() == [7002] and lasts[rows["a"]].values.tolist() == [0.5 * 7002]
    assert lasts[rows["b"]].steps.tolist() == [4999] and lasts[rows["b"]].wall_times.tolist() == [1000.0 + 4999]


def test_plugin_names_are_those_that_own_series(store: Store) -> None:
    assert store.plugin_names() == []
    batch = Batch(
        operations=[
            TensorPoint(tag="h", step=0, wall_time=1.0, tensor=b"t"),
            BlobSequencePoint(tag="i", step=0, wall_time=1.0, blobs=(b"png",)),
        ],
        metadata={"h": HISTOGRAMS, "i": IMAGES},
    )
    store.write_batch("a", cursor("/logs/a/f", 10), RunState(), batch, restarted=False)
    store.write_batch("b", cursor("/logs/b/f", 10), RunState(), scalar_batch("loss", range(3)), restarted=False)
    assert store.plugin_names() == ["histograms", "images", "scalars"]
