"""The run and tag filters of trainboard's own web UI compile only patterns that the browser's backtracking engine
matches in reasonable time: `(a+)+$` from a link, against a run named aaa…a!, used to freeze the tab."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest
import tensorboardX
from playwright.sync_api import Browser, expect

from tests.browser.ui import TIMEOUT_MS, ui_page
from tests.servers import Server, trainboard_in_process

pytestmark = pytest.mark.browser

# Each further "a" doubles the time (a+)+$ takes to fail on this name; 40 of them took the tab for hours.
EVIL_NAME = "a" * 40 + "!"
NESTED = "(a+)+$"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("regex") / "logs"
    for run in (EVIL_NAME, "train"):
        with tensorboardX.SummaryWriter(str(root / run)) as writer:
            for step in range(3):
                writer.add_scalar(EVIL_NAME, step, step)
                writer.add_scalar("loss", 1 / (step + 1), step)
    with trainboard_in_process(root, tmp_path_factory.mktemp("server")) as server:
        yield server


def test_a_nested_quantifier_from_the_url_is_refused_with_a_message(server: Server, browser: Browser) -> None:
    with ui_page(browser, "regex-filters-url") as page:
        page.goto(f"{server.url}/#runFilter={quote(NESTED)}&tagFilter={quote(NESTED)}")
        refusals = page.locator(".error", has_text="a repeated group may not repeat inside")
        # The run filter's and the tag filter's: the run filter's comes once the server said the text is no filter.
        expect(refusals).to_have_count(2, timeout=TIMEOUT_MS)
        page.wait_for_function("() => document.querySelector('#run-count').textContent.includes('(2 matching)')")
        page.locator("article.card").first.wait_for()  # the refused filters filter nothing
        assert page.locator("#run-filter").input_value() == NESTED
        # A link from before the regex mode: its text is no filter, so the box opens in regex mode, and says so.
        assert page.locator("#run-regex").get_attribute("aria-pressed") == "true"
        assert "runRegex=1" in page.url


def test_typed_patterns_that_can_backtrack_are_refused(server: Server, browser: Browser) -> None:
    with ui_page(browser, "regex-filters-typed") as page:
        page.goto(f"{server.url}/")
        page.wait_for_function("() => document.querySelector('#run-count').textContent.includes('(2 matching)')")
        page.click("#run-regex")
        for pattern, message in (
            ("(a|aa)*$", "a repeated group may not repeat inside or have alternatives"),
            ("(a)\\1", "backreferences are not allowed"),
            ("a(?=!)", "lookarounds are not allowed"),
            (".*.*.*.*!", "at most 3 of"),
            ("a" * 1025, "longer than 1024 characters"),
        ):
            page.fill("#run-filter", pattern)
            assert page.locator(".error", has_text=message).count() == 1, pattern
            assert "(2 matching)" in page.locator("#run-count").inner_text()
        page.fill("#run-filter", "^a+!$")
        assert page.locator("#run-count").inner_text().endswith("(1 matching)")
        assert page.locator(".error", has_text="not allowed").count() == 0
