"""The store contract for experiment names (`trainboard.store.experiment_names`): unique per owner, not across the
store; found as someone, their own first, several others refused with their ids; and a store of the schema from
before (names unique across it) keeps everything when migrated. Every backend must pass these."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from trainboard.access.accounts import Accounts, NameTaken, Principal
from trainboard.access.roles import Role
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarPoint, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.experiment_names import AmbiguousName, find_experiment, ownerless
from trainboard.store.postgres import database as postgres_database
from trainboard.store.sqlite import database as sqlite_database
from trainboard.store.store import Store
from trainboard.store.values import ExperimentRow
from trainboard.store.writer import FileWrite

StoreOpener = Callable[[], Store]


def signed_in(accounts: Accounts, user: str) -> Principal:
    accounts.add_user(user)
    principal = accounts.authenticate(accounts.create_token(user)[1])
    assert principal is not None
    return principal


def found_id(rows: list[ExperimentRow], wanted: str, principal: Principal) -> str | None:
    """The id of the experiment `wanted` finds as the principal's user."""
    found = find_experiment(rows, wanted, own=lambda row: row.owner_id == principal.user.id)
    return None if found is None else found.id


def test_two_owners_may_each_have_a_name_and_one_owner_cannot_have_it_twice(store: Store) -> None:
    accounts = Accounts(store.accounts)
    ada, bob = signed_in(accounts, "ada"), signed_in(accounts, "bob")
    adas = accounts.create_experiment(ada, "baseline")
    bobs = accounts.create_experiment(bob, "baseline")
    assert adas != bobs
    with pytest.raises(NameTaken, match="you have an experiment named 'baseline' already"):
        accounts.create_experiment(ada, "baseline")
    # The command line's experiments (no owner) have names of their own, once each too.
    ingested = store.database.create_experiment("ingested-id", "baseline", "", "")
    assert store.database.create_experiment("another-id", "baseline", "", "") == ingested
    assert store.create_experiment("baseline") == ingested
    owners = sorted((row.owner_id or 0, row.id) for row in store.experiments() if row.name == "baseline")
    assert owners == sorted([(0, ingested.id), (ada.user.id, adas), (bob.user.id, bobs)])
    assert accounts.role(ada, adas) is Role.ADMIN and accounts.role(ada, bobs) is None


def test_a_rename_into_a_name_its_owner_has_is_refused(store: Store) -> None:
    accounts = Accounts(store.accounts)
    ada, bob = signed_in(accounts, "ada"), signed_in(accounts, "bob")
    first = accounts.create_experiment(ada, "first")
    accounts.create_experiment(ada, "second")
    bobs = accounts.create_experiment(bob, "bobs")
    with pytest.raises(NameTaken, match="another experiment of the same owner is named 'second'") as refused:
        accounts.rename(first, "second")
    assert refused.value.http_code == 409
    accounts.rename(first, "bobs")  # another owner's name
    accounts.rename(first, "bobs")  # its own name again
    assert {(row.id, row.name) for row in store.experiments() if row.owner_id == ada.user.id} >= {(first, "bobs")}
    # Without an owner: the names of the others without one.
    one, two = store.create_experiment("one").id, store.create_experiment("two").id
    with pytest.raises(NameTaken):
        accounts.rename(one, "two")
    accounts.rename(two, "second")
    # Ownership moves only to a user without an experiment of that name.
    with pytest.raises(NameTaken, match="'bob' has another experiment"):
        accounts.set_owner(first, "bob")
    accounts.set_owner(two, "bob")
    assert accounts.role(bob, two) is Role.ADMIN and accounts.role(bob, bobs) is Role.ADMIN


def test_a_name_finds_the_callers_own_first_and_several_others_are_refused_with_their_ids(store: Store) -> None:
    accounts = Accounts(store.accounts)
    ada, bob, eve = signed_in(accounts, "ada"), signed_in(accounts, "bob"), signed_in(accounts, "eve")
    adas = accounts.create_experiment(ada, "baseline")
    bobs = accounts.create_experiment(bob, "baseline")
    rows = store.experiments()
    assert found_id(rows, "baseline", ada) == adas
    assert found_id(rows, "baseline", bob) == bobs
    assert found_id(rows, bobs, ada) == bobs
    assert found_id(rows, "nothing", ada) is None
    with pytest.raises(AmbiguousName) as ambiguous:
        found_id(rows, "baseline", eve)
    assert ambiguous.value.ids == sorted([adas, bobs]) and ambiguous.value.http_code == 409
    ids = ", ".join(sorted([adas, bobs]))
    assert (
        str(ambiguous.value) == f"2 experiments are named 'baseline', none of them yours: give one's id instead ({ids})"
    )
    # The command line finds as no user: an experiment without an owner is its own, else refused as for eve.
    with pytest.raises(AmbiguousName):
        store.create_experiment("baseline")
    assert [row.name for row in store.experiments()] == ["baseline", "baseline"]
    accounts.create_experiment(bob, "bobs only")
    assert store.create_experiment("bobs only").owner_id == bob.user.id
    ingested = store.database.create_experiment("ingested-id", "baseline", "", "")
    assert find_experiment(store.experiments(), "baseline", own=ownerless) == ingested


def test_a_store_of_names_unique_across_it_keeps_everything_when_migrated(
    open_test_store: StoreOpener, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The schema as it was before names per owner: every migration but that one.
    modules = (sqlite_database, postgres_database)
    current = [module.MIGRATIONS for module in modules]
    for module in modules:
        old = [migration for migration in module.MIGRATIONS if not migration[0].endswith("_names_per_owner")]
        assert len(old) == len(module.MIGRATIONS) - 1
        monkeypatch.setattr(module, "MIGRATIONS", old)
    store = open_test_store()
    accounts = Accounts(store.accounts)
    ada, bob = signed_in(accounts, "ada"), signed_in(accounts, "bob")
    mnist = accounts.create_experiment(ada, "mnist", "digits")
    with pytest.raises(NameTaken):  # the old schema: unique across the store
        accounts.create_experiment(bob, "mnist")
    accounts.share(mnist, "bob", Role.WRITE)
    accounts.set_public(mnist, True)
    logs = store.create_experiment("logs", location="/logs").id
    batch = Batch(operations=[ScalarPoint(tag="loss", step=s, wall_time=1.0 + s, value=s / 2) for s in range(5)])
    batch.metadata["loss"] = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
    at = FileCursor(path="/logs/train/events", offset=10, size=10, mtime=1.0, head=b"head")
    store.write_batch(logs, FileWrite("train", at, RunState(), batch, restarted=False, previous=None))
    pin = store.create_pin(logs)
    assert pin is not None
    before = store.experiments()
    generations = {row.id: store.generation(row.id) for row in before}
    store.close()
    for module, migrations in zip(modules, current, strict=True):
        monkeypatch.setattr(module, "MIGRATIONS", migrations)

    migrated = open_test_store()
    assert migrated.experiments() == before
    assert [(row.name, row.owner_id) for row in before] == [("mnist", ada.user.id), ("logs", None)]
    assert {row.id: migrated.generation(row.id) for row in before} == generations
    accounts = Accounts(migrated.accounts)
    assert accounts.role(bob, mnist) is Role.WRITE and accounts.role(None, mnist) is Role.READ
    assert accounts.role(ada, mnist) is Role.ADMIN
    (series,) = migrated.series(logs)
    assert migrated.scalars(logs, series.id).values.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert migrated.file_cursors(logs)["/logs/train/events"].offset == 10
    assert migrated.pin(logs, pin.id) is not None
    # And names are now per owner.
    bobs = accounts.create_experiment(bob, "mnist")
    with pytest.raises(NameTaken):
        accounts.create_experiment(ada, "mnist")
    assert migrated.create_experiment("logs").id == logs
    assert {row.id for row in migrated.experiments() if row.name == "mnist"} == {mnist, bobs}
