"""`trainboard stores`: the local stores (trainboard/store/local.py), one a line on standard output;
`trainboard stores prune [--unused_days N]`: removes those whose logdir is gone, or unused for N days, saying so on
standard error."""

from __future__ import annotations

import sys
import time

from trainboard.store.local import LocalStore, in_use, local_stores, remove

STATES = {True: "yes", False: "no", None: "unknown"}


def list_stores() -> None:
    print("logdir\texists\tsize\tlast used\tstore")
    for store in local_stores():
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(store.last_used))
        print("\t".join((store.logdir or "?", STATES[store.exists], _size(store.size), when, str(store.path))))


def prune_stores(unused_days: float | None) -> None:
    """Remove the stores whose logdir is gone and, with `unused_days`, those not opened for that long; never one that
    a process has open."""
    now = time.time()
    removed = freed = 0
    for store in local_stores():
        why = _why_remove(store, unused_days, now)
        if why is None:
            continue
        if in_use(store.path):
            print(f"Kept the store of {_named(store)}: {why}, but a running trainboard has it open", file=sys.stderr)
            continue
        remove(store)
        removed, freed = removed + 1, freed + store.size
        print(f"Removed the store of {_named(store)} ({_size(store.size)}): {why}", file=sys.stderr)
    print(f"Removed {removed} store{'' if removed == 1 else 's'}, {_size(freed)}", file=sys.stderr)


def _why_remove(store: LocalStore, unused_days: float | None, now: float) -> str | None:
    if store.exists is False:
        return "its logdir is gone"
    days = (now - store.last_used) / 86400
    if unused_days is not None and days >= unused_days:
        return f"unused for {days:.1f} days"
    return None


def _named(store: LocalStore) -> str:
    return store.logdir or f"an unknown logdir ({store.path})"


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB"
