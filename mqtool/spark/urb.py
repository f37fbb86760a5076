"""Event Replicator messages in Spark: the DataSource ``mqtool.urb`` and ``spark-extract urb``.

    from mqtool.spark.urb import register
    register(spark)
    df = (spark.read.format("mqtool.urb").option("table", "changes")
          .option("mode", "PERMISSIVE").load("/data/replicator/"))   # files, directories, globs

``table`` is one of ``extract urb``'s tables (messages, transactions, records, images,
status, errors, changes; default changes), with the same schema (``formats.urb.extract.
schema``). Each input file is one partition, decoded by the same library function as the
local command (``extract_tables``): rows are the local rows. Transaction ids (``transaction``,
``record_number``, ``image_number``) are numbered per file in Spark (the local command numbers
them over the whole run); the pair (file, transaction) identifies a transaction in both.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

NAME = "mqtool.urb"


def spark_schema(schema: pa.Schema) -> Any:
    """Arrow schema of an ``extract urb`` table -> Spark schema."""
    from pyspark.sql.types import (
        BinaryType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    def typ(t: pa.DataType) -> Any:
        if pa.types.is_string(t):
            return StringType()
        if pa.types.is_binary(t):
            return BinaryType()
        if pa.types.is_timestamp(t):
            return TimestampType()
        if pa.types.is_integer(t):
            return LongType()
        raise TypeError(f"no Spark type for {t}")

    return StructType([StructField(f.name, typ(f.type), True) for f in schema])


def spark_table(table: pa.Table) -> pa.Table:
    """The Arrow table as Spark takes it (unsigned 64-bit raw TODs as signed longs)."""
    cols = []
    for f, col in zip(table.schema, table.columns, strict=True):
        if pa.types.is_unsigned_integer(f.type) or (pa.types.is_integer(f.type) and f.type != pa.int64()):
            col = col.cast(pa.int64(), safe=False)  # raw TOD values keep their 64 bits
        cols.append(col)
    return pa.table(cols, names=table.column_names)


def expand(paths: list[str]) -> list[str]:
    """Input files of files, directories (walked like ``extract urb``) and globs."""
    from mqtool import api

    out: list[str] = []
    for p in paths:
        if any(ch in p for ch in "*?[") and not os.path.exists(p):
            out += sorted(glob.glob(p))
        else:
            out.append(p)
    return list(api.urb_input_files(out))


def _datasource() -> type:
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    class FilePartition(InputPartition):
        def __init__(self, path: str) -> None:
            super().__init__(path)
            self.path = path

    class UrbReader(DataSourceReader):
        def __init__(self, options: dict[str, Any]) -> None:
            from mqtool import api

            tables, modes = api.urb_tables(), api.urb_modes()
            opts = {k.lower(): v for k, v in options.items()}
            self.table = str(opts.get("table", "changes")).lower()
            if self.table not in tables:
                raise ValueError(f"{NAME}: table must be one of {', '.join(tables)}")
            self.mode = str(opts.get("mode", "PERMISSIVE")).upper()
            if self.mode not in modes:
                raise ValueError(f"{NAME}: mode must be one of {', '.join(modes)}")
            self.leap = int(opts.get("leapseconds", 0))
            paths = [p for p in str(opts.get("paths", "")).split(",") if p]
            if opts.get("path"):
                paths.insert(0, str(opts["path"]))
            self.paths = paths

        def partitions(self) -> list[Any]:
            files = expand(self.paths)
            if not files:
                raise ValueError(f"{NAME}: no input files (load(path) or option paths)")
            return [FilePartition(f) for f in files]

        def read(self, partition: Any) -> Iterator[pa.RecordBatch]:
            from mqtool import api

            tables = api.urb_file_tables(partition.path, self.mode, self.leap)
            yield from spark_table(tables.table(self.table)).to_batches()

    class UrbDataSource(DataSource):
        """``spark.read.format("mqtool.urb")``."""

        @classmethod
        def name(cls) -> str:
            return NAME

        def schema(self) -> Any:
            from mqtool import api

            table = str(self.options.get("table", "changes")).lower()
            return spark_schema(api.urb_table_schema(table))

        def reader(self, schema: Any) -> Any:
            return UrbReader(dict(self.options))

    return UrbDataSource


def register(spark: Any) -> None:
    """Make ``spark.read.format("mqtool.urb")`` available in a session."""
    spark.dataSource.register(_datasource())


def run(spark: Any, inputs: list[str], outdir: str, mode: str = "PERMISSIVE", force: bool = False,
        leap_seconds: int = 0) -> dict[str, Any]:
    """``spark-extract urb``: every table of ``extract urb`` as Parquet under ``outdir``
    (``<table>/``), written by Spark, and ``_summary.json``."""
    from mqtool import api
    from mqtool.errors import EnvError, InputError

    files = expand(inputs)
    if not files:
        raise InputError("no input files")
    out = Path(outdir)
    tables = api.urb_tables()
    there = [t for t in tables if (out / t).exists()]
    if there and not force:
        from mqtool.io.outputs import OutputExistsError

        raise OutputExistsError(f"{out / there[0]} exists (use --force to overwrite)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EnvError(f"{outdir}: cannot create output directory: {e.strerror}") from None
    register(spark)
    rows: dict[str, int] = {}
    for table in tables:
        df = (spark.read.format(NAME).option("table", table).option("mode", mode)
              .option("leapSeconds", str(leap_seconds)).option("paths", ",".join(files)).load())
        df.write.mode("overwrite").parquet(str(out / table))
        rows[table] = spark.read.parquet(str(out / table)).count()
    info = {"mode": mode, "files": files, "rows": rows, "output": str(out), "format": "parquet"}
    api.write_summary(str(out / "_summary.json"), info)
    return info
