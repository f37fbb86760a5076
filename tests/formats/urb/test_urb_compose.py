"""Builds of every URB message type (compose.py): byte-exact round trips of the seed's
messages in four variants and of generated ones, computed lengths and counts, every refusal
at once."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import BuildError, MqtoolError
from mqtool.formats.urb.build import build, load_requests
from mqtool.formats.urb.compose import Message, build_message, from_decoded
from mqtool.formats.urb.decode import decode
from tests.formats.urb.test_urb_decode import DUMPS, VARIANTS, reencode
from tests.helpers import mq, seed_bytes


def roundtrip(data: bytes) -> bytes:
    text = "\n".join(json.dumps(u.to_json()) for u in decode(data))
    return build(load_requests(text))


@pytest.mark.parametrize(("big", "cp"), VARIANTS)
@pytest.mark.parametrize("name", DUMPS)
def test_every_seed_message_round_trips_in_four_variants(name: str, big: bool, cp: str) -> None:
    data = seed_bytes(f"urb/{name}.dump")
    if name == "prior-transaction.request":  # the seed's 'TRAM': refused, as the server would
        with pytest.raises(BuildError, match="'TRAM' is not a request type"):
            roundtrip(data)
        data = data[:0x63] + b"\xd5" + data[0x64:]  # 'TRAN'
    other = reencode(next(decode(data)), data, big, cp)
    assert roundtrip(other) == other


TEXT = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", max_size=8)
IMAGE = st.binary(max_size=80)


@st.composite
def data_messages(draw: st.DrawFn) -> tuple[dict, int, list[list[bytes]]]:
    """A data message description without any length or count: URBT, records with images, URBE."""
    records = draw(st.lists(st.lists(IMAGE, max_size=3), max_size=4))
    snam = draw(TEXT)
    tsnr = draw(st.integers(0, 2**32 - 1))
    elements = [{"type": "URBH", "fields": {"urbhname": draw(TEXT), "urbhmsnr": draw(st.integers(0, 99))}},
                {"type": "URBT", "fields": {"urbtlen": draw(st.sampled_from([112, 128])), "urbtsnam": snam,
                                            "urbttsnr": tsnr, "urbtdbid": draw(st.integers(0, 65535)),
                                            "urbtttim": draw(st.integers(0, 2**63))}}]
    for k, images in enumerate(records):
        elements.append({"type": "URBR", "fields": {
            "urbrrsnr": k + 1, "urbrisn": draw(st.integers(0, 2**32 - 1)),
            "urbrfnr": draw(st.integers(0, 65535)), "urbrtyp": draw(st.sampled_from("RUDI"))}})
        for j, img in enumerate(images):
            elements.append({"type": "URBD", "data": img.hex(),
                             "fields": {"urbddsnr": j + 1, "urbdtyp": draw(st.sampled_from("AB"))}})
    elements.append({"type": "URBE", "fields": {"urbesnam": snam, "urbetsnr": tsnr}})
    big, cp = draw(st.sampled_from(VARIANTS))
    return ({"codepage": cp, "byte_order": "big" if big else "little", "elements": elements},
            len(records), records)


@settings(max_examples=120, deadline=None)
@given(data_messages())
def test_generated_data_messages_compute_lengths_and_round_trip(case: tuple) -> None:
    desc, nrec, records = case
    data = build_message(from_decoded(desc))
    (unit,) = decode(data)
    assert not unit.errors and not unit.problems
    els = unit.elements
    assert els[0].fields["urbhlent"] == len(data)
    t = next(e for e in els if e.type == "URBT")
    assert t.fields["urbtrcnt"] == nrec and t.length == t.fields["urbtlen"]
    rs = [e for e in els if e.type == "URBR"]
    assert [r.fields["urbrdcnt"] for r in rs] == [len(i) for i in records]
    ds = [e for e in els if e.type == "URBD"]
    assert [d.data for d in ds] == [img for imgs in records for img in imgs]
    assert all(d.fields["urbdlenh"] == 32 and d.fields["urbdlend"] == len(d.data) for d in ds)
    assert roundtrip(data) == data


def test_a_urbf_with_its_urbgs_round_trips() -> None:
    desc = {"codepage": "cp037", "byte_order": "big", "elements": [
        {"type": "URBH", "fields": {}},
        {"type": "URBF", "fields": {"urbfgfid": "GFB1", "urbfdbid": 10006, "urbffnr": 4,
                                    "urbffnam": "COLOR-FILE"}},
        {"type": "URBG", "fields": {"urbgidx": 1, "urbgfid": "AA", "urbgflen": 10, "urbgfnam": "NAME"}},
        {"type": "URBG", "fields": {"urbgidx": 2, "urbgfid": "AB", "urbgflen": 16, "urbgfnam": "TIME"}},
    ]}
    data = build_message(from_decoded(desc))
    (unit,) = decode(data)
    assert not unit.errors and not unit.problems
    f = unit.elements[1].fields
    assert (f["urbflen"], f["urbflenh"], f["urbflend"], f["urbfcntg"], f["urbfleng"]) == (
        240, 112, 128, 2, 64)
    assert [g.fields["urbgfnam"] for g in unit.elements[1].children] == ["NAME", "TIME"]
    assert len(data) == 64 + 240 and roundtrip(data) == data


def test_every_refusal_of_a_message_at_once() -> None:
    reply = next(decode(seed_bytes("urb/inst-color.data.dump"))).to_json()
    els = reply["elements"]
    els[0]["fields"]["urbhlent"] = 600  # type: ignore[index]
    els[1]["fields"]["urbtrcnt"] = 5  # type: ignore[index]
    els[3]["fields"]["urbdlend"] = 31  # type: ignore[index]
    els[4]["fields"]["urbrlen"] = 70  # type: ignore[index]
    with pytest.raises(BuildError) as e:
        build(reply)
    assert str(e.value).splitlines() == [
        "urb: 4 refusals:",
        "  urbt[0].urbtrcnt: 5, but 3 URBRs follow",
        "  urbd[0].urbdlend: 31, but the urbddata is 32 bytes",
        "  urbr[1].urbrlen: 70, but the 64-byte URBR takes 64",
        "  urbh.urbhlent: 600, but the message needs 592"]


def test_decode_json_into_build_request_for_a_status_reply() -> None:
    data = seed_bytes("urb/inst-color.cmpl.dump")
    js = mq("decode", "urb", "--json", "-", input=data)
    assert js.status == 0
    res = mq("build-request", "urb", "--from", "-", input=js.stdout)
    assert res.status == 0 and res.stdout == data
    little = mq("build-request", "urb", "--from", "-", "--byte-order", "little", "--charset", "ascii",
                input=js.stdout)
    (unit,) = decode(little.stdout)
    (orig,) = decode(data)
    assert unit.attrs == {"codepage": "latin-1", "byte_order": "little"}
    assert [e.fields for e in unit.elements] == [e.fields for e in orig.elements]
    refused = mq("build-request", "urb", "--from", "-", "--dnam", "X", "--isn", "3", input=js.stdout)
    assert refused.status == 1
    assert "2 refusals" in refused.stderr and "--dnam: a request option" in refused.stderr


JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=6),
                       lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids,
                                                                                  max_size=3),
                       max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 6), st.sampled_from(["fields", "type", "data", "length"]), st.text(max_size=10),
       JSONISH)
def test_wrong_types_and_huge_numbers_are_refused_cleanly(k: int, what: str, key: str, value: object) -> None:
    doc = next(decode(seed_bytes("urb/inst-employee.data.dump"))).to_json()
    els = doc["elements"]
    el = els[k % len(els)]  # type: ignore[index]
    if what == "fields":
        el["fields"][key or "urbtrcnt"] = value
    else:
        el[what] = value
    with contextlib.suppress(MqtoolError):  # anything else fails the test
        build(json.loads(json.dumps(doc)))


def test_message_defaults() -> None:
    assert Message().cp == "cp037" and Message(encoding="ascii").cp == "latin-1"
