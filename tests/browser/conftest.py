"""What the browser tests share: one Debian Chromium for all of them (per xdist worker), closed after the last; each
test opens its own context (pages, cookies, storage) in it. Playwright's sync API keeps an event loop marked running
between its calls: the package scope ends it before the tests of other packages run theirs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.browser.ui import chromium


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    with chromium() as browser:
        yield browser
