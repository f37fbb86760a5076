"""SAS Application Messaging attachments over IBM MQ and MSMQ: every message of the protocol
declared once (``layouts``), the 24-byte CorrelId (``CORRELID``), the sender variants
(``Settings``, ``PROFILES``) and the logical records (``Entry``, ``Header``, ``Variable``,
``DatasetDef``) whose field names are the declarations' names.

Each message is instantiated per sender variant: byte order, C ``long`` size (4 or 8), code
page, and whether each ``char[]`` is followed by its NUL.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from construct import this

from mqtool.codepages import codec_name, is_single_byte
from mqtool.compose import Nest, Repeat
from mqtool.formats.sas.msgtypes import HEADER_MSGTYPE as HEADER_MSGTYPE
from mqtool.formats.sas.msgtypes import SUBORDINATE_MSGTYPE as SUBORDINATE_MSGTYPE
from mqtool.layout import Hex, Layout, Means, Reserved, Unknown, Variant, dsect
from mqtool.model import Element

FORMAT = "sas-attachment"
ATTACHMENT_TYPES = {1: "SAS data set", 2: "external text file", 3: "external binary file"}
DATASET, TEXT_FILE, BINARY_FILE = 1, 2, 3
DATASET_MESSAGES = {1: "data set definition", 2: "variable definitions", 3: "observations",
                    4: "indexes", 5: "integrity constraints"}
DSDEF, VARDEFS, OBSERVATIONS, INDEXES, CONSTRAINTS = 1, 2, 3, 4, 5
FILE_SPECS = ("FILENAME", "FILEREF")
PARTS = ("auto", "header", "application", "count", "file-info", "records", "dataset")
MAX_ATTACHMENTS = 1000
MAX_HEADER = 1 << 20  # bytes: a longer message is no header (1000 attachments fit many times)
FLOAT_FORMATS = ("ieee-be", "ieee-le", "ibm-hfp")
INT_MAX = 0x7FFFFFFF  # a C int: counts, lengths, file sizes
NUMERIC_LENGTHS = range(2, 9)  # SAS numerics: 2..8 bytes of the double
CHAR_LENGTH_MAX = 32767  # SAS character variables: 1..32767 bytes


def readable(codepage: str) -> bool:
    """Can SAS strings be read in ``codepage``: a single-byte page, or one where letters,
    digits and blank take one byte each (UTF-8, as a SAS session encoding)? UTF-16 and
    UTF-32 cannot: their blank is not one byte."""
    try:
        name = codec_name(codepage)
        return is_single_byte(name) or all(len(c.encode(name)) == 1 for c in " A0")
    except (LookupError, UnicodeError, TypeError, ValueError):
        return False


@dataclass(frozen=True)
class Settings:
    """How a sender serialised its messages."""

    big: bool = True
    long: int = 4
    codepage: str = "cp037"
    nul: bool = True  # char[] followed by a NUL byte
    float_format: str = "ibm-hfp"
    record_nul: bool = False  # external-file records followed by a NUL byte

    @property
    def byte_order(self) -> str:
        return "big" if self.big else "little"

    def describe(self) -> str:
        nul = "NUL-terminated strings" if self.nul else "strings without NUL"
        return f"{self.byte_order}-endian, long {self.long}, {self.codepage}, {nul}"

    def attrs(self) -> dict[str, object]:
        return {"byte_order": self.byte_order, "long": self.long, "codepage": self.codepage,
                "nul": self.nul, "float_format": self.float_format}


PROFILES = {
    "zos": Settings(True, 4, "cp037", True, "ibm-hfp"),
    "win": Settings(False, 4, "cp1252", True, "ieee-le"),
    "linux": Settings(False, 8, "latin-1", True, "ieee-le"),
    "unix64": Settings(True, 8, "latin-1", True, "ieee-be"),
    "unix32": Settings(True, 4, "latin-1", True, "ieee-be"),
}


# --------------------------------------------------------------------------- the CorrelId

# G (16 bytes, one per header / application message / attachment) · sequence number (4
# bytes, 0 for the header, application and count messages, in either byte order) · pad
CORRELID = dsect("CORRELID", "g" / Hex(16), "seq" / Hex(4), "pad" / Reserved(4))
G_SIZE = CORRELID.offset_of("seq")
KEY_SIZE = CORRELID.offset_of("pad")  # G and sequence number: what messages are matched on
SEQ = slice(G_SIZE, KEY_SIZE)
CORRELID_SIZE = CORRELID.size or 0  # a fixed layout: its size is never None
PAD = slice(KEY_SIZE, CORRELID_SIZE)


def make_correlid(g: bytes, seq: int = 0, order: str = "big") -> bytes:
    """``G || seq || 00000000``: the 24-byte MQ CorrelId of sequence number ``seq``."""
    return CORRELID.build({"g": g[:G_SIZE].ljust(G_SIZE, b"\0"),
                           "seq": seq.to_bytes(KEY_SIZE - G_SIZE, order)})  # type: ignore[arg-type]


def g_of(cid: bytes) -> bytes:
    return cid[:G_SIZE]


def key_of(cid: bytes) -> bytes:
    """G and the sequence number: the part of a CorrelId messages are matched on."""
    return cid[:KEY_SIZE]


def seq_raw(cid: bytes) -> bytes:
    return cid[SEQ]


def pad_of(cid: bytes) -> bytes:
    return cid[PAD]


# --------------------------------------------------------------------------- declarations


def _string(v: Variant, L: Any, name: str, nul: bool) -> list[Any]:  # noqa: N803
    """A length-prefixed ``char[]``: ``<name>_len``, ``<name>``, ``<name>_nul``."""
    return [f"{name}_len" / L, name / v.text(getattr(this, f"{name}_len")),
            f"{name}_nul" / Reserved(1 if nul else 0)]


def _vartype(value: Any, fields: Any) -> str:
    return "numeric (double)" if value == 1 else "character"


@dataclass(frozen=True)
class Layouts:
    header: Layout
    entry: Layout
    count: Layout
    fileinfo: Layout
    record: Layout
    text_record: Layout
    typeid: Layout
    dsdef: Layout
    vardef: Layout
    index: Layout
    correlid: Layout = CORRELID


@lru_cache(maxsize=64)
def layouts(big: bool = True, long: int = 4, codepage: str = "cp037", nul: bool = True,
            record_nul: bool = False) -> Layouts:
    """Every message of the protocol, declared once, for one sender variant."""
    v = Variant(big=big, codepage=codepage)
    L = v.S4 if long == 4 else v.S8  # noqa: N806 - the sender's C "long"
    rz = 1 if record_nul else 0
    cid = CORRELID_SIZE
    return Layouts(
        header=dsect("HEADER",
                     "header_correlid" / Hex(cid),
                     "original_msgtype" / L,
                     "original_correlid" / Hex(cid),
                     "message_correlid" / Hex(cid),
                     "num_attachments" / v.S4),
        entry=dsect("ATTACHMENT",
                    "type" / Means(v.S4, ATTACHMENT_TYPES),
                    "correlid" / Hex(cid),
                    *_string(v, v.S4, "qualifier1", nul),
                    *_string(v, v.S4, "qualifier2", nul),
                    *_string(v, v.S4, "description", nul),
                    "minor_version" / v.S4,
                    "major_version" / v.S4),
        count=dsect("COUNT", "count" / v.S4),
        fileinfo=dsect("FILEINFO", "lrecl" / v.S4, "filesize" / v.S4),
        record=dsect("RECORD", "len" / L, "record" / Hex(this.len), "record_nul" / Reserved(rz)),
        text_record=dsect("RECORD", "len" / L, "record" / v.text(this.len),
                          "record_nul" / Reserved(rz)),
        typeid=dsect("TYPE", "type" / Means(v.S4, DATASET_MESSAGES)),
        dsdef=dsect("DSDEF",
                    "version" / v.S4,
                    *_string(v, L, "dstype", nul),
                    *_string(v, L, "label", nul),
                    "nobs" / L,
                    "nvars" / L,
                    "obslen" / L,
                    *_string(v, L, "compress", nul),
                    "reuse" / v.text(1),
                    *_string(v, L, "encrypt", nul),
                    "sortkey_nvars" / L,
                    *_string(v, L, "collate", nul),
                    "sortflags" / v.hexint(2),
                    "readpw_flag" / v.S4, "readpw" / Hex(4),
                    "writepw_flag" / v.S4, "writepw" / Hex(4),
                    "alterpw_flag" / v.S4, "alterpw" / Hex(4)),
        vardef=dsect("VARIABLE",
                     *_string(v, L, "name", nul),
                     *_string(v, L, "format", nul),
                     *_string(v, L, "informat", nul),
                     *_string(v, L, "label", nul),
                     "vartype" / Means(v.U1, _vartype),
                     "length" / L,
                     "format_w" / L,
                     "format_d" / L,
                     "informat_w" / L,
                     "informat_d" / L,
                     "nsort" / v.hexint(1)),
        index=dsect("INDEX",
                    "upercmx" / Unknown(L),
                    *_string(v, L, "name", nul),
                    "flags" / Unknown(L),
                    "nvars" / L,
                    "names_len" / L,
                    "names" / v.text(this.names_len + this.nvars)),
    )


# --------------------------------------------------------------------------- composition

# SAS Application Messaging, "Attachment Layout for WebSphere MQ and MSMQ": the header holds
# the header, then ``num_attachments`` attachment entries, each as long as its three
# length-prefixed strings make it. Data set messages type 2 and 4 hold variable and index
# definitions back to back to the end of the message (a definition may run on into the
# next message). Decoding, the builders, the listing and the catalog read these.
ENTRIES = Repeat("attachment", "ATTACHMENT", count="num_attachments",
                 title="ATTACHMENT[{index}] element at offset X'{offset:04X}'")
HEADER_MESSAGE = Nest("header", "HEADER", then=ENTRIES)
VARIABLES = Repeat("variable", "VARIABLE", title="VARIABLE[{index}] element at offset X'{offset:04X}'")
INDEXES_RUN = Repeat("index", "INDEX", title="INDEX[{index}] element at offset X'{offset:04X}'")


def layout_named(lay: Layouts, name: str) -> Layout:
    """The declaration of one variant called ``name`` (``ATTACHMENT``, ``VARIABLE``, ...)."""
    for f in fields(lay):
        value = getattr(lay, f.name)
        if isinstance(value, Layout) and value.name == name:
            return value
    raise KeyError(f"{FORMAT}: no layout {name!r}")


def layouts_for(s: Settings) -> Layouts:
    return layouts(s.big, s.long, s.codepage, s.nul, s.record_nul)


def strings_of(lay: Layout) -> tuple[str, ...]:
    """The length-prefixed strings of a layout (each ``<name>`` with its ``<name>_len``)."""
    return tuple(n for n in lay.names if f"{n}_len" in lay.names)


def int_struct(s: Settings, long: bool = False) -> struct.Struct:
    """A ``struct`` for the variant's ``int`` / ``long``, taken from the declarations."""
    lay = layouts_for(s)
    f = lay.record.field("len") if long else lay.count.field("count")
    return struct.Struct(f"{f.endian}{f.fmt}")


def type_word(s: Settings) -> int:
    """Size of the type word that starts every data set message."""
    return layouts_for(s).typeid.size or 0  # a fixed layout: its size is never None


# --------------------------------------------------------------------------- logical records


@dataclass
class Entry:
    """One attachment as the header lists it (fields: the ATTACHMENT declaration's)."""

    index: int
    type: int
    correlid: bytes
    qualifier1: str
    qualifier2: str
    description: str
    minor_version: int
    major_version: int
    qualifier1_raw: bytes = b""

    @property
    def type_name(self) -> str:
        return ATTACHMENT_TYPES.get(self.type, f"unknown type {self.type}")


@dataclass
class Header:
    """An attachment header, decoded, with the settings that decoded it."""

    header_correlid: bytes
    original_msgtype: int
    original_correlid: bytes
    message_correlid: bytes
    entries: list[Entry]
    settings: Settings
    reason: str = ""
    problems: list[str] = field(default_factory=list)


@dataclass
class Variable:
    """One variable definition (type 2 message); field names are the VARIABLE declaration's."""

    name: str
    format: str = ""
    informat: str = ""
    label: str = ""
    vartype: int = 1  # 1 numeric (double), anything else character
    length: int = 8
    format_w: int = 0
    format_d: int = 0
    informat_w: int = 0
    informat_d: int = 0
    nsort: int = 0

    @property
    def numeric(self) -> bool:
        return self.vartype == 1

    def sas_format(self) -> str:
        return _sas_format(self.format, self.format_w, self.format_d)

    def sas_informat(self) -> str:
        return _sas_format(self.informat, self.informat_w, self.informat_d)


def _sas_format(name: str, w: int, d: int) -> str:
    """``DOLLAR`` 10 2 -> ``DOLLAR10.2``; nothing -> ``""``."""
    if not name and not w:
        return ""
    return f"{name}{w or ''}.{d or ''}"


@dataclass
class DatasetDef:
    """The data set definition (type 1 message); field names are the DSDEF declaration's."""

    dstype: str = "DATA"
    label: str = ""
    nobs: int = 0
    nvars: int = 0
    obslen: int = 0
    compress: str = "NO"
    reuse: str = "N"
    encrypt: str = "NO"
    sortkey_nvars: int = 0
    collate: str = ""
    sortflags: int = 0
    version: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def record_fields(cls: type, lay: Layout) -> tuple[str, ...]:
    """The fields a logical record shares with its declaration (in the record's order)."""
    return tuple(f.name for f in fields(cls) if f.name in lay.names)


def record_of(cls: type, el: Element, lay: Layout) -> Any:
    """A logical record (``Variable``, ``DatasetDef``) from a decoded element."""
    values = el.fields
    return cls(**{n: values[n] for n in record_fields(cls, lay)})


def values_of(record: Any, lay: Layout) -> dict[str, Any]:
    """The declaration's values of a logical record (what its builder needs)."""
    return {n: getattr(record, n) for n in record_fields(type(record), lay)}
