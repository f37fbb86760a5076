"""The MQ header chain as declared in the composition vocabulary, and what reads it."""

from __future__ import annotations

import pytest

from mqtool import catalog
from mqtool.compose import Nest, Previous
from mqtool.formats.mq import compose as mqc
from mqtool.formats.mq.build import build_chain
from mqtool.formats.mq.chain import walk

# IBM MQ, "MQMD - Format field": the format names of the headers (cmqc.h MQFMT_*)
MQFMT = {"MQDLH": "MQDEAD", "MQRFH2": "MQHRF2", "MQRFH": "MQHRF", "MQXQH": "MQXMIT",
         "MQTM": "MQTRIG", "MQCIH": "MQCICS", "MQIIH": "MQIMS", "MQMDE": "MQHMDE",
         "MQWIH": "MQHWIH", "MQRMH": "MQHREF", "MQDH": "MQHDIST"}


def test_chain_is_keyed_by_the_previous_format() -> None:
    assert mqc.CHAIN.key == Previous("format")
    assert {r.type: r.key for r in mqc.RECORDS if r.key} == MQFMT
    assert mqc.CHAIN.variant == mqc.INHERIT and mqc.CHAIN.sniff == mqc.STRUCID
    # IBM MQ: MQTM and MQTMC2 describe nothing after them; every other header does
    assert {r.type for r in mqc.RECORDS if not mqc.chained(r)} == {"MQTM", "MQTMC2"}


def test_xqh_nests_an_mqmd_version_1() -> None:
    t = mqc.BY_TYPE["MQXQH"].trailing
    assert t is not None and isinstance(t.content, Nest)
    # IBM MQ, MQXQH: 104 bytes of its own, then the MQMD version 1 (324 bytes): 428
    assert mqc.resolver()(t.content.record).size == 324
    assert mqc.resolver()("MQXQH.v1").size == 104


# headers that describe what follows and need nothing but their fixed part (MQTM ends a
# chain; MQXQH, MQDH, MQRMH carry parts of their own, built in the vector tests)
@pytest.mark.parametrize("type_", sorted(set(MQFMT) - {"MQTM", "MQXQH", "MQDH", "MQRMH"}))
def test_the_walker_follows_the_declared_format(type_: str) -> None:
    body = build_chain([{"type": type_}, {"type": "MQDLH"}], b"hello", payload_format="MQSTR")
    chain = walk(body, {"format": MQFMT[type_], "encoding": 0x111, "codedcharsetid": 819})
    assert chain.types == [type_, "MQDLH"] and not chain.errors
    assert body[chain.payload_offset:] == b"hello" and chain.payload_format == "MQSTR"


def test_layouts_document_the_chain_from_the_declaration() -> None:
    doc = catalog.format_doc("mq")
    note = next(n for n in doc.notes if n.startswith("Chain:"))
    for type_, fmt in MQFMT.items():
        assert f"`{fmt}` {type_}" in note
    rfh2 = doc.record("MQRFH2")
    assert (rfh2.data, rfh2.data_size) == ("folders", "struclength - 36")
    assert doc.record("MQXQH").data_size == "324"
