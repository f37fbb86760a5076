"""A Spark 4 Python DataSource for CSQ1LOGP extracts: ``mqtool.csq1logp``.

    from mqtool.spark.datasource import register
    register(spark)                                   # once per session
    df = (spark.read.format("mqtool.csq1logp")
          .option("framing", "auto").option("codepage", "cp037")
          .option("mode", "PERMISSIVE").option("splitSize", "64m")
          .load("/data/CSQCMT.bin"))                  # a file, a directory or a glob

Options match ``mqtool extract``: ``framing`` (auto|rdw|bdw|none), ``codepage``, ``mode``
(PERMISSIVE|DROPMALFORMED|FAILFAST), ``splitSize``; ``paths`` takes several inputs separated
by commas. Planning does one header pass per file (the sparse index) and cuts big files at
record boundaries, so one file keeps every core busy; each partition yields Arrow batches
from the same vectorised decoder as the local path. The schema is derived from the record
layout (``csq1logp_bulk.record_schema``).
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    DateType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

NAME = "mqtool.csq1logp"
DEFAULT_SPLIT = 32 << 20


def spark_type(t: pa.DataType) -> DataType:
    """Arrow type -> Spark type (the subset record rows use)."""
    if pa.types.is_string(t):
        return StringType()
    if pa.types.is_int32(t):
        return IntegerType()
    if pa.types.is_int64(t):
        return LongType()
    if pa.types.is_boolean(t):
        return BooleanType()
    if pa.types.is_binary(t):
        return BinaryType()
    if pa.types.is_date32(t):
        return DateType()
    if pa.types.is_timestamp(t):
        return TimestampType() if t.tz else TimestampNTZType()
    if pa.types.is_list(t):
        return ArrayType(spark_type(t.value_type))
    raise TypeError(f"no Spark type for {t}")


def spark_schema(schema: pa.Schema) -> StructType:
    return StructType([StructField(f.name, spark_type(f.type), True) for f in schema])


def expand(paths: list[str]) -> list[str]:
    """Files of paths that may be files, directories (their regular files) or globs."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p)
                          if not f.startswith((".", "_")) and os.path.isfile(os.path.join(p, f)))
        elif any(ch in p for ch in "*?["):
            out += sorted(f for f in glob.glob(p) if os.path.isfile(f))
        else:
            out.append(p)
    return out


class SplitPartition(InputPartition):
    """One split: a byte range of one file starting at a restart point."""

    def __init__(self, path: str, start: int, end: int, rec_no: int, framing: str) -> None:
        super().__init__((path, start, end, rec_no, framing))
        self.path, self.start, self.end, self.rec_no, self.framing = path, start, end, rec_no, framing


class Csq1logpDataSource(DataSource):
    """``spark.read.format("mqtool.csq1logp")``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> StructType:
        from mqtool.formats.csq1logp.bulk import record_schema

        return spark_schema(record_schema())

    def reader(self, schema: StructType) -> DataSourceReader:
        return Csq1logpReader(dict(self.options))


class Csq1logpReader(DataSourceReader):
    def __init__(self, options: dict[str, Any]) -> None:
        opts = {k.lower(): v for k, v in options.items()}
        self.framing = str(opts.get("framing", "auto")).lower()
        self.codepage = str(opts.get("codepage", "cp037"))
        self.mode = str(opts.get("mode", "PERMISSIVE")).upper()
        from mqtool.formats.csq1logp.bulk import MODES
        from mqtool.formats.csq1logp.extract import parse_size

        if self.mode not in MODES:
            raise ValueError(f"mqtool.csq1logp: mode must be one of {', '.join(MODES)}")
        if self.framing not in ("auto", "rdw", "bdw", "none"):
            raise ValueError("mqtool.csq1logp: framing must be auto, rdw, bdw or none")
        self.split_size = parse_size(str(opts.get("splitsize", DEFAULT_SPLIT)))
        paths = [p for p in str(opts.get("paths", "")).split(",") if p]
        if opts.get("path"):
            paths.insert(0, str(opts["path"]))
        self.paths = paths
        self.splits = json.loads(opts["_splits"]) if opts.get("_splits") else None
        self.names = json.loads(opts["_names"]) if opts.get("_names") else {}

    def partitions(self) -> list[InputPartition]:
        if self.splits is not None:  # planned by the job (it needed the header pass anyway)
            return [SplitPartition(*s) for s in self.splits]
        from mqtool.formats.csq1logp.framing import sparse_index

        files = expand(self.paths)
        if not files:
            raise ValueError("mqtool.csq1logp: no input files (load(path) or option paths)")
        parts: list[InputPartition] = []
        for f in files:
            ix = sparse_index(f, self.framing, self.codepage, self.split_size)
            parts += [SplitPartition(s.path, s.start, s.end, s.rec_no, s.framing) for s in ix.splits]
        return parts

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        from mqtool.formats.csq1logp.bulk import batches
        from mqtool.formats.csq1logp.framing import Split, split_frames

        p: SplitPartition = partition  # type: ignore[assignment]
        split = Split(p.path, p.start, p.end, p.rec_no, p.framing)
        name = self.names.get(p.path, p.path)
        yield from batches(name, split_frames(split, self.codepage), self.codepage, self.mode)


def register(spark: Any) -> None:
    """Make ``spark.read.format("mqtool.csq1logp")`` available in a session."""
    spark.dataSource.register(Csq1logpDataSource)
