"""Opening inputs as lazy unit lists: the units are the codecs' own, offsets and bytes agree,
a large extract is framed a slice at a time and only shown records are decoded."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqtool import registry
from mqtool.errors import DecodeError, EmptyInputError, InputError
from mqtool.formats.csq1logp.framing import frames, read_chunks
from mqtool.formats.mq.dumps.read import QueueDump
from mqtool.formats.urb.layout import layouts as urb_layouts
from mqtool.io.undump import undump
from mqtool.view import sources
from mqtool.view.sources import BlobSource, ExtractSource, QueueDumpSource, Row, open_source
from tests.view.conftest import CSQ_2SEG, SAS_QMSG, URB_DATA


def test_dump_text_of_a_urb_message_is_one_unit_with_the_codecs_spans() -> None:
    src = open_source(str(URB_DATA))
    assert isinstance(src, BlobSource) and src.done and len(src) == 1
    raw = undump(URB_DATA.read_text())
    loaded = src.load(0)
    assert loaded.data == raw and loaded.origin == 0 and loaded.codepage == "cp037"
    expected = next(iter(registry.codec("urb").decode(raw)))
    assert loaded.unit.to_json() == expected.to_json()
    # the second URBR element starts at X'0130' in the seed dump; urbrisn is its field
    isn = next(s for s in loaded.unit.spans() if s.path == "urbr[1].urbrisn")
    assert isn.start == 0x130 + urb_layouts().URBR.offset_of("urbrisn")
    assert raw[isn.start:isn.end] == bytes.fromhex("00000003") and isn.value == 3
    # the seed's elements in order (URBR and URBD three times), the subscription URBTSNAM
    assert src.row(0) == Row(" ", "X'0000'", 592, "URBH URBT URBR×3 URBD×3 URBE, COLOR")
    assert "urb (0.95" in src.description


def test_csq1logp_dump_text_gives_two_records_and_locate_finds_them() -> None:
    src = open_source(str(CSQ_2SEG))
    assert len(src) == 2
    first, second = src.load(0), src.load(1)
    # the seed: RDW X'00D4' (212) then the second record's RDW at X'00D4'
    assert (first.origin, len(first.data)) == (0, 212)
    assert second.origin == 212 and second.data[:2] == (207).to_bytes(2, "big")
    assert src.locate(0) == 0 and src.locate(211) == 0 and src.locate(212) == 1
    assert src.locate(212 + 207) is None


def test_a_queue_dump_is_read_message_by_message_with_the_registrys_roles() -> None:
    src = open_source(str(SAS_QMSG))
    assert isinstance(src, QueueDumpSource)
    while not src.done:
        src.advance(1)
    expected = list(registry.decode_messages(QueueDump(str(SAS_QMSG))))
    assert len(src) == len(expected) > 3  # a header, then subordinate messages
    for i, (unit, body) in enumerate(expected):
        got = src.load(i)
        assert got.unit.to_json() == unit.to_json() and got.data == body
        assert got.unit.attrs["message"] == i + 1
    assert [src.row(i) for i in (0, 2)] == [
        Row(" ", "msg 1", len(expected[0][1]), "HEADER, num_attachments=1, CLASS"),  # entries nested
        Row(" ", "msg 3", len(expected[2][1]), "TYPE DSDEF, nobs=5")]
    assert src.locate(5) is None  # offsets are per message body


def test_an_evicted_queue_dump_unit_is_decoded_again_from_the_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "CACHE_BYTES", 1)
    src = open_source(str(SAS_QMSG))
    while not src.done:
        src.advance(1)
    assert list(src.cache) == [len(src) - 1]  # only the newest unit stays
    expected = list(registry.decode_messages(QueueDump(str(SAS_QMSG))))
    again = src.load(0)
    assert again.unit.to_json() == expected[0][0].to_json() and again.data == expected[0][1]


def test_an_extract_is_framed_lazily_and_records_decode_one_at_a_time(extract_file: Path) -> None:
    all_frames = [(f.offset, f.length) for f in frames(read_chunks(str(extract_file)), "rdw")]
    assert isinstance(open_source(str(extract_file)), ExtractSource)
    src = ExtractSource(str(extract_file), initial=0)
    assert src.framing == "rdw"
    assert len(src) == 512 and not src.done  # a slice at a time: 512 frames per step
    # an offset not framed yet is not located; framing on until it is covered locates it
    far = all_frames[-10][0] + 5
    assert src.locate(far) is None and src.scanned <= far
    while src.scanned <= far:
        src.advance(0)
    k = src.locate(far)
    assert k == len(all_frames) - 10
    loaded = src.load(k)
    off, n = all_frames[k]
    data = extract_file.read_bytes()
    assert loaded.origin == off and loaded.data == data[off:off + n]
    expected = registry.codec("csq1logp").decode(data)
    for i, unit in enumerate(expected):
        if i == k:
            assert loaded.unit.to_json() == unit.to_json()
            break
    while not src.done:
        src.advance(1)
    assert [(src.offsets[i], src.lengths[i]) for i in range(len(src))] == all_frames
    src.close()


def test_a_damaged_span_of_an_extract_is_a_unit_with_its_error(tmp_path: Path, extract_file: Path) -> None:
    from mqtool.testing.csq1logp_gen import damage

    data = extract_file.read_bytes()[:20000]
    broken = damage(data, 4080, "garbage")
    path = tmp_path / "broken.rdw"
    path.write_bytes(broken)
    src = open_source(str(path))
    while not src.done:
        src.advance(1)
    expected = list(registry.codec("csq1logp").decode(broken))
    assert len(src) == len(expected)
    bad = [i for i, u in enumerate(expected) if u.errors]
    assert bad and all(src.row(i).mark == "!" for i in bad)
    good = next(i for i, u in enumerate(expected) if not u.errors)
    verb, queue = (next(s.value for s in expected[good].spans() if s.name == n)
                   for n in ("csverb", "csqueuename"))
    assert src.row(good).info.startswith(f"{verb}, {queue}, ")  # what the record is
    for i in bad:
        got = src.load(i).unit
        assert [p.to_json() for p in got.errors] == [p.to_json() for p in expected[i].errors]


def test_unknown_dump_text_is_shown_as_its_bytes_with_a_problem() -> None:
    src = open_source(str(Path(URB_DATA).parent.parent / "dump" / "range-hello.xxd"))
    loaded = src.load(0)
    assert loaded.unit.format == "unknown" and loaded.unit.problems
    assert len(loaded.data) == 261  # the bytes of the dump, not its text


@pytest.mark.parametrize(("args", "error"), [
    ({"path": "/nonexistent/x.bin"}, InputError),
    ({"path": str(URB_DATA), "fmt": "nosuch"}, InputError),
])
def test_bad_inputs_raise_clear_errors(args: dict, error: type) -> None:
    with pytest.raises(error):
        open_source(**args)


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    for fmt in ("auto", "csq1logp"):
        with pytest.raises(EmptyInputError, match="empty input: nothing to decode"):
            open_source(str(path), fmt=fmt)


def test_a_forced_codec_that_fails_keeps_the_error_as_a_unit(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(b"\x00" * 40)
    src = open_source(str(path), fmt="urb")
    unit = src.load(len(src) - 1).unit
    assert unit.errors and unit.errors[0].reason


def test_a_text_mode_extract_is_refused_with_the_decoders_error(tmp_path: Path) -> None:
    path = tmp_path / "ascii.rdw"
    path.write_bytes(b"\x00\xd4\x00\x002024.075 13:45:12.345" + b" " * 200)
    with pytest.raises(DecodeError, match="text-mode-transfer"):
        open_source(str(path))


@pytest.mark.parametrize("framing", ["bdw", "none"])
def test_blocked_and_unframed_extracts_decode_as_the_codec_does(tmp_path: Path, framing: str) -> None:
    from mqtool.testing import csq1logp_gen

    data = csq1logp_gen.framed(csq1logp_gen.records(csq1logp_gen.Spec(count=40, avg_data=300)), framing)
    path = tmp_path / f"x.{framing}"
    path.write_bytes(data)
    src = open_source(str(path))
    assert isinstance(src, ExtractSource) and src.framing == framing
    while not src.done:
        src.advance(1)
    expected = list(registry.codec("csq1logp").decode(data))
    assert len(src) == len(expected)
    for i in (0, len(expected) // 2, len(expected) - 1):
        got = src.load(i)
        assert got.unit.to_json() == expected[i].to_json()
        assert got.data == data[expected[i].offset:expected[i].offset + expected[i].length]
    if framing == "bdw":
        assert src.load(1).unit.attrs["block"] == 0
    src.close()
