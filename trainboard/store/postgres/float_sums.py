"""Sums of doubles in PostgreSQL as IEEE arithmetic (numpy, SQLite) gives them: ±inf past the largest double.

PostgreSQL raises "value out of range: overflow" where finite doubles add up past the largest one, which would stop
the ingest of a series whose values (float64 scalars near 1e308) sum past it.
"""

from __future__ import annotations

import sys


def _double(value: float) -> str:
    return f"'{value!r}'::float8"


# Halving is exact for doubles this large, so a / 2 + b / 2 rounds to half of what a + b rounds to: past this, a + b
# overflows.
_HALF_MAX = _double(sys.float_info.max / 2)
# Sums scaled down by 2^-64 (exact for values above 2^-958) cannot overflow however many are added; a scaled sum up
# to _MAX_SCALED scales back up to a double.
_SCALE = _double(2.0**64)
_MAX_SCALED = _double(sys.float_info.max / 2.0**64)


def added(a: str, b: str) -> str:
    """SQL for the double `a + b`, ±inf (NaN for inf - inf) where it overflows."""
    half = f"({a} / 2 + {b} / 2)"
    return f"CASE WHEN abs({half}) <= {_HALF_MAX} THEN {a} + {b} ELSE sign({half}) * 'Infinity'::float8 END"


def summed(column: str) -> str:
    """SQL for the aggregate sum of the double `column`, ±inf (NaN for inf - inf) where it overflows."""
    scaled = f"sum({column} / {_SCALE})"
    overflowed = f"sign({scaled}) * 'Infinity'::float8"
    return f"CASE WHEN abs({scaled}) <= {_MAX_SCALED} THEN {scaled} * {_SCALE} ELSE {overflowed} END"
