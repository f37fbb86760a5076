"""MQ header declarations against the public layouts, every meaning table, and the vectors
of testdata/mq (packed by an independent generator) walked with and without an MQMD."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from mqtool.formats.mq import meanings as m
from mqtool.formats.mq.chain import walk
from mqtool.formats.mq.compose import RECORDS, format_of, struc_id
from mqtool.formats.mq.layout import header_layout
from mqtool.formats.mq.mqmd import mqmd_layout
from mqtool.model import tree_faults

ROOT = Path(__file__).resolve().parents[3]
VECTORS = ROOT / "testdata" / "mq"
MANIFEST = json.loads((VECTORS / "vectors.json").read_text())


# MQxxx_LENGTH_n / MQxxx_CURRENT_LENGTH (IBM MQ constants, cmqc.h)
@pytest.mark.parametrize(("type_", "version", "size"), [
    ("MQDLH", 1, 172), ("MQRFH", 1, 32), ("MQRFH2", 2, 36), ("MQTM", 1, 684),
    ("MQTMC2", 1, 684), ("MQTMC2", 2, 732), ("MQCIH", 1, 164), ("MQCIH", 2, 180),
    ("MQIIH", 1, 84), ("MQMDE", 2, 72), ("MQWIH", 1, 120), ("MQRMH", 1, 108), ("MQDH", 1, 48),
    ("MQOR", 0, 96), ("MQCFH", 0, 36),
])
def test_sizes_are_the_documented_ones(type_: str, version: int, size: int) -> None:
    for big in (True, False):
        for cp in ("latin-1", "cp037"):
            assert header_layout(type_, big, cp, version).size == size


def test_xqh_with_its_msgdesc_is_428_bytes() -> None:
    assert header_layout("MQXQH").size + mqmd_layout(version=1).size == 428


def test_pmr_size_follows_putmsgrecfields() -> None:
    assert header_layout("MQPMR", version=0x01).size == 24
    assert header_layout("MQPMR", version=0x09).size == 28
    assert header_layout("MQPMR", version=0x1F).size == 24 * 3 + 4 + 32


# offsets worked out from the field lists of the IBM MQ documentation
@pytest.mark.parametrize(("type_", "field", "offset"), [
    ("MQDLH", "reason", 8), ("MQDLH", "destqname", 12), ("MQDLH", "destqmgrname", 60),
    ("MQDLH", "encoding", 108), ("MQDLH", "codedcharsetid", 112), ("MQDLH", "format", 116),
    ("MQDLH", "putappltype", 124), ("MQDLH", "putapplname", 128), ("MQDLH", "putdate", 156),
    ("MQDLH", "puttime", 164), ("MQRFH2", "namevalueccsid", 32), ("MQRFH2", "flags", 28),
    ("MQXQH", "remoteqmgrname", 56), ("MQTM", "triggerdata", 104), ("MQTM", "appltype", 168),
    ("MQTM", "applid", 172), ("MQTM", "userdata", 556), ("MQTMC2", "qmgrname", 684),
    ("MQCIH", "returncode", 32), ("MQCIH", "facility", 76), ("MQCIH", "function", 84),
    ("MQCIH", "replytoformat", 108), ("MQCIH", "transactionid", 124),
    ("MQCIH", "cursorposition", 164), ("MQIIH", "traninstanceid", 64),
    ("MQIIH", "transtate", 80), ("MQIIH", "reserved", 83), ("MQMDE", "groupid", 32),
    ("MQMDE", "originallength", 68), ("MQWIH", "servicename", 32), ("MQWIH", "msgtoken", 72),
    ("MQRMH", "objectinstanceid", 40), ("MQRMH", "datalogicaloffset2", 104),
    ("MQDH", "putmsgrecfields", 32), ("MQDH", "putmsgrecoffset", 44),
    ("MQCFH", "parametercount", 32),
])
def test_field_offsets(type_: str, field: str, offset: int) -> None:
    assert header_layout(type_).offset_of(field) == offset


def test_every_header_is_announced_and_named() -> None:
    assert {h.type: (struc_id(h), format_of(h)) for h in RECORDS} == {
        "MQDLH": ("DLH ", "MQDEAD"), "MQRFH2": ("RFH ", "MQHRF2"), "MQRFH": ("RFH ", "MQHRF"),
        "MQXQH": ("XQH ", "MQXMIT"), "MQTM": ("TM  ", "MQTRIG"), "MQTMC2": ("TMC ", ""),
        "MQCIH": ("CIH ", "MQCICS"), "MQIIH": ("IIH ", "MQIMS"), "MQMDE": ("MDE ", "MQHMDE"),
        "MQWIH": ("WIH ", "MQHWIH"), "MQRMH": ("RMH ", "MQHREF"), "MQDH": ("DH  ", "MQHDIST")}


# --------------------------------------------------------------------------- meanings


@pytest.mark.parametrize(("code", "name"), [
    (2051, "MQRC_PUT_INHIBITED"), (2053, "MQRC_Q_FULL"), (2035, "MQRC_NOT_AUTHORIZED"),
    (2085, "MQRC_UNKNOWN_OBJECT_NAME"), (2087, "MQRC_UNKNOWN_REMOTE_Q_MGR"),
    (2030, "MQRC_MSG_TOO_BIG_FOR_Q"), (2189, "MQRC_CLUSTER_RESOLUTION_ERROR"),
    (265, "MQFB_APPL_CANNOT_BE_STARTED"), (258, "MQFB_EXPIRATION"), (266, "MQFB_TM_ERROR"),
    (271, "MQFB_XMIT_Q_MSG_ERROR"), (65536, "MQFB_APPL (application-defined)"), (1999, ""),
])
def test_reason_names(code: int, name: str) -> None:
    assert m.reason_name(code) == name


def test_meaning_tables() -> None:
    assert (m.MQAT[28], m.MQAT[2], m.MQAT[11], m.MQAT[7]) == (
        "MQAT_JAVA", "MQAT_MVS", "MQAT_WINDOWS_NT", "MQAT_QMGR")
    assert m.appltype_meaning(70000) == "MQAT_USER (user-defined)"
    assert [m.msgtype_meaning(v) for v in (1, 2, 4, 8, 70000, 9)] == [
        "MQMT_REQUEST", "MQMT_REPLY", "MQMT_REPORT", "MQMT_DATAGRAM", "application-defined", ""]
    assert [m.persistence_meaning(v) for v in (0, 1, 2)] == [
        "MQPER_NOT_PERSISTENT", "MQPER_PERSISTENT", "MQPER_PERSISTENCE_AS_Q_DEF"]
    assert m.report_meaning(0) == "MQRO_NONE"
    assert m.report_meaning(0x03000000 | 0x80) == "MQRO_EXCEPTION_WITH_DATA + MQRO_PASS_MSG_ID"
    assert m.report_meaning(0x00000700 | 0x08000000) == "MQRO_COA_WITH_FULL_DATA + MQRO_DISCARD_MSG"
    assert m.feedback_meaning(0) == "MQFB_NONE"
    assert m.feedback_meaning(259) == "MQFB_COA"
    assert m.feedback_meaning(2053) == "MQRC_Q_FULL"
    assert m.pmrf_meaning(0x09) == "MQPMRF_MSG_ID + MQPMRF_FEEDBACK"
    assert m.MQCUOWC[273] == "MQCUOWC_ONLY" and m.MQCLT[2] == "MQCLT_TRANSACTION"
    assert m.MQCC[2] == "MQCC_FAILED" and m.MQCFT[7] == "MQCFT_EVENT"
    assert m.MQCRC[4] == "MQCRC_BRIDGE_ABEND" and m.MQCTES[0x1100] == "MQCTES_BACKOUT"


@pytest.mark.parametrize(("ccsid", "codec", "meaning"), [
    (37, "cp037", "cp037 (EBCDIC)"), (500, "cp500", "cp500 (EBCDIC)"),
    (1047, "cp1047", "cp1047 (EBCDIC)"), (1140, "cp1140", "cp1140 (EBCDIC)"),
    (273, "cp273", "cp273 (EBCDIC)"), (437, "cp437", "cp437"), (819, "latin-1", "latin-1"),
    (850, "cp850", "cp850"), (1208, "utf-8", "utf-8"), (1252, "cp1252", "cp1252"),
    (1200, "utf-16-be", "utf-16-be"), (13488, "utf-16-be", "utf-16-be"),
    (-2, None, "MQCCSI_INHERIT"), (0, None, "MQCCSI_DEFAULT"), (-1, None, "MQCCSI_EMBEDDED"),
])
def test_ccsids(ccsid: int, codec: str | None, meaning: str) -> None:
    assert m.ccsid_codec(ccsid) == codec
    assert m.ccsid_meaning(ccsid) == meaning
    if codec:  # the codec reads the CCSID's "A": X'C1' in EBCDIC, X'41' in ASCII
        assert "A".encode(codec)[-1:] == (b"\xc1" if "EBCDIC" in meaning else b"A")


def test_utf16_follows_the_byte_order() -> None:
    assert m.ccsid_codec(1200, big=False) == "utf-16-le"


def test_mqmd_meanings() -> None:
    lay = mqmd_layout()
    md = lay.build({"version": 2, "report": 0x01000000, "msgtype": 4, "feedback": 2053,
                    "encoding": 785, "codedcharsetid": 500, "persistence": 1, "putappltype": 2})
    el = lay.parse(md)
    got = {s.name: s.meaning for s in el.spans if s.meaning}
    assert got == {"report": "MQRO_EXCEPTION", "msgtype": "MQMT_REPORT",
                   "feedback": "MQRC_Q_FULL", "encoding": "integer normal, float S390",
                   "codedcharsetid": "cp500 (EBCDIC)", "persistence": "MQPER_PERSISTENT",
                   "putappltype": "MQAT_MVS"}


# --------------------------------------------------------------------------- vectors


def test_generator_reproduces_the_vectors(tmp_path: Path) -> None:
    gen = tmp_path / "generate.py"
    gen.write_bytes((VECTORS / "generate.py").read_bytes())
    subprocess.run([sys.executable, str(gen)], check=True, cwd=tmp_path)
    for name in [*MANIFEST, "dlq.dmpmqmsg", "vectors.json"]:
        assert (tmp_path / name).read_bytes() == (VECTORS / name).read_bytes(), name


@pytest.mark.parametrize("name", sorted(MANIFEST))
@pytest.mark.parametrize("with_mqmd", [True, False])
def test_vectors(name: str, with_mqmd: bool) -> None:
    expect = MANIFEST[name]
    body = (VECTORS / name).read_bytes()
    assert len(body) == expect["length"]
    if not expect["chain"] and not with_mqmd:  # a PCF message: only its MQMD says so
        chain = walk(body)
        assert (chain.elements, chain.pcf, chain.payload_offset) == ([], None, 0)
        return
    chain = walk(body, expect["mqmd"] if with_mqmd else None)
    assert (chain.errors, chain.problems) == ([], [])
    every = [e for el in chain.elements for e in el.walk()]  # document order, nested too
    assert [el.type for el in every] == expect["chain"]
    assert tree_faults(chain.elements) == []  # children inside parents, no siblings overlap
    assert chain.payload_offset == expect["payload_offset"]
    assert chain.payload_format == expect["payload_format"]
    for type_, fields in expect.get("fields", {}).items():
        el = next(e for e in every if e.type == type_)
        assert {k: el.value(k) for k in fields} == fields
    assert chain.properties == expect.get("properties", {})
    if "text" in expect:
        assert chain.payload_text(body) == expect["text"]
    if "reason" in expect:
        assert list(chain.dead_letter_reason) == expect["reason"]
    ends = [el.offset + el.length for el in chain.elements]
    assert (ends or [0])[-1] == expect["payload_offset"]


def test_header_byte_order_follows_the_encoding() -> None:
    """The same DLH read with the MQMD's Encoding: big-endian 785, little-endian 546."""
    for enc, order in ((785, ">"), (546, "<")):
        body = (b"DLH " + struct.pack(f"{order}ll", 1, 2053) + b"Q".ljust(48) + b"QM".ljust(48)
                + struct.pack(f"{order}ll", enc, 819) + b"MQSTR   " + struct.pack(f"{order}l", 6)
                + b"x".ljust(28) + b"20260101" + b"12000000" + b"hi")
        chain = walk(body, {"format": "MQDEAD", "encoding": enc, "codedcharsetid": 819})
        assert chain.dead_letter_reason == (2053, "MQRC_Q_FULL")
        assert chain.elements[0].value("putappltype") == 6
        assert (chain.payload_offset, chain.payload_encoding, chain.problems) == (172, enc, [])


def test_xqh_takes_what_follows_from_its_msgdesc() -> None:
    body = (VECTORS / "xqh-mqstr.le.ebcdic.bin").read_bytes()
    chain = walk(body)
    assert chain.types == ["MQXQH"]  # IBM MQ, MQXQH: the MsgDesc is a field of the MQXQH
    xqh = chain.elements[0]
    assert (xqh.offset, xqh.length) == (0, 428)  # MQXQH_LENGTH_1: 104 + MQMD_LENGTH_1 324
    [md] = xqh.children
    assert md.title == "MQXQH MsgDesc (MQMD version 1) at offset X'0068'"
    assert (md.offset, md.length, md.value("format")) == (104, 324, "MQSTR")
    assert (chain.payload_encoding, chain.payload_ccsid) == (0x222, 500)


def test_dh_records_and_rmh_strings() -> None:
    chain = walk((VECTORS / "bridge-chain.be.ebcdic.bin").read_bytes())
    [dh] = [el for el in chain.elements if el.type == "MQDH"]
    ors = [el for el in dh.children if el.type == "MQOR"]
    pmrs = [el for el in dh.children if el.type == "MQPMR"]
    assert [el.type for el in chain.elements if el.type in ("MQOR", "MQPMR")] == []
    assert [(o.value("objectname"), o.value("objectqmgrname")) for o in ors] == [
        ("Q.A", "QM1"), ("Q.B", "QM2")]
    assert [(p.value("msgid"), p.value("feedback")) for p in pmrs] == [
        (bytes([1] * 24), 0), (bytes([2] * 24), 0)]
    rmh = next(el for el in chain.elements if el.type == "MQRMH")
    assert rmh.extra == {"destname": "/data/in.bin"}
