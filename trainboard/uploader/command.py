"""`trainboard upload`: a local logdir into an experiment of a `trainboard serve`, showing progress (files, bytes,
points, rate) as `trainboard ingest` does; with --watch, pass after pass until interrupted."""

from __future__ import annotations

import os
import sys
import threading

from trainboard.errors import CommandError
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.terminal import follow
from trainboard.reader.logdir import LogDir
from trainboard.settings import Settings
from trainboard.uploader.client import UploadClient, UploadError
from trainboard.uploader.uploader import Uploader

WATCH_RETRY_SECONDS = 24 * 3600.0


def run_upload(settings: Settings) -> None:
    if "://" in settings.logdir or not os.path.isdir(settings.logdir):
        raise CommandError(f"--logdir {settings.logdir!r} is no local directory")
    # Watching, a server away for a while (a restart, a deploy) is waited for; once, two minutes are.
    client = UploadClient(
        settings.server, settings.token, retry_for_seconds=WATCH_RETRY_SECONDS if settings.watch else 120
    )
    progress = IngestProgress()
    stop = threading.Event()
    shown = threading.Thread(
        target=follow, args=(progress, sys.stderr, stop, "upload"), name="trainboard-progress", daemon=True
    )
    try:
        experiment_id = client.experiment_id(settings.experiment)
        print(
            f"Uploading {settings.logdir} to {client.url}/experiment/{experiment_id}/ ({settings.experiment!r})",
            file=sys.stderr,
        )
        uploader = Uploader(
            LogDir(settings.logdir), client, experiment_id, progress, forget_deleted=settings.forget_deleted
        )
        shown.start()
        uploader.run_forever(settings.reload_interval if settings.watch else 0, stop)
    except UploadError as error:
        raise CommandError(str(error)) from None
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        if shown.is_alive():
            shown.join(timeout=1)
        client.close()
