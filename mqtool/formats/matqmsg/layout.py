"""MATQMSG declarations (IBM i, MI instruction "Materialize Queue Messages (MATQMSG)"): the
receiver header, the message entry and the message selection template, their field types
(MI time-of-day, key and text areas), the meaning tables (selection types, key
relationships, modes, MI exceptions) and the offsets the decoder, builder and detector read
by name.

The layouts are the manual's (FACT); the field names are mqtool's (the manual has
none). Enqueue times are MI time-of-day values (*DTS: bit 51 = 1 µs, ``X'8000000000000000'``
= 2000-01-01), shown in UTC — an assumption the output states.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from construct import Adapter, Bytes, FormatField

from mqtool.codepages import codec_name
from mqtool.compose import Nest, Repeat
from mqtool.errors import InputError
from mqtool.layout import Layout, Means, Reserved, Variant, dsect
from mqtool.model import HEX, STCK, TEXT
from mqtool.tod import Tod

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
STCK_MINUS_MI = Tod.from_datetime(MI_EPOCH).raw - MI_EPOCH_RAW  # MI = STCK - this
TIME_ZONE_NOTE = "UTC assumed (IBM i keeps its TOD clock in UTC on current releases)"

TYPE_SHIFT = 4  # the selection byte: type in bits 0-3 (high nibble), relationship in bits 4-7
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

EXCEPTIONS = {  # "Exceptions": 3803 documented, the others INFERRED from MI numbering
    "3801": "template value invalid",
    "3802": "template size invalid",
    "3803": "materialization length invalid",
}
INFERRED_CODES = {"3801", "3802"}


# --------------------------------------------------------------------------- field types


class MiTime(Tod):
    """An MI time-of-day value (*DTS): the TOD clock's unit (bits 0-51 count microseconds,
    bits 52-63 are uniqueness bits) from another origin: X'8000000000000000' is 2000-01-01
    00:00:00 and 0 is 1928-08-23 12:03:06.314752. Every value is a time (0 included);
    ``raw`` keeps all 64 bits."""

    __slots__ = ()
    ORIGIN = MI_EPOCH
    ORIGIN_RAW = MI_EPOCH_RAW
    RANGE = "MI time range (1928-2071)"

    def __repr__(self) -> str:
        return f"MiTime(0x{int(self):016X})"

    @property
    def is_set(self) -> bool:
        return True

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


def resolve_codepage(codepage: str | None) -> str | None:
    """``binary`` -> None (raw bytes), else the resolved codec name."""
    if codepage is None or codepage.lower() in ("binary", "hex", "none"):
        return None
    try:
        return codec_name(codepage)
    except LookupError as e:
        raise InputError(str(e).strip("'\"")) from None


def codepage_attrs(cp: str | None) -> dict[str, object]:
    """Unit attributes for the code page: a real one for renderers' character columns, and
    ``binary: true`` when keys and text are shown as bytes."""
    return {"codepage": cp} if cp else {"codepage": "cp037", "binary": True}


# --------------------------------------------------------------------------- declarations

_V = Variant(big=True, codepage="cp037")


def _time_meaning(value: Any, f: Mapping[str, Any]) -> str:
    return f"uniqueness X'{value.submicro:03X}' (UTC assumed)" if isinstance(value, MiTime) else ""


def _selection_meaning(value: int, f: Mapping[str, Any]) -> str:
    return f"type B'{value >> TYPE_SHIFT:04b}', key relationship B'{value & 0xF:04b}'"


def _options_meaning(value: int, f: Mapping[str, Any]) -> str:
    return "concurrent mode" if value & 0x80 else "blocked mode"


RECEIVER = dsect(
    "RECEIVER",  # "Receiver template" (FACT)
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
        "MESSAGE",  # "Receiver template", message entry (FACT)
        "enqueue_time" / Means(MiTimeField(), _time_meaning),
        "message_length" / _V.S4,
        "reserved" / Reserved(4),
        "key" / MiData(key_bytes, codepage),
        "text" / MiData(text_bytes, codepage),
    )


@lru_cache(maxsize=64)
def selection_layout(key_len: int, pad_len: int = 0, codepage: str | None = "cp037") -> Layout:
    """The selection template ("Message selection template", FACT) followed by ``key_len`` key bytes and
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




# IBM i, MATQMSG, "Receiver template": the 32-byte header, then the message data, one
# entry of 16 + K + T bytes per message available (K and T are the selection template's:
# ``message_layout`` is the entry of one K, T). Decoding, the bulk path, the builder and the
# catalog read this composition.
MESSAGES = Repeat("messages", "MESSAGE", count="messages_available",
                  title="message {index} at offset X'{offset:04X}'")
RECEIVER_TEMPLATE = Nest("receiver", "RECEIVER", then=MESSAGES)


def receiver_layout() -> Layout:
    """The receiver header (for code that takes declarations by factory)."""
    return RECEIVER


def field_slice(layout: Layout, name: str, base: int = 0) -> slice[int, int, None]:
    """Where field ``name`` of ``layout`` lies when the layout starts at ``base``."""
    f = layout.field(name)
    if f.start is None or f.size is None:
        raise KeyError(f"{layout.name}.{name} has no static place")
    return slice(base + f.start, base + f.start + f.size)


SELECTION = selection_layout(0, 0, None)  # the fixed part: offsets and sizes by name


def field_value(data: bytes, layout: Layout, name: str, base: int = 0, signed: bool = True) -> int:
    """An integer field read by name (big-endian, as every MATQMSG binary field)."""
    return int.from_bytes(data[field_slice(layout, name, base)], "big", signed=signed)


def has_field(data: bytes, layout: Layout, name: str, base: int = 0) -> bool:
    """Does ``data`` hold field ``name`` whole?"""
    return len(data) >= field_slice(layout, name, base).stop
