"""IMS LLZZ segments after an MQIIH and the CICS COMMAREA after an MQCIH, as elements.

The vectors are packed here from the documented layouts (IBM MQ, "MQIIH - IMS information
header": 84 bytes; "MQCIH - CICS bridge header": 180 bytes in version 2; "Message
segmentation": LL counts itself and ZZ; "CICS DPL bridge message structure": the program
name in 8 characters, then the COMMAREA), not with mqtool's builder.
"""

from __future__ import annotations

import json
import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq import decode as codec
from mqtool.formats.mq.build import build_chain
from mqtool.model import tree_faults

MQENC_BIG, MQENC_LITTLE = 0x111, 0x222  # MQENC_INTEGER_NORMAL / _REVERSED (+ decimal, float)


def mqiih(enc: int = MQENC_BIG, ccsid: int = 819, fmt: str = "MQIMSVS", order: str = ">",
          cp: str = "latin-1") -> bytes:
    """An MQIIH whose own integers are in ``order`` and characters in ``cp``."""
    def t(s: str, n: int) -> bytes:
        return s.ljust(n).encode(cp)
    return (t("IIH ", 4) + struct.pack(f"{order}llll", 1, 84, enc, ccsid) + t(fmt, 8)
            + struct.pack(f"{order}l", 0) + t("LTERM1", 8) + t("MFSMAP", 8) + t("", 8)
            + t("", 8) + bytes(16) + t(" ", 1) + t("0", 1) + t("C", 1) + t(" ", 1))


def mqcih(linktype: int, cp: str = "cp500", order: str = ">") -> bytes:
    """An MQCIH version 2 (180 bytes) announcing no further header."""
    def t(s: str, n: int) -> bytes:
        return s.ljust(n).encode(cp)
    ints = struct.pack(f"{order}11l", 0, 0, 0, 273, -2, linktype, -1, 0, 0, 0, 0)
    return (t("CIH ", 4) + struct.pack(f"{order}llll", 2, 180, 785, 500) + t("", 8)
            + struct.pack(f"{order}l", 0) + ints + bytes(8) + t("", 4) + t("", 4) + t("", 8)
            + t("", 8) + t("", 8) + t("", 4) + t("", 4) + t("PAYR", 4) + t("", 4) + t("", 4)
            + t("", 4) + t("", 4) + t("", 4) + t("", 8) + t("", 8)
            + struct.pack(f"{order}4l", 0, 0, 0, 0))


def llzz(data: bytes, order: str = ">") -> bytes:
    return struct.pack(f"{order}HH", len(data) + 4, 0) + data


def test_packed_headers_have_the_documented_sizes() -> None:
    assert len(mqiih()) == 84 and len(mqcih(1)) == 180


def test_ims_segments_after_an_mqiih() -> None:
    body = mqiih() + llzz(b"PAYROLL1 EMP=00042") + llzz(b"MORE DATA")
    unit = codec.unit_of(body, {"format": "MQIMS", "encoding": MQENC_BIG, "codedcharsetid": 819})
    assert (unit.errors, unit.problems) == ([], [])
    [payload] = [e for e in unit.elements if e.type == "payload"]
    segs = payload.children
    assert [(s.offset, s.length, s.value("ll")) for s in segs] == [(84, 22, 22), (106, 13, 13)]
    assert segs[0].value("trancode") == "PAYROLL1"
    assert segs[0].data == b"PAYROLL1 EMP=00042" and segs[1].data == b"MORE DATA"
    assert segs[1].value("trancode") is None  # only the first segment starts with one
    assert tree_faults(unit.elements) == []
    shown = json.loads(json.dumps(unit.to_json()))["payload"]["elements"]
    assert [s["fields"]["ll"] for s in shown] == [22, 13]


def test_ll_is_in_the_encoding_the_mqiih_announces() -> None:
    """The MQIIH is big-endian ASCII; it says the data after it is little-endian EBCDIC."""
    data = "IMSTRAN DATA".encode("cp500")
    body = mqiih(enc=MQENC_LITTLE, ccsid=500) + llzz(data, "<")
    unit = codec.unit_of(body, {"format": "MQIMS", "encoding": MQENC_BIG, "codedcharsetid": 819})
    [seg] = next(e for e in unit.elements if e.type == "payload").children
    assert (seg.value("ll"), seg.value("trancode"), seg.data) == (16, "IMSTRAN", data)


def test_ims_var_string_without_an_mqiih() -> None:
    body = llzz(b"TRAN2 X") + llzz(b"Y")
    unit = codec.unit_of(body, {"format": "MQIMSVS", "encoding": MQENC_BIG,
                                "codedcharsetid": 819})
    [payload] = [e for e in unit.elements if e.type == "payload"]
    assert [(s.value("ll"), s.value("trancode")) for s in payload.children] == [
        (11, "TRAN2"), (5, None)]


def test_a_bad_ll_is_a_problem_and_the_segments_before_it_stay() -> None:
    body = mqiih() + llzz(b"TRAN3 OK") + struct.pack(">HH", 999, 0) + b"short"
    unit = codec.unit_of(body, {"format": "MQIMS", "encoding": MQENC_BIG, "codedcharsetid": 819})
    assert unit.errors == []
    [problem] = unit.problems
    assert (problem.path, problem.offset) == ("payload.segment[1].ll", 84 + 12)
    assert "999" in problem.reason
    payload = next(e for e in unit.elements if e.type == "payload")
    assert [s.value("trancode") for s in payload.children] == ["TRAN3"]


def test_cics_dpl_request_program_and_commarea() -> None:
    commarea = "EMPLOYEE 42".encode("cp500")
    body = mqcih(1) + "PAYPGM01".encode("cp500") + commarea
    unit = codec.unit_of(body, {"format": "MQCICS", "encoding": 785, "codedcharsetid": 500,
                                "msgtype": 1})
    assert (unit.errors, unit.problems) == ([], [])
    [area] = next(e for e in unit.elements if e.type == "payload").children
    assert (area.type, area.offset, area.length) == ("COMMAREA", 180, 19)
    assert area.value("program") == "PAYPGM01"
    assert (area.data, area.data_offset) == (commarea, 188)


def test_cics_dpl_reply_is_all_commarea() -> None:
    commarea = "PAYPGM01 REPLY".encode("cp500")
    body = mqcih(1) + commarea
    unit = codec.unit_of(body, {"format": "MQCICS", "encoding": 785, "codedcharsetid": 500,
                                "msgtype": 2})  # MQMT_REPLY
    [area] = next(e for e in unit.elements if e.type == "payload").children
    assert area.value("program") is None and area.data == commarea


def test_cics_3270_bridge_vectors_are_bytes() -> None:
    vectors = struct.pack(">l", 64) + b"0800" + bytes(56)
    body = mqcih(2) + vectors
    unit = codec.unit_of(body, {"format": "MQCICS", "encoding": 785, "codedcharsetid": 500})
    [vec] = next(e for e in unit.elements if e.type == "payload").children
    assert (vec.type, vec.offset, vec.data) == ("BRMQ", 180, vectors)


def _round_trip(body: bytes, mqmd: dict[str, object]) -> None:
    unit = codec.unit_of(body, mqmd)
    assert tree_faults(unit.elements) == []
    d = unit.to_json(raw=True)
    payload = d["payload"]
    assert isinstance(payload, dict)
    again = build_chain(d["elements"], bytes.fromhex(payload["hex"]),  # type: ignore[arg-type]
                        encoding=int(str(mqmd["encoding"])),
                        ccsid=int(str(mqmd["codedcharsetid"])), payload_format=payload["format"],
                        payload_encoding=payload["encoding"], payload_ccsid=payload["ccsid"])
    assert again == body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=120), st.sampled_from(["iih", "cih1", "cih2", "imsvs"]))
def test_any_bridge_data_keeps_the_error_contract(data: bytes, kind: str) -> None:
    head = {"iih": mqiih(), "cih1": mqcih(1), "cih2": mqcih(2), "imsvs": b""}[kind]
    fmt = {"iih": "MQIMS", "imsvs": "MQIMSVS"}.get(kind, "MQCICS")
    enc, ccsid = (785, 500) if kind.startswith("cih") else (MQENC_BIG, 819)
    mqmd: dict[str, object] = {"format": fmt, "encoding": enc, "codedcharsetid": ccsid}
    body = head + data
    try:
        units = list(codec.decode(body, mqmd))
    except MqtoolError as e:  # a ValueError subclass naming where
        assert isinstance(e, ValueError) and isinstance(getattr(e, "offset", None), int)
        return
    for unit in units:
        for el in unit.elements:
            for c in el.walk():
                assert el.offset <= c.offset and c.offset + c.length <= el.offset + el.length
    if head:
        _round_trip(body, mqmd)
