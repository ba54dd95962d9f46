"""Run metadata and saved views: what users keep beside an experiment's data, in the store, per experiment.

Run metadata is a run's display name, notes (markdown source; rendered and sanitised where it is shown as HTML), labels,
star and colour. It is keyed by the run's NAME, not by the store's run id, and nothing deletes it with the run's rows:
a run whose files go and come back (ingested again, rebuilt from its logdir) finds it again. Only runs the experiment
has may be given metadata; only theirs is read.

A saved view is a named JSON object of the web UI's state (dashboard, filters, selection, columns, sort, groups, pins,
smoothing, x axis): opaque to the store, which checks only that it is a JSON object within its bounds. Saving a view
under a name the experiment has replaces that view's state.

Every bound is declared here, once; a value past one is an `InvalidArgumentError` (400) naming it, and a count past its
most a `ConflictError` (409)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from trainboard.errors import ConflictError, InvalidArgumentError
from trainboard.names import check_name

MAX_DISPLAY_NAME = 200
# Notes are markdown: about 20 pages of text.
MAX_NOTES = 65_536
MAX_LABEL = 64
MAX_LABELS_PER_RUN = 32
# One change may name this many runs (the web UI's bulk actions over a table of 10,000 runs).
MAX_RUNS_PER_CHANGE = 10_000
MAX_VIEW_NAME = 200
MAX_VIEWS_PER_EXPERIMENT = 1_000
# A view's state as JSON (UTF-8 bytes), and how deeply it may nest.
MAX_VIEW_STATE_BYTES = 256 * 1024
MAX_VIEW_STATE_DEPTH = 32
COLOR = re.compile(r"#[0-9a-fA-F]{6}")

# Every bound, as the OpenAPI document and the docs name them.
BOUNDS = {
    "display_name_chars": MAX_DISPLAY_NAME,
    "notes_chars": MAX_NOTES,
    "label_chars": MAX_LABEL,
    "labels_per_run": MAX_LABELS_PER_RUN,
    "runs_per_change": MAX_RUNS_PER_CHANGE,
    "view_name_chars": MAX_VIEW_NAME,
    "views_per_experiment": MAX_VIEWS_PER_EXPERIMENT,
    "view_state_bytes": MAX_VIEW_STATE_BYTES,
    "view_state_depth": MAX_VIEW_STATE_DEPTH,
}


@dataclass(frozen=True, slots=True)
class RunMetadata:
    """A run's metadata; the defaults are what a run without any has."""

    run: str
    display_name: str = ""
    notes: str = ""
    # By name.
    labels: tuple[str, ...] = ()
    starred: bool = False
    # "#rrggbb" (lower case); None: the colour the run's place gives it.
    color: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "display_name": self.display_name,
            "notes": self.notes,
            "labels": list(self.labels),
            "starred": self.starred,
            "color": self.color,
        }


@dataclass(frozen=True, slots=True)
class MetadataChange:
    """What one change sets, checked (`checked_change`); None leaves a field as it is, and a colour of "" clears it."""

    display_name: str | None = None
    notes: str | None = None
    starred: bool | None = None
    color: str | None = None
    add_labels: tuple[str, ...] = ()
    remove_labels: tuple[str, ...] = ()

    @property
    def columns(self) -> dict[str, object]:
        """The columns of `run_metadata` it sets, with their stored values."""
        found: dict[str, object] = {}
        if self.display_name is not None:
            found["display_name"] = self.display_name
        if self.notes is not None:
            found["notes"] = self.notes
        if self.starred is not None:
            found["starred"] = self.starred
        if self.color is not None:
            found["color"] = self.color or None
        return found

    @property
    def fields(self) -> list[str]:
        """What it changes, by name (for the audit log)."""
        labels = ["labels"] if self.add_labels or self.remove_labels else []
        return [*self.columns, *labels]


@dataclass(frozen=True, slots=True)
class ViewRow:
    """A saved view as its list shows it; `creator`: the user who saved it (None: saved without accounts)."""

    id: str
    name: str
    created: float
    updated: float
    creator: int | None

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "created": self.created, "updated": self.updated}


@dataclass(frozen=True, slots=True)
class View:
    row: ViewRow
    # The JSON object saved, as its text.
    state: str

    def as_json(self) -> dict[str, Any]:
        return {**self.row.as_json(), "state": orjson.loads(self.state)}


class RunMetadataBackend(Protocol):
    """Run metadata and saved views as a database keeps them: simple reads and writes, every one naming its
    experiment. The `Store` checks values and bounds before it calls these."""

    def run_metadata(self, experiment_id: str) -> list[RunMetadata]:
        """Every run's metadata that is not all defaults, by run name; labels by name."""

    def change_run_metadata(self, experiment_id: str, runs: Sequence[str], change: MetadataChange, now: float) -> None:
        """Apply `change` to each run, in one transaction; a `ConflictError` (nothing changed) when a run would have
        more than MAX_LABELS_PER_RUN labels."""

    def views(self, experiment_id: str) -> list[ViewRow]:
        """The experiment's saved views, by name."""

    def view(self, experiment_id: str, key: str) -> View | None:
        """The view of this id, else of this name; None when there is none."""

    def save_view(
        self, experiment_id: str, view_id: str, name: str, state: str, creator: int | None, now: float
    ) -> ViewRow:
        """A new view `view_id`, or (when the experiment has a view of that name) that view with its state replaced;
        a `ConflictError` when there would be more than MAX_VIEWS_PER_EXPERIMENT."""

    def rename_view(self, experiment_id: str, view_id: str, name: str, now: float) -> ViewRow | None:
        """None when there is no such view; a `ConflictError` when another view has that name."""

    def delete_view(self, experiment_id: str, view_id: str) -> bool:
        """False when there is no such view."""


class RunMetadataKeeper(Protocol):
    """What keeps run metadata and saved views for the server and the Python API (`Store` implements it): values
    checked, runs that the experiment does not have refused (`NotFoundError`)."""

    def run_metadata(self, experiment_id: str) -> list[RunMetadata]:
        """The metadata of the experiment's runs that have any, in no order."""

    def change_run_metadata(self, experiment_id: str, runs: Sequence[str], change: MetadataChange) -> None: ...

    def views(self, experiment_id: str) -> list[ViewRow]: ...

    def view(self, experiment_id: str, key: str) -> View | None: ...

    def save_view(self, experiment_id: str, name: str, state: object, creator: int | None = None) -> ViewRow:
        """`state`: a JSON object (a dict, or its text)."""

    def rename_view(self, experiment_id: str, key: str, name: str) -> ViewRow | None: ...

    def delete_view(self, experiment_id: str, key: str) -> bool: ...


# Checks: each value as it is stored, or an error naming its bound.


def checked_change(
    *,
    display_name: object = None,
    notes: object = None,
    starred: object = None,
    color: object = None,
    add_labels: Iterable[object] = (),
    remove_labels: Iterable[object] = (),
) -> MetadataChange:
    """A change from values as they come (JSON, Python); `InvalidArgumentError` naming the first one that is wrong."""
    change = MetadataChange(
        display_name=None if display_name is None else _text(display_name, "display_name", MAX_DISPLAY_NAME),
        notes=None if notes is None else _notes(notes),
        starred=None if starred is None else _flag(starred),
        color=None if color is None else _color(color),
        add_labels=tuple(dict.fromkeys(checked_label(label) for label in add_labels)),
        remove_labels=tuple(dict.fromkeys(checked_label(label) for label in remove_labels)),
    )
    if len(change.add_labels) > MAX_LABELS_PER_RUN:
        raise InvalidArgumentError(f"a run has at most {MAX_LABELS_PER_RUN} labels; {len(change.add_labels)} given")
    if not change.columns and not change.add_labels and not change.remove_labels:
        raise InvalidArgumentError(
            "nothing to change: give display_name, notes, starred, color, add_labels or remove_labels"
        )
    return change


def checked_runs(runs: object) -> list[str]:
    if isinstance(runs, str) or not isinstance(runs, list | tuple) or not all(isinstance(r, str) for r in runs):
        raise InvalidArgumentError("runs must be a list of run names")
    if not runs:
        raise InvalidArgumentError("runs must name at least one run")
    if len(runs) > MAX_RUNS_PER_CHANGE:
        raise InvalidArgumentError(f"one change names at most {MAX_RUNS_PER_CHANGE} runs; {len(runs)} given")
    return list(dict.fromkeys(runs))


def checked_label(label: object) -> str:
    text = _text(label, "a label", MAX_LABEL).strip()
    if not text:
        raise InvalidArgumentError("a label must not be empty")
    return text


def checked_view_name(name: object) -> str:
    text = _text(name, "a view's name", MAX_VIEW_NAME).strip()
    if not text:
        raise InvalidArgumentError("a view's name must not be empty")
    if "/" in text:
        # A view is opened by its name in a URL's path, of which it is one segment.
        raise InvalidArgumentError(f"a view's name must not hold '/': {text!r}")
    return text


def checked_view_state(state: object) -> str:
    """A view's state as the text stored: a JSON object (given as one, or as its text) within its bounds."""
    if isinstance(state, str | bytes):
        if len(state) > MAX_VIEW_STATE_BYTES:
            raise InvalidArgumentError(f"a view's state is at most {MAX_VIEW_STATE_BYTES} bytes of JSON")
        try:
            state = orjson.loads(state)
        except orjson.JSONDecodeError as error:
            raise InvalidArgumentError(f"a view's state must be JSON: {error}") from None
    if not isinstance(state, dict):
        raise InvalidArgumentError("a view's state must be a JSON object")
    if _depth(state) > MAX_VIEW_STATE_DEPTH:
        raise InvalidArgumentError(f"a view's state nests at most {MAX_VIEW_STATE_DEPTH} levels deep")
    try:
        text = orjson.dumps(state)
    except TypeError as error:
        raise InvalidArgumentError(f"a view's state must be JSON: {error}") from None
    if len(text) > MAX_VIEW_STATE_BYTES:
        raise InvalidArgumentError(f"a view's state is at most {MAX_VIEW_STATE_BYTES} bytes of JSON; {len(text)} given")
    return text.decode()


def unknown_runs(runs: Collection[str], known: Collection[str]) -> list[str]:
    present = set(known)
    return [run for run in runs if run not in present]


def too_many_labels(runs: Collection[str]) -> ConflictError:
    shown = ", ".join(repr(run) for run in sorted(runs)[:3])
    return ConflictError(f"a run has at most {MAX_LABELS_PER_RUN} labels: {shown} would have more")


def too_many_views() -> ConflictError:
    return ConflictError(f"an experiment has at most {MAX_VIEWS_PER_EXPERIMENT} saved views: delete some first")


def name_taken(name: str) -> ConflictError:
    return ConflictError(f"another view of this experiment is named {name[:MAX_VIEW_NAME]!r}")


def _text(value: object, what: str, most: int) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"{what} must be a string")
    if len(value) > most:
        raise InvalidArgumentError(f"{what} is at most {most} characters; {len(value)} given")
    return check_name(value, what)


def _notes(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError("notes must be a string")
    if len(value) > MAX_NOTES:
        raise InvalidArgumentError(f"notes are at most {MAX_NOTES} characters; {len(value)} given")
    if "\x00" in value:
        raise InvalidArgumentError("notes must not hold a NUL character")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidArgumentError("starred must be true or false")
    return value


def _color(value: object) -> str:
    """ "" (no colour of its own), or "#rrggbb" in lower case."""
    if not isinstance(value, str) or not (value == "" or COLOR.fullmatch(value)):
        shown = repr(value)[:40]
        raise InvalidArgumentError(f'a colour is "#rrggbb" (six hexadecimal digits) or "" for none, not {shown}')
    return value.lower()


def _depth(value: object) -> int:
    """How many objects and arrays the deepest part of `value` sits in, without recursing."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_VIEW_STATE_DEPTH:
                break
            pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest
