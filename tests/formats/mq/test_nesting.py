"""Nested elements of the MQ header chain and of PCF messages: the MQMD inside an MQXQH,
the MQOR / MQPMR records of an MQDH, the parameters of an MQCFGR group."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq import decode as codec
from mqtool.formats.mq.build import build_chain
from mqtool.formats.mq.chain import walk
from mqtool.model import tree_faults

VECTORS = Path(__file__).resolve().parents[3] / "testdata" / "mq"

# cmqcfc.h: MQCFT_INTEGER 3, MQCFT_STRING 4, MQCFT_GROUP 20; MQCFH_STRUC_LENGTH 36,
# MQCFIN_STRUC_LENGTH 16, MQCFGR_STRUC_LENGTH 16 (IBM MQ, "MQCFGR - PCF group parameter")
MQCFT_INTEGER, MQCFT_STRING, MQCFT_GROUP, MQCFT_EVENT = 3, 4, 20, 7
MQGACF_COMMAND_CONTEXT, MQIA_APPL_TYPE, MQIACF_REASON_QUALIFIER = 8001, 1, 1020


def _cfin(pid: int, value: int) -> bytes:
    return struct.pack(">llll", MQCFT_INTEGER, 16, pid, value)


def _pcf_with_group() -> bytes:
    """MQCFH (command 44, 3 parameters): an MQCFIN, an MQCFGR holding two MQCFINs, an MQCFIN."""
    cfh = struct.pack(">lllllllll", 7, 36, 1, 44, 1, 1, 0, 0, 3)
    group = struct.pack(">llll", MQCFT_GROUP, 16, MQGACF_COMMAND_CONTEXT, 2)
    return (cfh + _cfin(MQIACF_REASON_QUALIFIER, 1) + group + _cfin(MQIA_APPL_TYPE, 28)
            + _cfin(MQIA_APPL_TYPE, 6) + _cfin(MQIACF_REASON_QUALIFIER, 2))


def test_mqcfgr_holds_its_parameters_as_children() -> None:
    body = _pcf_with_group()
    chain = walk(body, {"format": "MQEVENT", "encoding": 0x111, "codedcharsetid": 819})
    assert chain.pcf is not None and not chain.errors
    top = chain.pcf.elements
    assert [el.type for el in top] == ["MQCFH", "MQCFIN", "MQCFGR", "MQCFIN"]
    group = top[2]
    # the group spans its own 16 bytes and its two 16-byte members
    assert (group.offset, group.length) == (36 + 16, 16 + 2 * 16)
    assert [(c.type, c.offset, c.value("value")) for c in group.children] == [
        ("MQCFIN", 68, 28), ("MQCFIN", 84, 6)]
    assert top[3].offset == 100 and top[3].value("value") == 2
    assert tree_faults(top) == []


def test_json_listing_and_annotation_show_the_nesting() -> None:
    body = (VECTORS / "xqh-mqstr.be.ascii.bin").read_bytes()
    unit = codec.unit_of(body)
    d = json.loads(json.dumps(unit.to_json()))
    xqh = d["elements"][0]
    assert xqh["type"] == "MQXQH" and xqh["length"] == 428
    assert [c["type"] for c in xqh["children"]] == ["MQMD"]
    assert xqh["children"][0]["offset"] == 104
    assert [e["type"] for e in d["elements"]].count("MQMD") == 0
    assert tree_faults(unit.elements) == []


def test_built_from_nested_json_is_the_same_bytes() -> None:
    for name in ("xqh-mqstr.le.ebcdic.bin", "bridge-chain.be.ebcdic.bin"):
        body = (VECTORS / name).read_bytes()
        unit = codec.unit_of(body)
        d = unit.to_json()
        ctx = d["context"]
        assert isinstance(ctx, dict)
        payload = d["payload"]
        assert isinstance(payload, dict)
        again = build_chain(d["elements"], body[payload["offset"]:],  # type: ignore[arg-type]
                            encoding=ctx["encoding"], ccsid=ctx["codedcharsetid"],
                            payload_format=payload["format"])
        assert again == body, name


NESTED = ["xqh-mqstr.le.ebcdic.bin", "bridge-chain.be.ebcdic.bin", "event.be.ascii.bin"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NESTED), st.integers(0, 1 << 16), st.integers(0, 255),
       st.integers(0, 1 << 16))
def test_damaged_nested_chains_keep_the_error_contract_and_the_tree(
        name: str, at: int, byte: int, cut: int) -> None:
    """One byte changed and the body cut anywhere: nested elements stay inside their parent,
    siblings never overlap, and nothing but an mqtool error (a ValueError with an offset)
    escapes."""
    body = bytearray((VECTORS / name).read_bytes())
    body[at % len(body)] = byte
    data = bytes(body[:cut % (len(body) + 1)])
    mqmd = {"format": "MQEVENT", "encoding": 0x111, "codedcharsetid": 819} \
        if name.startswith("event") else None
    try:
        units = list(codec.decode(data, mqmd))
    except MqtoolError as e:
        assert isinstance(e, ValueError) and isinstance(getattr(e, "offset", None), int)
        return
    for unit in units:
        assert tree_faults([e for e in unit.elements if e.type != "properties"]) == []


def test_view_tree_nests_the_msgdesc_under_the_mqxqh() -> None:
    from mqtool.view.fields import ELEMENT, build_tree, innermost

    unit = codec.unit_of((VECTORS / "xqh-mqstr.be.ascii.bin").read_bytes())
    root = build_tree(unit)
    [xqh] = [n for n in root.children if n.kind == ELEMENT and n.element is not None
             and n.element.type == "MQXQH"]
    md = [n for n in xqh.children if n.kind == ELEMENT]
    assert [n.element.type for n in md if n.element is not None] == ["MQMD"]
    # MQMD Format is at offset 32 of the MQMD, 104 + 32 in the message
    node = innermost(root, 104 + 32)
    assert node is not None and node.name == "format" and node.parent is md[0]
