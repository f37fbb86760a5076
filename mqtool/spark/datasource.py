"""A Spark 4 Python DataSource for CSQ1LOGP extracts: ``mqtool.csq1logp``.

    from mqtool.spark.datasource import register
    register(spark)                                   # once per session
    df = (spark.read.format("mqtool.csq1logp")
          .option("framing", "auto").option("codepage", "cp037")
          .option("mode", "PERMISSIVE").option("splitSize", "64m")
          .option("queue", "PAYROLL.*")               # extract's filters, applied in the scan
          .load("s3://bucket/logs/CSQCMT*"))          # a path or URI: file, directory, glob

Options match ``mqtool extract``: ``framing`` (auto|rdw|bdw|none), ``codepage``, ``mode``
(PERMISSIVE|DROPMALFORMED|FAILFAST), ``splitSize`` (1k and up), the filters ``queue``,
``verb``, ``urid``, ``qmgr``, ``status`` (comma-separated lists), ``since``, ``until``;
``paths`` takes several inputs separated by commas; ``s3.endpoint``, ``s3.region``,
``s3.access_key``, ``s3.secret_key`` for object stores (else the AWS environment).

Planning lists the files and their sizes and nothing more: every file is cut into byte
ranges, and each task finds its first record itself (``framing.range_frames``), so one big
file keeps every core busy and the driver never reads the data. ``file`` is the input's
absolute URI; ``rec_no`` is null (a range does not know how many records precede it; order
by ``offset``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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


class RangePartition(InputPartition):
    """One byte range of one file (cut anywhere; the reader finds its records)."""

    def __init__(self, path: str, name: str, start: int, end: int, size: int) -> None:
        super().__init__((path, start, end))
        self.path, self.name, self.start, self.end, self.size = path, name, start, end, size


def filters_from(opts: Mapping[str, Any]) -> Any:
    """``Filters`` from DataSource / job options (lists comma-separated); ValueError says why."""
    from mqtool import api

    def many(key: str) -> list[str]:
        return [v.strip() for v in str(opts.get(key) or "").split(",") if v.strip()]

    return api.csq1logp_filters(many("queue"), many("verb"), many("urid"), many("qmgr"),
                        opts.get("since") or None, opts.get("until") or None, many("status"))


def plan_ranges(paths: list[str], split_size: int,
                options: Mapping[str, str] | None = None) -> list[tuple[str, str, int, int, int]]:
    """``(path, uri, start, end, size)`` of every byte range: a listing, no data read."""
    from mqtool import api
    from mqtool.io.uris import absolute, list_files

    out = []
    for path, size in list_files(paths, options):
        uri = absolute(path)
        out += [(path, uri, r.start, r.end, size) for r in api.byte_ranges(path, size, split_size)]
    return out


class Csq1logpDataSource(DataSource):
    """``spark.read.format("mqtool.csq1logp")``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> StructType:
        from mqtool import api

        return spark_schema(api.record_schema())

    def reader(self, schema: StructType) -> DataSourceReader:
        return Csq1logpReader(dict(self.options))


class Csq1logpReader(DataSourceReader):
    def __init__(self, options: dict[str, Any]) -> None:
        from mqtool import api
        from mqtool.io.uris import OPTION_KEYS

        modes = api.csq1logp_modes()
        opts = {k.lower(): v for k, v in options.items()}
        self.framing = str(opts.get("framing", "auto")).lower()
        self.codepage = str(opts.get("codepage", "cp037"))
        self.mode = str(opts.get("mode", "PERMISSIVE")).upper()
        if self.mode not in modes:
            raise ValueError(f"{NAME}: mode must be one of {', '.join(modes)}")
        if self.framing not in ("auto", "rdw", "bdw", "none"):
            raise ValueError(f"{NAME}: framing must be auto, rdw, bdw or none")
        try:
            self.split_size = api.parse_size(str(opts.get("splitsize", DEFAULT_SPLIT)))
            self.filters = filters_from(opts)
        except ValueError as e:
            raise ValueError(f"{NAME}: {e}") from None
        paths = [p for p in str(opts.get("paths", "")).split(",") if p]
        if opts.get("path"):
            paths.insert(0, str(opts["path"]))
        self.paths = paths
        self.fs_options = {k: str(v) for k, v in opts.items() if k in OPTION_KEYS}

    def partitions(self) -> list[InputPartition]:
        if not self.paths:
            raise ValueError(f"{NAME}: no input (load(path) or option paths)")
        return [RangePartition(p, uri, a, b, size)
                for p, uri, a, b, size in plan_ranges(self.paths, self.split_size, self.fs_options)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        from mqtool import api

        p: RangePartition = partition  # type: ignore[assignment]
        for batch in api.decode_range(p.path, p.start, p.end, p.size, self.framing, self.codepage,
                                  self.mode, p.name, self.fs_options):
            if self.filters:
                batch = self.filters.apply(pa.Table.from_batches([batch]))
                yield from batch.to_batches()
            else:
                yield batch


def register(spark: Any) -> None:
    """Make ``spark.read.format("mqtool.csq1logp")`` available in a session."""
    spark.dataSource.register(Csq1logpDataSource)
