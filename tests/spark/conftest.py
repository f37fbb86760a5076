"""One shared, tuned local[2] Spark session for every Spark test.

UI off, quiet logs, small shuffle partitions, mqtool shipped as a zip and the DataSource
registered (``mqtool.spark.job.session``). With ``MQTOOL_REQUIRE_SPARK=1`` (CI) a Spark test
that would be skipped fails instead: CI must not go green without running them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

REQUIRE = os.environ.get("MQTOOL_REQUIRE_SPARK") == "1"


def _must_run(report: Any) -> None:
    if REQUIRE and report.skipped:
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"Spark test skipped but MQTOOL_REQUIRE_SPARK=1 demands it: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    _must_run(outcome.get_result())  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    outcome = yield
    _must_run(outcome.get_result())  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
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
