"""Shared fixtures."""

from __future__ import annotations

import os

import pytest

from tests.helpers import ROOT


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run with the repository root as the working directory (transcripts use relative paths)."""
    monkeypatch.chdir(ROOT)


FUZZ_EXAMPLES = 25  # per fuzz target in the ordinary suite (CI)
FUZZ_LONG = 20  # --fuzz-long without a number: this many times the examples


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-long", nargs="?", type=int, const=FUZZ_EXAMPLES * FUZZ_LONG,
                     default=None, metavar="N",
                     help="tests/fuzz: a longer campaign, N examples per target "
                          f"(default {FUZZ_EXAMPLES * FUZZ_LONG}; the suite runs {FUZZ_EXAMPLES})")


@pytest.fixture
def fuzz_examples(request: pytest.FixtureRequest) -> int:
    """How many examples each fuzz target tries: small in CI, more with --fuzz-long."""
    return request.config.getoption("--fuzz-long") or FUZZ_EXAMPLES


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("NO_COLOR", "")
