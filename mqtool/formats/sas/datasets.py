"""SAS data sets from attachment messages: numerics, missing values, typed output.

SAS numerics are 8-byte doubles in the sender's floating format: IBM hexadecimal floating
point (HFP) from z/OS, IEEE 754 elsewhere (big- or little-endian); lengths 3..7 keep the most
significant bytes. Conversions are vectorised with numpy. SAS missing values (``.``,
``.A``-``.Z``, ``._``) become nulls; a ``<var>__missing`` companion column keeps the letter,
only for variables where special missings occur. Output: Parquet (typed columns; label,
format and informat as column metadata), CSV, and SAS XPORT through pyreadstat (optional,
imported only when asked for).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from mqtool.formats.sas.layout import (
    CHAR_LENGTH_MAX,
    FLOAT_FORMATS,
    NUMERIC_LENGTHS,
    DatasetDef,
    Variable,
)

DOUBLE = max(NUMERIC_LENGTHS)  # bytes of a full SAS numeric
XPORT_LIMIT = 16 << 20  # bytes of observations pyreadstat is given (it holds them whole)
V5_NAME, V8_NAME = 8, 32  # longest member / variable name in XPORT version 5 / 8
MISSING_LETTERS = "." + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "_"
# IEEE: NaN, byte 2 (big-endian order) = FE for ".", FD..E4 for .A...Z, FF for ._
_IEEE_CODE = {0xFE: ".", 0xFF: "_"} | {0xFD - i: chr(0x41 + i) for i in range(26)}
# HFP: zero fraction, first byte = the missing character in EBCDIC
_HFP_CODE = {0x4B: ".", 0x6D: "_"} | {b: c for c, b in zip(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xd1\xd2\xd3\xd4\xd5\xd6"
    b"\xd7\xd8\xd9\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9", strict=True)}


# --------------------------------------------------------------------------- numerics


def _code_table(codes: dict[int, str]) -> np.ndarray:
    table = np.zeros(256, dtype=np.uint8)
    for byte, letter in codes.items():
        table[byte] = ord(letter)
    return table


_IEEE_TABLE = _code_table(_IEEE_CODE)
_HFP_TABLE = _code_table(_HFP_CODE)


def widen(raw: np.ndarray, fmt: str) -> np.ndarray:
    """(n, w) bytes of numerics of length w (3..8) -> (n,) big-endian-ordered uint64 values
    of the full 8-byte double (truncated numerics padded on the least significant side)."""
    n, w = raw.shape
    full = np.zeros((n, DOUBLE), dtype=np.uint8)
    if fmt == "ieee-le":
        full[:, DOUBLE - w:] = raw  # most significant bytes are the last ones
        full = full[:, ::-1]
    else:
        full[:, :w] = raw
    return np.ascontiguousarray(full).view(">u8").reshape(n).astype(np.uint64)


def decode_doubles(raw: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """Values (float64, NaN where missing) and missing codes (uint8: 0, or the character
    ``.``, ``A``..``Z``, ``_``) of (n, w) raw numerics in ``fmt``."""
    if fmt not in FLOAT_FORMATS:
        raise ValueError(f"unknown float format {fmt!r}; known: {', '.join(FLOAT_FORMATS)}")
    u = widen(raw, fmt)
    if fmt == "ibm-hfp":
        return hfp_to_float(u)
    values = u.view(np.float64).copy()  # u holds the bit patterns as native integers
    nan = np.isnan(values)
    codes = np.zeros(len(values), dtype=np.uint8)
    if nan.any():
        byte2 = ((u[nan] >> np.uint64(40)) & np.uint64(0xFF)).astype(np.uint8)
        c = _IEEE_TABLE[byte2]
        codes[nan] = np.where(c == 0, ord("."), c)
    return values, codes


def hfp_to_float(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """IBM HFP long (as big-endian-ordered uint64) -> float64 and missing codes.

    value = (-1)^sign x 0.fraction(56 bits) x 16^(exponent - 64).
    """
    u = u.astype(np.uint64)
    frac = u & np.uint64(0x00FFFFFFFFFFFFFF)
    first = (u >> np.uint64(56)).astype(np.uint8)
    exp = (first & 0x7F).astype(np.int64)
    values = np.ldexp(frac.astype(np.float64), (4 * (exp - 64) - 56).astype(np.int32))
    values = np.where(first & 0x80, -values, values)
    codes = np.where(frac == 0, _HFP_TABLE[first], 0).astype(np.uint8)
    values = np.where(codes != 0, np.nan, values)
    return values, codes


def float_to_hfp(values: np.ndarray) -> np.ndarray:
    """float64 -> IBM HFP long as uint64 (big-endian order). Raises on values HFP cannot hold."""
    v = np.asarray(values, dtype=np.float64)
    if not np.isfinite(v).all():
        raise ValueError("NaN and infinities have no IBM HFP form; use a SAS missing value")
    mant, exp2 = np.frexp(np.abs(v))  # |v| = mant * 2^exp2, 0.5 <= mant < 1
    e16 = -(-exp2 // 4)  # ceil(exp2 / 4)
    shift = 4 * e16 - exp2  # 0..3
    frac = np.ldexp(mant, (56 - shift).astype(np.int32)).astype(np.uint64)
    biased = e16 + 64
    zero = v == 0
    if ((biased > 127) & ~zero).any():
        raise ValueError("value too large for IBM HFP (limit about 7.2e75)")
    small = (biased < 0) & ~zero
    biased = np.where(zero | small, 0, biased).astype(np.uint64)
    frac = np.where(zero | small, np.uint64(0), frac)
    sign = np.where((v < 0) & ~zero & ~small, np.uint64(1) << np.uint64(63), np.uint64(0))
    words: np.ndarray = sign | (biased << np.uint64(56)) | frac
    return words


def encode_doubles(values: Sequence[float | str | None], fmt: str, width: int = 8) -> list[bytes]:
    """Builder side: numbers or missing values (None, ``.``, ``.A``..``.Z``, ``._``) ->
    ``width`` bytes each in ``fmt``."""
    n = len(values)
    nums = np.zeros(n, dtype=np.float64)
    letters: list[str | None] = []
    for i, v in enumerate(values):
        letter = missing_letter(v)
        letters.append(letter)
        if letter is None:
            nums[i] = float(v)  # type: ignore[arg-type]
    if fmt == "ibm-hfp":
        u = float_to_hfp(nums)
        hfp_codes = {c: b for b, c in _HFP_CODE.items()}
        for i, letter in enumerate(letters):
            if letter is not None:
                u[i] = np.uint64(hfp_codes[letter]) << np.uint64(56)
        data = u.astype(">u8").tobytes()
    else:
        u = nums.astype(">f8").view(">u8").astype(np.uint64)
        ieee_codes = {c: b for b, c in _IEEE_CODE.items()}
        for i, letter in enumerate(letters):
            if letter is not None:
                u[i] = np.uint64(0xFFFF000000000000) | (np.uint64(ieee_codes[letter]) << np.uint64(40))
        data = u.astype(">u8").tobytes()
    out = [data[DOUBLE * i:DOUBLE * (i + 1)] for i in range(n)]
    if fmt == "ieee-le":
        return [b[::-1][DOUBLE - width:] for b in out]
    return [b[:width] for b in out]


def missing_letter(value: object) -> str | None:
    """``.``, ``A``..``Z`` or ``_`` for a SAS missing value given as None, ``.``, ``.A``, ``._``."""
    if value is None:
        return "."
    if isinstance(value, str):
        text = value.strip().upper()
        if text in ("", "."):
            return "."
        if len(text) == 2 and text[0] == "." and text[1] in MISSING_LETTERS[1:]:
            return text[1]
    return None


# --------------------------------------------------------------------------- observations


class Observations:
    """Slices observation bytes by the variable definitions and decodes them in bulk.

    ``layout`` is ``definition`` (variables in definition order, no padding) or
    ``numerics-first`` (SAS's native buffer order).
    """

    def __init__(self, variables: list[Variable], obslen: int, float_format: str, codepage: str,
                 layout: str = "definition") -> None:
        self.variables = variables
        self.float_format = float_format
        self.codepage = codepage
        order = list(range(len(variables)))
        if layout == "numerics-first":
            order = ([i for i, v in enumerate(variables) if v.numeric]
                     + [i for i, v in enumerate(variables) if not v.numeric])
        self.offsets = [0] * len(variables)
        pos = 0
        for i in order:
            self.offsets[i] = pos
            pos += max(0, variables[i].length)
        self.width = pos
        self.obslen = obslen if obslen > 0 else pos
        self.problems = [f"numeric variable {v.name} has length {v.length}; SAS numerics have "
                         f"{NUMERIC_LENGTHS[0]}..{NUMERIC_LENGTHS[-1]} bytes"
                         for v in variables if v.numeric and v.length not in NUMERIC_LENGTHS]
        self.problems += [f"character variable {v.name} has length {v.length}; SAS character "
                          f"variables have 1..{CHAR_LENGTH_MAX} bytes"
                          for v in variables if not v.numeric
                          and not 1 <= v.length <= CHAR_LENGTH_MAX]
        self.unusable = self.obslen <= 0
        if self.unusable:
            self.obslen = 1  # never divided by: the caller decodes nothing
            self.problems.append("the observation length is 0")
        elif pos != self.obslen:
            self.problems.append(f"the variables take {pos} bytes but the observation length is "
                                 f"{self.obslen}")

    def rows(self, block: bytes) -> np.ndarray:
        n = len(block) // self.obslen
        return np.frombuffer(block, dtype=np.uint8, count=n * self.obslen).reshape(n, self.obslen)

    def columns(self, block: bytes) -> Iterator[tuple[Variable, np.ndarray | list[str], np.ndarray | None]]:
        """Per variable: values (float64 array or list of str) and missing codes (numerics)."""
        rows = self.rows(block)
        for var, off in zip(self.variables, self.offsets, strict=True):
            end = min(off + max(0, var.length), self.obslen)
            raw = rows[:, off:end]
            if var.numeric:
                if raw.shape[1] < 2:
                    yield var, np.full(len(rows), np.nan), np.full(len(rows), ord("."), np.uint8)
                    continue
                values, codes = decode_doubles(np.ascontiguousarray(raw[:, :DOUBLE]),
                                               self.float_format)
                yield var, values, codes
            else:
                data = np.ascontiguousarray(raw).tobytes()
                w = raw.shape[1]
                yield var, [data[i * w:(i + 1) * w].decode(self.codepage, errors="replace").rstrip(" ")
                            for i in range(len(rows))], None

    def special_missing(self, block: bytes) -> set[str]:
        """Names of numeric variables with special missings (``.A``..``._``) in ``block``."""
        found = set()
        for var, _values, codes in self.columns(block):
            if codes is not None and ((codes != 0) & (codes != ord("."))).any():
                found.add(var.name)
        return found

    def row_values(self, block: bytes) -> list[list[str | float]]:
        """Plain Python values per observation (listings): floats, strings, ``.A`` text."""
        cols: list[list[str | float]] = []
        for _var, values, codes in self.columns(block):
            if codes is None:
                cols.append(list(values))
            else:
                cols.append([("." if c == ord(".") else "." + chr(c)) if c else float(v)
                             for v, c in zip(values, codes, strict=True)])
        return [list(r) for r in zip(*cols, strict=True)] if cols else []


def arrow_schema(variables: list[Variable], companions: set[str], ds: DatasetDef,
                 about: dict[str, Any]) -> Any:
    import pyarrow as pa

    fields = []
    for v in variables:
        meta = {"label": v.label, "format": v.sas_format(), "informat": v.sas_informat(),
                "sas_type": "num" if v.numeric else "char", "sas_length": str(v.length)}
        fields.append(pa.field(v.name, pa.float64() if v.numeric else pa.string(), metadata=meta))
        if v.name in companions:
            fields.append(pa.field(f"{v.name}__missing", pa.string(), metadata={
                "label": f"SAS special missing value of {v.name} (A-Z or _)"}))
    meta = {"sas_dataset": json.dumps({**asdict(ds), **about}, ensure_ascii=False)}
    return pa.schema(fields, metadata=meta)


def arrow_batch(obs: Observations, block: bytes, schema: Any, companions: set[str]) -> Any:
    import pyarrow as pa

    arrays = []
    for var, values, codes in obs.columns(block):
        if codes is None:
            arrays.append(pa.array(values, pa.string()))
            continue
        arrays.append(pa.array(values, pa.float64(), mask=codes != 0))
        if var.name in companions:
            letters = [chr(c) if c not in (0, ord(".")) else None for c in codes.tolist()]
            arrays.append(pa.array(letters, pa.string()))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


@dataclass
class DatasetOutputs:
    """What writing a data set produced: files (name -> path), rows, and what went wrong."""

    files: dict[str, Path] = field(default_factory=dict)
    rows: int = 0
    problems: list[str] = field(default_factory=list)


def write_dataset(spool: IO[bytes], nbytes: int, obs: Observations, ds: DatasetDef,
                  targets: dict[str, Path], about: dict[str, Any],
                  batch_rows: int = 65536) -> DatasetOutputs:
    """Write the observations spooled in ``spool`` (``nbytes`` bytes) to the ``targets``
    (``parquet``, ``csv``, ``xpt``), reading the spool in batches (two passes: the first
    finds the variables with special missings)."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    out = DatasetOutputs()
    step = batch_rows * obs.obslen
    nrows = nbytes // obs.obslen
    if nbytes % obs.obslen:
        out.problems.append(f"{nbytes % obs.obslen} bytes after the last whole observation "
                            f"({nbytes} bytes of observations, {obs.obslen} per observation)")

    def blocks() -> Iterator[bytes]:
        spool.seek(0)
        left = nrows * obs.obslen
        while left > 0:
            data = spool.read(min(step, left))
            if not data:
                break
            left -= len(data)
            yield data

    companions: set[str] = set()
    for block in blocks():
        companions |= obs.special_missing(block)
    schema = arrow_schema(obs.variables, companions, ds, about)
    pq_writer = pq.ParquetWriter(targets["parquet"], schema) if "parquet" in targets else None
    csv_writer = pacsv.CSVWriter(str(targets["csv"]), schema) if "csv" in targets else None
    try:
        for block in blocks():
            batch = arrow_batch(obs, block, schema, companions)
            out.rows += batch.num_rows
            if pq_writer is not None:
                pq_writer.write_batch(batch)
            if csv_writer is not None:
                csv_writer.write_batch(batch)
        if pq_writer is not None and out.rows == 0:
            pq_writer.write_table(schema.empty_table())
    finally:
        if pq_writer is not None:
            pq_writer.close()
        if csv_writer is not None:
            csv_writer.close()
    out.files.update({k: v for k, v in targets.items() if k in ("parquet", "csv")})
    if "xpt" in targets and nrows * obs.obslen > XPORT_LIMIT:
        out.problems.append(f"no .xpt written: {nrows * obs.obslen} bytes of observations, more "
                            f"than {XPORT_LIMIT} (pyreadstat needs the whole data set "
                            "in memory); the Parquet and CSV outputs hold it")
    elif "xpt" in targets:
        written, note = write_xport(targets["xpt"], targets.get("parquet"), obs, ds, about,
                                    companions)
        if written:
            out.files["xpt"] = targets["xpt"]
        if note:
            out.problems.append(note)
    return out


def xport_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyreadstat") is not None


def write_xport(path: Path, parquet: Path | None, obs: Observations, ds: DatasetDef,
                about: dict[str, Any], companions: set[str]) -> tuple[bool, str]:
    """A SAS transport file (XPORT) through pyreadstat: (written, note for the manifest)."""
    if not xport_available():
        return False, "no .xpt written: pyreadstat is not installed (pip install 'mqtool[sas]')"
    if parquet is None:
        return False, "no .xpt written: it is made from the Parquet output"
    import pyarrow.parquet as pq
    import pyreadstat

    names = [v.name for v in obs.variables]
    df = pq.read_table(parquet, columns=names).to_pandas()
    labels = {v.name: v.label or None for v in obs.variables}
    formats = {v.name: v.sas_format() for v in obs.variables if v.sas_format()}
    informats = {v.name: v.sas_informat() for v in obs.variables if v.sas_informat()}
    short = all(len(n) <= V5_NAME for n in names) and all(len(v.label) <= 40
                                                                 for v in obs.variables)
    member = str(about.get("member") or "DATASET")[:V5_NAME if short else V8_NAME] or "DATASET"
    try:
        pyreadstat.write_xport(df, str(path), file_label=ds.label[:40], column_labels=labels,
                               table_name=member, file_format_version=5 if short else 8,
                               variable_format=formats or None,
                               variable_informat=informats or None)
    except Exception as e:  # noqa: BLE001 - pyreadstat raises its own and plain errors
        path.unlink(missing_ok=True)
        return False, f"no .xpt written: pyreadstat refused the data set ({type(e).__name__}: {e})"
    if companions:
        return True, ("the .xpt holds special missing values (.A-.Z, ._) as plain missing: "
                      "pyreadstat cannot write them; the Parquet and CSV outputs keep the letters")
    return True, ""
