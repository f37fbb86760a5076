"""Damaged and foreign input to every SAS decoder: refused when plainly not an attachment
message, never an exception other than MqtoolError, never a negative offset; bodies of any
size decoded a piece at a time."""

from __future__ import annotations

import io
import os
import struct
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq.dumps.read import Message, QueueDump
from mqtool.formats.sas import decode as sas_decode
from mqtool.formats.sas import layout as sas_layout
from mqtool.formats.sas import stream as sas_stream
from mqtool.model import Decoded
from tests.helpers import TESTDATA, seed_bytes

ZOS_HEADER = seed_bytes("sas/seed-zos.header.dump")
ZOS = sas_layout.PROFILES["zos"]
CLASS = list(QueueDump(str(TESTDATA / "sas" / "class-zos.qmsg")))


def offsets_ok(unit: Decoded) -> None:
    """Every problem and span lies inside the unit's bytes."""
    for p in unit.errors + unit.problems:
        assert 0 <= p.offset - unit.offset <= unit.length, p
        assert p.reason
    for s in unit.spans():
        assert unit.offset <= s.start <= s.end <= unit.offset + unit.length, s


def test_random_bytes_and_header_prefixes_are_refused() -> None:
    rnd = os.urandom(5000)
    unit = sas_decode.decode_part(rnd, "auto")
    assert unit.attrs["part"] == "unrecognised" and len(unit.errors) == 1
    assert unit.errors[0].reason.startswith("not an attachment header, and no subordinate message "
                                            "shape fits")
    assert unit.elements[0].data == rnd[:256]  # what is shown: the first bytes only
    for n in range(10, len(ZOS_HEADER)):
        cut = sas_decode.decode_part(ZOS_HEADER[:n], "auto")
        assert cut.errors, n


def test_subordinate_shapes_are_still_recognised() -> None:
    records = bytes.fromhex("00000006C1C2C3C4C5C6" "00000001C3")  # (a first word 1..5 is a
    unit = sas_decode.decode_part(records, "auto")                # data set message type)
    assert unit.ok and unit.attrs["part"] == "records"
    assert [(s.path, s.start, s.value) for s in unit.spans()] == [
        ("len", 0, 6), ("record", 4, "6 bytes"), ("len", 10, 1), ("record", 14, "1 bytes")]
    # the same bytes cut inside the second record: not a whole message of records
    assert sas_decode.decode_part(records[:-1], "auto").attrs["part"] == "unrecognised"


def test_text_records_in_pages_that_lack_bytes() -> None:
    body = bytes.fromhex("00000003") + b"\xff\xfe\xfd"
    unit = sas_decode.decode_part(body, "records", sas_decode.Hints(codepage="utf-8",
                                                                     byte_order="big"), text=True)
    assert unit.ok
    assert [s.value for s in unit.spans()] == [3, "\ufffd\ufffd\ufffd"]
    assert unit.problems[0].reason == "3 bytes are no character of code page utf-8: shown as U+FFFD"
    cp1252 = replace(sas_layout.PROFILES["win"], big=True)
    got = sas_decode.decode_records(bytes.fromhex("00000002") + b"\x81A", cp1252, text=True)
    assert [s.value for s in got.spans()] == [2, "\ufffdA"]
    utf16 = sas_decode.decode_part(body, "records", sas_decode.Hints(codepage="utf-16"),
                                   text=True)
    assert utf16.attrs["codepage"] == "cp037"
    assert utf16.problems[0].reason.startswith("the forced code page utf-16 has no one-byte blank")


def test_mqmd_ccsid_1208_with_cp1252_bytes_in_a_header() -> None:
    _, header = sas_decode.decode_header(ZOS_HEADER)
    assert header is not None
    entry = replace(header.entries[0], qualifier2="caf\u00e9.txt")
    from mqtool.formats.sas.build import build_header

    body = build_header(replace(header, entries=[entry]), replace(ZOS, codepage="cp1252"))
    unit, got = sas_decode.decode_header(body, sas_decode.Hints(mqmd_codepage="utf-8"))
    assert got is not None and got.entries[0].qualifier2 == "caf\u00e9.txt"
    assert got.settings.codepage == "latin-1"
    assert "the strings are read as latin-1" in unit.problems[0].reason


def test_carried_bytes_never_give_negative_offsets() -> None:
    # class-zos.qmsg with a variable definition cut so that its rest is carried on
    msgs = [replace(m) for m in CLASS]
    vardefs = next(i for i, m in enumerate(msgs)
                   if m.body[:4] == bytes.fromhex("00000002"))
    body = bytearray(msgs[vardefs].body)
    body[0x30:0x34] = bytes.fromhex("00000002")  # a label length that overruns the message
    msgs[vardefs] = replace(msgs[vardefs], body=bytes(body))
    decoder = sas_decode.MessageDecoder()
    seen = 0
    for m in msgs:
        unit, _ = decoder.decode(m)
        offsets_ok(unit)
        seen += sum(1 for p in unit.problems if "carried from the previous one" in p.reason)
    assert seen >= 1


def test_zero_and_huge_observation_lengths_decode_nothing_and_say_so() -> None:
    ctx = sas_decode.DatasetContext(
        dsdef=sas_layout.DatasetDef(obslen=0),
        variables=[sas_layout.Variable("C", vartype=2, length=0)])
    unit = sas_decode.decode_dataset(bytes.fromhex("00000003") + b"\x40" * 12, ZOS, ctx)
    assert [p.reason for p in unit.errors] == [
        "the variable definitions give no usable observation layout: observations not decoded"]
    assert "character variable C has length 0; SAS character variables have 1..32767 bytes" in [
        p.reason for p in unit.problems]


def records_body(n: int, size: int) -> bytes:
    rec = bytes(range(256)) * (size // 256)
    return b"".join(struct.pack(">i", len(rec)) + rec for _ in range(n))


def test_a_large_body_is_decoded_in_pieces_with_absolute_offsets() -> None:
    body = records_body(40, 32768)  # 1.25 MiB: more than decoded at once
    assert len(body) > sas_stream.WHOLE
    units = list(sas_stream.decode_body(io.BytesIO(body)))
    assert [u.offset for u, _ in units] == list(range(0, len(body), sas_stream.PIECE))
    assert all(u.ok and u.attrs["part"] == "records" for u, _ in units)
    lens = [s for u, _ in units for s in u.spans() if s.path == "len"]
    assert [s.start for s in lens] == [k * 32772 for k in range(40)]
    assert {s.value for s in lens} == {32768}
    assert b"".join(data for _, data in units) == body
    assert units[0][0].title == "records, bytes X'0'-X'3FFFF' of a 1310880-byte message"
    assert not any(u.problems for u, _ in units)


def test_a_large_body_from_a_pipe_and_large_refusals() -> None:
    body = records_body(40, 32768)

    class Pipe(io.BytesIO):
        def seekable(self) -> bool:
            return False

    units = list(sas_stream.decode_body(Pipe(body[100:]), head=body[:100]))
    assert sum(1 for u, _ in units for s in u.spans() if s.path == "len") == 40
    cut = list(sas_stream.decode_body(io.BytesIO(body[:-1])))  # the last record is cut
    assert len(cut) == 1 and cut[0][0].attrs["part"] == "unrecognised"
    assert cut[0][0].errors[0].reason.endswith("(records would not end with the message); "
                                               "1310879 bytes")
    header = list(sas_stream.decode_body(io.BytesIO(body), "header"))
    assert header[0][0].errors[0].reason.startswith("a header of 1310880 bytes is not plausible")


PART = st.sampled_from(sas_layout.PARTS)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300), PART, st.sampled_from([None, "big", "little"]),
       st.sampled_from([None, 4, 8]), st.sampled_from([None, "cp037", "cp1252", "utf-8"]),
       st.booleans())
def test_every_part_on_random_bodies(body: bytes, part: str, order: str | None,
                                     long: int | None, cp: str | None, text: bool) -> None:
    hints = sas_decode.Hints(byte_order=order, long=long, codepage=cp)
    unit = sas_decode.decode_part(body, part, hints, text=text)
    assert unit.format == "sas-attachment"
    offsets_ok(unit)
    if part == "auto" and unit.ok:
        assert unit.attrs["part"] != "unrecognised"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 400), st.integers(0, 255)), max_size=6),
       st.sampled_from(range(len(CLASS))), st.integers(0, 400))
def test_mutated_message_sets_through_the_message_decoder(edits: list[tuple[int, int]],
                                                          which: int, cut: int) -> None:
    decoder = sas_decode.MessageDecoder(obs_layout="definition")
    for i, m in enumerate(CLASS):
        body = bytearray(m.body)
        if i == which:
            for pos, value in edits:
                if pos < len(body):
                    body[pos] = value
            body = body[:cut] if cut < len(body) else body
        unit, _ = decoder.decode(Message(m.position, bytes(body), dict(m.mqmd), m.source))
        offsets_ok(unit)


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=1, max_size=64), st.integers(1, 40), PART)
def test_large_bodies_of_repeated_garbage(unit_bytes: bytes, repeat: int, part: str) -> None:
    body = (unit_bytes * ((sas_stream.WHOLE // len(unit_bytes)) + repeat))[:sas_stream.WHOLE
                                                                           + repeat * 997]
    try:
        for unit, data in sas_stream.decode_body(io.BytesIO(body), part):
            assert len(data) <= sas_stream.WHOLE
            offsets_ok(unit)
    except MqtoolError:
        pass


def test_a_large_message_in_a_dump_is_decoded_in_pieces() -> None:
    big = records_body(40, 32768)
    msgs = [*CLASS[:3], replace(CLASS[3], body=big), *CLASS[4:]]
    out = list(sas_stream.decode_messages(msgs))
    roles = [u.attrs.get("role") for u, _ in out]
    assert roles.count("1310880 bytes, decoded on its own a piece at a time") == 6
    assert [u.offset for u, _ in out[3:9]] == [k * sas_stream.PIECE for k in range(6)]
    assert all(len(data) <= sas_stream.PIECE for _, data in out[3:9])
    assert roles[:3] == ["attachment header", "application message", "attachment 1 message 1"]
    assert len(out) == len(CLASS) + 5


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 163), st.integers(0, 255)), max_size=4),
       st.integers(0, 200), st.binary(max_size=40))
def test_detect_on_mutated_headers_and_noise(edits: list[tuple[int, int]], cut: int,
                                             tail: bytes) -> None:
    body = bytearray(ZOS_HEADER)
    for pos, value in edits:
        body[pos] = value
    data = bytes(body[:cut]) + tail
    found = sas_decode.detect(data)
    if found is not None:  # a detection is a header (or definition) that decodes cleanly
        assert found.format == "sas-attachment"
        unit = sas_decode.decode_part(data, str(found.options["part"]))
        assert unit.ok


def test_registry_decode_options_are_checked() -> None:
    from mqtool import api

    for options, message in (({"codepage": "nonsense"}, "unknown code page 'nonsense'"),
                             ({"long": 5}, "long 5: use 4, 8"),
                             ({"byte_order": "middle"}, "byte_order 'middle': use big, little"),
                             ({"float_format": "vax"}, "float_format 'vax': use ieee-be")):
        try:
            api.decode("sas-attachment", ZOS_HEADER, **options)
        except MqtoolError as e:
            assert message in str(e)
        else:
            raise AssertionError(options)
    assert api.decode("sas-attachment", ZOS_HEADER, codepage="500")[0].attrs["codepage"] == "cp500"
