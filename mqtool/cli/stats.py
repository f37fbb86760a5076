"""``mqtool stats --by FIELD[,FIELD] FILE...``: count decoded units by the values of their
fields (dead letters by reason, URB records by file number, log records by queue and
verb)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import click

from mqtool.cli._common import (
    Env,
    color_option,
    get_env,
    hex_option,
    where_option,
    window,
    window_options,
)
from mqtool.errors import ExitStatus, MqtoolError
from mqtool.model import Decoded


@click.command(short_help="Count units or rows by the values of fields.")
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(allow_dash=True))
@click.option("--by", "by", required=True, metavar="A,B,...",
              help="The fields to count by (decoded field paths, as --where and --fields name "
                   "them): one line per combination of their values.")
@click.option("--json", "json_out", is_flag=True,
              help='JSON lines: {"FIELD": value, "FIELD_meaning": ..., "count": N} per '
                   "combination.")
@click.option("--decode-as", "fmt", default="auto", show_default=True, metavar="FORMAT",
              help="Decode with this format's codec (urb, csq1logp, sas-attachment, redolog, "
                   "matqmsg, mq) instead of recognising each input as 'decode auto' does.")
@where_option
@window_options
@hex_option
@color_option
def stats(files: tuple[str, ...], by: str, json_out: bool, fmt: str, hex_text: bool,
          select_where: str | None) -> int:
    """Decode every FILE as 'decode auto' does (queue dumps message by message, directories
    of dumps and message bodies, CSQ1LOGP extracts record by record, any other input by
    the codec that recognises it; --decode-as forces one) and count the units by the
    values of the --by fields, most frequent first:

    \b
      count  mqdlh.reason
          2  2053 MQRC_Q_FULL
          1  2035 MQRC_NOT_AUTHORIZED

    A repeated field's values count joined (2,3,4), a missing one as (missing); a field's
    meaning is shown beside its value. --where counts only the units it keeps. A field no
    unit has is refused with the closest names the units do have (exit status 1); input
    that could not be fully decoded is said on stderr, its units still counted (exit 2).
    """
    from mqtool import api, registry
    from mqtool.io.inputs import missing_input

    env = get_env()
    if fmt != "auto":
        registry.codec(fmt)  # an unknown name: one line, the known ones
    for file in files:  # a missing input is said before any output, as every command does
        if file != "-" and not os.path.lexists(file):
            raise missing_input(file)
    sel = api.selection(select_where, by, fields_option="--by")
    names = sel.names or []
    state = {"status": ExitStatus.OK}
    kept = (unit for unit, _f in sel.kept(_units(env, files, fmt, hex_text, state)))
    counts = api.stats(kept, names)
    sel.check()
    if json_out:
        for c in counts:
            env.line(json.dumps(c.to_json(names), ensure_ascii=False))
    else:
        _table(env, api.stats_table(counts, names))
    env.stdout.flush()
    return int(state["status"])


def _units(env: Env, files: tuple[str, ...], fmt: str, hex_text: bool,
           state: dict[str, ExitStatus]) -> Iterator[Decoded]:
    """Every unit of every file; errors said on stderr (exit 2), unreadable files too."""
    from mqtool import api

    for file in files:
        try:
            for unit in api.units(file, fmt, hex_text, env.error, window()):
                for p in unit.errors:
                    env.error(f"{unit.format}: {file}: {p.describe()}")
                    state["status"] = ExitStatus.DECODE
                yield unit
        except MqtoolError as e:
            env.error(str(e))
            state["status"] = max(state["status"], e.status)


def _table(env: Env, rows: list[list[str]]) -> None:
    """Counts right-aligned, values left-aligned; text from the input escaped."""
    from mqtool.render.terminal import escape as printable

    rows = [[printable(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [row[0].rjust(widths[0]), *(c.ljust(w) for c, w in zip(row[1:], widths[1:],
                                                                        strict=True))]
        env.line("  ".join(cells).rstrip())
