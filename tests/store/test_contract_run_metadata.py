"""The store contract for run metadata (display name, notes, labels, star, colour) and saved views: every backend must
pass these. Metadata is keyed by run name: it outlives the run's rows and another opening of the store."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.store.test_contract_pins import points, write
from trainboard.errors import ConflictError, InvalidArgumentError, NotFoundError
from trainboard.store.run_metadata import (
    MAX_LABELS_PER_RUN,
    MAX_NOTES,
    MAX_VIEW_STATE_BYTES,
    MAX_VIEW_STATE_DEPTH,
    RunMetadata,
    checked_change,
)
from trainboard.store.store import Store

StoreOpener = Callable[[], Store]


def experiment_with_runs(store: Store, name: str = "e", runs: tuple[str, ...] = ("a", "b")) -> str:
    experiment_id = store.create_experiment(name).id
    for run in runs:
        write(store, experiment_id, run, f"/{name}/{run}/events", points(range(3), scalar="loss"))
    return experiment_id


def metadata(store: Store, experiment_id: str) -> dict[str, RunMetadata]:
    return {found.run: found for found in store.run_metadata(experiment_id)}


def test_run_metadata_is_kept_by_run_and_all_defaults_is_none(store: Store) -> None:
    experiment_id = experiment_with_runs(store)
    assert metadata(store, experiment_id) == {}
    store.change_run_metadata(
        experiment_id,
        ["a"],
        checked_change(display_name="baseline", notes="# lr 0.1\n*good*", starred=True, color="#A0b1C2"),
    )
    store.change_run_metadata(experiment_id, ["a", "b"], checked_change(add_labels=["sweep", "gpu", "sweep"]))
    store.change_run_metadata(experiment_id, ["b"], checked_change(remove_labels=["gpu", "never"]))
    assert metadata(store, experiment_id) == {
        "a": RunMetadata("a", "baseline", "# lr 0.1\n*good*", ("gpu", "sweep"), True, "#a0b1c2"),
        "b": RunMetadata("b", labels=("sweep",)),
    }
    # A change leaves what it does not name as it was.
    store.change_run_metadata(experiment_id, ["a"], checked_change(starred=False, color=""))
    assert metadata(store, experiment_id)["a"] == RunMetadata("a", "baseline", "# lr 0.1\n*good*", ("gpu", "sweep"))
    store.change_run_metadata(
        experiment_id, ["a", "b"], checked_change(display_name="", notes="", remove_labels=["gpu", "sweep"])
    )
    assert metadata(store, experiment_id) == {}


def test_metadata_is_refused_for_runs_the_experiment_does_not_have(store: Store) -> None:
    experiment_id = experiment_with_runs(store)
    other = experiment_with_runs(store, "other", ("c",))
    with pytest.raises(NotFoundError, match="no run named 'c'"):
        store.change_run_metadata(experiment_id, ["a", "c"], checked_change(starred=True))
    assert metadata(store, experiment_id) == {}
    store.change_run_metadata(other, ["c"], checked_change(notes="only here"))
    assert metadata(store, experiment_id) == {}
    assert metadata(store, other) == {"c": RunMetadata("c", notes="only here")}


def test_a_run_has_at_most_so_many_labels_and_a_change_past_it_changes_nothing(store: Store) -> None:
    experiment_id = experiment_with_runs(store)
    first = [f"l{i}" for i in range(MAX_LABELS_PER_RUN - 1)]
    store.change_run_metadata(experiment_id, ["a"], checked_change(add_labels=first))
    with pytest.raises(ConflictError, match=f"at most {MAX_LABELS_PER_RUN} labels: 'a'"):
        store.change_run_metadata(experiment_id, ["a", "b"], checked_change(add_labels=["x", "y"], starred=True))
    assert metadata(store, experiment_id) == {"a": RunMetadata("a", labels=tuple(sorted(first)))}
    store.change_run_metadata(experiment_id, ["a"], checked_change(add_labels=["x"]))
    assert len(metadata(store, experiment_id)["a"].labels) == MAX_LABELS_PER_RUN


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"color": "red"}, "#rrggbb"),
        ({"color": "#12345"}, "#rrggbb"),
        ({"color": 0xFFFFFF}, "#rrggbb"),
        ({"notes": "x" * (MAX_NOTES + 1)}, f"at most {MAX_NOTES} characters"),
        ({"notes": "a\x00b"}, "NUL"),
        ({"display_name": "a\nb"}, "control character"),
        ({"starred": "yes"}, "true or false"),
        ({"add_labels": [""]}, "empty"),
        ({"add_labels": ["x" * 65]}, "at most 64 characters"),
        ({"add_labels": [f"l{i}" for i in range(MAX_LABELS_PER_RUN + 1)]}, f"at most {MAX_LABELS_PER_RUN} labels"),
        ({}, "nothing to change"),
    ],
)
def test_bad_values_are_refused_naming_their_bound(change: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        checked_change(**change)  # type: ignore[arg-type]


def test_metadata_outlives_the_runs_rows_and_the_store_being_opened_again(
    store: Store, open_test_store: StoreOpener
) -> None:
    experiment_id = experiment_with_runs(store)
    store.change_run_metadata(experiment_id, ["a"], checked_change(notes="keep me", add_labels=["best"]))
    # The run's files are gone from the logdir: its rows go, and it has no metadata to show.
    store.forget_files(experiment_id, ["/e/a/events"])
    assert [row.name for row in store.runs(experiment_id)] == ["b"]
    assert metadata(store, experiment_id) == {}
    # Ingested again, by another opening of the store: its metadata is back.
    again = open_test_store()
    write(again, experiment_id, "a", "/e/a/events", points(range(3), scalar="loss"))
    assert metadata(again, experiment_id) == {"a": RunMetadata("a", notes="keep me", labels=("best",))}


def test_views_are_saved_listed_opened_renamed_and_deleted(store: Store) -> None:
    experiment_id = experiment_with_runs(store)
    other = experiment_with_runs(store, "other", ("c",))
    first = store.save_view(experiment_id, "  loss by lr ", {"dashboard": "scalars", "smoothing": 0.6}, creator=3)
    assert (first.name, first.creator) == ("loss by lr", 3)
    second = store.save_view(experiment_id, "images", '{"dashboard": "images"}')
    assert [view.name for view in store.views(experiment_id)] == ["images", "loss by lr"]
    assert store.views(other) == [] and store.view(other, first.id) is None
    opened = store.view(experiment_id, first.id)
    assert opened is not None and opened.as_json()["state"] == {"dashboard": "scalars", "smoothing": 0.6}
    assert store.view(experiment_id, "images") == store.view(experiment_id, second.id)
    # Saved again under its name: the same view, its state replaced.
    again = store.save_view(experiment_id, "loss by lr", {"dashboard": "scalars", "smoothing": 0.9})
    assert again.id == first.id and again.created == first.created
    assert store.view(experiment_id, first.id).as_json()["state"]["smoothing"] == 0.9  # type: ignore[union-attr]
    with pytest.raises(ConflictError, match="another view"):
        store.rename_view(experiment_id, first.id, "images")
    renamed = store.rename_view(experiment_id, "loss by lr", "loss")
    assert renamed is not None and renamed.id == first.id
    assert store.rename_view(experiment_id, "nope", "x") is None
    assert store.delete_view(experiment_id, "loss") and not store.delete_view(experiment_id, first.id)
    assert [view.id for view in store.views(experiment_id)] == [second.id]


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("[1, 2]", "a JSON object"),
        ("{", "must be JSON"),
        (3, "a JSON object"),
        ({"x": "y" * MAX_VIEW_STATE_BYTES}, f"at most {MAX_VIEW_STATE_BYTES} bytes"),
        ('{"a":' + "[" * MAX_VIEW_STATE_DEPTH + "]" * MAX_VIEW_STATE_DEPTH + "}", "nests at most"),
    ],
)
def test_a_views_state_is_a_json_object_within_its_bounds(store: Store, state: object, message: str) -> None:
    experiment_id = experiment_with_runs(store)
    with pytest.raises(InvalidArgumentError, match=message):
        store.save_view(experiment_id, "v", state)
    with pytest.raises(InvalidArgumentError, match="name"):
        store.save_view(experiment_id, " ", {})
    with pytest.raises(InvalidArgumentError, match="must not hold '/'"):
        store.save_view(experiment_id, "loss/acc", {})
    assert store.views(experiment_id) == []


def test_deleting_an_experiment_deletes_its_metadata_and_views(store: Store) -> None:
    experiment_id = experiment_with_runs(store)
    store.change_run_metadata(experiment_id, ["a"], checked_change(notes="n", add_labels=["l"]))
    store.save_view(experiment_id, "v", {})
    assert store.delete_experiment(experiment_id)
    again = experiment_with_runs(store)
    assert metadata(store, again) == {} and store.views(again) == []
    assert store.view(experiment_id, "v") is None
