"""Fixtures of the browser tests: one JupyterLab for the whole run, one Chromium per module, a page per test.

JupyterLab is session-scoped so that it starts once. The browser is not: Playwright's sync API runs an
asyncio event loop in the main thread while it is open, and every later test that calls
``asyncio.run`` (the agent frameworks') would fail with "cannot be called from a running event loop";
so it is closed at the end of each module, and the tests here are grouped in few modules. Each test's notebook
page is closed and its kernels shut down when the test ends, so that no kernel (nor the MCP server
a kernel's client started) outlives it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.edges.apps_browser.lab import CHROMIUM, CHROMIUM_FLAGS, JupyterLab, missing_requirements


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterLab]:
    """A JupyterLab server on 127.0.0.1 (a free port, a token), stopped and reaped at the end."""
    why = missing_requirements()
    if why:
        pytest.skip(why)
    server = JupyterLab(tmp_path_factory.mktemp("jupyterlab"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, headless, with a fresh profile. Playwright's own
    browsers are never used nor downloaded: the executable is /usr/bin/chromium."""
    why = missing_requirements()
    if why:
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1200, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(lab: JupyterLab, browser: Any) -> Iterator[Any]:
    """A fresh page; closed, and the server's kernels shut down, when the test ends."""
    tab = browser.new_page()
    try:
        yield tab
    finally:
        tab.close()
        lab.shutdown_kernels()
