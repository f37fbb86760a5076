"""The chain walker under bad input (truncation, wrong StrucId, bad folders, lengths that
lie) and the builder's byte-exact round trips, by example and by hypothesis."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq import decode as codec
from mqtool.formats.mq.build import build_chain
from mqtool.formats.mq.chain import walk
from mqtool.formats.mq.compose import BY_TYPE, format_of

VECTORS = Path(__file__).resolve().parents[3] / "testdata" / "mq"
MANIFEST = json.loads((VECTORS / "vectors.json").read_text())
DLQ_MQMD = {"format": "MQDEAD", "encoding": 273, "codedcharsetid": 819}


def test_dlh_tm_cut_at_384_keeps_the_dlh_and_names_the_offset() -> None:
    body = (VECTORS / "dlh-tm.be.ascii.bin").read_bytes()
    assert len(body) == 856
    chain = walk(body[:384], MANIFEST["dlh-tm.be.ascii.bin"]["mqmd"])
    assert [el.type for el in chain.elements] == ["MQDLH", "MQTM"]
    assert chain.dead_letter_reason == (265, "MQFB_APPL_CANNOT_BE_STARTED")
    assert chain.elements[1].value("applid") is None  # ApplId (172..428) is cut
    err = chain.errors[0]
    assert (err.path, err.offset) == ("mqtm.applid", 172 + 172)
    assert err.reason == ("MQTM (announced by Format 'MQTRIG'): MQTM truncated: 40 bytes left "
                          "for applid (256 bytes)")


def test_every_prefix_inside_the_headers_is_an_error_with_an_offset() -> None:
    for name, expect in MANIFEST.items():
        body = (VECTORS / name).read_bytes()
        for mqmd in (expect["mqmd"], None):
            for cut in range(0 if mqmd else 1, expect["payload_offset"]):  # b"": no header
                chain = walk(body[:cut], mqmd)
                assert chain.errors, (name, cut)
                assert 0 <= chain.errors[0].offset <= cut, (name, cut)


def test_struc_id_not_the_announced_one_is_a_problem() -> None:
    body = (VECTORS / "dlh-rfh2-mqstr.be.ascii.bin").read_bytes()
    bad = body[:172] + b"XYZ " + body[176:]
    chain = walk(bad, DLQ_MQMD)
    assert [el.type for el in chain.elements] == ["MQDLH"]
    assert chain.errors == []
    p = chain.problems[0]
    assert (p.path, p.offset) == ("mqrfh2.strucid", 172)
    assert p.reason.startswith("StrucId 'XYZ ' (X'58595A20') is not 'RFH ', which Format "
                               "'MQHRF2' announced")
    assert (chain.payload_offset, chain.payload_format) == (172, "MQHRF2")


def test_ebcdic_header_under_an_ascii_ccsid_is_read_and_reported() -> None:
    body = (VECTORS / "dlh-tm.be.ebcdic.bin").read_bytes()
    chain = walk(body, {"format": "MQDEAD", "encoding": 785, "codedcharsetid": 819})
    assert [el.type for el in chain.elements] == ["MQDLH", "MQTM"]
    assert chain.elements[0].value("destqname") == "PAYROLL.IN"
    assert chain.problems[0].reason == ("MQDLH is in cp037, not in the CCSID 819 the structure "
                                        "before it gives")


def test_wrong_byte_order_is_corrected_with_a_problem() -> None:
    body = (VECTORS / "dlh-tm.le.ascii.bin").read_bytes()
    chain = walk(body, {"format": "MQDEAD", "encoding": 273, "codedcharsetid": 819})
    assert chain.dead_letter_reason == (265, "MQFB_APPL_CANNOT_BE_STARTED")
    assert chain.problems[0].path == "mqdlh.version"
    assert chain.problems[0].offset == 4


def _rfh2(folders: list[bytes], big: bool = True) -> bytes:
    o = ">" if big else "<"
    data = b"".join(struct.pack(f"{o}l", len(f)) + f for f in folders)
    return (b"RFH " + struct.pack(f"{o}llll", 2, 36 + len(data), 273, 819) + b"MQSTR   "
            + struct.pack(f"{o}ll", 0, 1208) + data)


def test_utf16_folders_follow_the_header_byte_order() -> None:
    for nv_ccsid in (1200, 13488, 17584):
        for big, codec_ in ((True, "utf-16-be"), (False, "utf-16-le")):
            o = ">" if big else "<"
            folder = "<usr><Ünï>ß</Ünï></usr> ".encode(codec_)  # 24 characters: 48 bytes
            body = (b"RFH " + struct.pack(f"{o}llll", 2, 36 + 4 + len(folder), 273, 819)
                    + b"MQSTR   " + struct.pack(f"{o}lll", 0, nv_ccsid, len(folder)) + folder)
            chain = walk(body, {"format": "MQHRF2", "encoding": 273 if big else 546,
                                "codedcharsetid": 819})
            assert (chain.errors, chain.problems) == ([], [])
            assert chain.properties == {"usr.Ünï": "ß"}


def test_folder_that_is_not_xml_is_kept_as_text() -> None:
    bad = b"<usr><A>1</B></usr>"
    bad += b" " * (-len(bad) % 4)
    body = _rfh2([b"<mcd><Msd>jms_text</Msd></mcd>  ", bad]) + b"data"
    chain = walk(body, {"format": "MQHRF2", "encoding": 273, "codedcharsetid": 819})
    assert chain.errors == [] and chain.properties == {"mcd.Msd": "jms_text"}
    el = chain.elements[0]
    assert el.value("namevaluedata[1]") == bad.decode()
    p = chain.problems[0]
    assert p.path == "mqrfh2.namevaluedata[1]"
    assert p.offset == 36 + 4 + 32 + 4 + len("<usr><A>1</")  # where expat stopped
    assert "folder is not well-formed XML: mismatched tag" in p.reason
    assert p.reason.endswith("; folder kept as text")
    assert chain.payload_text(body) == "data"


def test_folder_with_a_dtd_is_refused() -> None:
    folder = b'<!DOCTYPE u [<!ENTITY a "aaaa">]><usr><A>&a;</A></usr>'
    chain = walk(_rfh2([folder]), {"format": "MQHRF2", "encoding": 273, "codedcharsetid": 819})
    assert chain.properties == {}
    assert chain.problems[0].reason.startswith("DTDs and declarations are not allowed")


def test_folder_that_is_not_utf8_is_kept_as_hex() -> None:
    chain = walk(_rfh2([b"<usr>\xff\xfe</usr>"]),
                 {"format": "MQHRF2", "encoding": 273, "codedcharsetid": 819})
    el = chain.elements[0]
    assert el.value("namevaluedata[0]") == b"<usr>\xff\xfe</usr>"
    assert "NameValueData is not utf-8 (NameValueCCSID 1208)" in chain.problems[0].reason


def test_name_value_length_past_struclength_is_a_problem() -> None:
    body = bytearray(_rfh2([b"<mcd></mcd>0"]))
    struct.pack_into(">l", body, 36, 400)
    chain = walk(bytes(body), {"format": "MQHRF2", "encoding": 273, "codedcharsetid": 819})
    assert chain.errors == []
    assert chain.problems[0].reason == "NameValueLength 400 runs past StrucLength (12 bytes left)"


def test_struclength_below_the_fixed_part_stops_the_walk() -> None:
    body = bytearray(_rfh2([]))
    struct.pack_into(">l", body, 8, 20)
    chain = walk(bytes(body), {"format": "MQHRF2", "encoding": 273, "codedcharsetid": 819})
    assert (chain.errors[0].path, chain.errors[0].offset) == ("mqrfh2.struclength", 8)
    assert chain.errors[0].reason == "MQRFH2 StrucLength 20 is less than its fixed part (36 bytes)"


def test_inherit_ccsid_keeps_the_previous_one() -> None:
    data = build_chain([{"type": "MQRFH2", "fields": {"codedcharsetid": -2},
                         "folders": [{"name": "usr", "properties": {"A": "b"}}]}],
                       "é".encode("cp500"), ccsid=500, encoding=785, payload_format="MQSTR")
    chain = walk(data, {"format": "MQHRF2", "encoding": 785, "codedcharsetid": 500})
    assert chain.payload_ccsid == 500 and chain.payload_text(data) == "é"


def test_decode_json_shape() -> None:
    body = (VECTORS / "dlh-rfh2-mqstr.le.ebcdic.bin").read_bytes()
    unit = next(codec.decode(body))
    obj = unit.to_json()
    assert [e["type"] for e in obj["elements"]] == ["MQDLH", "MQRFH2"]
    assert obj["elements"][0]["meanings"]["reason"] == "MQRC_PUT_INHIBITED"
    assert obj["payload"] == {"format": "MQSTR", "offset": 612, "length": 27, "encoding": 0x222,
                              "ccsid": 500, "text": "salary run 2026-11 rejected"}
    assert obj["properties"]["usr.Big"] == 4294967296
    assert obj["dead_letter_reason"] == {"reason": 2051, "name": "MQRC_PUT_INHIBITED"}
    assert obj["context"] == {"format": "MQDEAD", "encoding": 0x222, "codedcharsetid": 500}
    # DLH 172 + RFH2 fixed 36, then (length 4 + folder padded to 4): mcd 30 -> 32, jms 66 -> 68
    assert obj["elements"][1]["folders"][2] == {"name": "usr", "offset": 172 + 36 + 4 + 32 + 4
                                                + 68 + 4, "length": 292}


def _rebuild(obj: dict[str, Any], payload: bytes) -> bytes:
    ctx, pay = obj["context"], obj["payload"]
    return build_chain(obj["elements"], payload, encoding=ctx["encoding"],
                       ccsid=ctx["codedcharsetid"], payload_format=pay["format"],
                       payload_encoding=pay["encoding"], payload_ccsid=pay["ccsid"])


def test_every_vector_rebuilds_from_its_json() -> None:
    for name in MANIFEST:
        body = (VECTORS / name).read_bytes()
        obj = json.loads(json.dumps(next(codec.decode(body)).to_json()))
        assert _rebuild(obj, body[obj["payload"]["offset"]:]) == body, name


# --------------------------------------------------------------------------- hypothesis

TEXT = st.text(st.sampled_from("ABCXYZ.019 _-"), max_size=12)
PROPS = st.dictionaries(
    st.text(st.sampled_from("abcdefXY"), min_size=1, max_size=6),
    st.one_of(TEXT, st.integers(-(1 << 40), 1 << 40), st.booleans(),
              st.floats(allow_nan=False, allow_infinity=False, width=32), st.none(),
              st.binary(max_size=6)), max_size=4)


@st.composite
def chains(draw: st.DrawFn) -> tuple[list[dict[str, Any]], bytes, int, int]:
    big, ebcdic = draw(st.booleans()), draw(st.booleans())
    enc, ccsid = (785 if big else 546), (500 if ebcdic else 819)
    headers: list[dict[str, Any]] = []
    for kind in draw(st.lists(st.sampled_from(
            ["MQDLH", "MQRFH2", "MQXQH", "MQCIH", "MQIIH", "MQMDE", "MQWIH", "MQRMH", "MQDH",
             "MQRFH"]), min_size=1, max_size=4)):
        if kind == "MQDLH":
            headers.append({"type": kind, "fields": {
                "reason": draw(st.sampled_from([2051, 2053, 265, 2035])),
                "destqname": draw(TEXT), "putappltype": draw(st.integers(-1, 40))}})
        elif kind == "MQRFH2":
            headers.append({"type": kind, "folders": [
                {"name": f, "properties": draw(PROPS)} for f in
                draw(st.lists(st.sampled_from(["mcd", "jms", "usr", "psc", "mqext"]),
                              max_size=3, unique=True))]})
        elif kind == "MQXQH":
            headers.append({"type": kind, "fields": {"remoteqname": draw(TEXT)},
                            "msgdesc": {"putapplname": draw(TEXT), "msgtype": 8}})
        elif kind == "MQDH":
            n = draw(st.integers(0, 3))
            headers.append({"type": kind, "records": [{"objectname": f"Q{k}"} for k in range(n)],
                            "putmsgrecs": [{"msgid": bytes([k] * 24), "feedback": k}
                                           for k in range(n)] if draw(st.booleans()) else []})
        elif kind == "MQRFH":
            headers.append({"type": kind, "namevaluestring": f'A "{draw(TEXT)}"'})
        elif kind == "MQCIH":
            headers.append({"type": kind, "fields": {"version": draw(st.sampled_from([1, 2])),
                                                     "function": "GET"}})
        else:
            headers.append({"type": kind})
    if draw(st.booleans()):
        headers.append({"type": "MQTM", "fields": {"qname": draw(TEXT)}})
    payload = draw(st.binary(max_size=40)) if headers[-1]["type"] != "MQTM" else b""
    return headers, payload, enc, ccsid


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_round_trip_through_json(case: tuple[list[dict[str, Any]], bytes, int, int]) -> None:
    headers, payload, enc, ccsid = case
    data = build_chain(headers, payload, encoding=enc, ccsid=ccsid, payload_format="MQSTR")
    first = format_of(BY_TYPE[headers[0]["type"]])
    chain = walk(data, {"format": first, "encoding": enc, "codedcharsetid": ccsid})
    assert (chain.errors, chain.problems) == ([], [])
    assert [t for t in (el.type for el in chain.elements) if t not in ("MQMD", "MQOR", "MQPMR")] \
        == [h["type"] for h in headers]
    assert data[chain.payload_offset:] == payload
    want = {}  # a property given twice (two MQRFH2 headers) has the later value
    for h in headers:
        for f in h.get("folders", []):
            for k, v in f["properties"].items():
                want[f"{f['name']}.{k}"] = v.hex().upper() if isinstance(v, bytes) else v
    assert {k: chain.properties[k] for k in want} == want
    obj = json.loads(json.dumps(next(codec.decode(data, {
        "format": first, "encoding": enc, "codedcharsetid": ccsid})).to_json()))
    assert _rebuild(obj, payload) == data
    # without an MQMD the first header is found by its StrucId
    assert [el.type for el in walk(data).elements] == [el.type for el in chain.elements]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.data())
def test_truncated_or_mutated_chains_never_raise(case: tuple, data: st.DataObject) -> None:
    headers, payload, enc, ccsid = case
    good = build_chain(headers, payload, encoding=enc, ccsid=ccsid, payload_format="MQSTR")
    mqmd = {"format": format_of(BY_TYPE[headers[0]["type"]]), "encoding": enc,
            "codedcharsetid": ccsid}
    end = walk(good, mqmd).payload_offset
    cut = data.draw(st.integers(0, end - 1))
    for md in (mqmd, None) if cut else (mqmd,):  # b"" without an MQMD: no header, no error
        chain = walk(good[:cut], md)
        assert chain.errors and 0 <= chain.errors[0].offset <= cut
    bad = bytearray(good)
    for _ in range(data.draw(st.integers(1, 6))):
        bad[data.draw(st.integers(0, len(bad) - 1))] = data.draw(st.integers(0, 255))
    for md in (mqmd, None):
        chain = walk(bytes(bad), md)  # never raises: errors and problems say what is wrong
        for p in chain.errors + chain.problems:
            assert 0 <= p.offset <= len(bad) and p.reason
        unit = next(codec.decode(bytes(bad), md))
        json.dumps(unit.to_json())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["reason", "destqname", "putappltype", "version", "bogus"]),
                min_size=1, max_size=3), st.one_of(st.integers(), TEXT, st.binary(max_size=4)))
def test_builder_refuses_with_its_own_error(fields: list[str], value: Any) -> None:
    try:
        build_chain([{"type": "MQDLH", "fields": dict.fromkeys(fields, value)}])
    except MqtoolError as e:
        assert str(e).startswith("mq: ")


def test_unwrap_gives_the_payload_message() -> None:
    from mqtool.formats.mq.chain import unwrap
    from mqtool.formats.mq.dumps.read import Message

    body = (VECTORS / "dlh-rfh2-mqstr.be.ebcdic.bin").read_bytes()
    msg = Message(1, body, {"format": "MQDEAD", "encoding": 785, "codedcharsetid": 500,
                            "msgtype": 8})
    inner, chain = unwrap(msg)
    assert chain is not None and chain.dead_letter_reason == (2051, "MQRC_PUT_INHIBITED")
    assert inner.body == "salary run 2026-11 rejected".encode("cp500")
    assert inner.mqmd == {"format": "MQSTR", "encoding": 785, "codedcharsetid": 500, "msgtype": 8}
    plain = Message(2, b"hello", {"format": "MQSTR"})
    assert unwrap(plain) == (plain, None)
    cut = Message(3, body[:200], dict(msg.mqmd))
    same, chain = unwrap(cut)
    assert same is cut and chain is not None and chain.errors[0].offset == 172 + 28  # Flags


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 40), 1 << 40) | TEXT | st.floats(width=32),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "fields", "folders", "name", "properties", "data", "records",
                         "putmsgrecs", "msgdesc", "notes", "version", "reason",
                         "namevaluedata[0]", "namevalueccsid", "struclength", "dt"]),
        inner, max_size=4), max_leaves=12)
TYPES = st.sampled_from(["MQDLH", "MQRFH2", "MQRFH", "MQXQH", "MQDH", "MQRMH", "MQTMC2",
                         "MQCIH", "MQMD", "MQOR", "bogus"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(JSONISH, st.fixed_dictionaries({"type": TYPES}, optional={
    "fields": JSONISH, "folders": JSONISH, "records": JSONISH, "putmsgrecs": JSONISH,
    "msgdesc": JSONISH, "data": JSONISH, "notes": JSONISH})), max_size=3),
    st.integers(-5, 70000), st.integers(-5, 70000))
def test_builder_takes_any_json_and_raises_only_its_error(headers: list, enc: int,
                                                          ccsid: int) -> None:
    try:
        build_chain(headers, b"x", encoding=enc, ccsid=ccsid)
    except MqtoolError as e:
        assert str(e).startswith("mq: ")


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600), st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "format": st.one_of(st.sampled_from(["MQDEAD", "MQHRF2", "MQHRF", "MQXMIT", "MQTRIG",
                                         "MQCICS", "MQIMS", "MQHMDE", "MQHWIH", "MQHREF",
                                         "MQHDIST", "MQEVENT", "MQADMIN", "MQSTR", ""]), TEXT),
    "encoding": st.integers(-(1 << 33), 1 << 33),
    "codedcharsetid": st.one_of(st.integers(-(1 << 33), 1 << 33),
                                st.sampled_from([37, 500, 819, 1200, 1208, 1047, 1140, 13488])),
})), st.sampled_from([b"", b"DLH \x00\x00\x00\x01", b"RFH \x00\x00\x00\x02",
                      b"\xc4\xd3\xc8\x40\x01\x00\x00\x00", b"XQH \x00\x00\x00\x01",
                      b"DH  \x01\x00\x00\x00"]))
def test_any_body_and_mqmd_never_raise(data: bytes, mqmd: dict | None, head: bytes) -> None:
    body = head + data
    chain = walk(body, mqmd)
    for p in chain.errors + chain.problems:
        assert 0 <= p.offset <= len(body) and p.reason
    unit = next(codec.decode(body, mqmd))
    json.dumps(unit.to_json())
    assert chain.payload_offset <= len(body)
