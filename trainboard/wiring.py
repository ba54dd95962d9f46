"""Builds what a command runs: stores, ingest and provider, handed to `create_app` (which serves only).

`local_app`: `trainboard --logdir DIR`, one process ingesting its logdir into its store and serving it at /.
`store_app`: `trainboard serve`, every experiment of a store, no logdir: any number of replicas behind a proxy.
`ingest`: `trainboard ingest`, a logdir into one experiment of a store, without serving.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable

from starlette.applications import Starlette

from trainboard.access.accounts import Accounts
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.loader import Loader, default_workers
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import LogDir, RunSource
from trainboard.reader.logdir_spec import LogDirSpec
from trainboard.settings import Settings
from trainboard.store.errors import StoreUnavailable
from trainboard.store.opening import open_store

logger = logging.getLogger("trainboard")

# How long a stopping server waits for an ingest pass to end before closing the store under it.
INGEST_STOP_SECONDS = 10


def logdir_of(settings: Settings) -> RunSource:
    return LogDirSpec(settings.logdir_spec) if settings.logdir_spec else LogDir(settings.logdir)


def local_app(settings: Settings, progress: IngestProgress) -> Starlette:
    """The logdir's store opened (errors raise `StoreUnavailable` here, before anything is served), ingest started
    with the app and stopped after it."""
    location = settings.logdir or settings.logdir_spec
    store = open_store(settings.store_url(location), settings.blobs or None, rebuildable=True, cached=not settings.db)
    experiment = store.create_experiment(location, location=location)
    # A second `trainboard` on the same logdir and store serves what the first one writes, and writes nothing.
    writing = store.claim_writer(experiment.id)
    logdir = logdir_of(settings)
    loader = Loader(logdir, store, experiment.id, progress, workers=default_workers())
    experiments = Experiments(
        DataProvider(store),
        store,
        progress={experiment.id: progress},
        elsewhere=IngestProgress.finished(),
        default=experiment.id,
        sampling=settings.sampling,
        max_projection_points=settings.max_projection_points,
    )

    if writing:
        # The logdir is the source of truth: what the store finds damaged is read again from it.
        store.rebuild_from_logdir(experiment.id, loader.wake)
    else:
        logger.warning(
            "another process is ingesting %s into %s: serving what it writes, without ingesting",
            location,
            store.location,
        )
        progress.end_pass()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        stop = threading.Event()
        thread = threading.Thread(
            target=loader.run_forever,
            args=(settings.reload_interval, stop),
            kwargs={"repairs": True},
            name="trainboard-ingest",
            daemon=True,
        )
        if writing:
            thread.start()
        try:
            yield
        finally:
            stop.set()
            loader.wake()
            if writing:
                thread.join(timeout=INGEST_STOP_SECONDS)
            store.close()

    return create_app(experiments, settings, lifespan=lifespan)


def store_app(settings: Settings, clock: Callable[[], float] = time.time) -> Starlette:
    """Private unless --no_auth: every route behind its policy, on the store's accounts; `clock` says when tokens and
    sessions expire."""
    store = open_store(settings.db, settings.blobs or None)
    experiments = Experiments(
        DataProvider(store),
        store,
        progress={},
        elsewhere=IngestProgress.finished(),
        sampling=settings.sampling,
        max_projection_points=settings.max_projection_points,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            store.close()

    # What takes uploads brings the whole ingest path: imported by the team server only.
    from trainboard.ingest.upload import Uploads

    accounts = None if settings.no_auth else Accounts(store.accounts, clock)
    return create_app(experiments, settings, lifespan=lifespan, accounts=accounts, uploads=Uploads(store))


def ingest(settings: Settings, progress: IngestProgress, stop: threading.Event, started: Callable[[], None]) -> None:
    """Load the logdir into the experiment once, or until `stop` with --watch; `started` is called once the store is
    open (its errors raise `StoreUnavailable` before)."""
    store = open_store(settings.db, settings.blobs or None)
    try:
        location = settings.logdir or settings.logdir_spec
        experiment = store.create_experiment(settings.experiment, location=location)
        if not store.claim_writer(experiment.id):
            raise StoreUnavailable(
                f"another process is ingesting into experiment {settings.experiment!r} of {store.location}:"
                " stop it first (one writer per experiment)"
            )
        loader = Loader(logdir_of(settings), store, experiment.id, progress, workers=default_workers())
        started()
        loader.run_forever(settings.reload_interval if settings.watch else 0, stop)
    finally:
        store.close()
