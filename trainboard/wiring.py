"""Builds what a command runs: stores, ingest and provider, handed to `create_app` (which serves only).

`local_app`: `trainboard --logdir DIR`, one process ingesting its logdir into its store and serving it at /.
`store_app`: `trainboard serve`, every experiment of a store, no logdir: any number of replicas behind a proxy.
`ingest`: `trainboard ingest`, a logdir into one experiment of a store, without serving.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator

from starlette.applications import Starlette

from trainboard.http.app import create_app
from trainboard.http.context import Experiments, LocalExperiment
from trainboard.ingest.loader import Loader, default_workers
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import LogDir, RunSource
from trainboard.reader.logdir_spec import LogDirSpec
from trainboard.settings import Settings
from trainboard.store.opening import open_store

# How long a stopping server waits for an ingest pass to end before closing the store under it.
INGEST_STOP_SECONDS = 10


def logdir_of(settings: Settings) -> RunSource:
    return LogDirSpec(settings.logdir_spec) if settings.logdir_spec else LogDir(settings.logdir)


def local_app(settings: Settings, progress: IngestProgress) -> Starlette:
    """The logdir's store opened (errors raise `StoreUnavailable` here, before anything is served), ingest started
    with the app and stopped after it."""
    location = settings.logdir or settings.logdir_spec
    store = open_store(settings.store_url(location), settings.blobs or None)
    experiment = store.create_experiment(location)
    logdir = logdir_of(settings)
    loader = Loader(logdir, store, experiment.id, progress, workers=default_workers())
    experiments = Experiments(
        DataProvider(store),
        default=experiment.id,
        local=(LocalExperiment(experiment.id, logdir, progress),),
        sampling=settings.sampling,
        max_projection_points=settings.max_projection_points,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        stop = threading.Event()
        thread = threading.Thread(
            target=loader.run_forever, args=(settings.reload_interval, stop), name="trainboard-ingest", daemon=True
        )
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=INGEST_STOP_SECONDS)
            store.close()

    return create_app(experiments, settings, lifespan=lifespan)


def store_app(settings: Settings) -> Starlette:
    store = open_store(settings.db, settings.blobs or None)
    experiments = Experiments(
        DataProvider(store), sampling=settings.sampling, max_projection_points=settings.max_projection_points
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            store.close()

    return create_app(experiments, settings, lifespan=lifespan)


def ingest(settings: Settings, progress: IngestProgress, stop: threading.Event) -> None:
    """Load the logdir into the experiment once, or until `stop` with --watch."""
    store = open_store(settings.db, settings.blobs or None)
    try:
        experiment = store.create_experiment(settings.experiment)
        loader = Loader(logdir_of(settings), store, experiment.id, progress, workers=default_workers())
        loader.run_forever(settings.reload_interval if settings.watch else 0, stop)
    finally:
        store.close()
