"""Event Replicator record images as typed columns: layouts (from the stream's global format
field tables, format buffers, FDTs), vectorised value decoding, typed change tables.

The entry points a command calls::

    layouts = Layouts.of(gffts, given, fdts, prefer="stream")   # sources.py
    result = typed_changes(changes, layouts, transactions, messages, files)  # table.py
    result.tables[(dbid, fnr)], result.errors, result.report

``gffts`` come from ``gfft.scan(data, file)`` (or ``gfft.tables(units)`` for decoded units),
``given`` from ``formatbuffer.parse_option`` / ``load_option_file``, ``fdts`` from
``fdt.load_fdt``.
"""

from importlib import import_module
from typing import Any

_WHERE = {"Gfft": "gfft", "scan": "gfft", "tables": "gfft", "LayoutError": "layout", "RecordLayout": "layout",
          "Layouts": "sources", "TypedChanges": "table", "encoding_of": "table", "table_name": "table",
          "typed_changes": "table"}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:  # the submodules import the FDT and format-buffer modules,
    if name in _WHERE:  # which import this package's layout: loaded on first use
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(name)
