"""What single sign-on asks of the accounts (`Accounts.signed_in_user`, `give_at_least`, `start_signed_in_session`),
on every backend."""

from __future__ import annotations

import pytest

from trainboard.access.accounts import SESSION_SECONDS, AccountError, Accounts
from trainboard.access.roles import Role
from trainboard.store.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_user_is_added_on_the_first_sign_in_and_found_after(store: Store) -> None:
    accounts = Accounts(store.accounts)
    made = accounts.add_user("bob@example.org")
    ada = accounts.signed_in_user("ada@example.org")
    assert accounts.signed_in_user("ada@example.org") == ada
    # A user made with `trainboard users add` is the one who signs in by that address.
    assert accounts.signed_in_user("bob@example.org") == made
    with pytest.raises(AccountError, match="cannot be a user name here"):
        accounts.signed_in_user("o'brien@example.org")


def test_roles_by_claim_raise_a_role_and_never_lower_one(store: Store) -> None:
    accounts = Accounts(store.accounts)
    experiment = store.create_experiment("mnist").id
    ada = accounts.signed_in_user("ada@example.org")
    accounts.give_at_least(ada.id, experiment, Role.WRITE)
    assert accounts.user_role(ada.id, experiment) is Role.WRITE
    accounts.give_at_least(ada.id, experiment, Role.READ)
    assert accounts.user_role(ada.id, experiment) is Role.WRITE
    accounts.give_at_least(ada.id, experiment, Role.ADMIN)
    assert accounts.user_role(ada.id, experiment) is Role.ADMIN


def test_a_signed_in_session_holds_a_token_that_ends_with_it(store: Store) -> None:
    clock = Clock()
    accounts = Accounts(store.accounts, clock)
    ada = accounts.signed_in_user("ada@example.org")
    started = accounts.start_signed_in_session(ada)
    principal = accounts.session(started.secret)
    assert principal is not None and principal.user == ada
    assert principal.token.expires == started.session.expires == clock.now + SESSION_SECONDS
    assert principal.token.experiment_id is None and principal.token.role is None
    # Listed with her tokens; revoking it ends the session.
    assert [token.id for token in accounts.tokens("ada@example.org")] == [principal.token.id]
    accounts.revoke(principal.token.id)
    assert accounts.session(started.secret) is None
