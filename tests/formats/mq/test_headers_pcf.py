"""PCF payloads (MQEVENT, MQADMIN, MQPCF): the MQCFH and every parameter structure, from
the generated event vectors; truncation and mutation never raise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.mq import decode as codec
from mqtool.formats.mq.chain import walk
from mqtool.formats.mq.layout import PCF_BY_NAME, header_layout

VECTORS = Path(__file__).resolve().parents[3] / "testdata" / "mq"
MANIFEST = json.loads((VECTORS / "vectors.json").read_text())
EVENTS = sorted(n for n in MANIFEST if n.startswith("event."))


# MQCFxx_STRUC_LENGTH(_FIXED) of cmqcfc.h
@pytest.mark.parametrize(("name", "size"), [
    ("MQCFIN", 16), ("MQCFST", 20), ("MQCFIL", 16), ("MQCFSL", 24), ("MQCFBS", 16),
    ("MQCFIF", 20), ("MQCFSF", 24), ("MQCFBF", 20), ("MQCFGR", 16), ("MQCFIN64", 24),
    ("MQCFIL64", 16), ("MQCFH", 36)])
def test_pcf_sizes(name: str, size: int) -> None:
    assert header_layout(name).size == size
    assert name == "MQCFH" or name in PCF_BY_NAME


def _named(params: list[dict[str, Any]]) -> list[list[Any]]:
    return [[p["name"], _named(p["parameters"]) if "parameters" in p else p["value"]]
            for p in params]


@pytest.mark.parametrize("name", EVENTS)
def test_event_vectors(name: str) -> None:
    expect = MANIFEST[name]
    body = (VECTORS / name).read_bytes()
    chain = walk(body, expect["mqmd"])
    assert (chain.errors, chain.problems) == ([], [])
    pcf = chain.pcf.to_json()
    assert pcf["meanings"]["command"] == expect["pcf"]["command"]
    assert pcf["header"]["reason"] == expect["pcf"]["reason"]
    assert pcf["meanings"]["reason"] == "MQRC_UNKNOWN_OBJECT_NAME"
    assert _named(pcf["parameters"]) == expect["pcf"]["parameters"]
    assert pcf["parameters"][-1]["operator"] == 4  # MQCFOP_GREATER
    obj = next(codec.decode(body, expect["mqmd"])).to_json()
    assert obj["pcf"] == json.loads(json.dumps(pcf)) and obj["elements"] == []


@pytest.mark.parametrize("name", EVENTS)
def test_every_prefix_of_an_event_is_an_error_with_an_offset(name: str) -> None:
    expect = MANIFEST[name]
    body = (VECTORS / name).read_bytes()
    for cut in range(1, len(body)):
        chain = walk(body[:cut], expect["mqmd"])
        assert chain.errors, cut
        assert 0 <= chain.errors[0].offset <= cut


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(EVENTS), st.data())
def test_mutated_events_never_raise(name: str, data: st.DataObject) -> None:
    body = bytearray((VECTORS / name).read_bytes())
    for _ in range(data.draw(st.integers(1, 6))):
        body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    unit = next(codec.decode(bytes(body), MANIFEST[name]["mqmd"]))
    for p in unit.errors + unit.problems:
        assert 0 <= p.offset <= len(body) and p.reason
    json.dumps(unit.to_json())
