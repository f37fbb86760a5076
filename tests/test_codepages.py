"""CCSID -> codec (``mqtool.codepages``), checked against IBM's code page charts.

Each row names characters the chart of the CCSID places at given code points (IBM CDRA
code page charts; for the Unicode CCSIDs the Unicode code points and IBM MQ's rule that
UTF-16 data takes the byte order of the message's integer encoding, MQRFH2
``NameValueCCSID``). The bytes are decoded with the codec ``ccsid_codec`` names: a wrong
table row (no codec, the wrong page, the wrong byte order) decodes other characters.
"""

from __future__ import annotations

import pytest

from mqtool.codepages import (
    ccsid_codec,
    ccsid_for,
    is_ebcdic_ccsid,
    latin1_table,
)
from mqtool.errors import CodepageError
from mqtool.formats.mq.mqmd import byte_order_of

MQENC_BIG = 0x111  # MQENC_INTEGER_NORMAL | MQENC_DECIMAL_NORMAL | MQENC_FLOAT_IEEE_NORMAL
MQENC_LITTLE = 0x222  # MQENC_INTEGER_REVERSED | ..._REVERSED (Windows, Linux x86)

# (CCSID, hex code points, the characters the chart shows there)
CHARTS = [
    (37, "C1 5B BA BB 4A 5A 4F", "A$[]¢!|"),
    (273, "4A 5A 6A 7C B5 A1", "ÄÜö§@ß"),
    (500, "4A 5A 4F 5F", "[]!^"),
    (1047, "AD BD 5F B0", "[]^¬"),
    (1140, "9F BA BB", "€[]"),  # 037 + euro at X'9F'
    (1141, "9F 4A 5A", "€ÄÜ"),  # 273 + euro
    (1142, "5A 5B 7B 7C", "€ÅÆØ"),  # 277 + euro at X'5A'
    (1143, "5A 5B 7B 7C", "€ÅÄÖ"),  # 278 + euro at X'5A'
    (1144, "9F C0 D0 6A", "€àèò"),  # 280 + euro
    (1145, "9F 7B 4A 5A", "€Ñ[]"),  # 284 + euro
    (1146, "9F 5B 4A", "€£$"),  # 285 + euro
    (1147, "9F C0 D0 E0 7C", "€éèçà"),  # 297 + euro
    (1148, "9F 4A 5A", "€[]"),  # 500 + euro
    (819, "41 E9 FF", "Aéÿ"),  # ISO 8859-1
    (850, "80 82 D5", "Çéı"),  # PC Latin-1 (858 puts the euro at X'D5')
    (923, "A4 A6 BC", "€ŠŒ"),  # ISO 8859-15
    (943, "41 82A0 8740 93FA 967B", "Aあ①日本"),  # PC Japanese, NEC row 13 included
    (1208, "41 C3A9 E282AC F09D849E", "Aé€𝄞"),  # UTF-8
    (1252, "80 85 8E", "€…Ž"),  # Windows Latin-1
    (5348, "80 85 8E", "€…Ž"),  # Windows Latin-1 with euro
]
UTF16 = [  # UTF-16, code units in the message's byte order
    (1200, "A€𝄞", "0041 20AC D834DD1E"),
    (13488, "A€", "0041 20AC"),  # the Unicode 2.0 subset: no surrogates
    (17584, "A€", "0041 20AC"),
]
EBCDIC = [37, 273, 500, 1047, *range(1140, 1149)]


@pytest.mark.parametrize(("ccsid", "points", "chars"), CHARTS)
def test_ccsid_reads_its_chart(ccsid: int, points: str, chars: str) -> None:
    codec = ccsid_codec(ccsid)
    assert codec is not None, f"CCSID {ccsid} has no codec"
    assert bytes.fromhex(points).decode(codec) == chars


@pytest.mark.parametrize(("ccsid", "chars", "units"), UTF16)
@pytest.mark.parametrize("encoding", [MQENC_BIG, MQENC_LITTLE])
def test_utf16_follows_the_integer_encoding(ccsid: int, chars: str, units: str,
                                            encoding: int) -> None:
    big = byte_order_of(encoding) == "big"
    data = b"".join(
        bytes.fromhex(u) if big else b"".join(bytes.fromhex(u)[i:i + 2][::-1]
                                              for i in range(0, len(u) // 2, 2))
        for u in units.split())
    assert data.decode(ccsid_codec(ccsid, big)) == chars  # type: ignore[arg-type]


@pytest.mark.parametrize("ccsid", [c for c, _p, _t in CHARTS] + [c for c, _t, _u in UTF16])
def test_ebcdic_or_not(ccsid: int) -> None:
    assert is_ebcdic_ccsid(ccsid) is (ccsid in EBCDIC)


@pytest.mark.parametrize("ccsid", [0, -1, -2, -3, 65535, 1, "500", None, True])
def test_no_codec(ccsid: object) -> None:
    """MQCCSI_DEFAULT (0), _EMBEDDED (-1), _INHERIT (-2), _AS_PUBLISHED (-3), and what names
    no code page, give no codec (and are no EBCDIC)."""
    assert ccsid_codec(ccsid) is None
    assert not is_ebcdic_ccsid(ccsid)


@pytest.mark.parametrize(("codec", "ccsid"), [
    ("cp037", 37), ("037", 37), ("IBM-1047", 1047), ("cp1148", 1148), ("latin-1", 819),
    ("iso8859-1", 819), ("cp850", 850), ("iso8859-15", 923), ("cp932", 943),
    ("utf-8", 1208), ("cp1252", 1252), ("utf-16-be", 1200), ("utf-16-le", 1200),
])
def test_ccsid_for(codec: str, ccsid: int) -> None:
    assert ccsid_for(codec) == ccsid
    assert ccsid_codec(ccsid, not codec.endswith("-le")) is not None


def test_ccsid_for_a_page_no_ccsid_names() -> None:
    with pytest.raises(CodepageError, match="no CCSID"):
        ccsid_for("mac-roman")


@pytest.mark.parametrize("codec", ["cp037", "cp500", "cp1047", "latin-1"])
def test_translate_table_decodes_as_the_codec(codec: str) -> None:
    """The fast paths' translate table gives what Python's codec gives, byte for byte."""
    data = bytes(range(256))
    table = latin1_table(codec)
    assert table is not None
    assert data.translate(table).decode("latin-1") == data.decode(ccsid_codec(ccsid_for(codec)) or "")


def test_no_translate_table_where_latin1_lacks_a_character() -> None:
    assert latin1_table("cp1140") is None  # the euro sign at X'9F'
    assert latin1_table("cp273") is None  # the overline at X'BC'
    assert latin1_table("cp932") is None  # multi-byte


def test_queue_dump_mqmd_follows_the_ccsid(tmp_path: object) -> None:
    """``write_mqmd_binaries`` writes the MQMD in the message's own code page: EBCDIC for
    500 and 1141, ASCII for 5348 and 13488."""
    from mqtool.formats.mq.dumps.message import Message
    from mqtool.formats.mq.dumps.write import write_mqmd_binaries
    from mqtool.io.outputs import OutputDir

    out = OutputDir(tmp_path)  # type: ignore[arg-type]
    msgs = [Message(i, b"x", {"codedcharsetid": c, "encoding": 546})
            for i, c in enumerate((500, 1141, 5348, 13488), 1)]
    assert write_mqmd_binaries(msgs, out) == 4
    eyes = [(out.root / f"{i:06d}.bin").read_bytes()[:4] for i in (1, 2, 3, 4)]
    assert eyes == [b"\xd4\xc4\x40\x40"] * 2 + [b"MD  "] * 2
