"""Code pages: names -> Python codecs, and the printable-character tables of dump columns.

Names -> codecs: EBCDIC pages beyond the standard library's come from
the ``ebcdic`` package (cp1047, cp1141..., imported only when such a page is asked for)."""

from __future__ import annotations

import codecs
import re
from functools import lru_cache

ASCII_ALIASES = {"ascii", "us-ascii", "latin-1", "latin1", "iso8859-1", "iso-8859-1", "819"}
_IBM_NAME = re.compile(r"^(?:ibm-?|cp-?|ccsid-?)?(\d{2,5})$", re.IGNORECASE)


@lru_cache(maxsize=64)
def codec_name(name: str) -> str:
    """Resolve ``037``, ``cp037``, ``IBM-1047``, ``1140``, ``ascii``, ``latin-1``... to a codec.

    Raises ``LookupError`` with the name when no codec exists.
    """
    key = name.strip().lower()
    if key in ASCII_ALIASES:
        return "latin-1"
    if m := _IBM_NAME.match(key):
        key = f"cp{int(m.group(1)):03d}"
    try:
        return codecs.lookup(key).name
    except LookupError:
        import ebcdic  # noqa: F401  (registers cp1047, cp1141..., on import)

        try:
            return codecs.lookup(key).name
        except LookupError:
            raise LookupError(f"unknown code page {name!r}") from None


@lru_cache(maxsize=64)
def is_ebcdic(codec: str) -> bool:
    return "A".encode(codec_name(codec)) == b"\xc1"


@lru_cache(maxsize=64)
def blank(codec: str) -> bytes:
    """The code page's blank: X'40' in EBCDIC, X'20' in ASCII."""
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
    chars = bytes(range(256)).decode(codec, errors="replace")
    if full:
        allowed = FULL_ASCII
    else:
        allowed = REPERTOIRE if is_ebcdic(codec) else {c for c in REPERTOIRE if ord(c) < 128}
    return "".join(c if c in allowed else "." for c in chars).encode("latin-1")


def column_text(data: bytes, codepage: str, full: bool = False) -> str:
    """The character column for ``data`` (used by listings and per-line rendering)."""
    return data.translate(char_table(codepage, full)).decode("latin-1")
