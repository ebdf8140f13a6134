"""Fixtures of the financial-assistant sample tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.sample.sample_support import grader_imports_isolated


@pytest.fixture(autouse=True)
def isolated_grader_imports() -> Iterator[None]:
    """No test here sees another test's `graders` module, or leaves the sample's behind."""
    with grader_imports_isolated():
        yield
