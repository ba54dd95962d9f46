"""trainboard's own web UI on `trainboard serve` with accounts, in Debian's Chromium: users and tokens made with the
CLI sign in with a token, create and share experiments on the experiments page, open their dashboards, and follow
a pinned link (the data as of the pin) and the live one (what `trainboard ingest` adds later)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import tensorboardX
from playwright.sync_api import Browser, Page, expect

from tests import loopback
from tests.browser.ui import ARTIFACTS, SEED_TAGS, click_tab, seed_value, ui_page
from tests.cli.process import command
from tests.commands import in_process_command
from tests.servers import in_process

pytestmark = pytest.mark.browser

TIMEOUT = 120.0
USERS = ("ada", "bob", "carol")
HOSTILE = '<img src=x onerror="document.title=1">'
# What shows that a dashboard drew its data: a filled card, a drawn chart or projection, a graph's nodes, a table row.
DRAWN = (
    "[data-filled], .chart[data-draw-ms], [data-state='drawn'], [data-steps], [data-lines], .graph-canvas .node,"
    " .hparams-table tbody tr"
)
# The names of carol's many experiments: a few families of sweeps, as a team's list looks.
FAMILIES = ("resnet50-imagenet", "vit-b16-cifar100", "gpt2-small-owt", "unet-segmentation", "bert-base-glue")


@dataclass(frozen=True, slots=True)
class Team:
    db: str
    url: str
    scratch: Path
    tokens: dict[str, str]


def cli(*flags: str, token: str) -> str:
    """A `trainboard` command in its own process, with the token in TRAINBOARD_TOKEN as users are told to give it."""
    env = {**os.environ, "TRAINBOARD_TOKEN": token}
    done = subprocess.run(command(*flags), capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL, env=env)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode()


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    """`trainboard serve` with accounts on SQLite; ada, bob and carol, each with a token of all their roles."""
    scratch = tmp_path_factory.mktemp("team")
    db = f"sqlite:{scratch / 'team.sqlite'}"
    for user in USERS:
        in_process_command("users", "add", user, f"--db={db}")
    tokens = {user: in_process_command("tokens", "create", f"--db={db}", f"--user={user}").strip() for user in USERS}
    with in_process("serve", scratch / "serve", f"--db={db}") as server:
        yield Team(db, server.url, scratch, tokens)


def write_runs(logdir: Path, *runs: str, steps: int = 60, first: int = 0) -> Path:
    """Runs of SEED_TAGS, each its own curves (the `first`-th on)."""
    for index, run in enumerate(runs, start=first):
        with tensorboardX.SummaryWriter(str(logdir / run)) as writer:
            for step in range(steps):
                for tag in SEED_TAGS:
                    writer.add_scalar(tag, seed_value(tag, index, step), step, walltime=1_700_000_000 + step)
    return logdir


def bearer(team: Team, user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {team.tokens[user]}"}


def ingest(team: Team, experiment: str, logdir: Path) -> None:
    in_process_command("ingest", f"--db={team.db}", f"--experiment={experiment}", f"--logdir={logdir}")


def create(team: Team, user: str, name: str, description: str = "") -> str:
    """An experiment `user` creates through the API (as an upload client would), its id."""
    response = loopback.post(
        f"{team.url}/data/experiments",
        json={"name": name, "description": description},
        headers=bearer(team, user),
    )
    assert response.status_code == 201, response.text
    experiment_id: str = response.json()["id"]
    return experiment_id


def sign_in(page: Page, team: Team, user: str, path: str = "/") -> None:
    page.goto(f"{team.url}{path}")
    page.fill("#token", team.tokens[user])
    page.click("#sign-in-submit")
    page.wait_for_selector(f"#user:text-is('{user}')")


def row(page: Page, name: str) -> str:
    return f"#experiments tr[data-name='{name}']"


def share(page: Page, name: str, user: str, role: str) -> None:
    page.locator(row(page, name)).locator(".manage-toggle").click()
    panel = page.locator("#experiments tr.manage")
    panel.locator(".share-user").fill(user)
    panel.locator(".share-role").select_option(role)
    panel.locator(".share button").click()
    page.wait_for_selector(f"#experiments .shares li[data-user='{user}']")


def wait_drawn(page: Page, tag: str, runs: int) -> None:
    page.locator(f"article.card[data-tag='{tag}']").scroll_into_view_if_needed()
    page.wait_for_function(
        "([tag, runs]) => { const c = document.querySelector(`article.card[data-tag='${tag}']`);"
        " return c && c.dataset.runs === String(runs) && c.querySelector('.chart').dataset.drawMs; }",
        arg=[tag, runs],
    )


def shown_runs(page: Page) -> list[str]:
    """The runs in the runs table (the run picker by default), once it holds as many as the run count says."""
    page.wait_for_function(
        "() => { const rows = document.querySelectorAll('#runs-table .tbody .trow');"
        " return rows.length && document.querySelector('#runs-table-count').textContent.startsWith(rows.length + ' ');"
        " }"
    )
    found: list[str] = page.locator("#runs-table .tbody .trow").evaluate_all("rows => rows.map(r => r.dataset.run)")
    return sorted(found)


# The runs table's and saved views' editing controls (notes, labels and display name are edited on a double click).
EDITING = (
    "#runs-table button.star, #runs-table button.run-swatch, #bulk-label, #bulk-add-label, #bulk-star, #bulk-unstar,"
    " #save-view"
)


def editing_shown(page: Page) -> list[str]:
    """The ids or classes of the editing controls shown, once the table's rows are drawn."""
    page.locator("#runs-table .tbody .trow").first.wait_for()
    page.click("#views summary")
    page.wait_for_selector("#view-list li")
    found: list[str] = page.locator(EDITING).evaluate_all(
        "controls => controls.filter(c => c.offsetParent !== null).map(c => c.id || c.className.split(' ')[0])"
    )
    return sorted(set(found))


def edit_notes(page: Page, run: str) -> bool:
    """Whether a double click on the run's notes opens an editor."""
    page.locator(f"#runs-table .trow[data-run='{run}'] .notes").dblclick()
    return page.locator("#runs-table .edit").count() > 0


def test_sign_in_create_share_and_open_the_dashboards(team: Team, browser: Browser) -> None:
    with ui_page(browser, "team-sign-in-light") as page:
        page.goto(team.url)
        page.wait_for_selector("#token")
        assert page.locator("#dashboard, #experiments").count() == 0
    with ui_page(browser, "team-sign-in-dark", color_scheme="dark") as page:
        page.goto(team.url)
        page.wait_for_selector("#token")

    with ui_page(browser, "team-ada-dashboard") as page:
        sign_in(page, team, "ada")
        expect(page.locator("#experiments-empty")).to_have_text(re.compile(r"^No experiments yet\."))
        for name in (HOSTILE, "mnist"):
            page.fill("#new-experiment", name)
            page.click("#create-experiment button")
            page.wait_for_selector(row(page, name))
        ingest(team, "mnist", write_runs(team.scratch / "mnist", "train", "eval"))
        page.reload()
        mnist = page.locator(row(page, "mnist"))
        assert mnist.locator("td.number").inner_text() == "2"
        assert mnist.locator(".badge").inner_text() == "admin"
        # Names are text: the markup shows as typed and never runs.
        assert page.locator(row(page, HOSTILE)).locator("a.open").inner_text() == HOSTILE
        assert page.locator("#experiments img").count() == 0
        assert page.title() == "trainboard"
        # Newest update first: mnist was written last.
        assert page.locator("#experiments tbody tr").evaluate_all("r => r.map(e => e.dataset.name)") == [
            "mnist",
            HOSTILE,
        ]
        page.screenshot(path=str(ARTIFACTS / "team-experiments-few-light.png"))

        share(page, "mnist", "bob", "read")
        assert page.locator("#experiments tr.manage .owner").inner_text() == "Owner: ada"
        assert "Shared mnist with bob (read)." in page.inner_text("#notice")
        page.screenshot(path=str(ARTIFACTS / "team-experiments-manage-light.png"))

        mnist.locator("a.open").click()
        page.wait_for_url(re.compile(r"/experiment/[^/]+/$"))
        wait_drawn(page, "train/loss", 2)
        assert page.inner_text("#experiment-name") == "mnist"
        assert page.title() == "mnist · trainboard"
        assert page.locator("#experiments-link").is_visible()

    with ui_page(browser, "team-experiments-few-dark", color_scheme="dark") as page:
        sign_in(page, team, "ada")
        page.locator(row(page, "mnist")).locator(".manage-toggle").click()
        page.wait_for_selector("#experiments .shares li[data-user='bob']")
        page.screenshot(path=str(ARTIFACTS / "team-experiments-manage-dark.png"))
        page.locator(row(page, "mnist")).locator(".manage-toggle").click()

    with ui_page(browser, "team-bob-dashboard") as page:
        sign_in(page, team, "bob")
        page.wait_for_selector(row(page, "mnist"))
        names = page.locator("#experiments tbody tr").evaluate_all("r => r.map(e => e.dataset.name)")
        assert names == ["mnist"]
        shared = page.locator(row(page, "mnist"))
        assert shared.locator(".badge").inner_text() == "read"
        assert shared.locator(".manage-toggle").count() == 0
        shared.locator("a.open").click()
        wait_drawn(page, "train/loss", 2)
        assert shown_runs(page) == ["eval", "train"]
        # Signed out, the same page asks for a token again.
        page.click("#sign-out")
        page.wait_for_selector("#token")


def test_a_reader_sees_no_editing_controls_and_a_writer_does(team: Team, browser: Browser) -> None:
    """On a team server, bob with the read role sees the runs and their metadata but no control to change them (the
    star, the colour, bulk labels and stars, notes on a double click, saving a view), rather than controls the server
    refuses with 403 (which the page would log); carol with the write role sees them all."""
    experiment_id = create(team, "ada", "roles")
    ingest(team, "roles", write_runs(team.scratch / "roles", "base", "tuned"))
    change = {"runs": ["tuned"], "starred": True, "notes": "the better one", "add_labels": ["keep"]}
    path = f"{team.url}/experiment/{experiment_id}/data/trainboard/run_metadata"
    assert loopback.post(path, json=change, headers=bearer(team, "ada")).status_code == 200
    for user, role in (("bob", "read"), ("carol", "write")):
        granted = loopback.post(
            f"{team.url}/experiment/{experiment_id}/admin/share",
            json={"user": user, "role": role},
            headers=bearer(team, "ada"),
        )
        assert granted.status_code == 200, granted.text
    every = ["bulk-add-label", "bulk-label", "bulk-star", "bulk-unstar", "run-swatch", "save-view", "star"]
    with ui_page(browser, "team-reader-table") as page:
        sign_in(page, team, "bob", f"/experiment/{experiment_id}/")
        assert shown_runs(page) == ["base", "tuned"]
        tuned = page.locator("#runs-table .trow[data-run='tuned']")
        # What the runs carry is shown: the star, the label and the notes.
        expect(tuned.locator(".star")).to_have_text("★")
        expect(tuned.locator(".label")).to_have_text("keep")
        expect(tuned.locator(".notes")).to_have_text("the better one")
        assert editing_shown(page) == []
        assert not edit_notes(page, "tuned")
        # Hiding and comparing the selected runs change nothing on the server: a reader has them.
        assert page.locator("#bulk-hide").is_visible() and page.locator("#show-differences").is_visible()
        page.screenshot(path=str(ARTIFACTS / "team-reader-table.png"))
    with ui_page(browser, "team-writer-table") as page:
        sign_in(page, team, "carol", f"/experiment/{experiment_id}/")
        assert shown_runs(page) == ["base", "tuned"]
        assert editing_shown(page) == every
        assert edit_notes(page, "base")
        page.keyboard.press("Escape")
        page.locator("#runs-table .trow[data-run='base'] button.star").click()
        page.wait_for_selector("#runs-table .trow[data-run='base'] button.star[aria-pressed='true']")
    kept = loopback.get(path, headers=bearer(team, "bob")).json()["runs"]
    assert kept["base"]["starred"] is True
    for user in ("bob", "carol"):  # as the module's other tests expect them: without this experiment
        taken = loopback.post(
            f"{team.url}/experiment/{experiment_id}/admin/share",
            json={"user": user, "role": None},
            headers=bearer(team, "ada"),
        )
        assert taken.status_code == 200, taken.text


def test_a_bad_token_is_refused_with_a_reason(team: Team, browser: Browser) -> None:
    with ui_page(browser, "team-sign-in-refused", expected_errors=("401 (Unauthorized)",)) as page:
        page.goto(team.url)
        page.fill("#token", "tbk_0000000000_" + "x" * 43)
        page.click("#sign-in-submit")
        page.wait_for_selector("#sign-in-error:has-text('not valid')")
        assert page.locator("#experiments").count() == 0


def test_the_sign_in_page_leads_on_to_the_page_asked_for(team: Team, browser: Browser) -> None:
    experiment_id = create(team, "ada", "deep-link")
    ingest(team, "deep-link", write_runs(team.scratch / "deep-link", "only"))
    with ui_page(browser, "team-deep-link") as page:
        sign_in(page, team, "ada", f"/experiment/{experiment_id}/#dashboard=scalars&tagFilter=loss")
        wait_drawn(page, "train/loss", 1)
        assert f"/experiment/{experiment_id}/#" in page.url and "tagFilter=loss" in page.url
        # Another user's experiment answers as one that does not exist.
        other = create(team, "bob", "bobs-own")
        page.goto(f"{team.url}/experiment/{other}/")
        page.wait_for_selector("#missing")
        assert "not shared with ada" in page.inner_text("#missing")


def test_a_pinned_link_keeps_its_moment_and_the_live_one_follows(team: Team, browser: Browser) -> None:
    experiment_id = create(team, "ada", "streaming")
    logdir = write_runs(team.scratch / "streaming", "first")
    ingest(team, "streaming", logdir)
    with ui_page(browser, "team-live") as live:
        sign_in(live, team, "ada")
        live.locator(row(live, "streaming")).locator(".pin-link").click()
        pinned_url = live.input_value("#shared-link")
        assert re.fullmatch(rf"{re.escape(team.url)}/experiment/{experiment_id}/at/[^/]+/", pinned_url), pinned_url
        live.locator(row(live, "streaming")).locator(".copy-link").click()
        expect(live.locator("#shared-link")).to_have_value(f"{team.url}/experiment/{experiment_id}/")

        live.locator(row(live, "streaming")).locator("a.open").click()
        wait_drawn(live, "train/loss", 1)
        # An upload streams in (here, another ingest of the grown logdir): the open page shows it without reload.
        write_runs(logdir, "late", first=3)
        ingest(team, "streaming", logdir)
        live.wait_for_function("() => document.querySelector('#run-count').textContent.startsWith('2 of 2 ')")
        wait_drawn(live, "train/loss", 2)

        with ui_page(browser, "team-pinned") as pinned:
            sign_in(pinned, team, "ada", pinned_url.removeprefix(team.url))
            wait_drawn(pinned, "train/loss", 1)
            assert shown_runs(pinned) == ["first"]
            pin = pinned_url.rstrip("/").rsplit("/", 1)[1]
            made = loopback.get(f"{team.url}/experiment/{experiment_id}/pins/{pin}", headers=bearer(team, "ada")).json()
            assert made["pin"] == pin and made["created"] > 0
            banner = pinned.inner_text("#pinned-banner")
            assert re.match(r"Pinned at \d{4}-\d\d-\d\d \d\d:\d\d: data written later is not shown", banner), banner
            assert pinned.locator("#ingest").count() == 0
            # A pin cannot define derived metrics: no Metrics button (the live page, drawn as long, has it).
            assert pinned.locator("#definitions-button").is_hidden()
            pinned.screenshot(path=str(ARTIFACTS / "team-pinned-banner.png"))
            pinned.click("#view-live")
            pinned.wait_for_url(re.compile(rf"/experiment/{experiment_id}/(#.*)?$"))
            wait_drawn(pinned, "train/loss", 2)
            assert shown_runs(pinned) == ["first", "late"]
            expect(pinned.locator("#definitions-button")).to_be_visible()


def test_an_upload_shows_on_the_open_page(team: Team, browser: Browser) -> None:
    """`trainboard upload` into an experiment whose dashboards are open: its runs appear without a reload."""
    experiment_id = create(team, "ada", "uploaded")
    with ui_page(browser, "team-upload-live") as page:
        sign_in(page, team, "ada", f"/experiment/{experiment_id}/")
        page.wait_for_function("() => document.querySelector('#run-count').textContent.startsWith('0 of 0 ')")
        logdir = write_runs(team.scratch / "uploaded", "gpu-0", "gpu-1")
        cli("upload", f"--server={team.url}", "--experiment=uploaded", f"--logdir={logdir}", token=team.tokens["ada"])
        page.wait_for_function("() => document.querySelector('#run-count').textContent.startsWith('2 of 2 ')")
        wait_drawn(page, "train/loss", 2)


def test_many_experiments_search_and_sort(team: Team, browser: Browser) -> None:
    names = [f"{family}-sweep-{index:02d}" for index in range(8) for family in FAMILIES]
    for index, name in enumerate(names):
        create(team, "carol", name, description=f"lr {10 ** -(index % 4 + 2)}, batch {2 ** (index % 5 + 5)}")
    ada_shared = create(team, "ada", "shared-with-carol-and-public")
    admin = bearer(team, "ada")
    loopback.post(
        f"{team.url}/experiment/{ada_shared}/admin/share", json={"user": "carol", "role": "write"}, headers=admin
    )
    loopback.post(f"{team.url}/experiment/{ada_shared}/admin/public", json={"public": True}, headers=admin)
    for scheme in ("light", "dark"):
        with ui_page(browser, f"team-experiments-many-{scheme}", color_scheme=scheme) as page:
            sign_in(page, team, "carol")
            page.wait_for_selector(row(page, "shared-with-carol-and-public"))
            rows = page.locator("#experiments tbody tr")
            assert rows.count() == len(names) + 1
            assert page.inner_text("#experiment-count") == f"{len(names) + 1} experiments"
            # Newest first: the last created.
            assert rows.first.get_attribute("data-name") == "shared-with-carol-and-public"
            assert page.locator(row(page, "shared-with-carol-and-public")).locator(".badge").all_inner_texts() == [
                "write",
                "public",
            ]
            if scheme == "dark":
                continue
            page.fill("#experiment-search", "VIT-B16")
            assert rows.count() == 8 and page.inner_text("#experiment-count") == f"8 of {len(names) + 1} experiments"
            page.select_option("#experiment-sort", "name")
            shown = rows.evaluate_all("r => r.map(e => e.dataset.name)")
            assert shown == sorted(name for name in names if name.startswith("vit-b16"))
            page.fill("#experiment-search", "no such thing")
            assert page.inner_text("#experiments-empty") == "No experiment matches."
            page.fill("#experiment-search", "")
            page.select_option("#experiment-sort", "update")


def test_an_admin_renames_publishes_and_deletes(team: Team, browser: Browser) -> None:
    experiment_id = create(team, "ada", "to-rename")
    with ui_page(browser, "team-admin") as page:
        sign_in(page, team, "ada")
        page.locator(row(page, "to-rename")).locator(".manage-toggle").click()
        panel = page.locator("#experiments tr.manage")
        panel.locator(".rename input").fill("renamed")
        panel.locator(".rename button").click()
        page.wait_for_selector(row(page, "renamed"))
        panel.locator(".public-toggle").check()
        page.wait_for_selector(f"{row(page, 'renamed')} .badge.public")
        assert loopback.get(f"{team.url}/experiment/{experiment_id}/data/runs").status_code == 200
        panel.locator(".public-toggle").uncheck()
        page.wait_for_function(f'() => !document.querySelector("{row(page, "renamed")} .badge.public")')
        assert loopback.get(f"{team.url}/experiment/{experiment_id}/data/runs").status_code == 401
        panel.locator(".delete").click()
        assert "cannot be undone" in panel.locator(".confirm").inner_text()
        panel.locator(".confirm-delete").click()
        page.wait_for_selector(row(page, "renamed"), state="detached")
        assert "Deleted renamed." in page.inner_text("#notice")
        listed = loopback.get(f"{team.url}/data/experiments", headers=bearer(team, "ada"))
        assert "renamed" not in [e["name"] for e in listed.json()]


def test_every_dashboard_draws_pinned_and_live(team: Team, browser: Browser, full_logdir: Path) -> None:
    """The full logdir (every plugin, every writer) in an experiment of the store: each dashboard draws its data below
    /experiment/<id>/ and below /experiment/<id>/at/<pin>/, asking the API relative to the page."""
    experiment_id = create(team, "ada", "every-plugin")
    ingest(team, "every-plugin", full_logdir)
    made = loopback.post(f"{team.url}/experiment/{experiment_id}/pins", headers=bearer(team, "ada")).json()
    with ui_page(browser, "team-every-dashboard") as page:
        sign_in(page, team, "ada", f"/experiment/{experiment_id}/at/{made['pin']}/")
        for path in (f"/experiment/{experiment_id}/at/{made['pin']}/", f"/experiment/{experiment_id}/"):
            page.goto(f"{team.url}{path}")
            page.wait_for_selector("#tab-scalars")
            page.wait_for_function("() => document.querySelectorAll('[id^=tab-]').length > 5")
            tabs = page.locator("[id^=tab-]").evaluate_all("tabs => tabs.map(tab => tab.id.slice(4))")
            for tab in tabs:
                click_tab(page, tab)
                page.wait_for_function("drawn => document.querySelector('#dashboard').querySelector(drawn)", arg=DRAWN)
            requested: list[str] = page.evaluate(
                "() => performance.getEntriesByType('resource').map(entry => new URL(entry.name).pathname)"
            )
            # Only what concerns the app (who is signed in, the experiment's name, when the pin was made) is asked
            # outside the page's own path.
            app = ("/auth/me", "/data/experiments", f"/experiment/{experiment_id}/pins/")
            elsewhere = [found for found in requested if not found.startswith(path)]
            assert len(requested) > 20 and all(found.startswith(app) for found in elsewhere), elsewhere
