"""Framing: RDW, BDW+RDW, unframed; bad spans and resynchronisation; chunk independence;
sparse-index splits that frame exactly as the whole file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mqtool.errors import DecodeError
from mqtool.formats.csq1logp import build as csq_build
from mqtool.formats.csq1logp.framing import frames, resolve_framing, sniff, sparse_index, split_frames
from mqtool.testing import csq1logp_gen
from tests.helpers import seed_bytes

REC = seed_bytes("csq1logp/mqput-rdw.dump")
RECS = csq1logp_gen.records(csq1logp_gen.Spec(count=60, multi_every=12, seed=11))


def spans(data: bytes, framing: str, chunk: int | None = None) -> list[tuple[int, int, int, str]]:
    pieces = [data] if chunk is None else [data[i:i + chunk] for i in range(0, len(data), chunk)]
    return [(f.offset, f.length, f.rec_no, f.error) for f in frames(pieces, framing)]


def test_rdw_records_at_their_offsets() -> None:
    data = csq1logp_gen.framed(RECS[:3], "rdw")
    a, b = len(RECS[0]), len(RECS[0]) + len(RECS[1])
    assert spans(data, "rdw") == [(0, a, 0, ""), (a, len(RECS[1]), 1, ""), (b, len(RECS[2]), 2, "")]


@pytest.mark.parametrize(("kind", "reason"), [("zero-length", "bad-rdw"), ("spanned", "bad-rdw"),
                                              ("garbage", "bad-rdw")])
def test_damaged_rdw_is_one_bad_span_then_resync(kind: str, reason: str) -> None:
    data = csq1logp_gen.framed(RECS[:4], "rdw")
    at = len(RECS[0])
    bad = csq1logp_gen.damage(data, at, kind)
    got = spans(bad, "rdw")
    # the damaged record (or the inserted garbage) is one span; the next record is found again
    first_bad = got[1]
    assert first_bad[0] == at and first_bad[3] == reason
    if kind == "garbage":
        assert first_bad[1] == 16 and got[2] == (at + 16, len(RECS[1]), 2, "")
    else:
        assert first_bad[1] == len(RECS[1]) and got[2] == (at + len(RECS[1]), len(RECS[2]), 2, "")
    assert len(got) == (5 if kind == "garbage" else 4) and got[-1][3] == ""


def test_spanned_rdw_says_so() -> None:
    bad = csq1logp_gen.damage(REC + REC, 0, "spanned")
    fr = next(iter(frames([bad], "rdw")))
    assert "bytes 2-3 not zero" in fr.detail and fr.path == "rdw.length"
    assert fr.head[:4].hex().upper() == "00D70100" and len(fr.head) == 215


def test_truncated_tail() -> None:
    data = REC + REC[:100]
    got = list(frames([data], "rdw"))
    assert [(f.offset, f.length, f.error) for f in got] == [(0, 215, ""), (215, 100, "truncated-record")]
    assert got[1].detail == "RDW length 215, only 100 bytes left in the file"
    assert got[1].head == REC[:100]
    assert [(f.offset, f.error) for f in frames([REC + REC[:3]], "rdw")][1] == (215, "truncated-record")


def test_bad_span_head_spans_chunks() -> None:
    data = REC + b"\xff" * 300 + REC
    got = list(frames([data[i:i + 230] for i in range(0, len(data), 230)], "rdw"))
    assert [(f.offset, f.length, f.error) for f in got] == [(0, 215, ""), (215, 300, "bad-rdw"),
                                                            (515, 215, "")]
    assert got[1].head == b"\xff" * 256


def test_unframed_boundaries_from_ldatalen() -> None:
    recs = [csq_build.build_record({"csrecorddate": "2024.075 13:45:12.345", "lsegment": 1}, b"x" * n,
                           bora=n % 2 == 0) for n in (0, 5, 32, 33, 1000)]
    data = csq1logp_gen.framed(recs, "none")
    got = spans(data, "none")
    assert [g[1] for g in got] == [len(r) - 4 for r in recs] and not any(g[3] for g in got)
    assert spans(data, "none", chunk=97) == got


def test_unframed_garbage_and_date_resync() -> None:
    data = b"\x00" * 10 + REC[4:] + REC[4:]
    assert spans(data, "none") == [(0, 10, 0, "no-record-date"), (10, 211, 1, ""), (221, 211, 2, "")]


def test_bdw_blocks_and_extended_bdw() -> None:
    blk = csq_build.block([REC, REC]) + csq_build.block([REC], extended=True)
    assert blk[434:438].hex().upper() == "800000DB"
    assert spans(blk, "bdw") == [(4, 215, 0, ""), (219, 215, 1, ""), (438, 215, 2, "")]
    # a record that runs past its block end: the rest of the block is one bad span
    broken = bytearray(csq_build.block([REC, REC]))
    broken[219:221] = (300).to_bytes(2, "big")
    assert spans(bytes(broken), "bdw") == [(4, 215, 0, ""), (219, 215, 1, "record-crosses-block")]


def test_bad_bdw_resyncs_on_the_next_block() -> None:
    data = csq_build.block([REC]) + b"\x00\x05\x00\x00" + csq_build.block([REC])
    assert spans(data, "bdw") == [(4, 215, 0, ""), (219, 4, 1, "bad-bdw"), (227, 215, 2, "")]


def test_sniff_and_forced_framing() -> None:
    assert sniff(REC)[0] == "rdw"  # type: ignore[index]
    assert sniff(REC[4:])[0] == "none"  # type: ignore[index]
    assert sniff(csq_build.block([REC]))[0] == "bdw"  # type: ignore[index]
    assert resolve_framing(REC, "none", "cp037") == ("none", "forced")
    with pytest.raises(DecodeError, match="text-mode-transfer"):
        resolve_framing(REC[4:].decode("cp037").encode("latin-1"), "rdw", "cp037")


def test_chunking_never_changes_the_frames() -> None:
    rnd = random.Random(3)
    for framing in ("rdw", "bdw", "none"):
        data = csq1logp_gen.framed(RECS, framing)
        for _ in range(3):
            at = rnd.randrange(len(data))
            data = data[:at] + bytes([rnd.randrange(256)]) * rnd.randrange(1, 40) + data[at + 50:]
        whole = spans(data, framing)
        for chunk in (101, 4096, 65536):
            assert spans(data, framing, chunk) == whole


@pytest.mark.parametrize("framing", ["rdw", "bdw", "none"])
def test_splits_frame_exactly_as_the_whole_file(tmp_path: Path, framing: str) -> None:
    data = csq1logp_gen.framed(RECS, framing)
    data = csq1logp_gen.damage(data, len(data) // 2, "garbage")[:-777]
    p = tmp_path / "x.bin"
    p.write_bytes(data)
    whole = spans(data, framing)
    ix = sparse_index(str(p), framing, split_size=40_000)
    assert len(ix.splits) > 5 and ix.splits[0].start == 0 and ix.splits[-1].end == len(data)
    assert all(a.end == b.start for a, b in zip(ix.splits, ix.splits[1:], strict=False))
    got = [(f.offset, f.length, f.rec_no, f.error) for s in ix.splits
           for f in split_frames(s, chunk=5000)]
    assert got == whole
    assert ix.records == sum(1 for w in whole if not w[3])
    assert sum(ix.errors.values()) == sum(1 for w in whole if w[3])
