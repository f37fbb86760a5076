"""The struct-code table (``mqtool.layout.INT_CODES``) against the tools whose names it
derives: Python's ``struct`` (standard sizes, the values it packs), numpy, Arrow, and
Kaitai Struct's integer types (``s1`` .. ``u8``, Kaitai Struct User Guide, "Integers")."""

from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa
import pytest

from mqtool.formats.csq1logp.layout import layouts
from mqtool.layout import INT_CODES, arrow_type, fixed_dtype, numpy_dtype

KAITAI = {"b": "s1", "B": "u1", "h": "s2", "H": "u2", "l": "s4", "L": "u4", "q": "s8", "Q": "u8"}


@pytest.mark.parametrize("code", sorted(KAITAI))
def test_int_code(code: str) -> None:
    ic = INT_CODES[code]
    lo, hi = ic.range
    struct.pack("<" + code, lo)
    struct.pack("<" + code, hi)
    for beyond in (lo - 1, hi + 1):
        with pytest.raises(struct.error):
            struct.pack("<" + code, beyond)
    dt = np.dtype("<" + ic.numpy)
    assert dt.itemsize == struct.calcsize("<" + code) == ic.size
    assert (dt.kind == "i") is ic.signed and (np.iinfo(dt).min, np.iinfo(dt).max) == (lo, hi)
    at = pa.type_for_alias(ic.arrow)
    assert at.bit_width == 8 * ic.size and pa.types.is_signed_integer(at) is ic.signed
    assert ic.ksy == KAITAI[code] and ic.doc == KAITAI[code].upper()


def test_field_types_follow_the_declaration() -> None:
    """CSQ4LOGD: ``ldatalen`` is a big-endian fullword at 97, ``dtodout`` an 8-byte STCK."""
    lay = layouts().logd
    ld, tod = lay.field("ldatalen"), lay.field("dtodout")
    assert numpy_dtype(ld) == np.dtype(">i4") and arrow_type(ld) == pa.int32()
    assert numpy_dtype(tod) == np.dtype(">u8")
    dt = fixed_dtype(lay)
    assert dt.itemsize == 199 and dt.fields["ldatalen"][1] == 97
    with pytest.raises(TypeError, match="no integer"):
        arrow_type(lay.field("csqueuename"))
