"""Single sign-on's rules, apart from the protocol (`trainboard.http.oidc` speaks OpenID Connect): who the provider's
claims name, whether they may sign in, and which roles their claims give.

Roles by claim (`--oidc_roles`): comma-separated `[EXPERIMENT:]CLAIM:VALUE=ROLE` entries. CLAIM is `group` (one of
the groups claim's values), `email` (the verified email address) or `domain` (its domain); ROLE is read, write or
admin. Without EXPERIMENT an entry gives its role on every experiment of the store; with one, on the experiment of
that id, or on the experiments of that name that have no owner (made by `trainboard ingest`): a user's own experiment
is named by its id only, so that nobody's private experiment is shared by being given a name a rule names. For
example `group:admins=admin,group:ml-team=read,mnist:group:ml-team=write`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from trainboard.access.roles import Role

CLAIM_KINDS = ("group", "email", "domain")
ANY_DOMAIN = "*"


class SignInRefused(ValueError):
    """The provider signed someone in whom this server does not let in; the message is shown to them."""


@dataclass(frozen=True, slots=True)
class RoleRule:
    """One `--oidc_roles` entry: `role` for whoever has the claim's value, on `experiment` (an id, or the name of
    experiments without an owner) or on every experiment (None)."""

    experiment: str | None
    claim: str
    value: str
    role: Role


@dataclass(frozen=True, slots=True)
class SingleSignOn:
    """The OpenID provider this server signs users in with, and who of its users may sign in: an email address at
    one of `email_domains` (verified by the provider), or one of `groups` in the `groups_claim`."""

    issuer: str
    client_id: str
    client_secret: str
    scopes: str
    email_domains: frozenset[str]
    groups: frozenset[str]
    groups_claim: str
    rules: tuple[RoleRule, ...]


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the provider signed in: the user name they have here (their email address), and their groups."""

    name: str
    email: str
    groups: frozenset[str]

    def has(self, claim: str, value: str) -> bool:
        if claim == "group":
            return value in self.groups
        if claim == "email":
            return value.lower() == self.email
        return value.lower() == self.email.rpartition("@")[2]


def comma_list(text: str) -> frozenset[str]:
    return frozenset(item.strip() for item in text.split(",") if item.strip())


def parse_role_rules(text: str) -> tuple[RoleRule, ...]:
    """`--oidc_roles` parsed; ValueError naming the entry that is not `[EXPERIMENT:]CLAIM:VALUE=ROLE`."""
    rules = []
    for entry in filter(None, (item.strip() for item in text.split(","))):
        subject, equals, role_name = entry.rpartition("=")
        parts = subject.rsplit(":", 2)
        if not equals or len(parts) < 2 or not all(part.strip() for part in parts):
            raise ValueError(f"--oidc_roles: expected [EXPERIMENT:]CLAIM:VALUE=ROLE, not {entry!r}")
        experiment = parts[0].strip() if len(parts) == 3 else None
        claim, value = (part.strip() for part in parts[-2:])
        if claim not in CLAIM_KINDS:
            raise ValueError(f"--oidc_roles: the claim in {entry!r} must be one of {', '.join(CLAIM_KINDS)}")
        rules.append(RoleRule(experiment, claim, value, Role.named(role_name)))
    return tuple(rules)


def identity_of(claims: Mapping[str, object], sso: SingleSignOn) -> Identity:
    """The identity the provider's claims name, if this server lets it in; else `SignInRefused`."""
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email or claims.get("email_verified") is not True:
        raise SignInRefused("the provider gave no verified email address: this server names its users by theirs")
    email = email.strip().lower()
    found = claims.get(sso.groups_claim, [])
    groups = frozenset(group for group in found if isinstance(group, str)) if isinstance(found, list) else frozenset()
    domain = email.rpartition("@")[2]
    if ANY_DOMAIN not in sso.email_domains and domain not in sso.email_domains and not groups & sso.groups:
        raise SignInRefused(f"{email} may not sign in here: neither its domain nor its groups are let in")
    return Identity(name=email, email=email, groups=groups)


def roles_by_claims(
    identity: Identity, rules: Iterable[RoleRule], experiments: Mapping[str, str | None]
) -> dict[str, Role]:
    """The highest role the rules give the identity on each experiment (`experiments`: id -> the name a rule may
    name it by, None for one with an owner)."""
    found: dict[str, Role] = {}
    for rule in rules:
        if not identity.has(rule.claim, rule.value):
            continue
        for experiment_id, name in experiments.items():
            if rule.experiment is None or rule.experiment == experiment_id or (name and rule.experiment == name):
                found[experiment_id] = max(rule.role, found.get(experiment_id, rule.role))
    return found
