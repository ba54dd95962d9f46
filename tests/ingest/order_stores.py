"""Stores of one logdir that ingest saw arrive in different orders, and an app serving each as `trainboard --logdir`
serves its store."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path

from starlette.testclient import TestClient

from tests.ingest.order_logdir import arrive, run_units
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.loader import Loader
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.dialect import is_projector_config
from trainboard.reader.logdir import LogDir
from trainboard.settings import Settings
from trainboard.store.opening import open_store

WORKERS = 4


def cold_load(source: Path, db: Path) -> None:
    """The whole logdir in one pass, runs in parallel threads."""
    _pass(source, db, WORKERS)


def runs_one_at_a_time(source: Path, target: Path, db: Path, seed: int, restart: bool) -> None:
    """Whole runs copied into `target` in a shuffled order, an ingest pass after each; with `restart`, each pass by a
    new process's worth of objects (the store opened again, a new loader)."""
    units = run_units(source)
    order = list(units)
    random.Random(seed).shuffle(order)
    with ExitStack() as stack:
        kept = None if restart else stack.enter_context(_Session(target, db))
        for run in order:
            for file in units[run]:
                arrive(source, target, file)
            with nullcontext(kept) if kept else _Session(target, db) as session:
                session.poll()


def files_one_at_a_time(source: Path, target: Path, db: Path, seed: int) -> None:
    """Every file copied into `target` on its own in a shuffled order (the log files of a run too), an ingest pass
    by parallel threads after each; projector configs come last, after the assets they name, as writers write them."""
    files = [file for run_files in run_units(source).values() for file in run_files]
    random.Random(seed).shuffle(files)
    files.sort(key=lambda file: is_projector_config(file.name))
    with _Session(target, db, workers=WORKERS) as session:
        for file in files:
            arrive(source, target, file)
            session.poll()


class _Session:
    def __init__(self, logdir: Path, db: Path, workers: int = 0) -> None:
        self.store = open_store(str(db))
        experiment = self.store.create_experiment(str(logdir), location=str(logdir))
        self.loader = Loader(LogDir(str(logdir)), self.store, experiment.id, workers=workers)

    def poll(self) -> None:
        self.loader.poll()

    def close(self) -> None:
        self.loader.close()
        self.store.close()

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _pass(logdir: Path, db: Path, workers: int) -> None:
    with _Session(logdir, db, workers) as session:
        session.poll()


@contextmanager
def serving(logdir: Path, db: Path) -> Iterator[TestClient]:
    """A client of the app `trainboard --logdir LOGDIR --db DB --samples_per_plugin=all` serves, its ingest done."""
    store = open_store(str(db))
    try:
        experiment = store.create_experiment(str(logdir), location=str(logdir))
        settings = Settings(logdir=str(logdir), samples_per_plugin="all")
        experiments = Experiments(
            DataProvider(store),
            store,
            progress={experiment.id: IngestProgress.finished()},
            elsewhere=IngestProgress.finished(),
            default=experiment.id,
            sampling=settings.sampling,
        )
        with TestClient(create_app(experiments, settings), base_url="http://localhost") as client:
            yield client
    finally:
        store.close()
