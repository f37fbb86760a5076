"""URB decoding: element walks of all 15 seed dumps, JSON shape, variants, the elements the
seed does not show (URBT 128, URBC, URBU, URBF/URBG, URBSU), meanings, consistency checks,
detection, and bad input (partial result + one located error, never an exception)."""

from __future__ import annotations

import json

import pytest
from construct import Container
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.formats.urb.decode import decode, detect
from mqtool.formats.urb.layout import FORMAT, layouts
from mqtool.model import Decoded, tree_faults
from mqtool.render.listing import unit_lines
from mqtool.tod import Tod
from tests.helpers import TESTDATA, seed_bytes

DUMPS = sorted(str(p.relative_to(TESTDATA / "urb")).removesuffix(".dump")
               for p in [*(TESTDATA / "urb").glob("*.dump"), *(TESTDATA / "urb").glob("synthetic/*.dump")]
               if "urbddata" not in p.name)

# spec urb.md §9.5: code page, byte order, urbhlent, urbhmsnr, elements (type, offset, length)
S = [("URBS", 0x40, 128)]
I96 = [("URBI", 0x40, 96)]
CHAINS = {
    "close-destination.request": ("cp037", "big", 160, 16, I96),
    "close-destination.reply": ("cp037", "big", 192, 1, S),
    "inst-color.request": ("cp037", "big", 160, 0, I96),
    "inst-color.init": ("cp037", "big", 192, 103, S),
    "inst-color.data": ("cp037", "big", 592, 105, [
        ("URBT", 0x40, 112), ("URBR", 0xB0, 64), ("URBD", 0xF0, 64), ("URBR", 0x130, 64),
        ("URBD", 0x170, 64), ("URBR", 0x1B0, 64), ("URBD", 0x1F0, 64), ("URBE", 0x230, 32)]),
    "inst-color.cmpl": ("cp037", "big", 192, 106, S),
    "inst-color.erro": ("cp037", "big", 192, 108, S),
    "inst-employee.request": ("latin-1", "little", 176, 0, [("URBI", 0x40, 112)]),
    "inst-employee.init": ("latin-1", "little", 192, 8, S),
    "inst-employee.data": ("latin-1", "little", 656, 9, [
        ("URBT", 0x40, 112), ("URBR", 0xB0, 64), ("URBD", 0xF0, 160), ("URBR", 0x190, 64),
        ("URBD", 0x1D0, 160), ("URBE", 0x270, 32)]),
    "inst-employee.cmpl": ("latin-1", "little", 192, 10, S),
    "synthetic/inst-isnlist.request": ("cp037", "big", 184, 0, [("URBI", 0x40, 120), ("ISNLIST", 0xA0, 24)]),
    "prior-transaction.request": ("cp037", "big", 160, 0, I96),
    "prior-transaction.reply": ("cp037", "big", 192, 4, S),
    "status.request": ("cp037", "big", 160, 0, I96),
    "status.reply": ("cp037", "big", 192, 4, S),
}


def urb_json(unit: Decoded) -> dict:
    return json.loads(json.dumps(unit.to_json()))


def one(data: bytes, **kw: object) -> Decoded:
    units = list(decode(data, **kw))
    assert len(units) == 1
    return units[0]


def fields(unit: Decoded, k: int) -> dict:
    return unit.elements[k].fields


@pytest.mark.parametrize("name", DUMPS)
def test_element_walk_of_every_seed_dump(name: str) -> None:
    cp, order, lent, msnr, chain = CHAINS[name]
    data = seed_bytes(f"urb/{name}.dump")
    unit = one(data)
    assert len(data) == lent
    assert (unit.offset, unit.length, unit.attrs) == (0, lent, {"codepage": cp, "byte_order": order})
    assert fields(unit, 0)["urbhlent"] == lent and fields(unit, 0)["urbhmsnr"] == msnr
    assert [(e.type, e.offset, e.length) for e in list(unit.walk())[1:]] == chain
    assert tree_faults(unit.elements) == []
    last = unit.elements[-1]
    assert last.offset + last.length == lent  # the walk ends exactly at urbhlent
    assert unit.errors == []
    if name == "prior-transaction.request":  # the seed's 'TRAM' (§9.8.1) is flagged
        assert [p.path for p in unit.problems] == ["urbi[0].urbirt"]
    else:
        assert unit.problems == []


def test_all_seed_messages_back_to_back() -> None:
    blobs = [seed_bytes(f"urb/{n}.dump") for n in DUMPS]
    units = list(decode(b"".join(blobs)))
    assert [u.length for u in units] == [len(b) for b in blobs]
    assert [u.offset for u in units] == [sum(map(len, blobs[:k])) for k in range(len(blobs))]
    assert [u.attrs["byte_order"] for u in units] == [CHAINS[n][1] for n in DUMPS]
    assert all(not u.errors for u in units)


def test_json_shape_of_the_close_destination_reply() -> None:
    unit = one(seed_bytes("urb/close-destination.reply.dump"))
    d = json.loads(json.dumps(unit.to_json()))
    assert {k: d[k] for k in ("format", "offset", "length", "codepage", "byte_order")} == {
        "format": "urb", "offset": 0, "length": 192, "codepage": "cp037", "byte_order": "big"}
    assert d["errors"] == [] and d["problems"] == []
    h, s = d["elements"]
    assert (h["type"], h["offset"], h["length"]) == ("URBH", 0, 64)
    assert h["fields"] == {
        "urbheye": "URBH", "urbhlen": 64, "urbhvers": "01", "urbhbord": 1, "urbhlent": 192,
        "urbhmsnr": 1, "urbhtime": "2004-06-22T10:22:34.789927Z", "urbhtime_hex": "BB680AF2C1C27F60",
        "urbhrpid": 4444, "urbhrpni": 0, "urbhname": "REPTOR"}  # urbhres (reserved) omitted
    f = s["fields"]
    assert f["urbsst"] == "CLOS" and s["meanings"]["urbsst"] == "Destination closed"
    assert f["urbsdnam"] == "BROUT2" and f["urbserri"] == ""  # trimmed of X'40' only
    assert f["urbsptim"] is None and f["urbsptim_hex"] == "0000000000000000"
    assert f["urbsiqnm"] == "\x00" * 8  # NUL kept (CONTRACTS: build --from is byte-exact)
    assert f["urbslenh"] == 128 and f["urbsorig"] == ""
    assert "urbsres1" not in f and "data" not in s


def test_json_of_the_little_endian_data_message() -> None:
    unit = one(seed_bytes("urb/inst-employee.data.dump"))
    t = unit.elements[1].fields
    # not swapped: the same big-endian layout as the EBCDIC message's GUID (§3.2)
    assert t["urbtguid"] == bytes.fromhex("1111111133333333BB7DBAB2889A9A02000000002717000000090000")
    j = unit.to_json()["elements"]  # type: ignore[index]
    assert j[1]["fields"]["urbtguid"] == "1111111133333333BB7DBAB2889A9A02000000002717000000090000"
    t = j[1]["fields"]
    assert (t["urbtarc"], t["urbtacod"], t["urbtwcod"]) == (9, 819, 4091)
    assert j[1]["meanings"]["urbtarc"] == "low-order byte first, ASCII, IEEE float"
    assert j[1]["fields"]["urbtptrn"] == "\x00"
    img = bytes.fromhex(j[3]["data"])
    assert img == seed_bytes("urb/inst-employee.data.urbddata-1.dump")
    assert bytes.fromhex(j[5]["data"]) == seed_bytes("urb/inst-employee.data.urbddata-2.dump")
    assert (j[4]["fields"]["urbrisn"], j[4]["fields"]["urbrfnr"]) == (603, 9)


def test_employee_request_with_selection_data() -> None:
    """Spec §9.4: ASCII, little-endian, 16 bytes of selection data after the URBI."""
    unit = one(seed_bytes("urb/inst-employee.request.dump"))
    i = unit.elements[1]
    assert {k: i.fields[k] for k in ("urbilen", "urbilenh", "urbilend", "urbirtok", "urbirnam",
                                      "urbirt", "urbidbid", "urbifnr", "urbiinam", "urbiacod",
                                      "urbiwcod", "urbiarc", "urbitsnr")} == {
        "urbilen": 112, "urbilenh": 96, "urbilend": 16, "urbirtok": "EMPLTOKN", "urbirnam": "OUT2",
        "urbirt": "INST", "urbidbid": 10006, "urbifnr": 9, "urbiinam": "IEMPLAA",
        "urbiacod": 819, "urbiwcod": 4091, "urbiarc": 9, "urbitsnr": 0}
    assert (i.data, i.data_offset, i.data_name) == (b"2001100020011100", 0xA0, "urbidata")
    text = "\n".join(unit_lines(unit))
    assert "  urbidata (16 bytes):\n    0000 32303031 31303030 32303031 31313030 *2001100020011100*" in text
    assert "urbiarc  = X'09'  low-order byte first, ASCII, IEEE float" in text


def test_isn_list_after_an_inst_urbi() -> None:
    """Spec §9.7 (synthetic): 602, 603, [700-710], 900 after the URBI, EBCDIC big-endian."""
    unit = one(seed_bytes("urb/synthetic/inst-isnlist.request.dump"))
    (_urbh, urbi), (isns,) = unit.elements, unit.elements[1].children  # the ISN list under its URBI
    assert (urbi.fields["urbilen"], urbi.fields["urbilend"]) == (120, 24)
    hexed = "0000025A0000025BFFFFFFFF000002BC000002C600000384"
    assert urbi.data == bytes.fromhex(hexed) and not urbi.shows_data  # the ISN list shows it
    assert urb_json(unit)["elements"][1]["data"] == hexed
    assert isns.extra["fields"] == {"isns": [602, 603, [700, 710], 900]}
    assert [(s.path, s.start, s.value) for s in isns.spans] == [
        ("urbi[0].isn[0].urbiisn", 0xA0, 602), ("urbi[0].isn[1].urbiisn", 0xA4, 603),
        ("urbi[0].isn[2].urbiirange", 0xA8, 0xFFFFFFFF), ("urbi[0].isn[2].urbiisn1", 0xAC, 700),
        ("urbi[0].isn[2].urbiisn2", 0xB0, 710), ("urbi[0].isn[3].urbiisn", 0xB4, 900)]
    assert isns.spans[2].meaning == "range"
    as_selection = one(seed_bytes("urb/synthetic/inst-isnlist.request.dump"), urbi_data="selection")
    sel = as_selection.elements[1]
    assert len(as_selection.elements) == 2 and not sel.children and sel.data == bytes.fromhex(hexed)
    assert sel.shows_data


def test_selection_data_is_not_taken_for_an_isn_list() -> None:
    """'2001100020011100' would parse as four fullwords; it is text, so it is selection data."""
    unit = one(seed_bytes("urb/inst-employee.request.dump"))
    assert [e.type for e in unit.elements] == ["URBH", "URBI"]
    forced = one(seed_bytes("urb/inst-employee.request.dump"), urbi_data="isn")
    assert forced.elements[1].children[0].extra["fields"] == {
        "isns": [0x31303032, 0x30303031, 0x31303032, 0x30303131]}


@pytest.mark.parametrize(("name", "field", "raw", "iso"), [
    ("close-destination.reply", "urbhtime", 0xBB680AF2C1C27F60, "2004-06-22T10:22:34.789927Z"),
    ("inst-employee.init", "urbhtime", 0xBB7DBAB2888CCE42, "2004-07-09T16:20:41.098444Z"),
    ("close-destination.reply", "urbstime", 0xBB680AF2C1C18060, "2004-06-22T10:22:34.789912Z"),
    ("status.reply", "urbsptim", 0xBB680A7E1AF84B02, "2004-06-22T10:20:32.471940Z"),
    ("status.reply", "urbsttim", 0xBB680A7DF767EE02, "2004-06-22T10:20:32.326270Z"),
    ("inst-color.init", "urbhtime", 0xBB57F5D29C176D82, "2004-06-09T15:22:52.308854Z"),
    ("inst-employee.data", "urbhtime", 0xBB7DBAB2B8233280, "2004-07-09T16:20:41.293363Z"),
    ("inst-color.init", "urbsptim", 0, None),
])
def test_stck_vectors(name: str, field: str, raw: int, iso: str | None) -> None:
    """Spec §9.6; little-endian STCKs are byte-swapped like every binary field (vector 2)."""
    unit = one(seed_bytes(f"urb/{name}.dump"))
    tod = next(s.value for s in unit.spans() if s.name == field)
    assert isinstance(tod, Tod) and tod.raw == raw and tod.iso() == iso
    if name == "inst-employee.init" and field == "urbhtime":
        assert tod.micros == 3_298_378_841_098_444
        assert seed_bytes(f"urb/{name}.dump")[0x14:0x1C] == bytes.fromhex("42CE8C88B2BA7DBB")


ALL_LAYOUTS = ("URBH", "URBI", "ISN", "ISNRANGE", "URBS", "URBSU", "URBT", "URBT112", "URBR", "URBD",
               "URBE", "URBC", "URBU", "URBF", "URBG", "ELEMENT")
VARIANTS = [(True, "cp037"), (False, "cp037"), (True, "latin-1"), (False, "latin-1")]


@pytest.mark.parametrize(("big", "cp"), VARIANTS)
@settings(max_examples=20, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(min_size=128, max_size=128))
def test_fast_path_equals_interpreted_parse(big: bool, cp: str, blob: bytes) -> None:
    lay = layouts(big, cp)
    for name in ALL_LAYOUTS:
        layout = getattr(lay, name)
        fast = layout.values(blob)
        slow = layout.struct.parse(blob)
        assert isinstance(slow, Container)
        for f in layout.fields:
            assert fast[f.name] == slow[f.name], (name, f.name)


def test_declared_sizes_and_offsets() -> None:
    lay = layouts()
    assert {n: getattr(lay, n).size for n in ALL_LAYOUTS} == {
        "URBH": 64, "URBI": 96, "ISN": 4, "ISNRANGE": 12, "URBS": 128, "URBSU": 32, "URBT": 128,
        "URBT112": 112, "URBR": 64, "URBD": 32, "URBE": 32, "URBC": 48, "URBU": 80, "URBF": 112,
        "URBG": 64, "ELEMENT": 8}
    offsets = {("URBI", "urbiarc"): 0x48, ("URBI", "urbitsnr"): 0x4C, ("URBS", "urbsptim"): 0x48,
               ("URBS", "urbsiqnm"): 0x70, ("URBT", "urbtguid"): 0x2C, ("URBT", "urbtarc"): 0x59,
               ("URBT", "urbtsuid"): 0x68, ("URBR", "urbruc"): 0x2D, ("URBU", "urbutime"): 0x12,
               ("URBF", "urbftim2"): 0x54, ("URBG", "urbgfnam"): 0x16, ("URBC", "urbccont"): 0x1C}
    assert {k: getattr(lay, k[0]).offset_of(k[1]) for k in offsets} == offsets


# --------------------------------------------------------------------------- synthetic messages


def message(*elements: bytes, big: bool = True, cp: str = "cp037", msnr: int = 7) -> bytes:
    body = b"".join(elements)
    head = layouts(big, cp).URBH.build({"urbhlen": 64, "urbhvers": "01", "urbhbord": 1,
                                        "urbhlent": 64 + len(body), "urbhmsnr": msnr,
                                        "urbhname": "REPTOR"})
    return head + body


def reencode(unit: Decoded, data: bytes, big: bool, cp: str) -> bytes:
    """The same message in another variant, element by element from the decoded values."""
    lay = layouts(big, cp)
    out = []
    for el in unit.elements:
        if el.type == "ISNLIST":
            continue
        layout = getattr(lay, "URBT112" if el.type == "URBT" and el.length == 112 else el.type)
        fixed = layout.build(el.all_values)
        tail = data[el.offset + len(fixed):el.offset + el.length]
        out.append(fixed + tail)
    return b"".join(out)


@pytest.mark.parametrize(("big", "cp"), VARIANTS)
@pytest.mark.parametrize("name", ["inst-color.data", "inst-employee.data", "status.reply"])
def test_four_variants_decode_alike(name: str, big: bool, cp: str) -> None:
    """EBCDIC/ASCII and big/little-endian are independent (§3.1): the mixed ones decode too."""
    data = seed_bytes(f"urb/{name}.dump")
    unit = one(data)
    other = reencode(unit, data, big, cp)
    again = one(other)
    assert again.attrs == {"codepage": cp, "byte_order": "big" if big else "little"}
    assert [e.fields for e in again.elements] == [e.fields for e in unit.elements]
    assert [e.data for e in again.elements] == [e.data for e in unit.elements]
    assert not again.errors and not again.problems


def test_urbt_of_128_bytes() -> None:
    """Later releases send a 128-byte URBT; the walk follows urbtlen."""
    data = bytearray(seed_bytes("urb/inst-color.data.dump"))
    data[0xB0:0xB0] = bytes(16)
    data[0x44:0x48] = (128).to_bytes(4, "big")
    data[0x0C:0x10] = (592 + 16).to_bytes(4, "big")
    unit = one(bytes(data))
    assert [(e.type, e.offset, e.length) for e in unit.elements[1:3]] == [("URBT", 0x40, 128),
                                                                          ("URBR", 0xC0, 64)]
    assert not unit.errors and not unit.problems
    assert "urbtres2" not in unit.elements[1].fields
    assert unit.elements[1].fields["urbtrtok"] == "TOKEN1"


def test_urbt_of_another_length_is_reported_and_walked() -> None:
    data = bytearray(seed_bytes("urb/inst-color.data.dump"))
    data[0xB0:0xB0] = bytes(8)
    data[0x44:0x48] = (120).to_bytes(4, "big")
    data[0x0C:0x10] = (600).to_bytes(4, "big")
    unit = one(bytes(data))
    assert not unit.errors
    assert [(p.path, p.offset) for p in unit.problems] == [("urbt[0].urbtlen", 0x44),
                                                           ("urbt[0].urbtlen", 0xB0)]
    assert unit.elements[1].data == bytes(8) and unit.elements[2].offset == 0xB8


def test_continuation_extract_header_and_format_table() -> None:
    lay = layouts()
    urbc = lay.URBC.build({"urbclen": 48, "urbcsnam": "COLOR", "urbctsnr": 5, "urbcrsnr": 2,
                           "urbcdsnr": 1, "urbccont": "Y"})
    urbu = lay.URBU.build({"urbulen": 80, "urbuvers": "01", "urbuname": "EXTRACT1",
                           "urbutime": Tod(0xBB57F5D29C176D82), "urbudist": "2004-06-09 17:22:52"})
    g = [lay.URBG.build({"urbgidx": k, "urbgfid": f, "urbgffmt": fmt, "urbgtype": t, "urbgflen": n,
                         "urbgfnml": len(long), "urbgfnam": long})
         for k, (f, fmt, t, n, long) in enumerate([("AA", 1, 0x70, 8, "PERSONNEL-ID"),
                                                  ("AE", 1, 0x20, 20, "NAME")])]
    urbf = lay.URBF.build({"urbflen": 112 + 128, "urbflenh": 112, "urbflend": 128, "urbfvers": "01",
                           "urbfflag": 0x11, "urbfgfid": "EMPLTEL", "urbfdbid": 10006, "urbffnr": 9,
                           "urbffnml": 9, "urbffnam": "EMPLOYEES", "urbfcntg": 2, "urbfleng": 64})
    unit = one(message(urbc, urbu, urbf, *g))
    assert [(e.type, e.offset, e.length) for e in unit.elements[1:]] == [
        ("URBC", 64, 48), ("URBU", 112, 80), ("URBF", 192, 240)]
    assert not unit.errors and not unit.problems and tree_faults(unit.elements) == []
    c, u, f = unit.elements[1:]
    g0, g1 = f.children  # the URBGs under their URBF
    assert [(e.type, e.offset, e.length) for e in f.children] == [("URBG", 304, 64), ("URBG", 368, 64)]
    assert f.data == b"".join(g) and not f.shows_data and g0.title == "URBG 0 at offset X'0130'"
    assert c.fields["urbccont"] == "Y" and c.spans[6].meaning == "continues in the next message"
    assert u.fields["urbutime"] == Tod(0xBB57F5D29C176D82) and u.fields["urbuname"] == "EXTRACT1"
    meanings = {s.name: s.meaning for s in f.spans if s.meaning}
    assert meanings == {"urbfflag": "created by the mapping tool, optimized"}
    assert (g0.fields["urbgfnam"], g0.spans[2].meaning, g0.spans[3].meaning) == (
        "PERSONNEL-ID", "A", "primary key, descriptor, unique descriptor")
    assert g1.spans[0].path == "urbf[0].urbg[1].urbgidx" and g1.fields["urbgflen"] == 20


def test_utility_status_with_urbsu_detail() -> None:
    lay = layouts()
    su = lay.URBSU.build({"urbsueye": "URBSU", "urbsutyp": 0x4B}) + "NEWNAME".ljust(16).encode("cp037")
    urbs = lay.URBS.build({"urbslen": 128 + 48, "urbsst": "AUTI", "urbslenh": 128, "urbslend": 48,
                           "urbsttim": Tod(0xBB680A7DF767EE02)})
    unit = one(message(urbs + su))
    (s,) = unit.elements[1:]
    (u,) = s.children  # the URBSU under its URBS, its detail under it
    (d,) = u.children
    assert s.fields["urbsst"] == "AUTI" and s.data == su
    assert urb_json(unit)["elements"][1]["data"] == su.hex().upper()
    assert (u.type, u.offset, u.length, u.fields["urbsutyp"], u.spans[1].meaning) == (
        "URBSU", 192, 48, 0x4B, "rename file")
    assert u.data is None and (d.type, d.offset, d.fields) == ("URBSUD", 224, {"urbsunnam": "NEWNAME"})
    assert d.title == "URBSU function detail (X'4B' rename file) at offset X'00E0'"
    assert tree_faults(unit.elements) == []


@pytest.mark.parametrize(("rsp", "subc", "meaning"), [
    (131, 12, "INITIALSTATE DBID/FNR definition not found as requested in URBI"),
    (131, 16, "ISN list violates the ISN list rules"),
    (131, 200, "unknown subcode"),
    (148, 12, ""),  # a subcode text only with response 131
    (0, 0, ""),
])
def test_subcode_text_only_for_response_131(rsp: int, subc: int, meaning: str) -> None:
    lay = layouts()
    urbs = lay.URBS.build({"urbslen": 128, "urbsst": "ERRO", "urbsrsp": rsp, "urbssubc": subc})
    urbr = lay.URBR.build({"urbrlen": 64, "urbrtyp": "U", "urbrrsp": rsp, "urbrsubc": subc})
    unit = one(message(urbs, urbr))
    assert [s.meaning for s in unit.elements[1].spans if s.name == "urbssubc"] == [meaning]
    assert [s.meaning for s in unit.elements[2].spans if s.name == "urbrsubc"] == [meaning]


def test_status_codes_record_and_image_types_and_flags() -> None:
    lay = layouts(False, "latin-1")
    urbt = lay.URBT.build({"urbtlen": 128, "urbtsnam": "S1", "urbtrcnt": 1, "urbtrsnd": "Y",
                           "urbtcont": "Y", "urbtptrn": "Y", "urbtsort": "N", "urbtorig": "R",
                           "urbtarc": 2, "urbtacod": 37})
    urbr = lay.URBR.build({"urbrlen": 64, "urbrdcnt": 2, "urbrtyp": "D", "urbrrsnd": "Y",
                           "urbrdcu": "Y", "urbruc": "I"})
    d1 = lay.URBD.build({"urbdlen": 36, "urbdlenh": 32, "urbdlend": 4, "urbdtyp": "B"})
    d1 += b"\xc1\xc2\xc3\xc4"
    d2 = lay.URBD.build({"urbdlen": 32, "urbdlenh": 32, "urbdtyp": "K"})
    unit = one(message(urbt, urbr, d1, d2, big=False, cp="latin-1"))
    m = {(e.type, s.name): s.meaning for e in unit.elements[:4] for s in e.spans if s.meaning}
    assert m == {
        ("URBT", "urbtrsnd"): "data may have been sent before",
        ("URBT", "urbtcont"): "continues in the next message",
        ("URBT", "urbtarc"): "high-order byte first, EBCDIC, IBM/370 float",
        ("URBT", "urbtptrn"): "resent for a prior-transaction request",
        ("URBT", "urbtsort"): "records not sorted",
        ("URBT", "urbtacod"): "EBCDIC USA/Canada",
        ("URBT", "urbtorig"): "ADARPL replay",
        ("URBR", "urbrtyp"): "delete",
        ("URBR", "urbrrsnd"): "data may have been sent before",
        ("URBR", "urbrdcu"): "delete converted to update",
        ("URBR", "urbruc"): "update converted to insert",
        ("URBD", "urbdtyp"): "before image",
    }
    assert unit.elements[3].data_codepage == "cp037"  # urbtacod 37: the image is EBCDIC
    assert "*ABCD*" in "\n".join(unit_lines(unit))
    assert unit.elements[4].spans[5].meaning == "before image of the primary key"
    assert not unit.problems  # continued transaction: urbtrcnt is not checked


def test_record_and_image_counts_are_checked() -> None:
    data = bytearray(seed_bytes("urb/inst-color.data.dump"))
    data[0xBC:0xBE] = (2).to_bytes(2, "big")  # first URBR announces 2 URBDs, 1 follows
    data[0x54:0x58] = (4).to_bytes(4, "big")  # URBT announces 4 records, 3 follow
    unit = one(bytes(data))
    assert not unit.errors
    assert [(p.path, p.offset, p.reason) for p in unit.problems] == [
        ("urbr[0].urbrdcnt", 0xBC, "urbrdcnt says 2 URBDs, 1 follow"),
        ("urbt[0].urbtrcnt", 0x54, "urbtrcnt says 4 records, the transaction holds 3")]


def test_the_seeds_tram_is_shown_as_found_and_flagged() -> None:
    unit = one(seed_bytes("urb/prior-transaction.request.dump"))
    rt = unit.elements[1].spans[6]
    assert (rt.value, rt.raw, rt.meaning) == ("TRAM", bytes.fromhex("E3D9C1D4"), "not a request type")
    assert [(p.path, p.offset) for p in unit.problems] == [("urbi[0].urbirt", 0x60)]
    reply = one(seed_bytes("urb/prior-transaction.reply.dump"))
    assert reply.elements[1].fields["urbsrt"] == "TRAM" and reply.elements[1].fields["urbsst"] == "TRSP"
    assert reply.elements[1].fields["urbstsnr"] == 100  # the reply answers transaction 100 (§9.8.2)


def test_forced_code_page_and_byte_order() -> None:
    data = seed_bytes("urb/inst-color.init.dump")
    as500 = one(data, codepage="500")
    assert as500.attrs["codepage"] == "cp500" and as500.elements[1].fields["urbsinam"] == "ICOLOR"
    swapped = one(data, byte_order="little")
    assert swapped.attrs["byte_order"] == "little"
    assert swapped.problems[0].path == "urbh.urbhbord" and "reads 256" in swapped.problems[0].reason
    # urbhlent reads X'C0000000'; the URBS length X'80000000' = -2**31 stops the walk
    assert [(p.path, p.offset) for p in swapped.errors] == [("urbs[0].urbslen", 0x44)]
    ascii_forced = one(data, codepage="ascii")
    assert ascii_forced.errors[0].path == "urbh.urbheye" and ascii_forced.elements[0].spans


def test_headerless_elements_of_an_adarpe_extract() -> None:
    lay = layouts()
    urbu = lay.URBU.build({"urbulen": 80, "urbuvers": "01", "urbuname": "RPE1"})
    urbe = lay.URBE.build({"urbelen": 32, "urbesnam": "COLOR", "urbetsnr": 3})
    units = list(decode(urbu + urbe + seed_bytes("urb/status.reply.dump")))
    assert len(units) == 2
    assert units[0].title.startswith("URB elements without a URBH")
    assert [(e.type, e.offset) for e in units[0].elements] == [("URBU", 0), ("URBE", 80)]
    assert not units[0].errors and units[1].offset == 112 and not units[1].errors


def test_detect() -> None:
    d = detect(seed_bytes("urb/inst-employee.data.dump"))
    assert d is not None and (d.format, d.confidence) == (FORMAT, 0.95)
    assert d.options == {"codepage": "latin-1", "byte_order": "little"}
    assert "ASCII" in d.reason and "urbhlent 656" in d.reason
    assert detect(seed_bytes("urb/close-destination.reply.dump")[:100]).confidence == 0.8  # type: ignore[union-attr]
    bad = bytearray(seed_bytes("urb/status.reply.dump"))
    bad[10:12] = b"\x02\x02"
    assert detect(bytes(bad)).confidence == 0.4  # type: ignore[union-attr]
    assert detect(b"PK\x03\x04 not a message") is None
    assert detect(layouts().URBU.build({"urbulen": 80})).confidence == 0.5  # type: ignore[union-attr]


# --------------------------------------------------------------------------- bad input

COLOR = "urb/inst-color.data.dump"


def _put(data: bytes, at: int, value: bytes) -> bytes:
    b = bytearray(data)
    b[at:at + len(value)] = value
    return bytes(b)


BAD = {
    "truncated inside a URBD": (lambda d: d[:300], "urbd[0].urbdlen", 0xF4, "message truncated"),
    "truncated inside the URBH": (lambda d: d[:36], "urbh.urbhname", 0x20, "truncated"),
    "truncated between elements": (lambda d: d[:0xB0], "urbh.urbhlent", 0xB0, "message truncated"),
    "element length past urbhlent": (lambda d: _put(d, 0x234, (0x100).to_bytes(4, "big")),
                                     "urbe[0].urbelen", 0x234, "runs past the end of the message"),
    "element length zero": (lambda d: _put(d, 0xB4, bytes(4)), "urbr[0].urbrlen", 0xB4, "is zero"),
    "element length negative": (lambda d: _put(d, 0xB4, (-5).to_bytes(4, "big", signed=True)),
                                "urbr[0].urbrlen", 0xB4, "is negative"),
    "unknown eyecatcher": (lambda d: _put(d, 0xB0, bytes.fromhex("E4D9C2E7")), "unknown[0].eye", 0xB0,
                           "unknown eyecatcher X'E4D9C2E7' ('URBX'); skipped"),
    "urbhbord 0203": (lambda d: _put(d, 10, b"\x02\x03"), "urbh.urbhbord", 10,
                      "neither X'0001' (big-endian) nor X'0100'"),
    "not a URB message": (lambda d: b"\x00" * 16 + d, "urbh.urbheye", 0, "not a URB message"),
    "urbhlent below 64": (lambda d: _put(d, 12, (10).to_bytes(4, "big")), "urbh.urbhlent", 12, "shorter"),
    "urbdlend past urbdlen": (lambda d: _put(d, 0xFC, (40).to_bytes(4, "big")), "urbd[0].urbdlend", 0xFC,
                              "does not fit"),
    "trailing junk": (lambda d: d + b"junk", "urbh.urbheye", 592, "the 4 bytes after the last message"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_keeps_the_partial_result_and_locates_the_error(case: str) -> None:
    mutate, path, offset, words = BAD[case]
    units = list(decode(mutate(seed_bytes(COLOR))))
    errors = [p for u in units for p in u.errors]
    assert len(errors) == 1, errors
    assert (errors[0].path, errors[0].offset) == (path, offset)
    assert words in errors[0].reason
    assert units[0].elements  # the partial listing


def test_unknown_element_is_shown_raw_and_the_walk_goes_on() -> None:
    unit = one(_put(seed_bytes(COLOR), 0xB0, bytes.fromhex("E4D9C2E7")))
    raw = unit.elements[2]
    assert (raw.type, raw.offset, raw.length) == ("UNKNOWN", 0xB0, 64)
    assert raw.title == "unknown element X'E4D9C2E7' ('URBX') at offset X'00B0'"
    assert raw.fields == {"eye": bytes.fromhex("E4D9C2E7"), "len": 64}
    assert raw.data == seed_bytes(COLOR)[0xB8:0xF0]
    assert [e.type for e in unit.elements][-1] == "URBE"


def _mutations() -> st.SearchStrategy[bytes]:
    seeds = [seed_bytes(f"urb/{n}.dump") for n in DUMPS]

    @st.composite
    def mutate(draw: st.DrawFn) -> bytes:
        data = bytearray(draw(st.sampled_from(seeds)))
        for _ in range(draw(st.integers(1, 6))):
            at = draw(st.integers(0, len(data) - 1))
            data[at] = draw(st.integers(0, 255))
        cut = draw(st.integers(0, len(data)))
        return bytes(data[:cut]) if draw(st.booleans()) else bytes(data)

    return mutate()


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=700), _mutations()))
def test_hostile_input_never_raises(data: bytes) -> None:
    units = list(decode(data))
    for u in units:
        assert tree_faults(u.elements) == []  # nested elements inside their parents, apart
        for s in u.spans():
            assert 0 <= s.start <= s.end <= len(data)
        for p in u.errors + u.problems:
            assert isinstance(p.offset, int) and p.reason
        json.dumps(u.to_json())
        list(unit_lines(u))
    assert sum(u.length for u in units) <= len(data)


def test_leap_seconds_show_times_earlier_and_keep_the_raw_value() -> None:
    data = seed_bytes("urb/status.reply.dump")
    plain, leap = next(decode(data)).to_json(), next(decode(data, leap_seconds=27)).to_json()
    assert leap["leap_seconds"] == 27 and "leap_seconds" not in plain
    h0, h1 = plain["elements"][0]["fields"], leap["elements"][0]["fields"]  # type: ignore[index]
    assert (h0["urbhtime"], h1["urbhtime"]) == ("2004-06-22T10:22:34.789927Z", "2004-06-22T10:22:07.789927Z")
    assert h0["urbhtime_hex"] == h1["urbhtime_hex"] == data[0x14:0x1C].hex().upper()
    with pytest.raises(ValueError, match="leap seconds"):
        next(decode(data, leap_seconds=61))


@pytest.mark.parametrize(("utyp", "values", "shown"), [
    (0x41, {"urbsufnm": "AA", "urbsuflen": 20}, {"urbsufnm": "AA", "urbsuflen": 20}),
    (0x44, {"urbsusts": "S", "urbsuafnr": 7}, {"urbsusts": "S", "urbsuafnr": 7}),
    (0x78, {"urbsumupx": 2}, {"urbsumupx": 2}),
])
def test_urbsu_function_details_after_the_header(utyp: int, values: dict, shown: dict) -> None:
    """§4.4.1: an AUTI status's urbsdata is a 32-byte URBSU, then the function's detail."""
    from mqtool.formats.urb.build import build
    from mqtool.formats.urb.compose import build_message, from_decoded

    lay = layouts()
    body = lay.URBSU.build({"urbsueye": "URBSU", "urbsutyp": utyp}) + lay.URBSUD[utyp].build(values)
    desc = {"codepage": "cp037", "elements": [
        {"type": "URBH", "fields": {}}, {"type": "URBS", "fields": {"urbsst": "AUTI"}, "data": body.hex()}]}
    data = build_message(from_decoded(desc))
    unit = one(data)
    assert not unit.errors and not unit.problems
    assert [e.type for e in unit.walk()] == ["URBH", "URBS", "URBSU", "URBSUD"]
    d = unit.elements[1].children[0].children[0]
    assert d.offset == 64 + 128 + 32 and d.fields == shown
    assert all(s.note == "inferred" for s in d.spans if s.kind != "reserved")
    assert f"X'{utyp:02X}'" in d.title
    assert build(json.loads(json.dumps(unit.to_json()))) == data


def test_urbsu_without_a_declared_detail_keeps_the_bytes() -> None:
    from mqtool.formats.urb.compose import build_message, from_decoded

    body = layouts().URBSU.build({"urbsueye": "URBSU", "urbsutyp": 0x48}) + b"\x01\x02\x03"
    data = build_message(from_decoded({"elements": [{"type": "URBH", "fields": {}}, {
        "type": "URBS", "fields": {"urbsst": "AUTI"}, "data": body.hex()}]}))
    su = one(data).elements[1].children[0]
    assert (su.type, su.data, su.data_name, su.length) == ("URBSU", b"\x01\x02\x03", "detail", 35)
