"""Single sign-on's rules without the protocol: `--oidc_roles` parsed, who the claims let in, which roles they give,
and the --oidc_* settings checked when `trainboard serve` starts (tests/browser/test_ui_single_sign_on.py signs in
through a real provider)."""

from __future__ import annotations

import dataclasses

import pytest

from trainboard.access.roles import Role
from trainboard.access.single_sign_on import (
    RoleRule,
    SignInRefused,
    SingleSignOn,
    identity_of,
    parse_role_rules,
    roles_by_claims,
)
from trainboard.errors import CommandError
from trainboard.settings import Settings
from trainboard.wiring import single_sign_on

SSO = SingleSignOn(
    issuer="https://login.example.org",
    client_id="trainboard",
    client_secret="secret",
    scopes="openid email groups",
    email_domains=frozenset({"example.org"}),
    groups=frozenset({"ml-team"}),
    groups_claim="groups",
    rules=(),
)
# id -> the name rules may name it by: None for one with an owner (a user's own "mnist" here).
EXPERIMENTS = {"id-mnist": "mnist", "id-cifar": "cifar", "id-mnist-2": "mnist", "id-mnist-bobs": None}


def test_role_rules_global_and_per_experiment() -> None:
    assert parse_role_rules(" group:admins=admin, mnist:group:ml=read ,a:b:domain:example.org=WRITE") == (
        RoleRule(None, "group", "admins", Role.ADMIN),
        RoleRule("mnist", "group", "ml", Role.READ),
        # An experiment's name may hold colons: the claim and its value are the last two parts.
        RoleRule("a:b", "domain", "example.org", Role.WRITE),
    )
    assert parse_role_rules("") == ()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("group:admins", "expected [EXPERIMENT:]CLAIM:VALUE=ROLE"),
        ("admins=admin", "expected [EXPERIMENT:]CLAIM:VALUE=ROLE"),
        ("group:=read", "expected [EXPERIMENT:]CLAIM:VALUE=ROLE"),
        ("team:ml=read", "the claim in 'team:ml=read' must be one of group, email, domain"),
        ("group:ml=owner", "unknown role 'owner'"),
    ],
)
def test_role_rules_that_do_not_parse_are_named(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        parse_role_rules(text)


def test_a_verified_address_of_a_domain_or_a_member_of_a_group_is_let_in() -> None:
    ada = identity_of({"email": "Ada@Example.org", "email_verified": True}, SSO)
    assert (ada.name, ada.groups) == ("ada@example.org", frozenset())
    carol = identity_of({"email": "carol@partner.example", "email_verified": True, "groups": ["ml-team", 3]}, SSO)
    assert carol.groups == frozenset({"ml-team"})


@pytest.mark.parametrize(
    ("claims", "problem"),
    [
        ({"email": "ada@example.org"}, "no verified email address"),
        ({"email": "ada@example.org", "email_verified": "true"}, "no verified email address"),
        ({"email_verified": True}, "no verified email address"),
        ({"email": "mallory@evil.example", "email_verified": True, "groups": "ml-team"}, "may not sign in here"),
        ({"email": "mallory@example.org.evil.example", "email_verified": True}, "may not sign in here"),
    ],
)
def test_others_are_refused(claims: dict[str, object], problem: str) -> None:
    with pytest.raises(SignInRefused, match=problem):
        identity_of(claims, SSO)


def test_any_domain() -> None:
    anyone = dataclasses.replace(SSO, email_domains=frozenset({"*"}), groups=frozenset())
    assert identity_of({"email": "x@anywhere.example", "email_verified": True}, anyone).name == "x@anywhere.example"


def test_the_highest_matching_role_on_each_experiment() -> None:
    rules = parse_role_rules(
        "group:ml=read,mnist:group:ml=write,id-cifar:email:ada@example.org=admin,domain:other=admin"
    )
    ada = identity_of({"email": "ada@example.org", "email_verified": True, "groups": ["ml"]}, SSO)
    assert roles_by_claims(ada, rules, EXPERIMENTS) == {
        "id-mnist": Role.WRITE,
        "id-mnist-2": Role.WRITE,
        "id-cifar": Role.ADMIN,
        # The global entry only: a user's experiment is named by its id.
        "id-mnist-bobs": Role.READ,
    }
    by_id = parse_role_rules("id-mnist-bobs:group:ml=write")
    assert roles_by_claims(ada, by_id, EXPERIMENTS) == {"id-mnist-bobs": Role.WRITE}
    bob = identity_of({"email": "bob@example.org", "email_verified": True}, SSO)
    assert roles_by_claims(bob, rules, EXPERIMENTS) == {}


def _settings(**given: object) -> Settings:
    base: dict[str, object] = {
        "oidc_issuer": "https://login.example.org",
        "oidc_client_id": "trainboard",
        "oidc_client_secret": "secret",
        "oidc_email_domains": "Example.org",
    }
    return Settings(**(base | given))  # type: ignore[arg-type]


def test_settings_make_the_single_sign_on() -> None:
    assert single_sign_on(Settings()) is None
    made = single_sign_on(_settings(oidc_roles="group:admins=admin"))
    assert made is not None
    assert made.email_domains == frozenset({"example.org"})
    assert made.rules == (RoleRule(None, "group", "admins", Role.ADMIN),)


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ({"no_auth": True}, "cannot go with --no_auth"),
        ({"oidc_client_secret": ""}, "needs --oidc_client_id and TRAINBOARD_OIDC_CLIENT_SECRET"),
        ({"oidc_email_domains": ""}, "needs --oidc_email_domains or --oidc_groups"),
        ({"oidc_roles": "group:x=boss"}, "unknown role 'boss'"),
    ],
)
def test_settings_that_cannot_work_stop_the_server_at_start(given: dict[str, object], problem: str) -> None:
    with pytest.raises(CommandError, match=problem):
        single_sign_on(_settings(**given))
