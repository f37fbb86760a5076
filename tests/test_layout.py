"""The DSECT machinery: one declaration -> fast path, interpreted parse, spans, builder."""

from __future__ import annotations

import pytest
from construct import this
from hypothesis import given
from hypothesis import strategies as st

from mqtool.errors import BuildError, DecodeError
from mqtool.layout import Hex, Inferred, Means, Reserved, Unknown, Variant, dsect
from mqtool.model import HEXINT, RESERVED, STCK, TEXT
from mqtool.tod import Tod

# URBH of the seed's close-destination reply (seed 001, msg X'0000'-X'003F')
REPLY_URBH = bytes.fromhex(
    "E4D9C2C8 00000040 F0F10001 000000C0 00000001 BB680AF2 C1C27F60 115C0000"
    "D9C5D7E3 D6D94040" + "00" * 24
)


def header(v: Variant):  # type: ignore[no-untyped-def]
    return dsect(
        "URBH",
        "urbheye" / v.eye("URBH"),
        "urbhlen" / v.S4,
        "urbhvers" / v.text(2),
        "urbhbord" / v.S2,
        "urbhlent" / v.U4,
        "urbhmsnr" / v.U4,
        "urbhtime" / v.stck(),
        "urbhrpid" / Means(v.U2, {4444: "test server"}),
        "urbhrpni" / v.U2,
        "urbhname" / v.text(8),
        "reserved" / Reserved(24),
    )


BE = header(Variant(True, "cp037"))
LE = header(Variant(False, "latin-1"))


def test_static_offsets_and_size() -> None:
    assert BE.size == 64
    assert [BE.offset_of(n) for n in ("urbhlent", "urbhtime", "urbhname", "reserved")] == [12, 20, 32, 40]


def test_parse_gives_spans_with_absolute_offsets() -> None:
    el = BE.parse(b"\xff" * 16 + REPLY_URBH, 16)
    spans = {s.name: s for s in el.spans}
    assert (spans["urbhlent"].start, spans["urbhlent"].end, spans["urbhlent"].value) == (28, 32, 192)
    assert spans["urbhname"].value == "REPTOR" and spans["urbhname"].kind == TEXT
    assert spans["urbhname"].raw == bytes.fromhex("D9C5D7E3D6D94040")
    assert spans["urbhtime"].kind == STCK and spans["urbhtime"].value == Tod(0xBB680AF2C1C27F60)
    assert spans["urbhrpid"].meaning == "test server"
    assert spans["reserved"].kind == RESERVED
    assert el.length == 64 and el.spans[0].path == "urbh.urbheye"


def test_fast_values_equal_interpreted_parse() -> None:
    fast = BE.values(REPLY_URBH)
    slow = BE.struct.parse(REPLY_URBH)
    for f in BE.fields:
        assert fast[f.name] == slow[f.name], f.name


def test_build_is_byte_exact() -> None:
    assert BE.build(BE.parse(REPLY_URBH).fields) == REPLY_URBH


def test_build_defaults_blank_and_zero() -> None:
    out = LE.build({"urbhlen": 64, "urbhvers": "01", "urbhbord": 1, "urbhname": "Admin"})
    assert out[:12] == bytes.fromhex("55524248 40000000 30310100")
    assert out[32:40] == b"Admin   " and out[40:] == bytes(24)


def test_truncated_input_keeps_the_partial_element() -> None:
    with pytest.raises(DecodeError) as e:
        BE.parse(REPLY_URBH[:30])
    err = e.value
    assert (err.path, err.offset) == ("urbh.urbhrpni", 30)
    assert [s.name for s in err.partial.spans][-1] == "urbhrpid"


def test_wrong_eyecatcher_names_field_and_offset() -> None:
    with pytest.raises(DecodeError) as e:
        BE.parse(b"URBX" + REPLY_URBH[4:])
    assert e.value.path == "urbh.urbheye" and e.value.offset == 0
    assert "is not 'URBH'" in str(e.value)


@pytest.mark.parametrize(("values", "field", "words"), [
    ({"urbhname": "TOOLONGNAME"}, "urbhname", "the field holds 8"),
    ({"urbhrpid": 70000}, "urbhrpid", "0..65535"),
    ({"urbhlen": -(2**40)}, "urbhlen", "4-byte signed"),
    ({"urbhtime": "yesterday"}, "urbhtime", "16 hex digits"),
    ({"urbhname": "€"}, "urbhname", "lacks"),
])
def test_builder_refuses_values_that_do_not_fit(values: dict, field: str, words: str) -> None:
    with pytest.raises(BuildError) as e:
        BE.build(values)
    assert e.value.path == field and words in str(e.value)


def test_variable_layout_spans() -> None:
    v = Variant(False, "latin-1")
    rec = dsect("REC", "n" / v.U4, "name" / v.text(this.n), "flag" / Inferred(v.hexint(1)),
                "unk_0c" / Unknown(v.U4), "blob" / Hex(2))
    data = bytes.fromhex("05000000") + b"HELLO" + b"\x09" + bytes(4) + b"\xab\xcd"
    el = rec.parse(data)
    assert rec.size is None
    assert [(s.name, s.start, s.end, s.value) for s in el.spans] == [
        ("n", 0, 4, 5), ("name", 4, 9, "HELLO"), ("flag", 9, 10, 9), ("unk_0c", 10, 14, 0),
        ("blob", 14, 16, b"\xab\xcd")]
    assert el.spans[2].note == "inferred" and el.spans[2].kind == HEXINT
    assert el.spans[3].note == "unknown"
    assert rec.build(el.fields) == data


def test_variable_layout_truncated() -> None:
    v = Variant(False, "latin-1")
    rec = dsect("REC", "n" / v.U4, "name" / v.text(this.n))
    with pytest.raises(DecodeError) as e:
        rec.parse(bytes.fromhex("05000000") + b"HEL")
    assert (e.value.path, e.value.offset) == ("rec.name", 4)


def test_text_keeps_nul_and_trims_blank_only() -> None:
    v = Variant(True, "cp037")
    rec = dsect("T", "t" / v.text(4))
    assert rec.values(b"\xc1\x00\x40\x40")["t"] == "A\x00"
    assert rec.build({"t": "A\x00"}) == b"\xc1\x00\x40\x40"


@given(st.binary(min_size=64, max_size=64))
def test_any_64_bytes_round_trip(data: bytes) -> None:
    data = b"URBH" + data[4:]
    el = LE.parse(data)
    assert LE.build(el.all_values) == data
    assert LE.build(el.fields) == data[:40] + bytes(24)  # fields (JSON) leave fillers zero


def _interpreted(layout, data: bytes):  # type: ignore[no-untyped-def]
    """The same element decoded by construct's interpreted parser (the slow path)."""
    from mqtool.model import Element

    el = Element(layout.name, 0, 0)
    layout._parse_interpreted(el, data, 0, len(data), layout.name.lower(), "")
    return el


@given(st.binary(min_size=64, max_size=64), st.booleans())
def test_generated_fast_path_equals_interpreted_parse(data: bytes, big: bool) -> None:
    """The compiled span builder and construct's interpreted parse agree on every field:
    path, offsets, value, meaning, kind, note and raw bytes."""
    layout = BE if big else LE
    data = (b"\xe4\xd9\xc2\xc8" if big else b"URBH") + data[4:]
    assert layout.parse(data).spans == _interpreted(layout, data).spans


def test_generated_fast_path_for_every_urb_layout() -> None:
    import random

    from mqtool.formats.urb import layout as urb_layout

    rng = random.Random(7)
    layouts = [getattr(urb_layout, n) for n in dir(urb_layout) if n.startswith("_urb")]
    checked = 0
    for factory in layouts:
        for v in (Variant(True, "cp037"), Variant(False, "latin-1")):
            try:
                layout = factory(v)
            except TypeError:
                continue
            if not hasattr(layout, "size") or layout.size is None:
                continue
            for _ in range(20):
                data = bytes(rng.randrange(256) for _ in range(layout.size))
                for i, expected in layout._eyes:
                    f = layout.fields[i]
                    data = data[:f.start] + expected.encode(f.con.codec) + data[f.start + f.size:]
                assert layout.parse(data).spans == _interpreted(layout, data).spans, layout.name
            checked += 1
    assert checked >= 10
