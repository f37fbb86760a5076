"""An output directory in the layout Spark readers expect, written with pyarrow: Hive-style
``log_date=YYYY-MM-DD`` folders (the column not repeated inside the files), bad spans in
``errors/``. Used by the local ``extract -o DIR/`` and by every ``spark-extract`` task."""

from __future__ import annotations

import os
from typing import Any

from mqtool.io.outputs import Atomic, atomic_path, remote
from mqtool.io.uris import join

NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"  # Hive's (and Spark's) folder for a null value
OUT_DIRS = ("records", "errors", "messages")  # what an extract directory holds


class PartitionedWriter:
    """Parquet files under ``root``: one per ``log_date`` value in Hive-style folders (the
    column dropped from the data), or one flat file (``by=None``; ``keep`` keeps every
    column). Each file is an ``atomic_path``: renamed into place (uploaded, for an
    object-store ``root``) by ``close()``, removed by ``abort()``; a retried task replaces
    its own files (on an object store it names them apart: ``outputs.part_name``).
    ``written`` lists the files ``close()`` put in place."""

    def __init__(self, root: str, name: str, by: str | None = "log_date", keep: bool = False,
                 options: Any = None) -> None:
        self.root, self.name, self.by, self.keep, self.options = root, name, by, keep, options
        self.open: dict[object, tuple[Any, Atomic]] = {}
        self.written: list[str] = []

    def write(self, table: Any) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        if table.num_rows == 0:
            return
        if self.by is None:
            data = table if self.keep else table.drop_columns(["log_date"])
            self._writer(None, data.schema).write_table(data)
            return
        dates = table.column(self.by)
        data = table.drop_columns([self.by])
        bounds = pc.min_max(dates)
        if dates.null_count == 0 and bounds["min"] == bounds["max"]:
            self._writer(bounds["min"].as_py(), data.schema).write_table(data)  # one date: no copy
            return
        for d in pc.unique(dates).to_pylist():
            mask = pc.is_null(dates) if d is None else pc.equal(dates, pa.scalar(d, dates.type))
            self._writer(d, data.schema).write_table(data.filter(pc.fill_null(mask, False)))

    def _writer(self, value: object, schema: Any) -> Any:
        import pyarrow.parquet as pq

        if value not in self.open:
            part = NULL_PARTITION if value is None else value
            folder = self.root if self.by is None else join(self.root, f"{self.by}={part}")
            if not remote(folder):
                os.makedirs(folder, exist_ok=True)
            target = atomic_path(join(folder, self.name), force=True, options=self.options,
                                 check=False)
            try:
                w = pq.ParquetWriter(target.temp, schema, use_dictionary=False,
                                     coerce_timestamps="us", allow_truncated_timestamps=False)
            except BaseException:
                target.discard()
                raise
            self.open[value] = (w, target)
        return self.open[value][0]

    def close(self) -> None:
        for w, target in self.open.values():
            w.close()
            target.commit()
            self.written.append(str(target.path))
        self.open.clear()

    def abort(self) -> None:
        for w, target in self.open.values():
            try:
                w.close()
            finally:
                target.discard()
        self.open.clear()
