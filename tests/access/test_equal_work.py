"""A forbidden experiment and a missing one cost the same work to decide (`Accounts.role`, which the guard asks on
every route): the same SQL statements, one, whether the experiment exists, is another user's, or is the caller's.
Otherwise their answers, alike byte for byte, would differ in time (bench/oracle.py measures it end to end)."""

from __future__ import annotations

from pathlib import Path

from trainboard.access.accounts import Accounts, Principal
from trainboard.access.roles import Role
from trainboard.store.opening import open_store
from trainboard.store.sqlite.database import SqliteDatabase


def test_a_forbidden_a_missing_and_an_own_experiment_cost_the_same_statements(tmp_path: Path) -> None:
    store = open_store(f"sqlite:{tmp_path / 'store.sqlite'}")
    try:
        accounts = Accounts(store.accounts)
        principals: list[Principal] = []
        for user in ("ada", "bob"):
            accounts.add_user(user)
            principal = accounts.authenticate(accounts.create_token(user)[1])
            assert principal is not None
            principals.append(principal)
        ada, bob = principals
        adas = accounts.create_experiment(ada, "adas")
        bobs = accounts.create_experiment(bob, "bobs")
        accounts.share(adas, "bob", Role.READ)
        assert isinstance(store.database, SqliteDatabase)
        statements: list[str] = []
        store.database.read_connection().set_trace_callback(statements.append)
        asked = {
            "missing": (ada, "no-such-experiment", None),
            "forbidden": (ada, bobs, None),
            "own": (ada, adas, Role.ADMIN),
            "shared": (bob, adas, Role.READ),
            "anonymous": (None, bobs, None),
        }
        cost = {}
        for case, (principal, experiment_id, role) in asked.items():
            statements.clear()
            assert accounts.role(principal, experiment_id) is role
            cost[case] = [statement.split(" FROM ")[0] for statement in statements]
        assert len(cost["missing"]) == 1
        assert all(found == cost["missing"] for found in cost.values()), cost
    finally:
        store.close()
