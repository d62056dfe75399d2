"""Real Chromium for the page tests (Playwright driving the system's binary: it never downloads its own).

A module of pages checked in a browser sets ``pytestmark = BROWSER_MARKS`` and asks for the ``browser``
fixture (tests/conftest.py)."""

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary on this machine (apt-get install chromium)"),
]
