"""What ``spark-extract`` and ``spark-extract urb`` share: where the job runs (``--master``
or a Spark Connect server, ``--remote`` / ``SPARK_REMOTE``), ``--verbose``, and how a run
reports: the rows written per output folder on stdout (or the summary as JSON with
``--summary -``), the same off a terminal as on one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from mqtool.cli._common import Env, write_summary

F = Callable[..., Any]


def remote_option(f: F) -> F:
    return click.option(
        "--remote", metavar="sc://HOST:PORT", envvar="SPARK_REMOTE", default=None,
        help="Run on a Spark Connect server (also SPARK_REMOTE; Databricks Connect's "
             "sc://...;token=... URLs too): no JVM here, mqtool is shipped as an artifact; "
             "instead of --master.")(f)


def verbose_option(f: F) -> F:
    return click.option(
        "--verbose", is_flag=True,
        help="Let the JVM's start-up notes and Spark's log through (else Spark's log goes to "
             "OUTDIR/_logs/).")(f)


def session_target(master: str, remote: str | None) -> str:
    """The Spark Connect URL, when the job runs on one (``--master`` given too: refused)."""
    if not remote:
        return ""
    ctx = click.get_current_context()
    if ctx.get_parameter_source("master") is click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("give --master or --remote, not both (a Spark Connect server "
                               "has its own master)")
    return remote


def report_spark_run(env: Env, info: dict[str, Any], summary_path: str | None,
                     rows: dict[str, int], verbose: bool = False) -> None:
    """``--summary FILE`` (``-``: the JSON on stdout instead of the rows), the rows per
    output folder, errors by reason; with ``--verbose`` the timings (the cold run, the JVM's
    start) on stderr."""
    if summary_path:
        write_summary(env, summary_path, info)
    if summary_path != "-":
        print_rows(env, rows, info.get("errors_by_reason", {}))
    if verbose:
        times = ", ".join(f"{k.removesuffix('_s')} {info[k]:.1f} s"
                          for k in ("wall_s", "session_s", "planning_s", "spark_jobs_s") if k in info)
        env.error(f"{info.get('output', '')}: {times}")


def print_rows(env: Env, rows: dict[str, int], by_reason: dict[str, int]) -> None:
    """Rows per table (or folder), errors by reason: ``extract urb`` and both
    ``spark-extract`` commands."""
    for name, n in rows.items():
        env.line(f"{name:<13} {n:>9,} rows")
    for reason, n in by_reason.items():
        env.line(f"  {reason}: {n:,}")
