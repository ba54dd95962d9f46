"""`open_experiment`: a logdir (ingested into its store first, incrementally) or an experiment of a store."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from trainboard.api.experiment import Experiment
from trainboard.store.errors import StoreUnavailable
from trainboard.store.local import store_url
from trainboard.store.opening import POSTGRES_SCHEMES, open_store, sqlite_path
from trainboard.store.store import Store
from trainboard.store.values import ExperimentRow

if TYPE_CHECKING:
    from trainboard.api.remote import RemoteExperiment


def open_experiment(
    source: str | os.PathLike[str],
    *,
    experiment: str | None = None,
    db: str | None = None,
    blobs: str | None = None,
    ingest: bool = True,
    backend: str = "pandas",
    token: str | None = None,
) -> Experiment | RemoteExperiment:
    """`source`: a trainboard server's experiment, `http(s)://host:port/` (`trainboard --logdir`) or
    `http(s)://host/experiment/<id>/` (`trainboard serve`, with `token` where it has accounts), read over HTTP; a
    logdir (a directory or an fsspec URL), read into the store `trainboard --logdir` uses for it (or
    `db`) before anything is returned, unless another process is writing it (then what is there is read); or a store:
    `sqlite:PATH`, a path to a SQLite file, `postgresql://...`, with `experiment` naming one of its experiments (by
    name or id; may be left out when the store holds only one)."""
    text = os.fspath(source)
    if text.startswith(("http://", "https://")):
        # httpx (with its command line's rich and click) only for a server's experiment: not on a server's way up.
        from trainboard.api.remote import RemoteExperiment

        return RemoteExperiment(text, token=token, backend=backend)
    if _is_store(text):
        store = open_store(text, blobs)
        try:
            return Experiment(store, _named(store, experiment), backend=backend)
        except BaseException:
            store.close()
            raise
    return _logdir_experiment(text, experiment=experiment, db=db, blobs=blobs, ingest=ingest, backend=backend)


def _is_store(text: str) -> bool:
    if text.startswith("sqlite:") or text.split("://", 1)[0] in POSTGRES_SCHEMES:
        if text.startswith("sqlite:") and not sqlite_path(text).is_file():
            raise FileNotFoundError(f"no store at {sqlite_path(text)}")
        return True
    return "://" not in text and Path(os.path.expanduser(text)).is_file()


def _logdir_experiment(
    logdir: str, *, experiment: str | None, db: str | None, blobs: str | None, ingest: bool, backend: str
) -> Experiment:
    from trainboard.ingest.loader import Loader, default_workers
    from trainboard.reader.logdir import LogDir

    if "://" not in logdir:
        logdir = os.path.expanduser(logdir)
        if not Path(logdir).is_dir():
            raise FileNotFoundError(f"no logdir or store at {logdir}")
    url = store_url(db or "", logdir)
    store = open_store(url, blobs)
    try:
        row = _logdir_row(store, logdir, experiment)
        # The writer's claim lasts as long as its store is open: closed after ingest, so that a server started later
        # on this logdir ingests it.
        if ingest and store.claim_writer(row.id):
            loader = Loader(LogDir(logdir), store, row.id, workers=default_workers())
            try:
                loader.poll()
            finally:
                loader.close()
    finally:
        store.close()
    store = open_store(url, blobs)
    return Experiment(store, _named(store, row.id), backend=backend)


def _logdir_row(store: Store, logdir: str, name: str | None) -> ExperimentRow:
    """The experiment a logdir goes into: `name`, else the one `trainboard --logdir` made for it (named by the logdir
    as it was given there, perhaps relative), else a new one."""
    if name is not None:
        return store.create_experiment(name, location=logdir)
    rows = store.experiments()
    wanted = _normalised(logdir)
    for row in rows:
        if row.name == logdir or _normalised(row.location or row.name) == wanted:
            return row
    return store.create_experiment(logdir, location=logdir)


def _named(store: Store, name: str | None) -> ExperimentRow:
    rows = store.experiments()
    if name is None:
        if len(rows) == 1:
            return rows[0]
        names = ", ".join(repr(row.name) for row in rows) or "none"
        raise StoreUnavailable(f"{store.location} holds {len(rows)} experiments ({names}): name one with experiment=")
    for row in rows:
        if name in (row.name, row.id):
            return row
    raise StoreUnavailable(f"{store.location} has no experiment named {name!r}")


def _normalised(logdir: str) -> str:
    return logdir if "://" in logdir else os.path.abspath(logdir).rstrip("/")
