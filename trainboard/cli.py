"""The `trainboard` command: TensorBoard's flags where they make sense, plus --db."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import threading
from collections.abc import Callable, Sequence

from trainboard.demo import demo_logdir
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.terminal import follow
from trainboard.settings import SETTINGS, Settings, parse_samples_per_plugin

UIS = ("trainboard", "tensorboard")


def parse_settings(argv: Sequence[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(prog="trainboard", description="A fast, lossless dashboard for training logs.")
    for setting in SETTINGS:
        env_default = os.environ.get(f"TRAINBOARD_{setting.name.upper()}")
        flag = f"--{setting.name}"
        if isinstance(setting.default, bool):
            default = setting.default if env_default is None else env_default.lower() in ("1", "true", "yes")
            parser.add_argument(flag, action="store_true", default=default, help=setting.help)
        else:
            kind: Callable[[str], object] = type(setting.default)
            parser.add_argument(
                flag,
                type=kind,
                default=setting.default if env_default is None else kind(env_default),
                help=setting.help,
            )
    args = parser.parse_args(argv)
    values = vars(args)
    if values["ui"] not in UIS:
        parser.error(f"--ui must be one of {', '.join(UIS)}, not {values['ui']!r}")
    if values["ui"] == "tensorboard":
        from trainboard.http.ui import tensorboard_ui

        if tensorboard_ui.webfiles_zip() is None:
            parser.error(tensorboard_ui.MISSING)
    try:
        sampling = parse_samples_per_plugin(values["samples_per_plugin"])
    except ValueError as error:
        parser.error(str(error))
    return Settings(**values, sampling=sampling)


def main(argv: Sequence[str] | None = None) -> None:
    import uvicorn

    from trainboard.http.app import create_app

    settings = parse_settings(argv)
    if not settings.logdir and not settings.logdir_spec:
        settings = dataclasses.replace(settings, logdir=str(demo_logdir()))
        print(f"no --logdir given: serving the demo logdir {settings.logdir}", file=sys.stderr)
    host = "0.0.0.0" if settings.bind_all else settings.host
    print(f"trainboard serving {settings.logdir} at http://{host}:{settings.port}/", file=sys.stderr)
    progress = IngestProgress()
    stop = threading.Event()
    threading.Thread(target=follow, args=(progress, sys.stderr, stop), name="trainboard-progress", daemon=True).start()
    try:
        uvicorn.run(create_app(settings, progress), host=host, port=settings.port, log_level="warning")
    finally:
        stop.set()
