"""The store contract's readiness check and pool use, on every backend (SQLite, PostgreSQL, PostgreSQL + S3):
trainboard.http.probes and trainboard.http.metrics rely on them. The failing cases run against real servers in
tests/http/test_probes.py."""

from __future__ import annotations

from trainboard.store.store import Store


def test_a_new_store_checks_out(store: Store) -> None:
    store.check()


def test_the_pool_is_reported_where_the_backend_pools_connections(store: Store) -> None:
    stats = store.database.pool_stats()
    if store.location.startswith("postgresql"):
        assert stats["pool_size"] >= 1 and stats["pool_max"] >= stats["pool_size"]
    else:
        assert stats == {}
