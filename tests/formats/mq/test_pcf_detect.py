"""PCF recognition without an MQMD, and behind one: the event vectors (MQCFT_EVENT,
MQCMD_Q_MGR_EVENT, reason 2085, ten parameters; testdata/mq/SOURCES.md) in both byte
orders; other MQ bodies, truncations and mutations are not PCF (and never raise)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.mq import pcf_detect
from mqtool.registry import codec
from tests.helpers import TESTDATA

EVENTS = {order: (TESTDATA / f"mq/event.{order}.ascii.bin").read_bytes() for order in ("be", "le")}


@pytest.mark.parametrize("order", ["be", "le"])
def test_event_bodies_are_recognised_and_decode(order: str) -> None:
    data = EVENTS[order]
    d = pcf_detect.detect(data)
    assert d is not None and d.format == "mq" and d.confidence == 0.9
    endian = "big" if order == "be" else "little"
    assert d.reason == (f"PCF MQCFT_EVENT MQCMD_Q_MGR_EVENT ({endian}-endian), 10 parameters, "
                        "292 bytes, reason 2085 MQRC_UNKNOWN_OBJECT_NAME")
    (unit,) = codec("mq").decode(data, **d.options)
    assert not unit.errors
    assert unit.to_json()["pcf"]["header"]["reason"] == 2085


def test_behind_an_mqmd() -> None:
    e = ">"
    mqmd = (b"MD  " + struct.pack(f"{e}7l", 2, 0, 8, -1, 0, 0x111, 819) + b"MQEVENT "
            + bytes(364 - 40))
    d = pcf_detect.detect(mqmd + EVENTS["be"])
    assert d is not None and (d.format, d.confidence) == ("mqmd-binary", 0.9)
    assert d.reason.startswith("MQMD version 2 (Format MQEVENT) and PCF MQCFT_EVENT")


def test_other_bodies_are_not_pcf() -> None:
    for name in ("dlh-tm.be.ascii.bin", "xqh-mqstr.le.ascii.bin", "rfh1.le.ascii.bin"):
        assert pcf_detect.detect((TESTDATA / "mq" / name).read_bytes()) is None
    assert pcf_detect.detect(EVENTS["be"][:100]) is None  # the parameter chain is cut
    trailing = pcf_detect.detect(EVENTS["le"] + bytes(8))
    assert trailing is not None and trailing.confidence == 0.6


def test_signatures_are_the_mqcfh_words() -> None:
    # StrucLength 36 (MQCFH_STRUC_LENGTH) and Version 1..3, each byte order
    assert set(pcf_detect.signatures()) == {
        struct.pack(f"{e}2l", 36, v) for e in "<>" for v in (1, 2, 3)}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["be", "le"]), st.integers(0, 291), st.integers(0, 255))
def test_fuzz_mutations_never_raise(order: str, at: int, value: int) -> None:
    data = bytearray(EVENTS[order])
    data[at] = value
    d = pcf_detect.detect(bytes(data))
    assert d is None or 0 < d.confidence <= 0.9
