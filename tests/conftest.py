"""Shared fixtures and the rules of the test loops (docs/testing.md).

- Markers: ``spark`` (needs Java and pyspark) and ``slow`` (the costly tests, measured with
  ``--durations``) are given here by node id, so ``python -m pytest -m "not slow and not
  spark"`` is the fast loop without a marker in every file.
- Hypothesis profiles: ``dev`` (default), ``ci`` (derandomized: the same examples on every
  run; chosen when ``CI=true``) and ``long`` (random, every test's examples multiplied;
  ``--fuzz-long``). ``HYPOTHESIS_PROFILE=NAME`` chooses one explicitly.
- Under ``CI=true`` a skipped test fails: the machine ``.ci/run`` prepares has every tool,
  so a skip there hides a test that did not run.
- One Spark session (``spark``) for the whole run: a JVM starts once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from tests.helpers import ROOT


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run with the repository root as the working directory (transcripts use relative paths)."""
    monkeypatch.chdir(ROOT)


# --------------------------------------------------------------------------- markers

# Every test that needs Java and pyspark (besides pytest.param marks where one command of
# a parametrized test needs them: tests/cli/test_exit_contract.py).
SPARK = ("tests/spark/", "tests/cli/test_signals.py::test_spark_extract")

# The costly tests outside Spark, measured with --durations on 2 cores (docs/testing.md):
# each costs 3 s or more, or builds something outside Python (a wheel). The fast loop
# still covers every format and every command without them (tests/test_markers.py).
SLOW = (
    "tests/test_docs.py::test_wheel_installs_the_man_pages",  # pip wheel of a copy
    "tests/test_ksy.py",  # node compiles the six .ksy specs
    "tests/cli/test_exit_contract.py::test_closed_stdout_pipe_ends_quietly",  # a process per command
    "tests/cli/test_exit_contract.py::test_a_fifo_is_refused_not_opened",  # a process per command
    "tests/formats/csq1logp/test_ranges.py::test_damaged_file_every_split_size",
    "tests/formats/csq1logp/test_ranges.py::test_any_damage_any_split",
    "tests/formats/urb/test_urb_extract.py::test_mutated_and_truncated_streams_keep_the_error_contract",
    "tests/formats/urb/test_urb_extract.py::test_columnar_path_equals_span_path",
    "tests/io/test_undump_styles.py::test_line_styles_read_a_large_text_in_bounded_memory",
    "tests/cli/test_build_sas.py::test_from_with_wrong_types_and_huge_numbers",
    "tests/cli/test_csq1logp_cli.py::test_d4_decode_of_a_file_streams_the_same_output_as_stdin",
    "tests/cli/test_mq_cli.py::test_every_prefix_of_a_chain_exits_2_with_an_offset",
    "tests/architecture/test_imports.py::test_no_arrow_runs_up_the_layers",
    "tests/view/test_app.py::test_search_goto_and_the_screen_text",
    "tests/view/test_app.py::test_moving_the_hex_cursor_selects_the_innermost_field",
    "tests/view/test_app.py::test_a_search_goes_on_in_the_following_units",
    "tests/view/test_app.py::test_go_to_an_offset_the_background_framing_has_not_reached",
    "tests/view/test_app.py::test_export_writes_the_selection",
    "tests/view/test_app.py::test_the_readme_screenshot_is_generated_from_the_app",
    "tests/view/test_app.py::test_next_and_previous_unit_and_go_to_another_units_offset",
    "tests/view/test_app.py::test_the_panes_give_way_in_order_and_the_field_tree_keeps_its_room",
    "tests/cli/test_signals.py::test_while_reading_stdin",  # a process per command and signal
    "tests/cli/test_signals.py::test_while_writing_to_a_full_pipe",  # 24 MB of CSQ1LOGP made
    "tests/cli/test_signals.py::test_a_part_file_holding_bytes_is_removed",
    "tests/cli/test_signals.py::test_extract_with_workers",  # worker pools started and stopped
    "tests/cli/test_signals.py::test_spark_extract",  # a JVM per signal
    "tests/formats/mq/test_mq_bounds.py::test_a_large_text_payload_in_bounded_memory",  # 64 MiB
    "tests/formats/mq/test_mq_bounds.py::test_the_listing_shows_the_first_bytes_and_the_json_all",
    # 1 GiB spooled from stdin to a temporary file
    "tests/io/test_mapped_inputs.py::test_the_listing_of_a_gib_message_is_exact_in_bounded_memory[stdin]",
    "tests/render/test_annotate_stream.py::test_annotate_of_a_large_payload_in_bounded_memory",  # 4M lines
    "tests/io/test_mapped_inputs.py::test_the_json_of_a_large_message_gives_the_pages_it_read_back",
    # 1 GiB URB message: listing, auto, --json (2 GiB of hex) and --annotate
    "tests/formats/urb/test_urb_mapped_decode.py::test_decode_of_a_gib_urb_message_is_exact_in_bounded_memory",
)


def names(nodeid: str, entry: str) -> bool:
    """Whether a SLOW/SPARK entry names this test: a folder (``tests/spark/``), a file,
    or a test function with all its parameters."""
    if entry.endswith("/"):
        return nodeid.startswith(entry)
    return nodeid == entry or nodeid.startswith((entry + "[", entry + "::"))


SPARK_FIXTURES = {"spark", "cli_uses_shared_spark", "standalone_cluster"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if uses & SPARK_FIXTURES or any(names(item.nodeid, e) for e in SPARK):
            item.add_marker(pytest.mark.spark)
        if any(names(item.nodeid, e) for e in SLOW):
            item.add_marker(pytest.mark.slow)
    if _profile_name(config) == "long":
        scale_examples((item.obj for item in items if isinstance(item, pytest.Function)),
                       long_factor(config))
    COLLECTED.clear()  # what tests/test_markers.py checks: every test and its loop markers
    COLLECTED.update({item.nodeid: sorted({m.name for m in item.iter_markers()} & {"slow", "spark"})
                      for item in items})
    listing = os.environ.get("MQTOOL_LIST_MARKERS")
    if listing:
        import json

        with open(listing, "w", encoding="utf-8") as f:
            json.dump(COLLECTED, f)


COLLECTED: dict[str, list[str]] = {}


# --------------------------------------------------------------------------- hypothesis

FUZZ_EXAMPLES = 25  # per fuzz target in the ordinary suite (CI)
FUZZ_LONG = 20  # --fuzz-long without a number: this many times the examples


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-long", nargs="?", type=int, const=FUZZ_EXAMPLES * FUZZ_LONG,
                     default=None, metavar="N",
                     help="the long campaign: hypothesis profile 'long' (random examples), N "
                          "examples per tests/fuzz target (default "
                          f"{FUZZ_EXAMPLES * FUZZ_LONG}; the suite runs {FUZZ_EXAMPLES}) and "
                          "every other property test's examples multiplied by N/"
                          f"{FUZZ_EXAMPLES}")


@pytest.fixture
def fuzz_examples(request: pytest.FixtureRequest) -> int:
    """How many examples each fuzz target tries: small in CI, more with --fuzz-long."""
    return request.config.getoption("--fuzz-long") or FUZZ_EXAMPLES


def long_factor(config: pytest.Config) -> int:
    """How many times its examples a property test runs in the long campaign."""
    n = config.getoption("--fuzz-long") or FUZZ_EXAMPLES * FUZZ_LONG
    return max(1, n // FUZZ_EXAMPLES)


def register_profiles() -> None:
    """No wall-clock limits in any profile (a loaded machine must not fail a test): no
    deadline, no too_slow health check. The other health checks stay (a function-scoped
    fixture shared by a test's examples is refused: each example makes its own folder)."""
    from hypothesis import HealthCheck, settings

    timeless = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("dev", timeless)
    settings.register_profile("ci", timeless, derandomize=True, database=None, print_blob=True)
    settings.register_profile("long", timeless, print_blob=True)


def _profile_name(config: pytest.Config) -> str:
    if config.getoption("--fuzz-long") is not None:
        return "long"
    chosen = config.getoption("hypothesis_profile", None) or os.environ.get("HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    return "ci" if _in_ci() else "dev"


def scale_examples(tests: Iterable[Any], factor: int) -> None:
    """Multiply the examples of every hypothesis test among ``tests`` (their own
    ``@settings(max_examples=...)`` included) by ``factor``, once per function."""
    from hypothesis import settings

    done: set[int] = set()
    for test in tests:
        fn = getattr(test, "__func__", test)
        current = getattr(fn, "_hypothesis_internal_use_settings", None)
        if current is None or id(fn) in done:
            continue
        done.add(id(fn))
        fn._hypothesis_internal_use_settings = settings(
            current, max_examples=current.max_examples * factor)


# The JVMs the tests start live seconds, not hours: the client compiler only and one GC
# thread cut their CPU by about 40% on 2 cores (docs/testing.md). Spark's launcher gives
# SPARK_SUBMIT_OPTS to every driver (the shared session, `mqtool spark-extract` run as a
# program), SPARK_DAEMON_JAVA_OPTS to a standalone master and worker, SPARK_LAUNCHER_OPTS
# to its own launcher, and spark-defaults.conf in SPARK_CONF_DIR the executors' options.
TEST_JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
_SPARK_ENV = ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS", "SPARK_LAUNCHER_OPTS")


_made: list[str] = []  # the configuration folder this run made (removed at its end)


def _quick_jvms() -> None:
    import tempfile

    for name in _SPARK_ENV:
        os.environ.setdefault(name, TEST_JVM_OPTS)
    if "SPARK_CONF_DIR" not in os.environ:
        conf = tempfile.mkdtemp(prefix="mqtool-tests-spark-conf-")
        with open(os.path.join(conf, "spark-defaults.conf"), "w", encoding="utf-8") as f:
            f.write(f"spark.executor.extraJavaOptions {TEST_JVM_OPTS}\n")
        os.environ["SPARK_CONF_DIR"] = conf
        _made.append(conf)


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    for conf in _made:
        shutil.rmtree(conf, ignore_errors=True)
        if os.environ.get("SPARK_CONF_DIR") == conf:
            del os.environ["SPARK_CONF_DIR"]


def pytest_configure(config: pytest.Config) -> None:
    from hypothesis import settings

    os.environ.setdefault("NO_COLOR", "")
    _quick_jvms()
    register_profiles()
    settings.load_profile(_profile_name(config))  # before the test modules are imported


def pytest_report_header(config: pytest.Config) -> str:
    from hypothesis import settings

    strict = "; CI=true: a skipped test fails" if _in_ci() else ""
    derandomize = settings().derandomize  # the loaded profile's
    return f"hypothesis profile: {_profile_name(config)} (derandomize={derandomize}){strict}"


# --------------------------------------------------------------------------- CI runs everything


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


def _skip_fails(report: Any) -> None:
    if _in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = (f"skipped under CI=true, where .ci/run installs every tool the "
                           f"suite uses: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    _skip_fails(outcome.get_result())  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    outcome = yield
    _skip_fails(outcome.get_result())  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- one Spark session


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The shared local[2] session, started once for every Spark test (tests that read S3
    give the credentials as options: the JVM may predate the test server's environment).
    Skipped, saying why, without pyspark or Java 17+."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        pytest.skip("pyspark is not installed (pip install 'mqtool[spark]')")
    from mqtool.errors import EnvError
    from mqtool.spark.job import java_check, session

    try:
        java_check()
    except EnvError as e:
        pytest.skip(str(e))
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    s = session("local[2]", {
        "spark.sql.shuffle.partitions": "4",
        "spark.default.parallelism": "2",
        "spark.driver.memory": "1g",
        "spark.sql.adaptive.enabled": "true",
        "spark.ui.enabled": "false",
    }, app="mqtool tests")
    yield s
    s.stop()


@pytest.fixture
def cli_uses_shared_spark(spark: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``mqtool spark-extract`` run in-process (``tests.helpers.mq``) gets the shared session
    instead of starting and stopping its own; everything else it does runs as written."""
    from mqtool.spark import job

    monkeypatch.setattr(job, "session", lambda *_a, **_k: spark)
    monkeypatch.setattr(spark, "stop", lambda: None)
    return spark
