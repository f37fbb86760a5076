"""Code pages: names -> Python codecs, CCSIDs -> codecs, the translate tables of the fast
paths and the printable-character tables of dump columns. The one home of these facts.

Names -> codecs: EBCDIC pages beyond the standard library's come from
the ``ebcdic`` package (cp1047, cp1141..., imported only when such a page is asked for).
``single_byte_codec`` (every ``--codepage``) takes single-byte EBCDIC and ASCII-family pages
only; ``codec_name`` also takes the multi-byte encodings a message header may name (1208,
1200), whose text is decoded with replacement characters.

CCSIDs -> codecs (``ccsid_codec``): IBM's coded character set identifiers as a message
header carries them (IBM MQ, MQMD ``CodedCharSetId``; IBM CDRA, "CCSID repository"). A CCSID
names ``cp`` + its number unless ``CCSID_CODECS`` says otherwise; the UTF-16 CCSIDs take the
byte order of the message's integer encoding (IBM MQ, MQRFH2 ``NameValueCCSID``: "the
encoding (byte order) ... must be the same as the encoding of the other fields")."""

from __future__ import annotations

import codecs
import re
from functools import lru_cache

from mqtool.errors import CodepageError

ASCII_ALIASES = {"ascii", "us-ascii", "latin-1", "latin1", "iso8859-1", "iso-8859-1", "819"}
_IBM_NAME = re.compile(r"^(?:ibm-?|cp-?|ccsid-?)?(\d{2,5})$", re.IGNORECASE)
ACCEPTED = ("single-byte EBCDIC pages (037, 273, 277, 278, 280, 284, 285, 297, 500, 871, 875, "
            "1026, 1047, 1140-1149) and ASCII-family pages (ascii, latin-1, 1250-1258, "
            "iso8859-2 ... iso8859-15, 437, 850)")
_NOT_PAGES = re.compile(r"escape|charmap|unicode|undefined")  # text codecs that are no page
_MIN_MAPPED = 192  # a single-byte page maps most of its 256 bytes to one character each


def _lookup(name: str) -> str:
    """Any text codec Python (or the ``ebcdic`` package) knows, by mqtool's names."""
    key = name.strip().lower()
    if key in ASCII_ALIASES:
        return "latin-1"
    if m := _IBM_NAME.match(key):
        key = f"cp{int(m.group(1)):03d}"
    if not key or not key.isprintable() or len(key) > 40:
        raise CodepageError(f"unknown code page {name!r}; mqtool reads {ACCEPTED}")
    try:
        info = codecs.lookup(key)
    except LookupError:
        import ebcdic  # noqa: F401  (registers cp1047, cp1141..., on import)

        try:
            info = codecs.lookup(key)
        except LookupError:
            raise CodepageError(f"unknown code page {name!r}; mqtool reads {ACCEPTED}") from None
    if not getattr(info, "_is_text_encoding", True) or _NOT_PAGES.search(info.name):  # hex, rot13...
        raise CodepageError(f"code page {name!r} is not a text encoding; mqtool reads {ACCEPTED}")
    return info.name


@lru_cache(maxsize=64)
def byte_chars(codec: str) -> str:
    """What each byte value 0..255 decodes to in ``codec``, U+FFFD where a byte is no
    character: 256 characters in a single-byte page (the source of every translate table)."""
    return bytes(range(256)).decode(codec_name(codec), errors="replace")


@lru_cache(maxsize=32)
def latin1_table(codec: str) -> bytes | None:
    """A ``bytes.translate`` table taking ``codec`` to latin-1, when every byte of the page is
    one character of latin-1 (cp037, cp500, cp1047 ... yes; cp1140 with its euro sign, no):
    ``data.translate(table).decode("latin-1")`` is ``data.decode(codec)``, all in C."""
    chars = byte_chars(codec)
    if len(chars) != 256 or "\ufffd" in chars:
        return None
    try:
        return chars.encode("latin-1")
    except UnicodeEncodeError:
        return None


@lru_cache(maxsize=64)
def _single_byte(codec: str) -> bool:
    """Does ``codec`` map each byte to one character that encodes back to one byte?"""
    try:
        chars = byte_chars(codec)
    except (UnicodeError, LookupError, ValueError, TypeError):
        return False
    if len(chars) != 256:
        return False
    mapped = 0
    for c in chars:
        if c == "\ufffd":
            continue
        try:
            if len(c.encode(codec)) != 1:
                return False
        except (UnicodeError, ValueError):
            return False
        mapped += 1
    return mapped >= _MIN_MAPPED


@lru_cache(maxsize=64)
def codec_name(name: str) -> str:
    """Resolve ``037``, ``cp037``, ``IBM-1047``, ``1140``, ``ascii``, ``latin-1``... to a codec.

    Any text codec (a message header may name UTF-8 or UTF-16, whose text is decoded with
    replacement characters); a non-text codec (hex, rot13) or an unknown name raises
    ``CodepageError`` (also a ``LookupError``). ``--codepage`` takes ``single_byte_codec``.
    """
    return _lookup(name)


@lru_cache(maxsize=64)
def single_byte_codec(name: str) -> str:
    """What ``--codepage`` takes: single-byte EBCDIC and ASCII-family code pages only; a
    multi-byte encoding (UTF-8, UTF-16, Shift-JIS) raises ``CodepageError`` naming them."""
    codec = _lookup(name)
    if not _single_byte(codec):
        raise CodepageError(f"code page {name!r} is not single-byte; mqtool reads {ACCEPTED}")
    return codec


def is_single_byte(name: str) -> bool:
    """Is ``name`` a code page whose every byte is one character (``False`` for a multi-byte
    encoding and for a name no codec has)?"""
    try:
        return _single_byte(codec_name(name))
    except LookupError:
        return False


@lru_cache(maxsize=64)
def is_ebcdic(codec: str) -> bool:
    """EBCDIC ('A' is X'C1')? Multi-byte encodings are never EBCDIC here."""
    try:
        return "A".encode(codec_name(codec)) == b"\xc1"
    except (UnicodeError, ValueError):
        return False


@lru_cache(maxsize=64)
def blank(codec: str) -> bytes:
    """The code page's blank: X'40' in EBCDIC, X'20' in ASCII (UTF-16: X'0020')."""
    return " ".encode(codec_name(codec))


# ------------------------------------------------------------------ CCSIDs

# CCSID -> Python codec where the codec is not "cp" + the number. The first CCSID listed for
# a codec is the one ``ccsid_for`` gives. 943 is IBM's PC Japanese with the NEC and IBM
# extensions (Windows-31J: Python's cp932); 5348 is Windows-1252 with the euro sign.
CCSID_CODECS: dict[int, str] = {
    819: "latin-1", 367: "ascii", 912: "iso8859-2", 913: "iso8859-3", 914: "iso8859-4",
    915: "iso8859-5", 1089: "iso8859-6", 813: "iso8859-7", 4909: "iso8859-7", 916: "iso8859-8",
    920: "iso8859-9", 923: "iso8859-15", 1051: "hp-roman8", 5348: "cp1252", 1208: "utf-8",
    943: "cp932", 932: "shift_jis", 954: "euc-jp", 1381: "gbk", 1386: "gbk", 5488: "gb18030",
    970: "euc-kr", 1363: "cp949", 950: "big5", 1370: "big5",
}
UTF16_CCSIDS = (1200, 13488, 17584)  # UTF-16 (latest Unicode; 2.0 and 3.0 subsets)
UTF32_CCSIDS = (1232, 1233, 1234)
_UNICODE = {**{c: "utf-16" for c in UTF16_CCSIDS}, **{c: "utf-32" for c in UTF32_CCSIDS}}
_CP_NUMBER = re.compile(r"^cp(\d+)$")


def ccsid_codec(ccsid: object, big: bool = True) -> str | None:
    """The Python codec of a CCSID (``500`` -> ``cp500``, ``1208`` -> ``utf-8``, ``1200`` ->
    ``utf-16-be``, or ``utf-16-le`` when the message's integers are little-endian: ``big``
    False); None for no CCSID (0, negative, not an int) or one no codec reads."""
    if not isinstance(ccsid, int) or isinstance(ccsid, bool) or ccsid <= 0:
        return None
    return _ccsid_codec(ccsid, bool(big))


@lru_cache(maxsize=256)
def _ccsid_codec(ccsid: int, big: bool) -> str | None:
    if ccsid in _UNICODE:
        return f"{_UNICODE[ccsid]}-{'be' if big else 'le'}"
    if ccsid in CCSID_CODECS:
        return CCSID_CODECS[ccsid]
    try:
        return codec_name(str(ccsid))
    except (LookupError, ImportError):
        return None


@lru_cache(maxsize=64)
def ccsid_for(codec: str) -> int:
    """The CCSID of a code page (``cp037`` -> 37, ``latin-1`` -> 819, ``utf-16-le`` ->
    1200); ``CodepageError`` for a code page no CCSID names."""
    name = codec_name(codec)
    if (m := _CP_NUMBER.match(name)) and _ccsid_codec(int(m.group(1)), True) == name:
        return int(m.group(1))
    for ccsid, other in {**CCSID_CODECS, **_UNICODE}.items():
        if codec_name(other) == name or name.startswith(other + "-"):
            return ccsid
    raise CodepageError(f"code page {codec!r} has no CCSID mqtool knows")


def is_ebcdic_ccsid(ccsid: object) -> bool:
    """Is the CCSID an EBCDIC code page ('A' is X'C1')?"""
    codec = ccsid_codec(ccsid)
    return codec is not None and is_ebcdic(codec)


# ------------------------------------------------------------------ dump character columns
# Printable-character tables for dump character columns, compatible with the documents.
#
# The seed documents print letters, digits, blank and the classic EBCDIC specials
# (``¢.<(+|&!$*);¬-/,%_>?:#@'="\\``) and a dot for everything else: ``[ ] ~ ¦`` and accented
# letters are dots even where code page 037 has them. ASCII dumps use the same repertoire
# restricted to 7 bits (the seed prints `` ` `` and ``}`` as dots).

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
REPERTOIRE = frozenset(LETTERS + "0123456789" + " ¢.<(+|&!$*);¬-/,%_>?:#@'=\"\\")


FULL_ASCII = frozenset(chr(c) for c in range(0x20, 0x7F))


@lru_cache(maxsize=32)
def char_table(codepage: str, full: bool = False) -> bytes:
    """256 latin-1 bytes: the character shown for each byte value, ``.`` if not printable.

    ``full`` shows every printable 7-bit character (what xxd and ``hexdump -C`` print);
    the default is the documents' repertoire.
    """
    codec = codec_name(codepage)
    # multi-byte (a message's own CCSID 1208, 1200): bytes that stand alone, else dots
    chars = byte_chars(codec) if _single_byte(codec) else "".join(_alone(b, codec) for b in range(256))
    allowed: frozenset[str] | set[str] = FULL_ASCII
    if not full:
        allowed = REPERTOIRE if is_ebcdic(codec) else {c for c in REPERTOIRE if ord(c) < 128}
    return "".join(c if c in allowed else "." for c in chars).encode("latin-1")


def _alone(b: int, codec: str) -> str:
    try:
        c = bytes([b]).decode(codec)
    except (UnicodeError, ValueError):
        return "."
    return c if len(c) == 1 else "."


def column_text(data: bytes, codepage: str, full: bool = False) -> str:
    """The character column for ``data`` (used by listings and per-line rendering)."""
    return data.translate(char_table(codepage, full)).decode("latin-1")
