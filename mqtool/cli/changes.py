"""``mqtool changes apply``: typed change tables (``extract urb --typed``) folded into a
current-state table per Adabas file, keyed by ISN."""

from __future__ import annotations

from typing import Any

import click

from mqtool.cli._common import get_env, summary_option, write_summary
from mqtool.errors import ExitStatus


@click.command(short_help="Fold typed change tables into a current-state table per file (Parquet).")
@click.argument("inputs", nargs=-1, required=True, metavar="CHANGES...", type=click.Path())
@click.option("-o", "--output", "outdir", required=True, metavar="DIR", type=click.Path(),
              help="The state directory: state_DBID_FNR.parquet per file, read and rewritten.")
@click.option("--force", is_flag=True,
              help="Start from an empty state: replace the state tables in DIR instead of "
                   "applying the changes to them.")
@summary_option
def apply(inputs: tuple[str, ...], outdir: str, force: bool, summary_path: str | None) -> int:
    """Apply the inserts, updates and deletes of typed change tables (the changes_DBID_FNR
    tables of 'extract urb --typed', or the directories holding them) to a replica of
    each Adabas file: one row per ISN, the after image's fields as columns, and the
    change that wrote it (_change, _transaction_number, _transaction_time, _record_time,
    _subscription).

    Changes are applied in commit order (transaction time, then input, transaction and
    record order); only each ISN's last change counts, so applying the same changes again
    changes nothing, and a change older than the state's row for its ISN is skipped.
    Each state file is replaced whole (a failed run leaves the previous state). Prints,
    per file, the rows inserted, updated and deleted and the rows the state has now.
    """
    from mqtool import api

    env = get_env()
    results = api.apply_changes(list(inputs), outdir, force=force)
    if summary_path != "-":
        for name, r in results.items():
            env.line(_line(name, r))
    if summary_path:
        write_summary(env, summary_path, {"output": outdir, "inputs": list(inputs), "files": results})
    return ExitStatus.OK


def _line(name: str, r: dict[str, Any]) -> str:
    skipped = r["skipped_older"] + r["skipped_no_after_image"]
    return (f"{name.removesuffix('.parquet')}: {r['changes']:,} changes; {r['inserted']:,} inserted, "
            f"{r['updated']:,} updated, {r['deleted']:,} deleted"
            f"{f', {skipped:,} skipped' if skipped else ''}; {r['rows_after']:,} rows")
