"""Typed change tables during ``extract urb --typed``: the layouts the user gave (format
buffers, FDTs), the global format field tables met in the input (each part is scanned as it
is read, so a table applies to the images after it, in later inputs too), and the tables a
typed table is made of (``changes``, ``transactions``, ``messages``), kept as they are
written; ``finish`` makes one typed change table per (database, file) (``table.py``).

What the user gives is read before any input, so a malformed format buffer or FDT stops the
run before anything is written: ``LayoutError`` naming the option or file and the column,
line or field in it (Software AG, Adabas Command Reference, *Format Buffers*).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import pyarrow as pa

from mqtool.formats.urb.fdt import Fdt, load_fdt
from mqtool.formats.urb.formatbuffer import Given, load_option_file, parse_option
from mqtool.formats.urb.typed.gfft import scan
from mqtool.formats.urb.typed.sources import Layouts
from mqtool.formats.urb.typed.table import TypedChanges, table_name, typed_changes

KEPT = ("changes", "transactions", "messages")  # the extract tables a typed table is made of
FROM_FILE = "@"  # --format-buffer @FILE: a file of DBID:FNR=... lines


def given_layouts(format_buffers: Iterable[str] = (), fdts: Iterable[str] = (),
                  prefer: str = "stream") -> Layouts:
    """The user's layout sources: ``DBID:FNR=BUFFER`` options (``@FILE``: a file of such
    lines) and FDT JSON files."""
    given: list[Given] = []
    for option in format_buffers:
        if option.startswith(FROM_FILE):
            given += load_option_file(option[len(FROM_FILE):])
        else:
            given.append(parse_option(option))
    tables: list[Fdt] = []
    for path in fdts:
        tables += load_fdt(path)
    return Layouts.of((), given, tables, prefer=prefer)


@dataclass
class TypedRun:
    """What ``extract`` hands over while it reads: each part's bytes (``part``) and each
    table it writes (``keep``)."""

    layouts: Layouts
    keep_blanks: bool = False
    files: list[str] = field(default_factory=list)  # input names in reading order
    kept: dict[str, list[pa.Table]] = field(default_factory=dict)

    def part(self, file: str, data: bytes, base: int) -> None:
        """The global format field tables of one part of input ``file`` (``data`` starts at
        ``base`` in it)."""
        if file not in self.files:
            self.files.append(file)
        index = self.files.index(file)
        for offset, g in scan(data, file, base):
            self.layouts.add((index, offset), g)

    def keep(self, name: str, table: pa.Table) -> None:
        if name in KEPT:
            self.kept.setdefault(name, []).append(table)

    def _table(self, name: str) -> pa.Table | None:
        parts = self.kept.get(name)
        return pa.concat_tables(parts) if parts else None

    def finish(self) -> TypedChanges:
        changes = self._table("changes")
        if changes is None:
            return TypedChanges(report=self.layouts.report())
        return typed_changes(changes, self.layouts, self._table("transactions"), self._table("messages"),
                             self.files, keep_blanks=self.keep_blanks)

    def by_name(self) -> dict[str, pa.Table]:
        """``finish``'s tables by their output names (``changes_DBID_FNR``)."""
        return {table_name(key): table for key, table in self.finish().tables.items()}


def typed_run(format_buffers: Iterable[str] = (), fdts: Iterable[str] = (), prefer: str = "stream",
              keep_blanks: bool = False) -> TypedRun:
    """A ``TypedRun`` with the user's layouts read (``LayoutError`` when one cannot be)."""
    return TypedRun(given_layouts(format_buffers, fdts, prefer), keep_blanks)
