"""The PostgreSQL store when its database stops and comes back: `StoreUnavailable` (served as a 503 with
Retry-After) within the pool's wait, never psycopg's own errors, and answers again soon after the database returns."""

from __future__ import annotations

import time

import pytest

from tests.pgserver import postgres_server
from trainboard.store.errors import RETRY_AFTER_SECONDS, StoreUnavailable
from trainboard.store.opening import open_store
from trainboard.store.postgres.pool import RECONNECT_SECONDS, WAIT_SECONDS

pytestmark = pytest.mark.postgres


def test_a_stopped_database_is_store_unavailable_within_the_wait_and_serves_again_after_its_return() -> None:
    with postgres_server() as postgres:
        store = open_store(postgres.create_database("outage"))
        try:
            experiment = store.create_experiment("e").id
            assert [row.id for row in store.experiments()] == [experiment]
            postgres.stop()
            began = time.monotonic()
            with pytest.raises(StoreUnavailable, match="cannot reach the database") as raised:
                store.experiments()
            assert time.monotonic() - began <= WAIT_SECONDS + 1
            assert raised.value.retry_after == RETRY_AFTER_SECONDS
            postgres.start()
            back = time.monotonic()
            while True:
                try:
                    assert [row.id for row in store.experiments()] == [experiment]
                    break
                except StoreUnavailable:
                    assert time.monotonic() - back <= RECONNECT_SECONDS + WAIT_SECONDS
        finally:
            store.close()
