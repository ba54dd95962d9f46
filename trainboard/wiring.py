"""Builds what a command runs: stores, ingest and provider, handed to `create_app` (which serves only).

`local_app`: `trainboard --logdir DIR`, one process ingesting its logdir into its store and serving it at /.
`store_app`: `trainboard serve`, every experiment of a store, no logdir: any number of replicas behind a proxy.
`ingest`: `trainboard ingest`, a logdir into one experiment of a store, without serving.
`open_experiment`: `trainboard.open(...)`, an experiment as data frames (trainboard.api), from a logdir, a store or a
server; `export`: `trainboard export`, one opened so and written out.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from trainboard.access.accounts import Accounts
from trainboard.access.audit import AuditLog
from trainboard.access.single_sign_on import SingleSignOn, comma_list, parse_role_rules
from trainboard.errors import CommandError
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.loader import Loader, default_workers
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import LogDir, RunSource
from trainboard.reader.logdir_spec import LogDirSpec
from trainboard.settings import Settings
from trainboard.store.errors import StoreUnavailable
from trainboard.store.experiment_names import find_experiment, ownerless
from trainboard.store.local import store_url
from trainboard.store.opening import POSTGRES_SCHEMES, open_store, sqlite_path
from trainboard.store.store import Store
from trainboard.store.values import ExperimentRow

if TYPE_CHECKING:
    # numpy comes with them: not on a server's way up.
    from trainboard.api.experiment import Experiment
    from trainboard.api.experiment_frames import ExperimentFrames
    from trainboard.http.metrics import Metrics, MetricsServer

logger = logging.getLogger("trainboard")

# How often `trainboard serve` deletes the audit log's events older than --audit_days.
AUDIT_SWEEP_SECONDS = 3600
# How long a stopping server waits for an ingest pass to end before closing the store under it.
INGEST_STOP_SECONDS = 10


def logdir_of(settings: Settings) -> RunSource:
    return LogDirSpec(settings.logdir_spec) if settings.logdir_spec else LogDir(settings.logdir)


def local_app(settings: Settings, progress: IngestProgress) -> Starlette:
    """The logdir's store opened (errors raise `StoreUnavailable` here, before anything is served), ingest started
    with the app and stopped after it."""
    location = settings.logdir or settings.logdir_spec
    url = store_url(settings.db, location, spec=bool(settings.logdir_spec))
    store = open_store(url, settings.blobs or None, rebuildable=True, cached=not settings.db)
    experiment = store.create_experiment(location, location=location)
    # A second `trainboard` on the same logdir and store serves what the first one writes, and writes nothing.
    writing = store.claim_writer(experiment.id)
    logdir = logdir_of(settings)
    loader = Loader(logdir, store, experiment.id, progress, workers=default_workers())
    experiments = Experiments(
        DataProvider(store, writer=store, stalled_after=settings.stalled_after),
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

    metrics, metrics_server = _metrics(settings, store)

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
            if metrics_server is not None:
                metrics_server.close()
            store.close()

    return create_app(experiments, settings, lifespan=lifespan, metrics=metrics)


def store_app(settings: Settings, clock: Callable[[], float] = time.time) -> Starlette:
    """Private unless --no_auth: every route behind its policy, on the store's accounts; `clock` says when tokens and
    sessions expire, and times the audit log (its events older than --audit_days deleted at start and every hour)."""
    store = open_store(settings.db, settings.blobs or None, standbys=standby_urls(settings.read_db))
    experiments = Experiments(
        DataProvider(store, writer=store, stalled_after=settings.stalled_after),
        store,
        progress={},
        elsewhere=IngestProgress.finished(),
        sampling=settings.sampling,
        max_projection_points=settings.max_projection_points,
    )

    sso = single_sign_on(settings)
    audit = AuditLog(store.accounts, clock)
    audit.delete_older_than(settings.audit_days)
    metrics, metrics_server = _metrics(settings, store)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        retention = asyncio.create_task(_keep_audit_days(audit, settings.audit_days))
        try:
            yield
        finally:
            retention.cancel()
            if metrics_server is not None:
                metrics_server.close()
            store.close()

    # What takes uploads brings the whole ingest path: imported by the team server only.
    from trainboard.ingest.upload import Uploads

    accounts = None if settings.no_auth else Accounts(store.accounts, clock)
    app = create_app(
        experiments,
        settings,
        lifespan=lifespan,
        accounts=accounts,
        uploads=Uploads(store),
        audit=audit,
        sso=sso,
        metrics=metrics,
    )
    if settings.read_db:
        from trainboard.http.read_after import ReadAfter

        # Each client's reads see what it has read and written before, on any replica (trainboard.http.read_after).
        app.add_middleware(ReadAfter, path=f"/{settings.path_prefix.strip('/')}")
    return app


def standby_urls(read_db: str) -> list[str]:
    """--read_db's URLs: split at the commas before each postgresql:// (a libpq URL may name several hosts, so may
    hold commas of its own)."""
    return [url.strip(" ,") for url in re.split(r",(?=\s*postgres(?:ql)?://)", read_db) if url.strip(" ,")]


async def _keep_audit_days(audit: AuditLog, days: float) -> None:
    """Delete the audit log's events older than `days` every AUDIT_SWEEP_SECONDS, while the server runs."""
    while days > 0:
        await asyncio.sleep(AUDIT_SWEEP_SECONDS)
        await asyncio.to_thread(audit.delete_older_than, days)


def single_sign_on(settings: Settings) -> SingleSignOn | None:
    """The --oidc_* settings checked, when --oidc_issuer is given; `CommandError` saying what is missing."""
    if not settings.oidc_issuer:
        return None
    if settings.no_auth:
        raise CommandError("--oidc_issuer signs users in: it cannot go with --no_auth")
    if not settings.oidc_client_id or not settings.oidc_client_secret:
        raise CommandError(
            "--oidc_issuer needs --oidc_client_id and TRAINBOARD_OIDC_CLIENT_SECRET (or --oidc_client_secret)"
        )
    email_domains, groups = comma_list(settings.oidc_email_domains.lower()), comma_list(settings.oidc_groups)
    if not email_domains and not groups:
        raise CommandError(
            "--oidc_issuer needs --oidc_email_domains or --oidc_groups: who of the provider's users may sign in"
        )
    try:
        rules = parse_role_rules(settings.oidc_roles)
    except ValueError as error:
        raise CommandError(str(error)) from None
    # Authlib is imported on the first sign-in; a server without it says so at start.
    if importlib.util.find_spec("authlib") is None:
        raise CommandError("single sign-on needs Authlib: pip install 'trainboard[sso]'")
    return SingleSignOn(
        issuer=settings.oidc_issuer,
        client_id=settings.oidc_client_id,
        client_secret=settings.oidc_client_secret,
        scopes=settings.oidc_scopes,
        email_domains=email_domains,
        groups=groups,
        groups_claim=settings.oidc_groups_claim,
        rules=rules,
    )


def _metrics(settings: Settings, store: Store) -> tuple[Metrics | None, MetricsServer | None]:
    """With --metrics_port, the server's metrics, served from now on (a port that cannot be had fails the command
    here); prometheus-client imported only then."""
    if not settings.metrics_port:
        return None, None
    from trainboard.http.metrics import Metrics, MetricsServer

    metrics = Metrics(store)
    try:
        return metrics, MetricsServer(metrics, settings.metrics_host, settings.metrics_port)
    except OSError as error:
        raise CommandError(
            f"could not serve metrics at {settings.metrics_host} port {settings.metrics_port}: {error.strerror}"
        ) from None


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


def open_experiment(
    source: str | os.PathLike[str],
    *,
    experiment: str | None = None,
    db: str | None = None,
    blobs: str | None = None,
    ingest: bool = True,
    backend: str = "pandas",
    token: str | None = None,
) -> ExperimentFrames:
    """`source`: a trainboard server's experiment, `http(s)://host:port/` (`trainboard --logdir`) or
    `http(s)://host/experiment/<id>/` (`trainboard serve`, with `token` where it has accounts), read over HTTP; a
    logdir (a directory or an fsspec URL), read into the store `trainboard --logdir` uses for it (or
    `db`) before anything is returned, unless another process is writing it (then what is there is read); or a store:
    `sqlite:PATH`, a path to a SQLite file, `postgresql://...`, with `experiment` naming one of its experiments (by
    name or id; may be left out when the store holds only one)."""
    text = os.fspath(source)
    if text.startswith(("http://", "https://")):
        # httpx (with its command line's rich and click) only for a server's experiment.
        from trainboard.api.remote import RemoteExperiment

        return RemoteExperiment(text, token=token, backend=backend)
    if _is_store(text):
        return _api_experiment(open_store(text, blobs), experiment, backend)
    return _logdir_experiment(text, experiment=experiment, db=db, blobs=blobs, ingest=ingest, backend=backend)


def export(settings: Settings) -> None:
    """`trainboard export`: the logdir (ingested first, as `trainboard.open` does) or the store's experiment."""
    from trainboard.api.experiment import Experiment
    from trainboard.api.export import run_export

    source = settings.logdir or settings.db
    db = settings.db if settings.logdir else None
    try:
        opened = open_experiment(source, experiment=settings.experiment or None, db=db, blobs=settings.blobs or None)
    except FileNotFoundError as error:
        raise CommandError(str(error)) from None
    with opened as experiment:
        if not isinstance(experiment, Experiment):
            raise CommandError(f"{source} is a server; export its store (--db) instead")
        run_export(experiment, settings)


def _api_experiment(store: Store, name: str | None, backend: str) -> Experiment:
    """The store's experiment named `name` (the only one for None) as data frames, read through a provider; closing
    it closes the store."""
    from trainboard.api.experiment import Experiment

    try:
        row = _named(store, name)
        return Experiment(
            DataProvider(store, writer=store),
            row.id,
            name=row.name,
            location=store.location,
            backend=backend,
            on_close=store.close,
            keeper=store,
        )
    except BaseException:
        store.close()
        raise


def _is_store(text: str) -> bool:
    if text.startswith("sqlite:") or text.split("://", 1)[0] in POSTGRES_SCHEMES:
        if text.startswith("sqlite:") and not sqlite_path(text).is_file():
            raise FileNotFoundError(f"no store at {sqlite_path(text)}")
        return True
    return "://" not in text and Path(os.path.expanduser(text)).is_file()


def _logdir_experiment(
    logdir: str, *, experiment: str | None, db: str | None, blobs: str | None, ingest: bool, backend: str
) -> Experiment:
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
    return _api_experiment(open_store(url, blobs), row.id, backend)


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
    found = find_experiment(rows, name, own=ownerless)
    if found is None:
        raise StoreUnavailable(f"{store.location} has no experiment named {name!r}")
    return found


def _normalised(logdir: str) -> str:
    return logdir if "://" in logdir else os.path.abspath(logdir).rstrip("/")
