"""IBM i MI instruction MATQMSG, Materialize Queue Messages (seed 004, ``specs/matqmsg.md``):
the receiver (materialization) template with its message entries, and the message
selection template (operand 3) with its key.

The layouts are the manual's (FACT); the field names are CONTRACTS.md's (the manual has
none). Enqueue times are MI time-of-day values (*DTS: bit 51 = 1 µs, ``X'8000000000000000'``
= 2000-01-01), shown in UTC — an assumption the output states. The machine's template rules
live in one function, ``check_selection``: the decoder reports what it finds as problems,
the builder refuses the same things.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from construct import Adapter, Bytes, FormatField

from mqtool.codepages import codec_name
from mqtool.errors import BuildError, DecodeError, InputError
from mqtool.layout import Layout, Means, Reserved, Variant, dsect
from mqtool.model import HEX, INT, STCK, TEXT, Decoded, Detection, Element, Problem, Span, fields_json
from mqtool.tod import Tod, micros_since

FORMAT = "matqmsg"
PARTS = ("receiver", "selection")

HEADER_LEN = 32  # receiver header (FACT)
ATTR_LEN = 16  # message attributes (FACT)
SELECTION_LEN = 16  # selection template without the key (FACT)
MIN_PROVIDED = 8  # bytes provided < 8: exception 3803 (FACT)
MAX_KEY_BYTES = 256  # FACT
MAX_TEXT_BYTES = 65_536  # FACT
MI_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)  # MI time X'8000000000000000' (FACT)
MI_EPOCH_RAW = 1 << 63
STCK_MINUS_MI = 0x3361183F48000000  # MI = STCK - this (spec §5)
TIME_ZONE_NOTE = "UTC assumed (IBM i keeps its TOD clock in UTC on current releases)"

TYPES = {0x1: "all", 0x2: "first", 0x4: "last", 0x8: "keyed"}  # bits 0-3 (FACT)
TYPE_CODES = {v: k for k, v in TYPES.items()}
TYPE_WORDS = {"all": "all messages", "first": "first message", "last": "last message",
              "keyed": "messages by key"}
RELATIONS = {0x2: ">", 0x4: "<", 0x6: "!=", 0x8: "=", 0xA: ">=", 0xC: "<="}  # bits 4-7 (FACT)
RELATION_CODES = {v: k for k, v in RELATIONS.items()}
RELATION_WORDS = {">": "greater than", "<": "less than", "!=": "not equal", "=": "equal",
                  ">=": "greater than or equal", "<=": "less than or equal"}
RELATION_ALIASES = {"gt": ">", "lt": "<", "ne": "!=", "<>": "!=", "≠": "!=", "eq": "=", "==": "=",
                    "ge": ">=", "≥": ">=", "le": "<=", "≤": "<="}
MODES = {"blocked": 0x00, "concurrent": 0x80}  # byte 10 bit 0 (FACT)

EXCEPTIONS = {  # spec §4: 3803 FACT, the others INFERRED from general MI numbering
    "3801": "template value invalid",
    "3802": "template size invalid",
    "3803": "materialization length invalid",
}
INFERRED_CODES = {"3801", "3802"}


# --------------------------------------------------------------------------- field types


class MiTime(Tod):
    """An MI time-of-day value (*DTS): bits 0-51 count microseconds, X'8000000000000000' is
    2000-01-01 00:00:00 and 0 is 1928-08-23 12:03:06.314752; bits 52-63 are uniqueness bits.
    Every value is a time (0 included); ``raw`` keeps all 64 bits."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"MiTime(0x{int(self):016X})"

    @property
    def is_set(self) -> bool:
        return True

    @property
    def micros(self) -> int:
        """Microseconds since 2000-01-01 (negative before)."""
        return (self.raw - MI_EPOCH_RAW) >> 12

    @property
    def uniqueness(self) -> int:
        return self.raw & 0xFFF

    def datetime(self, leap_seconds: int = 0) -> datetime:  # type: ignore[override]
        return MI_EPOCH + timedelta(microseconds=self.micros - leap_seconds * 1_000_000)

    @classmethod
    def from_datetime(cls, dt: datetime) -> MiTime:
        """MI time of an aware (or UTC-naive) datetime; uniqueness bits zero."""
        raw = MI_EPOCH_RAW + (micros_since(dt, MI_EPOCH) << 12)
        if not 0 <= raw < 1 << 64:
            raise ValueError(f"{dt.isoformat()} is outside the MI time range (1928-2071)")
        return cls(raw)

    @classmethod
    def from_stck(cls, stck: int) -> MiTime:
        """The MI value of a z/Architecture STCK value (same unit, epoch 1900)."""
        if not STCK_MINUS_MI <= stck < 1 << 64:
            raise ValueError(f"STCK X'{stck:016X}' is before the MI time range (1928)")
        return cls(stck - STCK_MINUS_MI)

    def to_stck(self) -> int:
        stck = self.raw + STCK_MINUS_MI
        if stck >= 1 << 64:
            raise ValueError(f"MI time X'{self.raw:016X}' is after the STCK range (2042)")
        return stck


class MiTimeField(Adapter):
    """8-byte MI time-of-day; the value is a ``MiTime``."""

    kind = STCK

    def __init__(self) -> None:
        super().__init__(FormatField(">", "Q"))

    def _decode(self, obj: int, context: Any, path: Any) -> MiTime:
        return MiTime(obj)

    def _encode(self, obj: Any, context: Any, path: Any) -> int:
        return MiTime.coerce(obj).raw


class MiData(Adapter):
    """Key or message text: a fixed area the machine pads with binary zeros. In a code page
    the value is the text without its zero padding and trailing blanks (display only: the
    raw bytes stay in the span); with ``codepage=None`` it is the bytes."""

    def __init__(self, length: int, codepage: str | None) -> None:
        super().__init__(Bytes(length))
        self.length = length
        self.codec = codec_name(codepage) if codepage else None
        self.kind = TEXT if self.codec else HEX

    def _decode(self, obj: bytes, context: Any, path: Any) -> Any:
        if self.codec is None:
            return bytes(obj)
        return bytes(obj).rstrip(b"\x00").decode(self.codec, errors="replace").rstrip(" ")

    def _encode(self, obj: Any, context: Any, path: Any) -> bytes:
        data = to_bytes(obj, self.codec)
        if len(data) > self.length:
            raise ValueError(f"{len(data)} bytes do not fit the {self.length}-byte field")
        return data + bytes(self.length - len(data))


def to_bytes(value: Any, codec: str | None) -> bytes:
    """Bytes of a key or text given as bytes, text in ``codec``, or hex when binary."""
    if value is None:
        return b""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if codec is None:
        try:
            return bytes.fromhex(str(value))
        except ValueError:
            raise ValueError(f"{value!r} is not hex (binary code page)") from None
    try:
        return str(value).encode(codec)
    except UnicodeEncodeError:
        raise ValueError(f"{value!r} has characters code page {codec} lacks") from None


def _cp(codepage: str | None) -> str | None:
    """``binary`` -> None (raw bytes), else the resolved codec name."""
    if codepage is None or codepage.lower() in ("binary", "hex", "none"):
        return None
    try:
        return codec_name(codepage)
    except LookupError as e:
        raise InputError(str(e).strip("'\"")) from None


def _cp_attrs(cp: str | None) -> dict[str, object]:
    """Unit attributes for the code page: a real one for renderers' character columns, and
    ``binary: true`` when keys and text are shown as bytes."""
    return {"codepage": cp} if cp else {"codepage": "cp037", "binary": True}


# --------------------------------------------------------------------------- declarations

_V = Variant(big=True, codepage="cp037")


def _time_meaning(value: Any, f: Mapping[str, Any]) -> str:
    return f"uniqueness X'{value.raw & 0xFFF:03X}' (UTC assumed)" if isinstance(value, MiTime) else ""


def _selection_meaning(value: int, f: Mapping[str, Any]) -> str:
    return f"type B'{value >> 4:04b}', key relationship B'{value & 0xF:04b}'"


def _options_meaning(value: int, f: Mapping[str, Any]) -> str:
    return "concurrent mode" if value & 0x80 else "blocked mode"


RECEIVER = dsect(
    "RECEIVER",  # spec §2 (FACT)
    "bytes_provided" / _V.S4,
    "bytes_available" / _V.S4,
    "messages_available" / _V.S4,
    "messages_on_queue" / _V.S4,
    "max_message_size" / _V.S4,
    "key_size" / Means(_V.S4, lambda v, f: "not a keyed queue" if v == 0 else ""),
    "reserved" / Reserved(8),
)


@lru_cache(maxsize=64)
def message_layout(key_bytes: int, text_bytes: int, codepage: str | None = "cp037") -> Layout:
    """One message entry: 16 bytes of attributes, then K key bytes and T text bytes."""
    return dsect(
        "MESSAGE",  # spec §2 (FACT)
        "enqueue_time" / Means(MiTimeField(), _time_meaning),
        "message_length" / _V.S4,
        "reserved" / Reserved(4),
        "key" / MiData(key_bytes, codepage),
        "text" / MiData(text_bytes, codepage),
    )


@lru_cache(maxsize=64)
def selection_layout(key_len: int, pad_len: int = 0, codepage: str | None = "cp037") -> Layout:
    """The selection template (spec §3, FACT) followed by ``key_len`` key bytes and
    ``pad_len`` bytes of padding to a 16-byte multiple."""
    fields = [
        "selection" / Means(_V.hexint(1), _selection_meaning),
        "reserved_01" / Reserved(1),
        "key_bytes" / _V.S4,
        "text_bytes" / _V.S4,
        "options" / Means(_V.hexint(1), _options_meaning),
        "reserved_0b" / Reserved(5),
        "key" / MiData(key_len, codepage),
    ]
    if pad_len:
        fields.append("padding" / Reserved(pad_len))
    return dsect("SELECTION", *fields)


# --------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class Violation:
    """A template value the machine would refuse: exception code, its name, where, why."""

    code: str
    path: str
    offset: int
    reason: str

    @property
    def name(self) -> str:
        return EXCEPTIONS[self.code]

    def describe(self) -> str:
        inferred = " (code inferred)" if self.code in INFERRED_CODES else ""
        return f"{self.reason} — MI exception {self.code} {self.name}{inferred}"

    def problem(self, base: int = 0) -> Problem:
        return Problem(self.path, base + self.offset, self.describe())

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "name": self.name, "reason": self.reason}


def check_lengths(key_bytes: int, text_bytes: int) -> list[Violation]:
    """K and T: 0 or a multiple of 16; K <= 256, T <= 65,536 (FACT)."""
    out = []
    for name, value, off, most in (("key_bytes", key_bytes, 2, MAX_KEY_BYTES),
                                   ("text_bytes", text_bytes, 6, MAX_TEXT_BYTES)):
        path = f"selection.{name}"
        if value < 0:
            out.append(Violation("3801", path, off, f"{name} {value} is negative"))
        elif value % 16:
            out.append(Violation("3801", path, off, f"{name} {value} is not 0 or a multiple of 16"))
        if value > most:
            out.append(Violation("3801", path, off, f"{name} {value} exceeds the maximum {most:,}"))
    return out


def check_selection(selection: int, key_bytes: int, text_bytes: int, options: int,
                    reserved: bytes = b"", key: bytes | None = None,
                    queue_key_size: int | None = None) -> list[Violation]:
    """Every rule of spec §3 on a selection template's values. ``reserved`` is byte 1 and
    bytes 11-15; ``key`` the bytes after offset 16 (None or empty: no key);
    ``queue_key_size`` the queue's key size when known (0: not a keyed queue)."""
    out = []
    kind, rel = selection >> 4, selection & 0xF
    if kind not in TYPES:
        out.append(Violation("3801", "selection.selection_type", 0,
                             f"selection type B'{kind:04b}' is reserved (all B'0001', first "
                             "B'0010', last B'0100', keyed B'1000')"))
    elif TYPES[kind] == "keyed":
        if rel not in RELATIONS:
            out.append(Violation("3801", "selection.key_relationship", 0,
                                 f"key relationship B'{rel:04b}' is reserved (> B'0010', < B'0100', "
                                 "!= B'0110', = B'1000', >= B'1010', <= B'1100')"))
        if not key:
            out.append(Violation("3802", "selection.key", SELECTION_LEN,
                                 "keyed selection needs a key after offset 16, the template has none"))
        if queue_key_size == 0:
            out.append(Violation("3801", "selection.selection_type", 0,
                                 "keyed selection on a queue that is not keyed (key size 0)"))
    if reserved[:1] not in (b"", b"\x00"):
        out.append(Violation("3801", "selection.reserved_01", 1,
                             f"reserved bits 8-15 are X'{reserved[0]:02X}', must be zero"))
    out += check_lengths(key_bytes, text_bytes)
    if options & 0x7F:
        out.append(Violation("3801", "selection.options", 10,
                             f"reserved bits 1-7 of the materialize options are B'{options & 0x7F:07b}',"
                             " must be zero"))
    if any(reserved[1:]):
        out.append(Violation("3801", "selection.reserved_0b", 11,
                             f"reserved bytes 11-15 are X'{reserved[1:].hex().upper()}', must be zero"))
    return out


# --------------------------------------------------------------------------- selection


def _derived(path: str, start: int, value: object, meaning: str, raw: bytes) -> Span:
    return Span(path, start, start + 1, value, meaning, INT, "", raw)


def _keep_partial(unit: Decoded, err: DecodeError, title: str) -> None:
    """Keep what a truncated template decoded, labelled partial."""
    if isinstance(err.partial, Element) and err.partial.spans:
        err.partial.title = title
        err.partial.length = err.partial.spans[-1].end - err.partial.offset
        unit.elements.append(err.partial)


def decode_selection(data: bytes, offset: int = 0, *, queue_key_size: int | None = None,
                     codepage: str | None = "cp037") -> Decoded:
    """The selection template at ``offset`` (to the end of ``data``) with its key:
    ``queue_key_size`` bytes when known, else every byte after offset 16."""
    n = len(data) - offset
    cp = _cp(codepage)
    unit = Decoded(FORMAT, offset, n, attrs={"part": "selection", **_cp_attrs(cp)})
    rest = max(n - SELECTION_LEN, 0)
    key_len = rest if not queue_key_size or queue_key_size < 0 else min(queue_key_size, rest)
    layout = selection_layout(key_len, rest - key_len, cp)
    try:
        el = layout.parse(data, offset, prefix="selection", fmt=FORMAT)
    except DecodeError as e:
        _keep_partial(unit, e, f"MATQMSG message selection template at X'{offset:04X}' (partial)")
        unit.errors.append(Problem(e.path, e.offset, e.reason + " (the template is at least 16 bytes)"))
        return unit
    el.title = f"MATQMSG message selection template at offset X'{offset:04X}'"
    unit.elements.append(el)
    f = el.all_values
    sel, opts = int(f["selection"]), int(f["options"])
    kind, rel = TYPES.get(sel >> 4), sel & 0xF
    raw0, raw10 = data[offset:offset + 1], data[offset + 10:offset + 11]
    type_span = _derived("selection.selection_type", offset, kind,
                         TYPE_WORDS.get(kind or "", f"reserved value B'{sel >> 4:04b}'"), raw0)
    if kind == "keyed":
        relation = RELATIONS.get(rel)
        rel_meaning = RELATION_WORDS.get(relation or "", f"reserved value B'{rel:04b}'")
    else:
        relation = None
        rel_meaning = (f"not used by selection type {kind or 'reserved'}" if rel == 0 else
                       f"B'{rel:04b}' ignored: only keyed selection uses it")
    rel_span = _derived("selection.key_relationship", offset, relation, rel_meaning, raw0)
    mode = "concurrent" if opts & 0x80 else "blocked"
    mode_span = _derived("selection.mode", offset + 10, mode, "ENQ/DEQ allowed during the materialize"
                         if mode == "concurrent" else "other queue activity blocked", raw10)
    spans = []
    for s in el.spans:
        spans.append(s)
        if s.name == "selection":
            spans += [type_span, rel_span]
        elif s.name == "options":
            spans.append(mode_span)
    el.spans = spans
    key = bytes(data[offset + SELECTION_LEN:offset + SELECTION_LEN + key_len])
    reserved = bytes(data[offset + 1:offset + 2]) + bytes(data[offset + 11:offset + 16])
    for v in check_selection(sel, int(f["key_bytes"]), int(f["text_bytes"]), opts, reserved, key,
                             queue_key_size):
        unit.problems.append(v.problem(offset))
    if rest - key_len and any(data[offset + SELECTION_LEN + key_len:offset + n]):
        unit.problems.append(Problem("selection.padding", offset + SELECTION_LEN + key_len,
                                     "bytes after the key (queue key size "
                                     f"{queue_key_size}) are not zero"))
    if queue_key_size is not None and queue_key_size > rest and kind == "keyed" and rest:
        unit.errors.append(Problem("selection.key", offset + n,
                                   f"input ends inside the key: the key has {rest} bytes, the "
                                   f"queue's key size is {queue_key_size}"))
    return unit


def selection_lengths(data: bytes, offset: int = 0) -> tuple[int, int]:
    """(key_bytes, text_bytes) of a selection template (what a receiver decode needs)."""
    if len(data) - offset < SELECTION_LEN:
        raise InputError(f"a selection template has at least 16 bytes, this one {len(data) - offset}")
    v = selection_layout(0, 0, None).values(data, offset)
    return int(v["key_bytes"]), int(v["text_bytes"])


class SelectionRefusedError(BuildError):
    """The builder refused a selection template: every violation, each explained."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = list(violations)
        first = self.violations[0]
        super().__init__(FORMAT, first.path.removeprefix("selection."),
                         "; ".join(v.describe() for v in self.violations))


def normalise_relation(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    v = value.strip().lower()
    v = RELATION_ALIASES.get(v, v)
    if v not in RELATION_CODES:
        raise BuildError(FORMAT, "key_relationship", f"{value!r} is not one of >, <, !=, =, >=, <= "
                                                     "(or gt, lt, ne, eq, ge, le)")
    return v


def build_selection(selection_type: str = "all", key_relationship: str | None = None,
                    key_bytes: int = 0, text_bytes: int = 0, mode: str = "blocked",
                    key: bytes | str | None = None, *, queue_key_size: int | None = None,
                    codepage: str | None = "cp037") -> bytes:
    """A message selection template, validated as the machine would (spec §3); the key at
    offset 16, padded with zeros to ``queue_key_size`` and to a multiple of 16. Raises
    ``SelectionRefusedError`` listing every rule broken, ``BuildError`` for unusable values."""
    kind = (selection_type or "").strip().lower()
    if kind not in TYPE_CODES:
        raise BuildError(FORMAT, "selection_type", f"{selection_type!r} is not all, first, last "
                                                   "or keyed")
    relation = normalise_relation(key_relationship)
    if mode not in MODES:
        raise BuildError(FORMAT, "mode", f"{mode!r} is not blocked or concurrent")
    cp = _cp(codepage)
    try:
        keydata = to_bytes(key, cp) if key is not None else b""
    except ValueError as e:
        raise BuildError(FORMAT, "key", str(e)) from None
    refusals = []
    if kind == "keyed" and relation is None:
        refusals.append(Violation("3801", "selection.key_relationship", 0,
                                  "keyed selection needs a key relationship (>, <, !=, =, >=, <=)"))
    if kind != "keyed" and relation is not None:
        refusals.append(Violation("3801", "selection.key_relationship", 0,
                                  f"a key relationship only applies to keyed selection, not {kind}"))
    if kind != "keyed" and keydata:
        refusals.append(Violation("3801", "selection.key", SELECTION_LEN,
                                  f"a key only applies to keyed selection, not {kind}"))
    if queue_key_size is not None and len(keydata) > queue_key_size > 0:
        refusals.append(Violation("3801", "selection.key", SELECTION_LEN,
                                  f"the key has {len(keydata)} bytes, the queue's key size is "
                                  f"{queue_key_size}"))
    selection = (TYPE_CODES[kind] << 4) | (RELATION_CODES[relation] if relation else 0)
    refusals += [v for v in check_selection(selection, key_bytes, text_bytes, MODES[mode], b"",
                                            keydata, queue_key_size)
                 if relation is not None or v.path != "selection.key_relationship"]
    if refusals:
        raise SelectionRefusedError(refusals)
    if queue_key_size and len(keydata) < queue_key_size:
        keydata += bytes(queue_key_size - len(keydata))
    pad = -(SELECTION_LEN + len(keydata)) % 16
    layout = selection_layout(len(keydata), pad, None)
    return layout.build({"selection": selection, "key_bytes": key_bytes, "text_bytes": text_bytes,
                         "options": MODES[mode], "key": keydata}, fmt=FORMAT)


def selection_from_json(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Builder arguments from ``decode matqmsg --json`` output or a plain object of the
    CONTRACTS field names (``selection_type``, ``key_relationship``, ...). Values of the
    wrong type are refused (``BuildError`` naming the field)."""
    if not isinstance(obj, Mapping):
        raise BuildError(FORMAT, "", f"a template is described by a mapping of field names, not "
                                     f"{type(obj).__name__}")
    fields: Any = obj
    where = ""
    elements = obj.get("elements")
    if elements is not None and not isinstance(elements, list):
        raise BuildError(FORMAT, "elements", f"must be a list, not {type(elements).__name__}")
    for i, el in enumerate(elements or ()):
        if isinstance(el, Mapping) and el.get("type") == "SELECTION":
            fields, where = el.get("fields", {}), f"elements[{i}].fields."
            break
    if not isinstance(fields, Mapping):
        raise BuildError(FORMAT, where.rstrip("."), f"must be a mapping of field names, not "
                                                    f"{type(fields).__name__}")
    out: dict[str, Any] = {}
    for name in ("selection_type", "key_relationship", "key_bytes", "text_bytes", "mode", "key"):
        value = fields.get(name)
        if value in (None, ""):
            continue
        wanted = int if name in ("key_bytes", "text_bytes") else str
        if type(value) is not wanted:  # bool is no int here, 1.5 no length
            raise BuildError(FORMAT, where + name, f"must be {'an integer' if wanted is int else 'text'},"
                                                   f" not {type(value).__name__} {value!r}")
        out[name] = value
    key_hex = fields.get("key_hex")
    if key_hex:
        try:
            out["key"] = bytes.fromhex(str(key_hex)).rstrip(b"\x00")
        except ValueError:
            raise BuildError(FORMAT, where + "key_hex", f"{key_hex!r} is not hex") from None
    return out


# --------------------------------------------------------------------------- receiver


def _partial_tail(el: Element, layout: Layout, data: bytes, off: int, limit: int,
                  prefix: str) -> None:
    """After a cut entry: the bytes of the field the cut fell into, as a hex span."""
    done = el.spans[-1].end if el.spans else off
    if done >= limit:
        return
    nxt = layout.fields[len(el.spans)].name if len(el.spans) < len(layout.fields) else "data"
    raw = bytes(data[done:limit])
    el.spans.append(Span(f"{prefix}.{nxt}", done, limit, raw, f"first {len(raw)} byte(s) only",
                         HEX, "partial", raw))


def _lengths(header: Mapping[str, Any], key_bytes: int | None, text_bytes: int | None,
             selection: bytes | None) -> tuple[int, int, str] | str:
    """K, T and where they came from; or why they cannot be known."""
    if key_bytes is not None or text_bytes is not None:
        return key_bytes or 0, text_bytes or 0, "options"
    if selection is not None:
        k, t = selection_lengths(selection)
        return k, t, "selection template"
    n, avail, ksize = header["messages_available"], header["bytes_available"], header["key_size"]
    if n <= 0:
        return 0, 0, "no messages available"
    size, rem = divmod(avail - HEADER_LEN, n)
    if rem or size < ATTR_LEN or size % 16:
        return (f"bytes_available {avail} is not 32 + {n} × (16 + K + T) for multiples of 16: "
                "give --key-bytes/--text-bytes or --selection")
    if size == ATTR_LEN or ksize == 0:
        return 0, size - ATTR_LEN, "inferred from bytes_available"
    k = min(-(-ksize // 16) * 16, MAX_KEY_BYTES)
    if k > size - ATTR_LEN:
        return "the entry size leaves no room for the key: give --key-bytes/--text-bytes"
    return k, size - ATTR_LEN - k, "inferred from bytes_available (key_bytes = key size rounded up to 16)"


def decode_receiver(data: bytes, offset: int = 0, *, key_bytes: int | None = None,
                    text_bytes: int | None = None, selection: bytes | None = None,
                    codepage: str | None = "cp037") -> Decoded:
    """The receiver template at ``offset`` with its message entries (spec §2)."""
    cp = _cp(codepage)
    n = len(data) - offset
    unit = Decoded(FORMAT, offset, n, attrs={"part": "receiver", **_cp_attrs(cp),
                                             "time_zone": TIME_ZONE_NOTE})
    try:
        head = RECEIVER.parse(data, offset, prefix="receiver", fmt=FORMAT)
    except DecodeError as e:
        _keep_partial(unit, e, f"MATQMSG receiver at offset X'{offset:04X}' (partial)")
        provided = int.from_bytes(data[offset:offset + 4], signed=True) if n >= 4 else None
        avail = int.from_bytes(data[offset + 4:offset + 8], signed=True) if n >= 8 else None
        if provided is not None and provided < MIN_PROVIDED:
            unit.problems.append(_provided_violation(provided, offset))
        elif avail is not None and provided is not None and n >= min(provided, avail):
            unit.problems.append(Problem("receiver", offset + n, f"receiver too small: "
                                         f"bytes_provided {provided}, the 32-byte header is cut "
                                         f"after {n} bytes"))
        else:
            unit.errors.append(Problem(e.path, e.offset, e.reason))
        return unit
    head.title = f"MATQMSG receiver at offset X'{offset:04X}'"
    unit.elements.append(head)
    h = head.fields
    provided, avail, count = h["bytes_provided"], h["bytes_available"], h["messages_available"]
    if provided < MIN_PROVIDED:
        unit.problems.append(_provided_violation(provided, offset))
        return unit
    _header_checks(unit, h, offset)
    got = _lengths(h, key_bytes, text_bytes, selection)
    if isinstance(got, str):
        unit.errors.append(Problem("receiver.messages", offset + HEADER_LEN, got))
        return unit
    k, t, source = got
    for v in check_lengths(k, t):
        unit.problems.append(Problem(v.path, offset + v.offset, f"{source}: {v.describe()}"))
    if k < 0 or t < 0:
        unit.errors.append(Problem("receiver.messages", offset + HEADER_LEN,
                                   "negative key/text lengths: cannot locate message entries"))
        return unit
    unit.attrs.update(key_bytes=k, text_bytes=t, lengths_from=source)
    head.title += f" (key_bytes {k}, text_bytes {t}: {source})"
    entry = ATTR_LEN + k + t
    if count > 0 and avail != HEADER_LEN + count * entry:
        unit.problems.append(Problem("receiver.bytes_available", offset + 4,
                                     f"bytes_available {avail} is not 32 + {count} × {entry} = "
                                     f"{HEADER_LEN + count * entry}"))
    written = min(provided, max(avail, HEADER_LEN))
    end = offset + min(written, n)
    layout = message_layout(k, t, cp)
    messages, complete, partial = [], 0, False
    for i in range(max(count, 0)):
        start = offset + HEADER_LEN + i * entry
        if start >= offset + written or start >= len(data):
            break
        prefix = f"messages[{i + 1}]"
        title = f"message {i + 1} at offset X'{start:04X}'"
        try:
            el = layout.parse(data, start, prefix=prefix, fmt=FORMAT, limit=end)
        except DecodeError as e:
            el = e.partial if isinstance(e.partial, Element) else Element("MESSAGE", start, 0)
            el.offset = start
            _partial_tail(el, layout, data, start, end, prefix)
            el.length = end - start
            if end < offset + written and end == len(data):  # the input stops early
                el.title = title + " (partial: input ends)"
                unit.elements.append(el)
                unit.errors.append(Problem(e.path, e.offset, f"input ends inside message {i + 1}: "
                                           f"{e.reason}"))
                break
            el.title = title + " (partial: truncated-entry, the receiver ends inside it)"
            el.extra["flags"] = ["truncated-entry"]
            unit.elements.append(el)
            messages.append(_message_json(el))
            partial = True
            break
        el.title = title
        _message_checks(unit, el, h, t, data)
        unit.elements.append(el)
        messages.append(_message_json(el))
        complete += 1
    if not unit.errors and len(data) < offset + written and complete + partial < count:
        unit.errors.append(Problem("receiver.messages", len(data),
                                   f"input ends after {len(data) - offset} bytes; the receiver "
                                   f"holds {written}"))
    unit.attrs["messages"] = messages
    unit.attrs["messages_present"] = complete
    cut = max(count, 0) - complete
    unit.attrs["messages_cut"] = cut
    if avail > provided:
        unit.attrs["receiver_too_small"] = True
        unit.problems.append(Problem("receiver.bytes_available", offset + 4,
                                     f"receiver too small: bytes_available {avail} > bytes_provided "
                                     f"{provided}; {cut} of {count} message(s) cut"
                                     + (f" (message {complete + 1} partial)" if partial else "")))
    if n > written:
        tail = Element("UNCHANGED", offset + written, n - written,
                       title=f"bytes X'{written:04X}'-X'{n - 1:04X}' of the input: not written by "
                             "MATQMSG (left unchanged)",
                       data=bytes(data[offset + written:]), data_offset=offset + written)
        unit.elements.append(tail)
        unit.attrs["unchanged_bytes"] = n - written
    return unit


def _provided_violation(provided: int, offset: int) -> Problem:
    return Problem("receiver.bytes_provided", offset,
                   f"bytes_provided {provided} is less than 8 — MI exception 3803 materialization "
                   "length invalid; nothing was materialized")


def _header_checks(unit: Decoded, h: Mapping[str, Any], offset: int) -> None:
    for name, off in (("bytes_available", 4), ("messages_available", 8), ("messages_on_queue", 12),
                      ("max_message_size", 16), ("key_size", 20)):
        if h[name] < 0:
            unit.problems.append(Problem(f"receiver.{name}", offset + off, f"{name} {h[name]} is "
                                                                           "negative"))
    if h["bytes_available"] < HEADER_LEN:
        unit.problems.append(Problem("receiver.bytes_available", offset + 4,
                                     f"bytes_available {h['bytes_available']} is less than the "
                                     "32-byte header"))
    if h["messages_available"] > h["messages_on_queue"]:
        unit.problems.append(Problem("receiver.messages_available", offset + 8,
                                     f"messages_available {h['messages_available']} > "
                                     f"messages_on_queue {h['messages_on_queue']}"))


def _message_checks(unit: Decoded, el: Element, h: Mapping[str, Any], t: int, data: bytes) -> None:
    _time, s, _reserved, key, text = el.spans  # the MESSAGE declaration's order
    length = int(s.value)  # type: ignore[call-overload]
    flags = []
    if length < 0:
        unit.problems.append(Problem(s.path, s.start, f"message_length {length} is negative"))
    elif length > t:
        flags.append("truncated-text")
        el.spans[1] = s._replace(meaning=f"truncated-text: {length} bytes, text_bytes {t} materialized")
    if length > h["max_message_size"] >= 0:
        unit.problems.append(Problem(s.path, s.start, f"message_length {length} exceeds "
                                                      f"max_message_size {h['max_message_size']}"))
    ksize = max(h["key_size"], 0)
    if any(key.raw[ksize:]):
        why = "the queue is not keyed" if ksize == 0 else f"key size {ksize}"
        unit.problems.append(Problem(key.path, key.start + ksize,
                                     f"key bytes beyond the key are not zero ({why})"))
    if 0 <= length < t and any(text.raw[length:]):
        unit.problems.append(Problem(text.path, text.start + length,
                                     "text bytes beyond message_length are not zero"))
    if flags:
        el.extra["flags"] = flags


def _message_json(el: Element) -> dict[str, object]:
    d: dict[str, object] = {"offset": el.offset}
    d.update(fields_json(el.spans))
    for s in el.spans[3:5]:  # key, text
        if s.kind == TEXT:
            d[s.path.rsplit(".", 1)[-1] + "_hex"] = s.raw.hex().upper()
    if "flags" in el.extra:
        d["flags"] = el.extra["flags"]
    return d


def iter_messages(data: bytes, key_bytes: int, text_bytes: int,
                  codepage: str | None = "cp037") -> Iterator[dict[str, Any]]:
    """Bulk path: the complete message entries of a receiver as dicts (``offset`` added),
    no spans or checks — from the same declaration as ``decode_receiver``."""
    head = RECEIVER.values(data) if len(data) >= HEADER_LEN else None
    if head is None:
        raise DecodeError(FORMAT, "receiver", 0, f"receiver truncated: {len(data)} bytes, the "
                                                 "header has 32")
    layout = message_layout(key_bytes, text_bytes, _cp(codepage))
    size = ATTR_LEN + key_bytes + text_bytes
    end = min(len(data), max(head["bytes_provided"], 0), max(head["bytes_available"], 0))
    values = layout.values
    for i in range(max(head["messages_available"], 0)):
        off = HEADER_LEN + i * size
        if off + size > end:
            return
        v = values(data, off)
        v["offset"] = off
        yield v


# --------------------------------------------------------------------------- simulation


@dataclass(frozen=True)
class Message:
    """A message on a simulated queue: enqueue time, key and text (bytes or text)."""

    time: Any
    text: bytes | str = b""
    key: bytes | str = b""


@dataclass(frozen=True)
class Queue:
    """Queue attributes and messages, oldest first (what MATQMSG materializes)."""

    max_message_size: int
    key_size: int = 0
    messages: Sequence[Message] = ()


def _compare(key: bytes, comparand: bytes, relation: str) -> bool:
    return {">": key > comparand, "<": key < comparand, "!=": key != comparand, "=": key == comparand,
            ">=": key >= comparand, "<=": key <= comparand}[relation]


def simulate_receiver(queue: Queue, selection: bytes, provided: int,
                      codepage: str | None = "cp037") -> bytes:
    """What MATQMSG writes into a receiver of ``provided`` bytes (spec §6 b): selection,
    zero padding of key and text, bytes available, truncation to the receiver. Returns the
    bytes written (``min(provided, bytes available)``); a receiver under 8 bytes raises."""
    if provided < MIN_PROVIDED:
        raise BuildError(FORMAT, "bytes_provided", f"{provided} is less than 8 — MI exception 3803 "
                                                   "materialization length invalid")
    sel = decode_selection(selection, queue_key_size=queue.key_size, codepage=None)
    if sel.problems or sel.errors:
        raise BuildError(FORMAT, "selection", "; ".join(p.reason for p in sel.problems + sel.errors))
    f = sel.elements[0].all_values
    kind, relation = f["selection_type"], f["key_relationship"]
    k, t = int(f["key_bytes"]), int(f["text_bytes"])
    cp = _cp(codepage)
    msgs = list(queue.messages)
    if kind == "first":
        chosen = msgs[:1]
    elif kind == "last":
        chosen = msgs[-1:]
    elif kind == "keyed":
        comparand = bytes(f["key"]).ljust(queue.key_size, b"\x00")[:queue.key_size]
        chosen = [m for m in msgs if _compare(to_bytes(m.key, cp).ljust(queue.key_size, b"\x00"),
                                              comparand, relation)]
    else:
        chosen = msgs
    entry = ATTR_LEN + k + t
    avail = HEADER_LEN + len(chosen) * entry
    out = bytearray(RECEIVER.build({
        "bytes_provided": provided, "bytes_available": avail, "messages_available": len(chosen),
        "messages_on_queue": len(msgs), "max_message_size": queue.max_message_size,
        "key_size": queue.key_size}, fmt=FORMAT))
    layout = message_layout(k, t, None)
    for m in chosen:
        text, key = to_bytes(m.text, cp), to_bytes(m.key, cp)
        out += layout.build({"enqueue_time": MiTime.coerce(m.time), "message_length": len(text),
                             "key": key[:k], "text": text[:t]}, fmt=FORMAT)
    return bytes(out[:min(provided, avail)])


# --------------------------------------------------------------------------- codec protocol


def guess_part(data: bytes, offset: int = 0) -> str:
    """``selection`` when byte 0 holds a valid selection type, else ``receiver``."""
    b0 = data[offset] if len(data) > offset else 0
    if b0 >> 4 in TYPES and len(data) - offset <= SELECTION_LEN + MAX_KEY_BYTES + 15:
        return "selection"
    if b0 == 0 and len(data) - offset >= MIN_PROVIDED:
        return "receiver"
    return "selection" if len(data) - offset < HEADER_LEN else "receiver"


def decode(data: bytes, *, part: str = "auto", key_bytes: int | None = None,
           text_bytes: int | None = None, selection: bytes | None = None,
           key_size: int | None = None, codepage: str | None = "cp037") -> Iterator[Decoded]:
    """One MATQMSG template: the receiver (``key_bytes``/``text_bytes`` or the ``selection``
    template give the entry layout) or the selection template (``key_size``: the queue's)."""
    if part not in (*PARTS, "auto"):
        raise InputError(f"unknown part {part!r}; one of: receiver, selection, auto")
    if not data:
        raise DecodeError(FORMAT, part, 0, "no bytes to decode")
    kind = guess_part(data) if part == "auto" else part
    if kind == "selection":
        yield decode_selection(data, queue_key_size=key_size, codepage=codepage)
    else:
        yield decode_receiver(data, key_bytes=key_bytes, text_bytes=text_bytes, selection=selection,
                              codepage=codepage)


def build(request: Mapping[str, Any], **options: Any) -> bytes:
    """``api.build("matqmsg", {...})``: a selection template from CONTRACTS field names."""
    args = selection_from_json(request)
    return build_selection(**args, **options)


def detect(data: bytes) -> Detection | None:
    """A selection template (valid type, lengths and reserved bits) or a receiver (header
    arithmetic: bytes available = 32 + n × entry size)."""
    n = len(data)
    if SELECTION_LEN <= n <= SELECTION_LEN + MAX_KEY_BYTES + 15 and data[0] >> 4 in TYPES:
        v = selection_layout(0, 0, None).values(data)
        k, t = int(v["key_bytes"]), int(v["text_bytes"])
        # structure first (reserved zeros, sane lengths), then the machine's rules
        if data[1] == 0 and not any(data[11:16]) and not data[10] & 0x7F and 0 <= k <= 1 << 12 \
                and 0 <= t <= 1 << 20:
            bad = check_selection(data[0], k, t, data[10], data[1:2] + data[11:16],
                                  data[SELECTION_LEN:])
            kind = TYPES[data[0] >> 4]
            rel = f" {RELATIONS.get(data[0] & 0xF, '?')}" if kind == "keyed" else ""
            why = f"MATQMSG selection template: type {kind}{rel}, key_bytes {k}, text_bytes {t}"
            if bad:
                why += f"; {len(bad)} rule(s) broken ({bad[0].reason})"
            return Detection(FORMAT, 0.5 if bad else 0.7, why, {"part": "selection"})
    if MIN_PROVIDED <= n < HEADER_LEN:
        provided = int.from_bytes(data[0:4], signed=True)
        avail = int.from_bytes(data[4:8], signed=True)
        if avail >= HEADER_LEN and (avail - HEADER_LEN) % 16 == 0 and (
                0 <= provided < MIN_PROVIDED or n == min(provided, avail)):
            why = ("bytes_provided < 8 (MI exception 3803)" if provided < MIN_PROVIDED else
                   f"cut to the {provided} bytes provided")
            return Detection(FORMAT, 0.4, f"MATQMSG receiver, {why}; bytes_available {avail}",
                             {"part": "receiver"})
    if n >= HEADER_LEN:
        h = RECEIVER.values(data)
        count, avail = h["messages_available"], h["bytes_available"]
        ok = (h["bytes_provided"] >= MIN_PROVIDED and avail >= HEADER_LEN and count >= 0
              and h["messages_on_queue"] >= count and h["max_message_size"] >= 0
              and 0 <= h["key_size"] <= MAX_KEY_BYTES and not any(data[24:32]))
        if ok and count == 0 and avail == HEADER_LEN:
            return Detection(FORMAT, 0.5, "MATQMSG receiver with no messages available",
                             {"part": "receiver"})
        if ok and count > 0:
            size, rem = divmod(avail - HEADER_LEN, count)
            if not rem and size >= ATTR_LEN and size % 16 == 0 and size - ATTR_LEN <= \
                    MAX_KEY_BYTES + MAX_TEXT_BYTES:
                return Detection(FORMAT, 0.75, f"MATQMSG receiver: {count} message(s) available, "
                                               f"bytes_available {avail} = 32 + {count} × {size}",
                                 {"part": "receiver"})
    return None
