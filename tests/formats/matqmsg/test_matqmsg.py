"""IBM i MATQMSG: the spec's worked examples §7.1 and §7.2, validation vectors §7.3 and
time vectors §7.4 asserted exactly; the builder validates like the machine and round-trips;
the receiver simulator reproduces the examples byte for byte."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import BuildError, DecodeError, InputError
from mqtool.formats.matqmsg import build as mq_build
from mqtool.formats.matqmsg import decode as mq_decode
from mqtool.formats.matqmsg import detect as mq_detect
from mqtool.formats.matqmsg import layout as mq_layout
from mqtool.model import Decoded, Element, tree_faults
from tests.helpers import seed_bytes


def hx(text: str) -> bytes:
    return bytes.fromhex("".join(text.split()))


SEL1 = hx("10000000 00000000 00100000 00000000")  # §7.1
REC1 = hx("""00000080 00000060 00000002 00000002 00000040 00000000 00000000 00000000
             AB6B0841 6B000001 00000005 00000000 C8C5D3D3 D6000000 00000000 00000000
             AB6B0842 D9360002 00000014 00000000 E2C5C3D6 D5C440D4 C5E2E2C1 C7C540E3""")
SEL2 = hx("88000000 00100000 00208000 00000000 C3E4E2E3 F0F0F0F1")  # §7.2
REC2 = hx("""00000060 00000060 00000001 00000005 00000100 00000008 00000000 00000000
             AB6B0EF6 4529000F 00000012 00000000 C3E4E2E3 F0F0F0F1 00000000 00000000
             D6D9C4C5 D940F4F7 F1F140E2 C8C9D7D7 C5C40000 00000000 00000000 00000000""")


def one(data: bytes, **options: object) -> Decoded:
    [unit] = list(mq_decode.decode(data, **options))  # type: ignore[arg-type]
    return unit


def elements(unit: Decoded, etype: str) -> list[dict[str, object]]:
    return [el.all_values for el in walked(unit) if el.type == etype]


def walked(unit: Decoded) -> list[Element]:
    """Every element of ``unit``, nested ones after their parent (the entries under the RECEIVER)."""
    return [el for top in unit.elements for el in top.walk()]


def test_vectors_on_disk_are_the_spec_hex() -> None:
    assert seed_bytes("matqmsg/all-blocked.selection.synthetic.dump") == SEL1
    assert seed_bytes("matqmsg/all-blocked.receiver.synthetic.dump") == REC1
    assert seed_bytes("matqmsg/keyed-eq.selection.synthetic.dump") == SEL2
    assert seed_bytes("matqmsg/keyed-eq.receiver.synthetic.dump") == REC2
    assert seed_bytes("matqmsg/provided-40.receiver.synthetic.dump") == hx("00000028") + REC1[4:40]


# --------------------------------------------------------------------------- §7.1


def test_7_1_selection() -> None:
    unit = one(SEL1)
    assert unit.attrs["part"] == "selection" and not unit.problems and not unit.errors
    [f] = elements(unit, "SELECTION")
    assert (f["selection"], f["selection_type"], f["key_relationship"]) == (0x10, "all", None)
    assert (f["key_bytes"], f["text_bytes"], f["options"], f["mode"], f["key"]) == (0, 16, 0, "blocked", "")
    j = unit.to_json()["elements"][0]["fields"]  # type: ignore[index]
    assert j["key_relationship"] is None and j["selection_type"] == "all"
    spans = {s.name: s for s in unit.spans()}
    assert (spans["key_bytes"].start, spans["text_bytes"].start, spans["mode"].start) == (2, 6, 10)


def test_7_1_receiver() -> None:
    unit = one(REC1, selection=SEL1)
    assert not unit.errors and not unit.problems
    [h] = elements(unit, "RECEIVER")
    assert h == {"bytes_provided": 128, "bytes_available": 96, "messages_available": 2,
                 "messages_on_queue": 2, "max_message_size": 64, "key_size": 0, "reserved": bytes(8)}
    assert 96 == 32 + 2 * (16 + 0 + 16)
    m1, m2 = elements(unit, "MESSAGE")
    assert m1["enqueue_time"].iso() == "2024-03-15T12:00:00.000000Z"  # type: ignore[attr-defined]
    assert m1["enqueue_time"].submicro == 1  # type: ignore[attr-defined]
    assert (m1["message_length"], m1["text"], m1["key"]) == (5, "HELLO", "")
    assert m2["enqueue_time"].iso() == "2024-03-15T12:00:01.500000Z"  # type: ignore[attr-defined]
    assert m2["enqueue_time"].submicro == 2  # type: ignore[attr-defined]
    assert (m2["message_length"], m2["text"]) == (20, "SECOND MESSAGE T")
    els = [el for el in walked(unit) if el.type == "MESSAGE"]
    assert (els[0].offset, els[1].offset) == (0x20, 0x40)
    head = unit.elements[0]  # the entries nest in the RECEIVER, which spans them (32 + 2 x 32)
    assert head.children == els and (head.offset, head.length) == (0, 96) and tree_faults(unit.elements) == []
    assert "flags" not in els[0].extra and els[1].extra["flags"] == ["truncated-text"]
    msgs = unit.attrs["messages"]
    assert [m["text"] for m in msgs] == ["HELLO", "SECOND MESSAGE T"]  # type: ignore[index]
    assert msgs[0]["text_hex"] == "C8C5D3D3D6" + "00" * 11  # type: ignore[index]
    assert msgs[0]["enqueue_time_hex"] == "AB6B08416B000001"  # type: ignore[index]
    assert (unit.attrs["key_bytes"], unit.attrs["text_bytes"], unit.attrs["messages_cut"]) == (0, 16, 0)


def test_7_1_lengths_by_option_or_inferred() -> None:
    by_option = one(REC1, key_bytes=0, text_bytes=16)
    inferred = one(REC1)
    assert by_option.attrs["lengths_from"] == "options"
    assert inferred.attrs["lengths_from"] == "inferred from bytes_available"
    assert elements(inferred, "MESSAGE") == elements(by_option, "MESSAGE")


def test_wrong_lengths_are_reported() -> None:
    unit = one(REC1, key_bytes=0, text_bytes=32)
    assert any("bytes_available 96 is not 32 + 2 × 48 = 128" in p.reason for p in unit.problems)


# --------------------------------------------------------------------------- §7.2


def test_7_2_selection() -> None:
    unit = one(SEL2)
    [f] = elements(unit, "SELECTION")
    assert (f["selection"], f["selection_type"], f["key_relationship"]) == (0x88, "keyed", "=")
    assert (f["key_bytes"], f["text_bytes"], f["options"], f["mode"], f["key"]) == (
        16, 32, 0x80, "concurrent", "CUST0001")
    assert not unit.problems
    assert one(SEL2, key_size=8).elements[0].value("key") == "CUST0001"


def test_7_2_receiver() -> None:
    unit = one(REC2, selection=SEL2)
    assert not unit.problems and not unit.errors
    [h] = elements(unit, "RECEIVER")
    assert (h["bytes_provided"], h["bytes_available"], h["messages_available"], h["messages_on_queue"],
            h["max_message_size"], h["key_size"]) == (96, 96, 1, 5, 256, 8)
    [m] = elements(unit, "MESSAGE")
    assert m["enqueue_time"].iso() == "2024-03-15T12:30:00.250000Z"  # type: ignore[attr-defined]
    assert m["enqueue_time"].submicro == 0xF  # type: ignore[attr-defined]
    assert (m["message_length"], m["key"], m["text"]) == (18, "CUST0001", "ORDER 4711 SHIPPED")
    key = next(s for s in unit.spans() if s.name == "key")
    assert key.raw == "CUST0001".encode("cp037") + bytes(8) and (key.start, key.end) == (0x30, 0x40)
    text = next(s for s in unit.spans() if s.name == "text")
    assert text.raw == "ORDER 4711 SHIPPED".encode("cp037") + bytes(14)
    inferred = one(REC2)  # K = key size 8 rounded up to 16, said so
    assert inferred.attrs["lengths_from"].startswith("inferred") and elements(inferred, "MESSAGE") == [m]


def test_binary_code_page() -> None:
    unit = one(REC2, selection=SEL2, codepage="binary")
    [m] = elements(unit, "MESSAGE")
    assert m["key"] == "CUST0001".encode("cp037") + bytes(8)
    assert unit.attrs["binary"] is True and unit.attrs["codepage"] == "cp037"  # for dump columns


# --------------------------------------------------------------------------- §7.3


def test_7_3_provided_4_is_3803() -> None:
    unit = one(hx("00000004 00000060"))
    assert not unit.errors
    [p] = unit.problems
    assert p.path == "receiver.bytes_provided" and p.offset == 0
    assert "3803 materialization length invalid" in p.reason
    assert one(seed_bytes("matqmsg/provided-4.receiver.synthetic.dump")).problems == [p]


@pytest.mark.parametrize(("data", "options", "path", "words"), [
    (hx("10000000 00140000 00000000 00000000"), {}, "selection.key_bytes",
     "key_bytes 20 is not 0 or a multiple of 16 — MI exception 3801 template value invalid"),
    (hx("10000000 00000001 00100000 00000000"), {}, "selection.text_bytes",
     "text_bytes 65552 exceeds the maximum 65,536 — MI exception 3801"),
    (hx("82000000 00100000 00100000 00000000 C3E4E2E3 F0F0F0F1"), {"key_size": 0},
     "selection.selection_type", "keyed selection on a queue that is not keyed (key size 0)"),
])
def test_7_3_selection_violations(data: bytes, options: dict, path: str, words: str) -> None:
    unit = one(data, **options)
    assert not unit.errors
    [p] = unit.problems
    assert p.path == path and words in p.reason


def test_7_3_provided_40() -> None:
    data = seed_bytes("matqmsg/provided-40.receiver.synthetic.dump")
    unit = one(data, selection=SEL1)
    assert not unit.errors
    [h] = elements(unit, "RECEIVER")
    assert (h["bytes_provided"], h["bytes_available"]) == (40, 96)
    [el] = [e for e in walked(unit) if e.type == "MESSAGE"]
    assert el.extra["flags"] == ["truncated-entry"] and el.offset == 32 and el.length == 8
    assert el.value("enqueue_time").iso() == "2024-03-15T12:00:00.000000Z"  # type: ignore[union-attr]
    assert unit.attrs["receiver_too_small"] is True and unit.attrs["messages_cut"] == 2
    [p] = unit.problems
    assert p.reason == ("receiver too small: bytes_available 96 > bytes_provided 40; 2 of 2 "
                        "message(s) cut (message 1 partial)")


def test_receiver_cut_inside_a_field_keeps_the_bytes() -> None:
    data = hx("00000038") + REC1[4:0x38]  # 56 provided: 8 of 16 text bytes
    unit = one(data, selection=SEL1)
    el = next(e for e in walked(unit) if e.type == "MESSAGE")
    tail = el.spans[-1]
    assert (tail.name, tail.start, tail.end, tail.note) == ("text", 0x30, 0x38, "partial")
    assert tail.value == REC1[0x30:0x38]
    assert unit.attrs["messages_cut"] == 2


def test_receiver_input_shorter_than_written_is_an_error() -> None:
    unit = one(REC1[:0x48], selection=SEL1)
    [err] = unit.errors
    assert (err.path, err.offset) == ("messages[2].message_length", 0x48)
    assert err.reason.startswith("input ends inside message 2")
    assert len(elements(unit, "MESSAGE")) == 2  # message 1 whole, message 2 partial


def test_bytes_left_unchanged_are_shown_apart() -> None:
    unit = one(REC1 + b"\xee" * 32, selection=SEL1)
    tail = unit.elements[-1]
    assert tail.type == "UNCHANGED" and tail.data == b"\xee" * 32 and tail.offset == 96
    assert unit.attrs["unchanged_bytes"] == 32 and not unit.problems


def test_receiver_consistency_checks() -> None:
    bad = bytearray(REC1)
    bad[12:16] = (1).to_bytes(4)  # more available than on the queue
    bad[0x4B] = 0x50  # message 2 longer than the maximum message size 64
    bad[0x3F] = 0x01  # text padding of message 1 not zero
    reasons = " | ".join(p.reason for p in one(bytes(bad), selection=SEL1).problems)
    assert "messages_available 2 > messages_on_queue 1" in reasons
    assert "message_length 80 exceeds max_message_size 64" in reasons
    assert "text bytes beyond message_length are not zero" in reasons


# --------------------------------------------------------------------------- §7.4 times


@pytest.mark.parametrize(("raw", "iso"), [
    (0x8000000000000000, "2000-01-01T00:00:00.000000Z"),
    (0x0000000000000000, "1928-08-23T12:03:06.314752Z"),
    (0xAB6B08416B000001, "2024-03-15T12:00:00.000000Z"),
])
def test_7_4_time_vectors(raw: int, iso: str) -> None:
    t = mq_layout.MiTime(raw)
    assert t.iso() == iso and t.hex() == f"{raw:016X}"


def test_7_4_stck_relation() -> None:
    assert mq_layout.MiTime.from_stck(0xB361183F48000000).raw == 0x8000000000000000
    assert mq_layout.MiTime(0x8000000000000000).to_stck() == 0xB361183F48000000
    assert mq_layout.MiTime.from_datetime(mq_layout.MI_EPOCH).raw == 1 << 63
    assert mq_layout.MiTime.parse("2024-03-15T12:00:00Z").raw == 0xAB6B08416B000000
    with pytest.raises(ValueError):
        mq_layout.MiTime.from_stck(0x1000)


# --------------------------------------------------------------------------- builder


def test_builder_reproduces_the_examples() -> None:
    assert mq_build.build_selection("all", text_bytes=16) == SEL1
    built = mq_build.build_selection("keyed", "=", 16, 32, "concurrent", "CUST0001", queue_key_size=8)
    assert built == SEL2 + bytes(8)  # padded to a 16-byte multiple
    key = b"\xc3\xe4\xe2\xe3\xf0\xf0\xf0\xf1"
    assert mq_build.build_selection("keyed", "eq", 16, 32, "concurrent", key) == built


@pytest.mark.parametrize(("kwargs", "refusals"), [
    ({"selection_type": "all", "key_bytes": 20}, ["key_bytes 20 is not 0 or a multiple of 16"]),
    ({"selection_type": "all", "key_bytes": 272}, ["key_bytes 272 exceeds the maximum 256"]),
    ({"selection_type": "all", "text_bytes": 65552}, ["text_bytes 65552 exceeds the maximum 65,536"]),
    ({"selection_type": "all", "text_bytes": -16}, ["text_bytes -16 is negative"]),
    ({"selection_type": "keyed", "key_relationship": ">"}, ["keyed selection needs a key"]),
    ({"selection_type": "keyed", "key": "K"}, ["keyed selection needs a key relationship"]),
    ({"selection_type": "keyed", "key_relationship": "=", "key": "K", "queue_key_size": 0},
     ["keyed selection on a queue that is not keyed"]),
    ({"selection_type": "keyed", "key_relationship": "=", "key": "TOOLONGKEY", "queue_key_size": 8},
     ["the key has 10 bytes, the queue's key size is 8"]),
    ({"selection_type": "first", "key_relationship": "="}, ["only applies to keyed selection, not first"]),
    ({"selection_type": "last", "key": "K"}, ["a key only applies to keyed selection, not last"]),
    ({"selection_type": "keyed", "key_bytes": 8, "text_bytes": 65552},
     ["keyed selection needs a key relationship", "keyed selection needs a key after offset 16",
      "key_bytes 8 is not 0", "text_bytes 65552 exceeds"]),
])
def test_builder_refuses_and_explains_each(kwargs: dict, refusals: list[str]) -> None:
    with pytest.raises(mq_build.SelectionRefusedError) as e:
        mq_build.build_selection(**kwargs)
    got = [v.describe() for v in e.value.violations]
    assert len(got) == len(refusals), got
    for text, want in zip(got, refusals, strict=True):
        assert want in text and "MI exception" in text
    assert e.value.status == 1


def test_builder_rejects_unknown_words() -> None:
    for kwargs, path in (({"selection_type": "most"}, "selection_type"),
                         ({"selection_type": "keyed", "key_relationship": "~"}, "key_relationship"),
                         ({"mode": "eager"}, "mode")):
        with pytest.raises(BuildError) as e:
            mq_build.build_selection(**kwargs)
        assert e.value.path == path


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["all", "first", "last", "keyed"]), st.sampled_from(sorted(mq_layout.RELATION_CODES)),
       st.integers(0, 16).map(lambda n: n * 16), st.integers(0, 4096).map(lambda n: n * 16),
       st.sampled_from(["blocked", "concurrent"]), st.binary(min_size=1, max_size=64))
def test_selection_round_trip(kind: str, rel: str, k: int, t: int, mode: str, key: bytes) -> None:
    keyed = kind == "keyed"
    data = mq_build.build_selection(kind, rel if keyed else None, k, t, mode, key if keyed else None,
                              codepage="binary")
    assert len(data) % 16 == 0
    unit = one(data, codepage="binary", key_size=len(key) if keyed else None)
    assert not unit.problems and not unit.errors
    f = unit.elements[0].all_values
    assert (f["selection_type"], f["key_relationship"], f["key_bytes"], f["text_bytes"], f["mode"]) == (
        kind, rel if keyed else None, k, t, mode)
    if keyed:
        assert f["key"] == key
    again = mq_build.build(mq_build.selection_from_json(unit.to_json()), codepage="binary",
                     queue_key_size=len(key) if keyed else None)
    assert again == data


def test_fast_path_gives_the_span_path_values() -> None:
    fast = list(mq_decode.iter_messages(REC1, 0, 16))
    slow = elements(one(REC1, key_bytes=0, text_bytes=16), "MESSAGE")
    assert [dict(f, offset=None) for f in fast] == [dict(s, offset=None) for s in slow]
    assert [f["offset"] for f in fast] == [32, 64]
    assert len(list(mq_decode.iter_messages(hx("00000028") + REC1[4:40], 0, 16))) == 0  # cut entries left out
    with pytest.raises(DecodeError):
        list(mq_decode.iter_messages(REC1[:20], 0, 16))


# --------------------------------------------------------------------------- simulator


def test_simulator_reproduces_7_1_7_2_and_7_3() -> None:
    q1 = mq_build.Queue(64, 0, [mq_build.Message("AB6B08416B000001", "HELLO"),
                          mq_build.Message("AB6B0842D9360002", "SECOND MESSAGE TEXT!")])
    assert mq_build.simulate_receiver(q1, SEL1, 128) == REC1
    assert mq_build.simulate_receiver(q1, SEL1, 40) == hx("00000028") + REC1[4:40]
    q2 = mq_build.Queue(256, 8, [mq_build.Message("AB6B0E0000000000", "A", "CUST0000"),
                           mq_build.Message("AB6B0EF64529000F", "ORDER 4711 SHIPPED", "CUST0001"),
                           *(mq_build.Message("AB6B0F0000000000", "B", f"CUST000{i}") for i in (2, 3, 4))])
    assert mq_build.simulate_receiver(q2, SEL2, 96) == REC2
    ge = mq_build.build_selection("keyed", ">=", 16, 32, key="CUST0003", queue_key_size=8)
    assert one(mq_build.simulate_receiver(q2, ge, 4096), selection=ge).attrs["messages_present"] == 2
    first = mq_build.build_selection("first", text_bytes=16)
    assert int.from_bytes(mq_build.simulate_receiver(q2, first, 100)[8:12]) == 1
    with pytest.raises(BuildError) as e:
        mq_build.simulate_receiver(q1, SEL1, 4)
    assert "3803" in str(e.value)


# --------------------------------------------------------------------------- protocol


def test_auto_part_and_detect() -> None:
    assert mq_decode.guess_part(SEL1) == "selection" and mq_decode.guess_part(REC1) == "receiver"
    d = mq_detect.detect(SEL2)
    assert d is not None and d.options == {"part": "selection"} and "type keyed =" in d.reason
    d = mq_detect.detect(REC1)
    assert d is not None and d.options == {"part": "receiver"} and "96 = 32 + 2 × 32" in d.reason
    assert mq_detect.detect(bytes(16)) is None and mq_detect.detect(b"") is None
    d = mq_detect.detect(hx("10000000 00140000 00000000 00000000"))  # K=20: a template breaking a rule
    assert d is not None and d.confidence == 0.5 and "1 rule(s) broken (key_bytes 20" in d.reason
    assert mq_detect.detect(hx("10FF0000 00000000 00000000 00000000")) is None  # reserved byte 1 set
    d = mq_detect.detect(hx("00000004 00000060"))
    assert d is not None and d.confidence == 0.4 and "3803" in d.reason
    assert mq_detect.detect(hx("00000004 00000061")) is None


def test_bad_input_errors() -> None:
    with pytest.raises(DecodeError):
        list(mq_decode.decode(b""))
    with pytest.raises(InputError):
        list(mq_decode.decode(SEL1, part="nope"))
    unit = one(b"\x10\x00\x00", part="selection")
    assert unit.errors and unit.errors[0].path.startswith("selection.")
    unit = one(hx("00000080 00000060 00000002"), part="receiver")
    assert unit.errors and unit.errors[0].offset == 12
    unit = one(hx("00000080 00000061 00000002 00000002 00000040 00000000") + bytes(8) + bytes(65),
               part="receiver")
    assert unit.errors and "--key-bytes" in unit.errors[0].reason  # 97 - 32 is not 2 entries


TEXTS = st.binary(max_size=40)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([0, 16, 32]), st.sampled_from([0, 16, 48]),
       st.lists(st.tuples(st.integers(0, (1 << 64) - 1), st.integers(-2, 100), TEXTS, TEXTS), max_size=5),
       st.integers(0, 9), st.integers(0, 300), st.integers(-1, 40))
def test_receivers_round_trip_through_the_declaration(
        k: int, t: int, entries: list[tuple[int, int, bytes, bytes]], extra: int, max_size: int,
        key_size: int) -> None:
    """build(decode(x)) == x for whole receivers (keys and text as bytes): the header, then
    messages_available entries of 16 + K + T bytes nested in the RECEIVER, none overlapping."""
    messages = [{"enqueue_time": mq_layout.MiTime(raw), "message_length": n, "key": key[:k], "text": text[:t]}
                for raw, n, key, text in entries]
    header = {"bytes_provided": 32 + len(entries) * (16 + k + t) + 16 * extra,
              "messages_on_queue": len(entries), "max_message_size": max_size, "key_size": key_size}
    data = mq_build.build_receiver(header, messages, k, t)
    assert len(data) == 32 + len(entries) * (16 + k + t)
    (unit,) = mq_decode.decode(data, part="receiver", key_bytes=k, text_bytes=t, codepage="binary")
    assert not unit.errors, unit.errors
    (head,) = unit.elements
    assert [c.offset for c in head.children] == [32 + i * (16 + k + t) for i in range(len(entries))]
    assert head.end == len(data) and tree_faults(unit.elements) == []
    again = mq_build.build_receiver({n: v for n, v in head.all_values.items() if n != "reserved"},
                                    [c.all_values for c in head.children], k, t)
    assert again == data
    bulk = mq_decode.iter_messages(data, k, t, None)  # the bulk path reads the same composition
    assert [m["offset"] for m in bulk] == [c.offset for c in head.children]


def test_a_given_count_that_disagrees_with_the_entries_is_refused() -> None:
    with pytest.raises(BuildError, match=r"receiver\.messages_available"):
        mq_build.build_receiver({"messages_available": 3}, [{"message_length": 0}], 0, 16)


def test_the_catalog_and_the_ksy_read_the_composition() -> None:
    """docs/ksy counts the entries as the declaration does (not to the end: the bytes after
    bytes_available are left unchanged by MATQMSG and are no entry)."""
    import yaml

    from mqtool import catalog

    spec = yaml.safe_load(catalog.ksy("matqmsg"))
    assert spec["seq"][-1] == {"id": "messages", "type": "message", "repeat": "expr",
                               "repeat-expr": "receiver.messages_available"}


def test_view_shows_the_entries_under_the_receiver() -> None:
    from mqtool.view.fields import ELEMENT, build_tree

    unit = one(REC1, selection=SEL1)
    (head,) = [n for n in build_tree(unit).children if n.kind == ELEMENT]
    entries = [n for n in head.children if n.kind == ELEMENT]
    assert [(n.start, n.end, n.path) for n in entries] == [(0x20, 0x40, "messages[1]"),
                                                           (0x40, 0x60, "messages[2]")]
    assert (head.start, head.end) == (0, 96)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 95), st.integers(0, 255)), max_size=4), st.integers(1, 96),
       st.sampled_from([(0, 16), (16, 0), (0, 32)]))
def test_damaged_receivers_decode_or_fail_cleanly(edits: list[tuple[int, int]], cut: int,
                                                  kt: tuple[int, int]) -> None:
    """The error contract of the receiver decoder over cut and damaged receivers: no
    exception, every fault placed inside the input, the entries nested in the RECEIVER
    without overlapping, and (whole, undamaged entries) build(decode(x)) == x."""
    data = bytearray(REC1)
    for pos, value in edits:
        data[pos] = value
    x = bytes(data[:cut])
    (unit,) = mq_decode.decode(x, part="receiver", key_bytes=kt[0], text_bytes=kt[1], codepage="binary")
    assert all(0 <= p.offset <= len(x) and p.reason for p in unit.errors + unit.problems)
    assert tree_faults(unit.elements) == []
    if not unit.elements or unit.elements[0].type != "RECEIVER":
        return
    head = unit.elements[0]
    assert {c.type for c in head.children} <= {"MESSAGE"}
    whole = [c for c in head.children if c.length == 16 + kt[0] + kt[1]]
    fields = {n: v for n, v in head.all_values.items() if n != "reserved"}
    if (not unit.errors and not unit.problems and len(whole) == head.value("messages_available")
            and head.end == len(x) and fields["bytes_available"] == len(x)):
        again = mq_build.build_receiver(fields, [c.all_values for c in whole], *kt)
        assert again == x[:head.end]
