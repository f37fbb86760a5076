"""The test loops keep their promises (docs/testing.md): the fast loop (``-m "not slow and
not spark"``) still covers every format and every command, every ``slow``/``spark`` entry of
tests/conftest.py names a test that exists, and the long campaign multiplies the examples of
every property test."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import SLOW, SPARK, names, scale_examples
from tests.helpers import ROOT


@pytest.fixture(scope="module")
def markers(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Every test of the suite with its slow/spark markers, as a collection sees them: this
    run's own when it collected the whole suite, else a collection in a new process."""
    from pathlib import Path

    from tests.conftest import COLLECTED

    whole = [Path(a).resolve() for a in request.config.args] in ([ROOT / "tests"], [ROOT])
    if whole:
        return dict(COLLECTED)
    listing = tmp_path_factory.mktemp("markers") / "markers.json"
    env = {**os.environ, "MQTOOL_LIST_MARKERS": str(listing)}
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p",
                           "no:cacheprovider", "tests"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found: dict[str, list[str]] = json.loads(listing.read_text(encoding="utf-8"))
    return found


def _fast(markers: dict[str, list[str]]) -> list[str]:
    return [n for n, m in markers.items() if not m]


def test_every_entry_names_a_test(markers: dict[str, list[str]]) -> None:
    for entry in SLOW + SPARK:
        assert any(names(n, entry) for n in markers), f"tests/conftest.py: {entry} names no test"


def test_the_fast_loop_covers_every_format(markers: dict[str, list[str]]) -> None:
    from mqtool import registry

    fast = _fast(markers)
    folders = sorted(p.name for p in (ROOT / "tests" / "formats").iterdir()
                     if p.is_dir() and not p.name.startswith("_"))
    assert folders
    for folder in folders:
        assert any(n.startswith(f"tests/formats/{folder}/") for n in fast), folder
    for codec in registry.names():  # every decoder through the registry's own tests
        assert any(n.startswith("tests/") and f"[{codec}]" in n for n in fast), codec


def test_the_fast_loop_covers_every_command(markers: dict[str, list[str]]) -> None:
    from tests.cli.test_exit_contract import COMMANDS

    fast = [n for n in _fast(markers) if n.startswith("tests/cli/test_exit_contract.py::")]
    for command in COMMANDS:
        assert any(n.endswith(f"[{command}]") for n in fast), command


def test_spark_tests_are_marked(markers: dict[str, list[str]]) -> None:
    spark_dir = [n for n in markers if n.startswith("tests/spark/")]
    assert spark_dir and all("spark" in markers[n] for n in spark_dir)
    assert "spark" in markers["tests/cli/test_exit_contract.py::test_random_bytes[spark-extract urb]"]
    assert not markers["tests/cli/test_exit_contract.py::test_random_bytes[decode urb]"]


def test_long_campaign_multiplies_explicit_examples() -> None:
    calls: list[bytes] = []

    @settings(max_examples=5, database=None, derandomize=True)
    @given(st.binary(min_size=16, max_size=16))
    def prop(b: bytes) -> None:
        calls.append(b)

    prop()
    assert len(calls) == 5
    calls.clear()
    scale_examples([prop, prop], 4)  # once per function, however many items share it
    prop()
    assert len(calls) == 20


def test_docs_testing_names_the_markers_of_pyproject() -> None:
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for line in declared["tool"]["pytest"]["ini_options"]["markers"]:
        assert f"`{line.split(':')[0]}`" in text
    assert 'python -m pytest -m "not slow and not spark"' in text
