"""The shared VS Code host (vscode_host.py) lives only while tests that use it run in a row:
it is stopped after a test when the next test of this process uses no `e2e` fixture (its
code-server and Chromium would only hold memory), and started again by the next one that does."""

from __future__ import annotations

import pytest

from tests.e2e.vscode_host import stop_shared_host

#: The fixture of the tests that run scenarios on the shared host (test_vscode_e2e.py).
HOST_FIXTURE = "e2e"


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if nextitem is None or HOST_FIXTURE not in getattr(nextitem, "fixturenames", ()):
        stop_shared_host()
