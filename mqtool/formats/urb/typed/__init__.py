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

from mqtool.formats.urb.typed.gfft import Gfft, scan, tables
from mqtool.formats.urb.typed.layout import LayoutError, RecordLayout
from mqtool.formats.urb.typed.sources import Layouts
from mqtool.formats.urb.typed.table import TypedChanges, encoding_of, table_name, typed_changes

__all__ = ["Gfft", "LayoutError", "Layouts", "RecordLayout", "TypedChanges", "encoding_of", "scan",
           "table_name", "tables", "typed_changes"]
