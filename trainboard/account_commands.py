"""`trainboard users add NAME`, `trainboard tokens create|revoke|list`: accounts of a store, from its machine.

`tokens create` prints the token alone on standard output, once (the store keeps only its SHA-256); everything else
goes to standard error, so that `TOKEN=$(trainboard tokens create ...)` works.
"""

from __future__ import annotations

import sys
import time

from trainboard.access.accounts import AccountError, Accounts
from trainboard.access.roles import Role
from trainboard.errors import CommandError, UsageError
from trainboard.settings import Settings
from trainboard.store.accounts import TokenRow
from trainboard.store.opening import open_store
from trainboard.store.store import Store

# The positional arguments of each command.
COMMANDS: dict[str, tuple[str, ...]] = {
    "users add": ("name",),
    "tokens create": (),
    "tokens revoke": ("token",),
    "tokens list": (),
}


def run_account_command(command: str, settings: Settings, given: frozenset[str], values: dict[str, str]) -> None:
    """One of COMMANDS, its flags and positional `values` parsed by the CLI."""
    role = _role(settings, given)
    store = open_store(settings.db)
    try:
        accounts = Accounts(store.accounts)
        if command == "users add":
            user = accounts.add_user(values["name"])
            print(f"Added user {user.name!r} to {store.location}", file=sys.stderr)
        elif command == "tokens create":
            _create(store, accounts, settings, role)
        elif command == "tokens revoke":
            token = accounts.revoke(values["token"])
            print(f"Revoked token {token.id}", file=sys.stderr)
        else:
            _list(store, accounts, settings.user or None)
    except AccountError as error:
        raise CommandError(str(error)) from None
    finally:
        store.close()


def _role(settings: Settings, given: frozenset[str]) -> Role | None:
    """--role, which only a token limited to one experiment takes."""
    if "role" in given and not settings.experiment:
        raise UsageError("--role is the token's role on an experiment: give --experiment too")
    try:
        return Role.named(settings.role) if settings.role else None
    except ValueError as error:
        raise UsageError(f"argument --role: {error}") from None


def _create(store: Store, accounts: Accounts, settings: Settings, role: Role | None) -> None:
    experiment_id = _experiment_id(store, settings.experiment) if settings.experiment else None
    row, token = accounts.create_token(
        settings.user, experiment_id=experiment_id, role=role, expires_days=settings.expires or None
    )
    print(token)
    print(f"Created token {row.id} of {settings.user!r}: {_scope(store, row)}, {_expiry(row)}", file=sys.stderr)


def _list(store: Store, accounts: Accounts, user: str | None) -> None:
    users = {token.user_id for token in accounts.tokens(user)}
    names = {user_id: found.name for user_id in users if (found := store.accounts.user_by_id(user_id))}
    print("id\tuser\tscope\tcreated\texpires\tstate")
    now = time.time()
    for token in accounts.tokens(user):
        state = "revoked" if token.revoked else ("expired" if token.expires and token.expires <= now else "valid")
        print(
            "\t".join(
                (
                    token.id,
                    names.get(token.user_id, "?"),
                    _scope(store, token),
                    _date(token.created),
                    _date(token.expires) if token.expires else "never",
                    state,
                )
            )
        )


def _experiment_id(store: Store, name: str) -> str:
    for experiment in store.experiments():
        if experiment.name == name:
            return experiment.id
    raise CommandError(f"no experiment named {name!r} in {store.location}")


def _scope(store: Store, token: TokenRow) -> str:
    if token.experiment_id is None:
        return "every role of the user"
    names = {e.id: e.name for e in store.experiments()}
    role = Role(token.role) if token.role is not None else Role.READ
    return f"{role} on {names.get(token.experiment_id, token.experiment_id)!r}"


def _expiry(token: TokenRow) -> str:
    return f"expires {_date(token.expires)}" if token.expires else "never expires"


def _date(seconds: float | None) -> str:
    return "" if seconds is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))
