"""The store contract for pins (an experiment as of one moment) and for deleting an experiment: every backend must
pass these."""

from __future__ import annotations

from collections.abc import Callable

from trainboard.access.accounts import Accounts
from trainboard.access.roles import Role
from trainboard.normaliser.points import (
    Batch,
    BlobSequencePoint,
    DataClass,
    Purge,
    RunState,
    ScalarPoint,
    SeriesMetadata,
    TensorPoint,
)
from trainboard.reader.tail import FileCursor
from trainboard.store.batches import CHUNK_POINTS
from trainboard.store.blobs import blob_key
from trainboard.store.reader import StoreReader
from trainboard.store.store import Store
from trainboard.store.values import StepRange
from trainboard.store.writer import FileWrite

StoreOpener = Callable[[], Store]

SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
HISTOGRAMS = SeriesMetadata(plugin_name="histograms", data_class=DataClass.TENSOR)
IMAGES = SeriesMetadata(plugin_name="images", data_class=DataClass.BLOB_SEQUENCE)


def write(store: Store, experiment_id: str, run: str, path: str, batch: Batch) -> None:
    """The next batch of the file at `path`, as ingest writes it."""
    previous = store.file_cursors(experiment_id).get(path)
    offset = 1 if previous is None else previous.offset + 1
    at = FileCursor(path=path, offset=offset, size=offset, mtime=1.0, head=b"head")
    store.write_batch(experiment_id, FileWrite(run, at, RunState(), batch, restarted=False, previous=previous))


def points(steps: range, *, scalar: str = "", tensor: str = "", image: str = "") -> Batch:
    """At each step, a scalar, a tensor and an image of the tags given."""
    batch = Batch()
    for step in steps:
        if scalar:
            batch.operations.append(ScalarPoint(tag=scalar, step=step, wall_time=1000.0 + step, value=step / 7))
            batch.metadata[scalar] = SCALARS
        if tensor:
            batch.operations.append(TensorPoint(tag=tensor, step=step, wall_time=float(step), tensor=b"t%d" % step))
            batch.metadata[tensor] = HISTOGRAMS
        if image:
            blobs = (b"%s-%d" % (image.encode(), step), b"shared")
            batch.operations.append(BlobSequencePoint(tag=image, step=step, wall_time=float(step), blobs=blobs))
            batch.metadata[image] = IMAGES
    return batch


def everything(reader: StoreReader, experiment_id: str) -> dict[str, object]:
    """What a reader answers of an experiment: its listings, and the points of each series read whole, downsampled,
    within steps, and latest."""
    rows = reader.series(experiment_id)
    answers: dict[str, object] = {
        "runs": reader.runs(experiment_id),
        "plugins": reader.plugin_names(experiment_id),
        "series": rows,
    }
    for row in rows:
        name = f"{row.run}/{row.tag}"
        for what, steps, downsample in (
            ("whole", None, None),
            ("sampled", None, 5),
            ("within", StepRange(first=3, last=4100), None),
            ("latest", StepRange(latest=3), None),
        ):
            kind = row.metadata.data_class
            if kind is DataClass.SCALAR:
                columns = reader.scalars(experiment_id, row.id, downsample=downsample, steps=steps)
                answers[f"{name} {what}"] = [
                    columns.steps.tolist(),
                    columns.wall_times.tolist(),
                    columns.values.tolist(),
                ]
            elif kind is DataClass.TENSOR:
                answers[f"{name} {what}"] = reader.tensors(experiment_id, row.id, downsample=downsample, steps=steps)
            else:
                sequences = reader.blob_sequences(experiment_id, row.id, downsample=downsample, steps=steps)
                answers[f"{name} {what}"] = [(p, [reader.blob(key) for key in p.blob_keys]) for p in sequences]
    scalars = [row.id for row in rows if row.metadata.data_class is DataClass.SCALAR]
    answers["last"] = {
        series_id: columns.steps.tolist() for series_id, columns in reader.last_scalars(experiment_id, scalars).items()
    }
    return answers


def test_a_pin_answers_as_the_experiment_was_when_it_was_made(store: Store) -> None:
    experiment_id = store.create_experiment("logs").id
    write(store, experiment_id, "a", "/a/1", points(range(CHUNK_POINTS + 10), scalar="loss"))
    write(store, experiment_id, "a", "/a/1", points(range(6), tensor="weights", image="samples"))
    write(store, experiment_id, "idle", "/idle/1", Batch())  # a run without series yet
    before = everything(store, experiment_id)
    pin = store.create_pin(experiment_id)
    assert pin is not None and pin.created > 0

    # More points of every kind, a new tag in the run, a new run, and series for the idle run.
    write(store, experiment_id, "a", "/a/1", points(range(CHUNK_POINTS + 10, 9000), scalar="loss"))
    write(store, experiment_id, "a", "/a/1", points(range(6, 12), tensor="weights", image="samples"))
    write(store, experiment_id, "a", "/a/1", points(range(5), scalar="accuracy"))
    write(store, experiment_id, "b", "/b/1", points(range(5), scalar="loss", image="samples"))
    write(store, experiment_id, "idle", "/idle/1", points(range(3), scalar="loss"))

    pinned = store.pinned(experiment_id, pin.id)
    assert pinned is not None
    assert everything(pinned, experiment_id) == before
    live = everything(store, experiment_id)
    assert [run.name for run in store.runs(experiment_id)] == ["a", "idle", "b"]
    assert {(row.run, row.tag, row.point_count) for row in store.series(experiment_id)} == {
        ("a", "loss", 9000),
        ("a", "weights", 12),
        ("a", "samples", 12),
        ("a", "accuracy", 5),
        ("b", "loss", 5),
        ("b", "samples", 5),
        ("idle", "loss", 3),
    }
    assert live["a/loss latest"] == [
        [8997, 8998, 8999],
        [1000.0 + s for s in (8997, 8998, 8999)],
        [s / 7 for s in (8997, 8998, 8999)],
    ]
    # A pin made now shows all of it; the first one still answers as before.
    later = store.create_pin(experiment_id)
    assert later is not None and later.id != pin.id
    later_view = store.pinned(experiment_id, later.id)
    assert later_view is not None and everything(later_view, experiment_id) == live
    assert everything(pinned, experiment_id) == before


def test_unknown_pins_and_experiments(store: Store) -> None:
    first, other = store.create_experiment("first").id, store.create_experiment("other").id
    pin = store.create_pin(first)
    assert pin is not None
    assert store.pinned(first, "nope") is None
    assert store.pinned(other, pin.id) is None  # a pin belongs to its experiment
    assert store.create_pin("no-such-experiment") is None
    assert store.pinned("no-such-experiment", pin.id) is None


def test_pins_are_listed_counted_by_their_creator_and_deleted(store: Store) -> None:
    first, other = store.create_experiment("first").id, store.create_experiment("other").id
    write(store, first, "train", "/train/1", points(range(3), scalar="loss"))
    made = [store.create_pin(first, creator=creator) for creator in (7, 7, 8, None)]
    elsewhere = store.create_pin(other, creator=7)
    assert all(pin is not None for pin in [*made, elsewhere])
    ids = [pin.id for pin in made if pin is not None]
    assert [(row.id, row.creator) for row in store.pins(first)] == list(zip(ids, [7, 7, 8, None], strict=True))
    assert store.pin_count(7) == 3 and store.pin_count(8) == 1 and store.pin_count(9) == 0

    assert store.delete_pin(other, ids[0]) is False  # a pin belongs to its experiment
    assert store.delete_pin(first, ids[0]) is True
    assert store.delete_pin(first, ids[0]) is False
    assert store.pinned(first, ids[0]) is None and store.pin(first, ids[0]) is None
    assert [row.id for row in store.pins(first)] == ids[1:]
    assert store.pin_count(7) == 2
    assert store.pinned(first, ids[1]) is not None


def test_every_store_opened_on_the_database_serves_a_pin(store: Store, open_test_store: StoreOpener) -> None:
    experiment_id = store.create_experiment("logs").id
    write(store, experiment_id, "a", "/a/1", points(range(10), scalar="loss", image="samples"))
    pin = store.create_pin(experiment_id)
    assert pin is not None
    write(store, experiment_id, "a", "/a/1", points(range(10, 20), scalar="loss"))
    replica = open_test_store()
    pinned = replica.pinned(experiment_id, pin.id)
    assert pinned is not None
    assert pinned.pin == pin
    (row, _) = pinned.series(experiment_id)
    assert pinned.scalars(experiment_id, row.id).steps.tolist() == list(range(10))


def test_after_a_restart_purge_a_pin_shows_the_first_points_left(store: Store) -> None:
    """Deletions are the one change a pin sees: points deleted since are gone, and a series cut shorter than it was
    shows as many of its first points as it had then (docs/storage.md)."""
    experiment_id = store.create_experiment("logs").id
    write(store, experiment_id, "a", "/a/1", points(range(100), scalar="loss", tensor="weights", image="samples"))
    write(store, experiment_id, "gone", "/gone/1", points(range(3), scalar="loss"))
    pin = store.create_pin(experiment_id)
    assert pin is not None
    restart = Batch(operations=[Purge(step=50), *points(range(50, 200), scalar="loss", tensor="weights").operations])
    restart.metadata.update(loss=SCALARS, weights=HISTOGRAMS)
    write(store, experiment_id, "a", "/a/1", restart)
    store.forget_files(experiment_id, ["/gone/1"])
    pinned = store.pinned(experiment_id, pin.id)
    assert pinned is not None
    assert [run.name for run in pinned.runs(experiment_id)] == ["a"]
    rows = {row.tag: row for row in pinned.series(experiment_id)}
    assert (rows["loss"].point_count, rows["loss"].max_step) == (100, 99)  # the summary as at the pin
    assert pinned.scalars(experiment_id, rows["loss"].id).steps.tolist() == list(range(100))
    assert pinned.scalars(experiment_id, rows["loss"].id, downsample=3).steps.tolist() == [0, 49, 99]
    assert [t.step for t in pinned.tensors(experiment_id, rows["weights"].id)] == list(range(100))
    assert [p.step for p in pinned.blob_sequences(experiment_id, rows["samples"].id)] == list(range(50))
    assert pinned.last_scalars(experiment_id, [rows["loss"].id])[rows["loss"].id].steps.tolist() == [99]


def test_deleting_an_experiment_takes_everything_of_it(store: Store, open_test_store: StoreOpener) -> None:
    doomed, kept = store.create_experiment("doomed").id, store.create_experiment("kept").id
    for experiment_id in (doomed, kept):
        write(store, experiment_id, "a", "/a/1", points(range(5), scalar="loss", tensor="weights", image="samples"))
    keys = {key for row in store.series(doomed) for point in _sequences(store, doomed, row.id) for key in point}
    # A blob put before a batch that never committed: named by no point, deleted with its experiment all the same.
    orphan = blob_key(doomed, b"never committed")
    store.blobs.put({orphan: b"never committed"})
    assert store.create_pin(doomed) is not None
    accounts = Accounts(store.accounts)
    accounts.add_user("ada")
    accounts.add_user("bob")
    accounts.set_owner(doomed, "ada")
    accounts.share(doomed, "bob", Role.READ)
    limited, token = accounts.create_token("bob", experiment_id=doomed)
    _, elsewhere = accounts.create_token("bob", experiment_id=kept)
    kept_before = everything(store, kept)

    # While another process writes it, nothing is deleted.
    writer = open_test_store()
    assert writer.claim_writer(doomed)
    assert store.delete_experiment(doomed) is False
    assert store.series(doomed) and store.blob(orphan) == b"never committed"
    writer.close()

    assert store.delete_experiment(doomed) is True
    assert [e.name for e in store.experiments()] == ["kept"]
    assert store.generation(doomed) == -1
    assert store.runs(doomed) == [] and store.series(doomed) == [] and store.plugin_names(doomed) == []
    assert store.file_cursors(doomed) == {}
    assert all(store.blob(key) is None for key in [*keys, orphan])
    assert store.create_pin(doomed) is None
    assert store.accounts.experiment_access(doomed) is None and store.accounts.roles(doomed) == {}
    (revoked,) = [row for row in store.accounts.tokens(None) if row.id == limited.id]
    assert revoked.revoked is not None and accounts.authenticate(token) is None
    assert accounts.authenticate(elsewhere) is not None
    # Its writer claim is free: an experiment of that name starts anew.
    assert store.claim_writer(doomed)
    assert store.create_experiment("doomed").id != doomed
    # The other experiment is untouched, its blobs (some of the same content) included.
    assert everything(store, kept) == kept_before


def _sequences(store: Store, experiment_id: str, series_id: int) -> list[tuple[str, ...]]:
    return [point.blob_keys for point in store.blob_sequences(experiment_id, series_id)]
