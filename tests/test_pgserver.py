"""The test PostgreSQL itself: each test gets a database of its own, empty and writable."""

from __future__ import annotations

import psycopg
import pytest

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("attempt", [1, 2])
def test_each_test_gets_an_empty_database(postgres_url: str, attempt: int) -> None:
    with psycopg.connect(postgres_url) as connection:
        tables = connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        assert tables == (0,)
        connection.execute("CREATE TABLE points (experiment_id TEXT, step BIGINT)")
        connection.execute("INSERT INTO points VALUES ('e', %s)", (attempt,))
