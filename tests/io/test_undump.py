"""dump -r / undump: the documents' dumps exactly as printed, and bad text."""

from __future__ import annotations

import pytest

from mqtool.errors import UndumpError
from mqtool.io.undump import detect, undump, undump_segments
from tests.helpers import TESTDATA, seed_text

URB_DUMPS = sorted(p.name for p in (TESTDATA / "urb").glob("*.dump") if "urbddata" not in p.name)
OSB_DUMPS = sorted(p.name for p in (TESTDATA / "osb").glob("*.dump"))


def test_all_fifteen_seed_messages_are_transcribed() -> None:
    assert len(URB_DUMPS) == 15


@pytest.mark.parametrize("name", URB_DUMPS)
def test_seed_001_message_length_equals_urbhlent(name: str) -> None:
    data = undump(seed_text(f"urb/{name}"))
    order = "big" if data[10:12] == b"\x00\x01" else "little"
    assert data[10:12] in (b"\x00\x01", b"\x01\x00")
    assert len(data) == int.from_bytes(data[12:16], order)


def test_seed_001_lengths_match_the_spec_table() -> None:
    """spec urb.md 9.5: the element chains' total lengths."""
    lengths = {n: len(undump(seed_text(f"urb/{n}"))) for n in URB_DUMPS}
    assert lengths["close-destination.request.dump"] == 160
    assert lengths["inst-color.data.dump"] == 592
    assert lengths["inst-employee.request.dump"] == 176
    assert lengths["inst-employee.data.dump"] == 656
    assert sum(1 for v in lengths.values() if v == 192) == 8


def test_suppressed_line_at_the_end_repeats_the_previous_line() -> None:
    # seed: "... 0080 00000000 ... ................ 1 identical line(s) suppressed"
    data = undump(seed_text("urb/inst-color.request.dump"))
    assert len(data) == 0xA0
    assert data[0x80:0xA0] == bytes(32)
    assert data[0x60:0x68] == bytes.fromhex("C9D5E2E327160004")


def test_urbddata_sub_dumps_are_the_images_in_the_message() -> None:
    msg = undump(seed_text("urb/inst-employee.data.dump"))
    img1 = undump(seed_text("urb/inst-employee.data.urbddata-1.dump"))
    img2 = undump(seed_text("urb/inst-employee.data.urbddata-2.dump"))
    assert len(img1) == len(img2) == 128
    assert msg[0x110:0x190] == img1  # URBD at X'F0' + 32
    assert msg[0x1F0:0x270] == img2  # URBD at X'1D0' + 32
    assert img1.startswith(b"20011000BOB")


@pytest.mark.parametrize(("name", "address", "length"), [
    *[(f"sample{i}.parmlist.dump", 0x7A2A8, 28) for i in (1, 3, 4, 5, 6)],
    *[(f"sample{i}.header.dump", 0x7A0B0, 48) for i in (1, 2, 3, 4, 5)],
    ("sample6.intent.dump", 0x46E46A20, 74),
])
def test_seed_003_storage_dumps(name: str, address: int, length: int) -> None:
    (seg,) = undump_segments(seed_text(f"osb/{name}"))
    assert (seg.address, len(seg.data)) == (address, length)


def test_storage_dump_starting_mid_line_keeps_first_bytes_first() -> None:
    # 0007A2A8 46E48C20 00000176 *.U......* (8 bytes, the second half of a line)
    data = undump(seed_text("osb/sample1.parmlist.dump"))
    assert data[:8] == bytes.fromhex("46E48C2000000176")
    assert data[8:16] == bytes.fromhex("0007A0B000000018")
    assert data[24:] == bytes.fromhex("00000001")


def test_partial_last_word_of_storage_dump() -> None:
    # 46E46A60 00000000 00000000 0000 *..............C.*
    data = undump(seed_text("osb/sample6.intent.dump"))
    assert data[:2] == bytes.fromhex("004A") and data[-10:] == bytes(10)


def test_line_starting_mid_word() -> None:
    text = "0007A2AA     8C20 00000176 *...*\n0007A2B0 0007A0B0 *....*\n"
    (seg,) = undump_segments(text)
    assert seg.address == 0x7A2AA
    assert seg.data == bytes.fromhex("8C20000001760007A0B0")


def test_several_dumps_in_one_text_become_segments() -> None:
    text = "0000 E4D9C2C8 00000040 *URBH...*\nand some prose\n0000 E4D9C2C9 *URBI*\n"
    segs = undump_segments(text)
    assert [s.data.hex().upper() for s in segs] == ["E4D9C2C800000040", "E4D9C2C9"]
    assert [s.line for s in segs] == [1, 3]


def test_storage_dumps_at_unrelated_addresses_are_segments() -> None:
    # seed 003, sample 6: the parameter list (short last line) and the intent list it points to
    text = seed_text("osb/sample6.parmlist.dump") + seed_text("osb/sample6.intent.dump")
    segs = undump_segments(text)
    assert [(s.address, len(s.data)) for s in segs] == [(0x7A2A8, 28), (0x46E46A20, 74)]


def test_char_column_with_hex_like_text_is_skipped() -> None:
    # seed 001: char columns such as 2004052518354610 and 003405050101
    text = ("0000 F2F0F0F4 F0F5F2F5 F1F8F3F5 F4F6F1F0 2004052518354610 "
            "0010 30303334 30353035 30313031 20202020 003405050101 ")
    assert undump(text) == bytes.fromhex("F2F0F0F4F0F5F2F5F1F8F3F5F4F6F1F0"
                                         "30303334303530353031303120202020")


def test_xxd_and_canonical_and_plain() -> None:
    xxd = ("00000000: 4865 6c6c 6f2c 2077 6f72 6c64 2120 5468  Hello, world! Th\n"
           "00000010: 6973                                     is\n")
    canon = ("00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n"
             "*\n"
             "00000030  41 42                                             |AB|\n"
             "00000032\n")
    assert detect(xxd) == "xxd" and undump(xxd) == b"Hello, world! This"
    assert detect(canon) == "canonical" and undump(canon) == bytes(48) + b"AB"
    assert undump("48656c6c6f2c20776f726c64\n") == b"Hello, world"


@pytest.mark.parametrize(("text", "line", "column", "words"), [
    ("this is not a dump\n", 1, 1, "no dump line found"),
    ("0000 E4D9C2C8 00000040 F0F10001 000000A0 *URBH*\n"
     "0010 00000001 BB680AG2 C1C27F60 115C0000 *....*\n"
     "0020 D9C5D7E3 D6D94040 00000000 00000000 *REPTOR*\n", 2, 15, "'BB680AG2' is not a hex word"),
    ("0000 E4D9C2C8 00000040 F0F10001 000000A0\n"
     "0020 D9C5D7E3 D6D94040 00000000 00000000\n", 2, 1, "lines are missing"),
    ("00000000: 4865 6c6c\n00000010: zz\n", 2, 11, "'zz' is not hex"),
])
def test_bad_text_names_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(UndumpError) as e:
        undump(text)
    assert (e.value.line, e.value.column) == (line, column)
    assert words in str(e.value)
