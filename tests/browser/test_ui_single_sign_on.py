"""Single sign-on in Debian's Chromium against a real OpenID provider (npm's oidc-provider, tests/oidc): users sign in
with the provider and get the roles their groups map to, make an upload token on the page for it, and sign out here
and at the provider. Every sign-in that must fail (a user not let in, an expired ID token, a forged state, a
replayed code, an ID token for another audience or from another issuer) ends on a page that says why, never a 500.
One provider for the module; the servers on SQLite, and the sign-in with its roles on PostgreSQL too."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests import loopback
from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from tests.http.teams import Clock
from tests.oidc.provider import Client, oidc_provider
from tests.oidc.provider import Provider as OidcProvider
from tests.pgserver import PostgresServer
from tests.servers import free_port, in_process
from trainboard.store.opening import open_store

pytestmark = pytest.mark.browser

SECRET = "a-client-secret-of-the-tests"
TIMEOUT_MS = 30_000
ACCOUNTS = {
    "ada": {"email": "ada@example.org", "email_verified": True, "groups": ["ml-team"]},
    "root": {"email": "root@example.org", "email_verified": True, "groups": ["admins"]},
    "carol": {"email": "carol@partner.example", "email_verified": True, "groups": ["ml-team"]},
    "mallory": {"email": "mallory@evil.example", "email_verified": True, "groups": []},
    "dave": {"email": "dave@example.org", "email_verified": True, "groups": ["ml-team"]},
}
ROLES = "group:admins=admin,group:ml-team=read,mnist:group:ml-team=write"


# The servers of the module, each on a port known before the provider starts (which lists their redirect URIs).
SERVERS = ("board", "wrong-audience", "wrong-issuer", "misnamed", "postgres-board")


@dataclass(frozen=True, slots=True)
class Provider:
    issuer: str
    ports: dict[str, int]
    scratch: Path
    identity: OidcProvider


@dataclass(frozen=True, slots=True)
class Board:
    """A server users sign in to, on a store with the experiments mnist and cifar (name -> id)."""

    url: str
    experiments: dict[str, str]


@dataclass(frozen=True, slots=True)
class Setup:
    """On SQLite: the board, and servers whose provider's ID tokens name another audience or issuer, and one that names
    the provider by 127.0.0.1, which calls itself by localhost; the clock the board's accounts expire by."""

    board: str
    wrong_audience: str
    wrong_issuer: str
    misnamed: str
    experiments: dict[str, str]
    clock: Clock


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Provider]:
    """One provider for the module's servers: `trainboard` is the client of the boards, the others misbehave."""
    scratch = tmp_path_factory.mktemp("sso")
    ports = {name: free_port() for name in SERVERS}
    urls = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    boards = [urls[name] for name in ("board", "postgres-board", "misnamed")]
    clients = [
        Client(
            "trainboard",
            SECRET,
            tuple(f"{url}/auth/oidc/callback" for url in boards),
            tuple(f"{url}/auth/signin" for url in boards),
        ),
        Client("wrong-audience", SECRET, (f"{urls['wrong-audience']}/auth/oidc/callback",), mischief="audience"),
        Client("wrong-issuer", SECRET, (f"{urls['wrong-issuer']}/auth/oidc/callback",), mischief="issuer"),
    ]
    with oidc_provider(scratch / "provider", clients, ACCOUNTS) as running:
        yield Provider(running.issuer, ports, scratch, running)


def _experiments(db: str, scratch: Path) -> dict[str, str]:
    """mnist and cifar ingested into the store; name -> id."""
    for name in ("mnist", "cifar"):
        write_run(scratch / name / "train", steps=3)
        cli("ingest", f"--db={db}", f"--experiment={name}", f"--logdir={scratch / name}")
    store = open_store(db)
    try:
        return {row.name: row.id for row in store.experiments()}
    finally:
        store.close()


@pytest.fixture(scope="module")
def setup(provider: Provider) -> Iterator[Setup]:
    db = f"sqlite:{provider.scratch / 'team.sqlite'}"
    experiments = _experiments(db, provider.scratch)
    clock = Clock()
    issuer, ports, scratch = provider.issuer, provider.ports, provider.scratch
    with ExitStack() as servers:
        served = {
            name: servers.enter_context(
                _serving(db, scratch / name, ports[name], issuer, client_id, clock if name == "board" else Clock())
            )
            for name, issuer, client_id in (
                ("board", issuer, "trainboard"),
                ("wrong-audience", issuer, "wrong-audience"),
                ("wrong-issuer", issuer, "wrong-issuer"),
                ("misnamed", issuer.replace("localhost", "127.0.0.1"), "trainboard"),
            )
        }
        yield Setup(
            served["board"], served["wrong-audience"], served["wrong-issuer"], served["misnamed"], experiments, clock
        )


@pytest.fixture(scope="module")
def postgres_board(provider: Provider, postgres: PostgresServer) -> Iterator[Board]:
    db = postgres.create_database(f"sso_{uuid.uuid4().hex[:8]}")
    try:
        experiments = _experiments(db, provider.scratch / "postgres")
        port = provider.ports["postgres-board"]
        with _serving(db, provider.scratch / "postgres-board", port, provider.issuer, "trainboard", Clock()) as url:
            yield Board(url, experiments)
    finally:
        postgres.drop_database(db)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def board(request: pytest.FixtureRequest) -> Board:
    if request.param == "postgres":
        found: Board = request.getfixturevalue("postgres_board")
        return found
    setup: Setup = request.getfixturevalue("setup")
    return Board(setup.board, setup.experiments)


@contextmanager
def _serving(db: str, scratch: Path, port: int, issuer: str, client_id: str, clock: Clock) -> Iterator[str]:
    """`trainboard serve` signing users in with the provider as `client_id`; its URL."""
    flags = [
        f"--db={db}",
        f"--port={port}",
        f"--oidc_issuer={issuer}",
        f"--oidc_client_id={client_id}",
        f"--oidc_client_secret={SECRET}",
        "--oidc_scopes=openid email groups",
        "--oidc_email_domains=example.org",
        "--oidc_groups=ml-team",
        f"--oidc_roles={ROLES}",
    ]
    with in_process("serve", scratch, *flags, clock=clock) as server:
        yield server.url


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


def sign_in_at_provider(page: Page, login: str) -> None:
    """The provider's own login form (any password)."""
    page.locator("input[name=login]").fill(login)
    page.locator("input[name=password]").fill("any password")
    page.locator("button[type=submit]").click()


def sign_in(page: Page, server: str, login: str, going_on: str = "/auth/tokens") -> int:
    """Sign in from the sign-in page by single sign-on; the status of the callback's answer."""
    page.goto(f"{server}/auth/signin?{urlencode({'next': going_on})}")
    page.get_by_role("link", name="Sign in with single sign-on").click()
    with page.expect_response(lambda response: "/auth/oidc/callback" in response.url) as answer:
        sign_in_at_provider(page, login)
    return answer.value.status


def me(context: BrowserContext, server: str) -> object:
    return context.request.get(f"{server}/auth/me").json()["user"]


def test_sign_in_maps_groups_to_roles_and_makes_an_upload_token(board: Board, context: BrowserContext) -> None:
    page = context.new_page()
    assert sign_in(page, board.url, "ada") == 200
    # The callback's page goes on to the page asked for, which needs the session: its cookie came along. (The
    # callback's own page names the user too: wait for the page asked for.)
    page.wait_for_url(f"{board.url}/auth/tokens*")
    expect(page.locator("main")).to_contain_text("Signed in as ada@example.org")
    assert urlsplit(page.url).path == "/auth/tokens"
    page.get_by_role("button", name="Create an upload token").click()
    token = page.locator("#token").inner_text()
    assert token.startswith("tbk_")
    with httpx.Client(base_url=board.url, headers={"Authorization": f"Bearer {token}"}) as ada:
        listed = {row["name"] for row in ada.get("/data/experiments").json()}
        assert listed == {"mnist", "cifar"}
        # Write on mnist (its own entry), read on cifar (the global one): no admin routes for her.
        assert ada.get(f"/experiment/{board.experiments['mnist']}/admin/access").status_code == 404
    root = context.browser.new_context() if context.browser else None
    assert root is not None
    root_page = root.new_page()
    assert sign_in(root_page, board.url, "root") == 200
    for name, role in (("mnist", "write"), ("cifar", "read")):
        answer = root.request.get(f"{board.url}/experiment/{board.experiments[name]}/admin/access")
        assert answer.status == 200
        assert {"user": "ada@example.org", "role": role} in answer.json()["shares"]
    root.close()
    # Users of another domain are let in by their group.
    carol = context.browser.new_context() if context.browser else None
    assert carol is not None
    assert sign_in(carol.new_page(), board.url, "carol") == 200
    assert me(carol, board.url) == "carol@partner.example"
    carol.close()


def test_roles_a_group_gave_are_taken_back_at_the_next_sign_in_after_leaving_it(
    board: Board, provider: Provider, browser: Browser
) -> None:
    def shares() -> dict[str, str | None]:
        """dave's role on each experiment, as an admin sees it."""
        root = browser.new_context()
        try:
            assert sign_in(root.new_page(), board.url, "root") == 200
            found = {}
            for name, experiment_id in board.experiments.items():
                listed = root.request.get(f"{board.url}/experiment/{experiment_id}/admin/access").json()["shares"]
                found[name] = next((s["role"] for s in listed if s["user"] == "dave@example.org"), None)
            return found
        finally:
            root.close()

    def dave_signs_in(groups: list[str]) -> None:
        provider.identity.set_claims("dave", {**ACCOUNTS["dave"], "groups": groups})
        dave = browser.new_context()  # a new browser: signed in at the provider afresh, with its claims of now
        try:
            assert sign_in(dave.new_page(), board.url, "dave") == 200
        finally:
            dave.close()

    dave_signs_in(["ml-team"])
    assert shares() == {"mnist": "write", "cifar": "read"}
    dave_signs_in([])  # left ml-team; let in by his domain still
    assert shares() == {"mnist": None, "cifar": None}


def test_the_web_ui_offers_single_sign_on_and_comes_back_to_the_page(setup: Setup, context: BrowserContext) -> None:
    page = context.new_page()
    page.goto(f"{setup.board}/?tag=loss")
    page.get_by_role("link", name="Sign in with single sign-on").click()
    sign_in_at_provider(page, "ada")
    page.wait_for_url(f"{setup.board}/?tag=loss")
    assert me(context, setup.board) == "ada@example.org"


def test_a_user_neither_domain_nor_group_lets_in_is_refused(setup: Setup, context: BrowserContext) -> None:
    page = context.new_page()
    assert sign_in(page, setup.board, "mallory") == 403
    expect(page.locator(".problem")).to_contain_text("mallory@evil.example may not sign in here")
    assert me(context, setup.board) is None


def test_sign_out_ends_the_session_here_and_at_the_provider(setup: Setup, context: BrowserContext) -> None:
    page = context.new_page()
    assert sign_in(page, setup.board, "ada") == 200
    expect(page.locator("main")).to_contain_text("Signed in as ada@example.org")
    page.get_by_role("button", name="Sign out").click()
    # The provider asks before it ends its session, then comes back to the sign-in page.
    page.get_by_role("button", name="Yes, sign me out").click()
    page.wait_for_url(f"{setup.board}/auth/signin*")
    assert me(context, setup.board) is None
    # The provider's session is over too: signing in again asks for the login.
    page.get_by_role("link", name="Sign in with single sign-on").click()
    expect(page.locator("input[name=login]")).to_be_visible()


def test_an_expired_id_token_is_refused(setup: Setup, context: BrowserContext) -> None:
    """The provider's ID token lasts an hour: two hours later by this server's clock it has expired."""
    page = context.new_page()
    setup.clock.advance(7200)
    try:
        assert sign_in(page, setup.board, "ada") == 401
    finally:
        setup.clock.advance(-7200)
    expect(page.locator(".problem")).to_contain_text("ID token has expired")
    assert me(context, setup.board) is None


def test_a_sign_in_left_at_the_provider_too_long_is_refused(setup: Setup, context: BrowserContext) -> None:
    page = context.new_page()
    page.goto(f"{setup.board}/auth/oidc/start?next=/")
    expect(page.locator("input[name=login]")).to_be_visible()
    setup.clock.advance(3600)
    try:
        with page.expect_response(lambda response: "/auth/oidc/callback" in response.url) as answer:
            sign_in_at_provider(page, "ada")
    finally:
        setup.clock.advance(-3600)
    assert answer.value.status == 400
    expect(page.locator(".problem")).to_contain_text("took more than 10 minutes")


def test_a_forged_state_is_refused(setup: Setup, context: BrowserContext) -> None:
    """Another site's link to the callback, with a code and a state of its own, while this browser signs in."""
    page = context.new_page()
    page.goto(f"{setup.board}/auth/oidc/start?next=/")
    expect(page.locator("input[name=login]")).to_be_visible()
    forged = urlencode({"code": "a-code-of-another-sign-in", "state": "forged-by-another-site"})
    answer = page.goto(f"{setup.board}/auth/oidc/callback?{forged}")
    assert answer is not None and answer.status == 400
    expect(page.locator(".problem")).to_contain_text("does not belong to the sign-in this browser started")
    assert me(context, setup.board) is None


def test_a_replayed_code_is_refused(setup: Setup, context: BrowserContext) -> None:
    page = context.new_page()
    callbacks: list[str] = []
    page.on("request", lambda request: callbacks.append(request.url) if "/auth/oidc/callback" in request.url else None)
    page.goto(f"{setup.board}/auth/signin?next=/auth/tokens")
    page.get_by_role("link", name="Sign in with single sign-on").click()
    expect(page.locator("input[name=login]")).to_be_visible()
    pending = [cookie for cookie in context.cookies() if cookie["name"] == "trainboard_oidc"]
    sign_in_at_provider(page, "ada")
    expect(page.locator("main")).to_contain_text("Signed in as ada@example.org")
    # The same answer again, with the browser's sign-in cookie as it was: the provider redeems a code once.
    context.add_cookies(pending)  # type: ignore[arg-type]
    answer = page.goto(callbacks[0])
    assert answer is not None and answer.status == 400
    expect(page.locator(".problem")).to_contain_text("would not redeem the code")


@pytest.mark.parametrize(
    ("server", "reason"),
    [
        ("wrong_audience", "issued to another client than this server"),
        ("wrong_issuer", "issued by another issuer than this server's provider"),
    ],
)
def test_an_id_token_for_another_audience_or_from_another_issuer_is_refused(
    setup: Setup, context: BrowserContext, server: str, reason: str
) -> None:
    page = context.new_page()
    address = getattr(setup, server)
    assert sign_in(page, address, "ada") == 401
    expect(page.locator(".problem")).to_contain_text(reason)
    assert me(context, address) is None


def test_a_provider_that_names_another_issuer_is_refused(setup: Setup, context: BrowserContext) -> None:
    """The provider reached by another name than its issuer's: its discovery document names the issuer it is."""
    page = context.new_page()
    answer = page.goto(f"{setup.misnamed}/auth/oidc/start?next=/")
    assert answer is not None and answer.status == 502
    expect(page.locator(".problem")).to_contain_text("names itself 'http://localhost:")


def test_the_single_sign_on_routes_are_described(setup: Setup) -> None:
    paths = loopback.get(f"{setup.board}/openapi.json").json()["paths"]
    assert {"/auth/oidc/start", "/auth/oidc/callback", "/auth/oidc/signout", "/auth/tokens"} <= set(paths)
