"""Code page names -> Python codecs. EBCDIC pages beyond the standard library's come from
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
