"""Where trainboard answers differently from TensorBoard 2.21 on purpose, each with its reason."""

from __future__ import annotations

# /data/environment: TensorBoard adds a "debug" object describing its own flags and data provider class.
ENVIRONMENT_IGNORED_KEYS = frozenset({"debug"})
