"""Code pages: names -> Python codecs, and the printable-character tables of dump columns.

Names -> codecs: EBCDIC pages beyond the standard library's come from
the ``ebcdic`` package (cp1047, cp1141..., imported only when such a page is asked for).
``single_byte_codec`` (every ``--codepage``) takes single-byte EBCDIC and ASCII-family pages
only; ``codec_name`` also takes the multi-byte encodings a message header may name (1208,
1200), whose text is decoded with replacement characters."""

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
def _single_byte(codec: str) -> bool:
    """Does ``codec`` map each byte to one character that encodes back to one byte?"""
    try:
        chars = bytes(range(256)).decode(codec, errors="replace")
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
    try:
        return _single_byte(codec_name(name))
    except CodepageError:
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
    if _single_byte(codec):
        chars = bytes(range(256)).decode(codec, errors="replace")
    else:  # multi-byte (a message's own CCSID 1208, 1200): bytes that stand alone, else dots
        chars = "".join(_alone(b, codec) for b in range(256))
    if full:
        allowed = FULL_ASCII
    else:
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
