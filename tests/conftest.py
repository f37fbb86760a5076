"""Shared fixtures."""

from __future__ import annotations

import os

import pytest

from tests.helpers import ROOT


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run with the repository root as the working directory (transcripts use relative paths)."""
    monkeypatch.chdir(ROOT)


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("NO_COLOR", "")
