"""`trainboard users add NAME`, `trainboard tokens create|revoke|list`: accounts of a store, from its machine.

Each is recorded in the store's audit log (`trainboard.access.audit`), as done from the command line. `tokens create`
prints the token alone on standard output, once (the store keeps only its SHA-256); everything else
goes to standard error, so that `TOKEN=$(trainboard tokens create ...)` works.
"""

from __future__ import annotations

import dataclasses
import sys
import time

from trainboard.access.accounts import AccountError, Accounts
from trainboard.access.audit import Actor, AuditLog, Event
from trainboard.access.roles import Role
from trainboard.errors import CommandError, UsageError
from trainboard.settings import Settings
from trainboard.store.accounts import TokenRow
from trainboard.store.experiment_names import find_experiment
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
        audit, actor = AuditLog(store.accounts), Actor.command_line(command)
        if command == "users add":
            user = accounts.add_user(values["name"])
            audit.record(Event.USER_ADD, actor, target_user=user.name)
            print(f"Added user {user.name!r} to {store.location}", file=sys.stderr)
        elif command == "tokens create":
            _create(store, accounts, settings, role, audit, actor)
        elif command == "tokens revoke":
            token = accounts.revoke(values["token"])
            owner = store.accounts.user_by_id(token.user_id)
            audit.record(
                Event.TOKEN_REVOKE,
                dataclasses.replace(actor, token_id=token.id),
                target_user=None if owner is None else owner.name,
            )
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


def _create(
    store: Store, accounts: Accounts, settings: Settings, role: Role | None, audit: AuditLog, actor: Actor
) -> None:
    user = accounts.user(settings.user)
    experiment_id = _experiment_id(store, settings.experiment, user.id) if settings.experiment else None
    before = None if experiment_id is None else accounts.user_role(user.id, experiment_id)
    row, token = accounts.create_token(
        settings.user, experiment_id=experiment_id, role=role, expires_days=settings.expires or None
    )
    granted = None if experiment_id is None else accounts.user_role(user.id, experiment_id)
    if granted != before:
        audit.record(Event.ROLE_CHANGE, actor, experiment_id=experiment_id, target_user=user.name, role=str(granted))
    audit.record(
        Event.TOKEN_CREATE,
        dataclasses.replace(actor, token_id=row.id),
        experiment_id=experiment_id,
        target_user=user.name,
        role=None if row.role is None else str(Role(row.role)),
        expires=row.expires,
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


def _experiment_id(store: Store, name: str, user_id: int) -> str:
    """The experiment of this id or name, the user's own of that name first (`trainboard.store.experiment_names`)."""
    found = find_experiment(store.experiments(), name, own=lambda experiment: experiment.owner_id == user_id)
    if found is None:
        raise CommandError(f"no experiment named {name!r} in {store.location}")
    return found.id


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
