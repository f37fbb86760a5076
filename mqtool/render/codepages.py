"""Printable-character tables for dump character columns, compatible with the documents.

The seed documents print letters, digits, blank and the classic EBCDIC specials
(``¢.<(+|&!$*);¬-/,%_>?:#@'="\\``) and a dot for everything else: ``[ ] ~ ¦`` and accented
letters are dots even where code page 037 has them. ASCII dumps use the same repertoire
restricted to 7 bits (the seed prints `` ` `` and ``}`` as dots).
"""

from __future__ import annotations

from functools import lru_cache

from mqtool.codepage import codec_name, is_ebcdic

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
