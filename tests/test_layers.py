"""The package's imports follow DESIGN.md's data path: each layer imports only the layers before it, and no modules
import each other in a loop. Every import is read, those inside functions too (a lazy import is still a dependency)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import trainboard

PACKAGE = Path(trainboard.__file__).parent
# From the ground up: a module may import its own layer's modules and those of the layers before it.
LAYERS = (
    ("errors", "version", "kernels", "settings", "names"),
    ("reader",),
    ("normaliser",),
    ("analysis",),
    ("expressions",),
    ("store",),
    ("access",),
    ("provider",),
    ("ingest",),
    ("plugins",),
    ("uploader",),
    ("api",),
    ("http",),
    ("demo", "inspector", "notebook", "store_commands", "account_commands", "audit_command", "tensorboard_flags"),
    ("wiring",),
    ("__init__",),
    ("cli",),
    ("__main__",),
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py") if "protos" not in path.parts}


def _imports(path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The package's modules that `path` imports: `from trainboard import kernels` names trainboard.kernels, not the
    package's face."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("trainboard"):
            named = [f"{node.module}.{alias.name}" for alias in node.names]
            submodules = [name for name in named if name in modules]
            yield from submodules
            if len(submodules) < len(named):
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("trainboard"))


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: {imported for imported in _imports(path, modules) if imported in modules and imported != name}
        for name, path in modules.items()
    }


def _layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    return next(index for index, layer in enumerate(LAYERS) if top in layer)


def test_every_module_has_a_layer() -> None:
    for module in _graph():
        _layer(module)


def test_no_import_runs_back_up_the_layers() -> None:
    upward = [
        f"{module} -> {imported}"
        for module, imports in _graph().items()
        for imported in imports
        if _layer(imported) > _layer(module)
    ]
    assert upward == []


def test_no_modules_import_each_other() -> None:
    graph = _graph()
    loops: list[list[str]] = []
    # Tarjan's strongly connected components: any component of two or more modules is a loop.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph[module]:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert loops == []
