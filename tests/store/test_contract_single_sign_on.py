"""What single sign-on asks of the accounts (`Accounts.signed_in_user`, `apply_claim_roles`, `start_signed_in_session`),
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


def test_roles_by_claim_raise_a_role_and_are_taken_back_when_the_claim_goes(store: Store) -> None:
    accounts = Accounts(store.accounts)
    mnist, cifar, imagenet = (store.create_experiment(name).id for name in ("mnist", "cifar", "imagenet"))
    ada = accounts.signed_in_user("ada@example.org")
    accounts.share(cifar, "ada@example.org", Role.READ)
    accounts.share(imagenet, "ada@example.org", Role.ADMIN)

    def roles() -> dict[str, Role | None]:
        return {
            name: accounts.user_role(ada.id, e)
            for name, e in (("mnist", mnist), ("cifar", cifar), ("imagenet", imagenet))
        }

    # Claims raise a role, never lower one.
    accounts.apply_claim_roles(ada.id, {mnist: Role.WRITE, cifar: Role.WRITE, imagenet: Role.READ})
    assert roles() == {"mnist": Role.WRITE, "cifar": Role.WRITE, "imagenet": Role.ADMIN}
    # Signed in again with the same claims: nothing changes.
    accounts.apply_claim_roles(ada.id, {mnist: Role.WRITE, cifar: Role.WRITE, imagenet: Role.READ})
    assert roles() == {"mnist": Role.WRITE, "cifar": Role.WRITE, "imagenet": Role.ADMIN}
    # A claim that now gives less: the role it replaced, or the lower claim where that is more.
    accounts.apply_claim_roles(ada.id, {mnist: Role.READ})
    assert roles() == {"mnist": Role.READ, "cifar": Role.READ, "imagenet": Role.ADMIN}
    # Gone from the group: what the claims gave goes, what an admin gave stays.
    accounts.apply_claim_roles(ada.id, {})
    assert roles() == {"mnist": None, "cifar": Role.READ, "imagenet": Role.ADMIN}
    # A role an admin changed after the claims gave it is the admin's: leaving the group keeps it.
    accounts.apply_claim_roles(ada.id, {mnist: Role.WRITE})
    accounts.share(mnist, "ada@example.org", Role.ADMIN)
    accounts.apply_claim_roles(ada.id, {})
    assert roles()["mnist"] is Role.ADMIN


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
