"""The store contract for accounts (users, tokens, owners, public flags, roles) and the rules over them
(`trainboard.access.accounts`): every backend must pass these."""

from __future__ import annotations

import pytest

from trainboard.access.accounts import (
    MAX_EXPERIMENT_NAME,
    SESSION_SECONDS,
    AccountError,
    Accounts,
    NameTaken,
    NotAllowed,
)
from trainboard.access.roles import Role
from trainboard.access.tokens import hashed
from trainboard.store.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_users_are_added_once_and_found_by_name_and_id(store: Store) -> None:
    accounts = store.accounts
    ada = accounts.add_user("ada", 1.0)
    assert ada is not None and ada.name == "ada"
    assert accounts.add_user("ada", 2.0) is None
    assert accounts.user("ada") == ada
    assert accounts.user_by_id(ada.id) == ada
    assert accounts.user("bob") is None


def test_tokens_are_stored_hashed_found_by_hash_listed_and_revoked(store: Store) -> None:
    accounts = Accounts(store.accounts)
    accounts.add_user("ada")
    accounts.add_user("bob")
    row, token = accounts.create_token("ada")
    other, _ = accounts.create_token("bob")
    assert row.secret_hash == hashed(token) and token not in row.secret_hash
    assert store.accounts.token_by_hash(hashed(token)) == row
    assert store.accounts.token_by_hash(hashed(token + "x")) is None
    assert [t.id for t in accounts.tokens("ada")] == [row.id]
    assert {t.id for t in accounts.tokens()} == {row.id, other.id}
    principal = accounts.authenticate(token)
    assert principal is not None and principal.user.name == "ada"
    accounts.revoke(row.id[:6])
    assert accounts.authenticate(token) is None
    assert store.accounts.tokens(None)[0].revoked is not None
    with pytest.raises(AccountError, match="no token"):
        accounts.revoke("zzzz")


def test_expired_tokens_do_not_authenticate(store: Store) -> None:
    clock = Clock()
    accounts = Accounts(store.accounts, clock)
    accounts.add_user("ada")
    _, token = accounts.create_token("ada", expires_days=1)
    assert accounts.authenticate(token) is not None
    clock.now += 86_400
    assert accounts.authenticate(token) is None


def test_sessions_are_stored_hashed_carry_their_token_and_end(store: Store) -> None:
    clock = Clock()
    accounts = Accounts(store.accounts, clock)
    accounts.add_user("ada")
    row, token = accounts.create_token("ada", expires_days=60)
    started = accounts.start_session(token)
    assert started is not None and started.user.name == "ada"
    assert started.session.secret_hash == hashed(started.secret) and started.session.token_id == row.id
    assert started.session.expires == clock.now + SESSION_SECONDS
    assert store.accounts.session_by_hash(hashed(started.secret)) == started.session
    principal = accounts.session(started.secret)
    assert principal is not None and principal.token == row and principal.session == started.session
    assert accounts.session(started.secret + "x") is None
    assert accounts.start_session(token + "x") is None

    # A session ends with SESSION_SECONDS, and expired ones are deleted when another starts.
    clock.now += SESSION_SECONDS
    assert accounts.session(started.secret) is None
    assert accounts.start_session(token) is not None
    assert store.accounts.session_by_hash(hashed(started.secret)) is None

    # Signing out ends one session; revoking the token ends all of them.
    first, second = accounts.start_session(token), accounts.start_session(token)
    assert first is not None and second is not None
    accounts.end_session(first.secret)
    assert accounts.session(first.secret) is None and accounts.session(second.secret) is not None
    accounts.revoke(row.id)
    assert accounts.session(second.secret) is None


def test_a_session_ends_when_its_token_expires(store: Store) -> None:
    clock = Clock()
    accounts = Accounts(store.accounts, clock)
    accounts.add_user("ada")
    _, token = accounts.create_token("ada", expires_days=1)
    started = accounts.start_session(token)
    assert started is not None and started.session.expires == clock.now + 86_400
    clock.now += 86_399
    assert accounts.session(started.secret) is not None
    clock.now += 1
    assert accounts.session(started.secret) is None


def test_experiments_are_created_owned_unless_taken_or_by_a_limited_token(store: Store) -> None:
    accounts = Accounts(store.accounts)
    accounts.add_user("ada")
    accounts.add_user("bob")
    ada = accounts.authenticate(accounts.create_token("ada")[1])
    assert ada is not None
    created = accounts.create_experiment(ada, "mnist", "digits")
    (row,) = store.experiments()
    assert (row.id, row.name, row.description, row.run_count) == (created, "mnist", "digits", 0)
    assert accounts.role(ada, created) is Role.ADMIN
    assert store.generation(created) == 0
    with pytest.raises(NameTaken, match="mnist"):
        accounts.create_experiment(ada, "mnist")
    with pytest.raises(AccountError, match="empty"):
        accounts.create_experiment(ada, " ")
    with pytest.raises(AccountError, match="at most"):
        accounts.create_experiment(ada, "x" * (MAX_EXPERIMENT_NAME + 1))
    limited = accounts.authenticate(accounts.create_token("bob", experiment_id=created)[1])
    assert limited is not None
    with pytest.raises(NotAllowed, match="limited"):
        accounts.create_experiment(limited, "bobs")
    assert [e.name for e in store.experiments()] == ["mnist"]


def test_sharing_names_the_owner_and_every_other_role(store: Store) -> None:
    accounts = Accounts(store.accounts)
    experiment = store.create_experiment("shared").id
    for name in ("ada", "bob", "cy"):
        accounts.add_user(name)
    sharing = accounts.sharing(experiment)
    assert sharing is not None and (sharing.owner, sharing.public, sharing.shares) == (None, False, {})
    accounts.set_owner(experiment, "ada")
    accounts.share(experiment, "cy", Role.WRITE)
    accounts.share(experiment, "bob", Role.READ)
    accounts.set_public(experiment, True)
    sharing = accounts.sharing(experiment)
    assert sharing is not None and (sharing.owner, sharing.public) == ("ada", True)
    assert list(sharing.shares.items()) == [("bob", Role.READ), ("cy", Role.WRITE)]
    assert accounts.sharing("no-such-experiment") is None
    unowned = store.create_experiment("unowned").id
    assert accounts.owners() == {experiment: "ada"} and unowned not in accounts.owners()


def test_roles_owner_public_and_token_limits(store: Store) -> None:
    accounts = Accounts(store.accounts)
    mine = store.create_experiment("mine").id
    theirs = store.create_experiment("theirs").id
    for name in ("ada", "bob", "eve"):
        accounts.add_user(name)
    accounts.set_owner(mine, "ada")
    ada = accounts.authenticate(accounts.create_token("ada")[1])
    bob = accounts.authenticate(accounts.create_token("bob")[1])
    eve = accounts.authenticate(accounts.create_token("eve")[1])
    assert accounts.role(ada, mine) is Role.ADMIN
    assert accounts.role(ada, theirs) is None
    assert accounts.role(bob, mine) is None and accounts.role(None, mine) is None
    assert accounts.role(ada, "no-such-experiment") is None

    accounts.share(mine, "bob", Role.WRITE)
    assert accounts.role(bob, mine) is Role.WRITE
    assert store.accounts.roles(mine) == {accounts.user("bob").id: int(Role.WRITE)}
    assert accounts.roles(bob) == {mine: Role.WRITE}
    accounts.share(mine, "bob", None)
    assert accounts.role(bob, mine) is None
    with pytest.raises(AccountError, match="owns"):
        accounts.share(mine, "ada", Role.READ)

    accounts.set_public(mine, True)
    assert accounts.role(None, mine) is Role.READ and accounts.role(eve, mine) is Role.READ
    assert accounts.roles(None) == {mine: Role.READ}
    accounts.set_public(mine, False)
    assert accounts.role(eve, mine) is None

    # A token limited to one experiment: the role given with it, there only; the user's role is raised to it.
    limited_row, limited = accounts.create_token("eve", experiment_id=theirs, role=Role.READ)
    assert limited_row.experiment_id == theirs
    eve_limited = accounts.authenticate(limited)
    assert accounts.role(eve_limited, theirs) is Role.READ
    accounts.share(mine, "eve", Role.ADMIN)
    assert accounts.role(eve_limited, mine) is None
    assert accounts.roles(eve_limited) == {theirs: Role.READ}
    # An admin's token limited to read reads only.
    ada_reads = accounts.authenticate(accounts.create_token("ada", experiment_id=mine, role=Role.READ)[1])
    assert accounts.role(ada_reads, mine) is Role.READ
    assert accounts.user_role(accounts.user("ada").id, mine) is Role.ADMIN

    # `roles` answers as `role` on every experiment, for each kind of principal, public experiments too.
    accounts.share(theirs, "bob", Role.READ)
    accounts.set_public(theirs, True)
    for principal in (None, ada, bob, eve, eve_limited, ada_reads):
        each = {eid: accounts.role(principal, eid) for eid in (mine, theirs)}
        assert accounts.roles(principal) == {eid: role for eid, role in each.items() if role is not None}


def test_experiments_are_renamed_unless_the_name_is_taken(store: Store) -> None:
    accounts = Accounts(store.accounts)
    first = store.create_experiment("first").id
    store.create_experiment("second")
    accounts.rename(first, "renamed")
    assert {e.name for e in store.experiments()} == {"renamed", "second"}
    with pytest.raises(AccountError, match="another experiment"):
        accounts.rename(first, "second")


def test_accounts_survive_reopening(store: Store, open_test_store: object) -> None:
    accounts = Accounts(store.accounts)
    accounts.add_user("ada")
    _, token = accounts.create_token("ada")
    assert callable(open_test_store)
    again = open_test_store()
    found = Accounts(again.accounts).authenticate(token)
    assert found is not None and found.user.name == "ada"
