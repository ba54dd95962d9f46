"""TensorBoard's HTTP API: each module here serves one plugin's routes through a `routes()` function."""

from __future__ import annotations

import importlib
import pkgutil

from starlette.routing import BaseRoute


def routes() -> list[BaseRoute]:
    collected: list[BaseRoute] = []
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        collected.extend(module.routes())
    return collected
