"""Byte ranges cut anywhere (no pass over the data): together they frame exactly what a
whole-file scan frames, every record and every bad span once (issue 16 item 2)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.csq1logp.framing import byte_ranges, frames, range_frames, sparse_index, split_frames
from mqtool.testing import csq1logp_gen

RECS = csq1logp_gen.records(csq1logp_gen.Spec(count=70, multi_every=11, multi_size=40_000, seed=9))
SIZES = (203, 256, 300, 333, 512, 777, 1000, 1024, 4096, 33_000, 10**7)


def whole(data: bytes, framing: str) -> list[tuple[int, int, str]]:
    return [(f.offset, f.length, f.error) for f in frames([data], framing)]


def by_ranges(data: bytes, framing: str, split: int, chunk: int = 1 << 16) -> list[tuple[int, int, str]]:
    out = []
    for r in byte_ranges("mem", len(data), framing, split):
        pieces = [data[i:i + chunk] for i in range(r.start, len(data), chunk)]
        got = [(f.offset, f.length, f.error) for f in range_frames(pieces, framing, start=r.start,
                                                                    end=r.end)]
        assert all(r.start <= g[0] for g in got[1:])
        out += got
    return out


def damaged(framing: str, seed: int) -> bytes:
    rnd = random.Random(seed)
    data = csq1logp_gen.framed(RECS, framing, block_size=8192)
    at = 0
    for kind in ("zero-length", "garbage", "spanned"):
        at = data.find(b"\x00", rnd.randrange(len(data) // 2))  # somewhere, not always a record
        data = csq1logp_gen.damage(data, at, kind)
    for _ in range(2):  # bytes stomped at random
        at = rnd.randrange(len(data) - 60)
        data = data[:at] + bytes([rnd.randrange(256)]) * rnd.randrange(1, 40) + data[at + 40:]
    return data[:-rnd.randrange(1, 300)]  # a truncated tail


@pytest.mark.parametrize("framing", ["rdw", "bdw", "none"])
def test_clean_file_every_split_size(framing: str) -> None:
    data = csq1logp_gen.framed(RECS, framing, block_size=8192)
    ref = whole(data, framing)
    assert not any(e for _, _, e in ref) and len(ref) == (len(RECS) if framing != "bdw" else len(ref))
    for split in SIZES:
        assert by_ranges(data, framing, split) == ref, split


@pytest.mark.parametrize("framing", ["rdw", "bdw", "none"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_damaged_file_every_split_size(framing: str, seed: int) -> None:
    data = damaged(framing, seed)
    ref = whole(data, framing)
    assert sum(1 for *_, e in ref if e) >= 1
    for split in SIZES:
        assert by_ranges(data, framing, split, chunk=4999) == ref, split


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["rdw", "bdw", "none"]), st.integers(0, 10**6), st.integers(200, 20_000))
def test_any_damage_any_split(framing: str, seed: int, split: int) -> None:
    data = damaged(framing, seed)
    assert by_ranges(data, framing, split, chunk=3001) == whole(data, framing)


def test_range_rec_no_unknown_and_empty_file() -> None:
    data = csq1logp_gen.framed(RECS[:3], "rdw")
    assert {f.rec_no for f in range_frames([data], "rdw", start=0, end=len(data))} == {-1}
    assert list(range_frames([], "rdw", start=0, end=0)) == []
    assert byte_ranges("x", 0, "rdw", 100)[0].end == 0


@pytest.mark.parametrize("framing", ["rdw", "bdw", "none"])
@pytest.mark.parametrize("seed", [2, 4])
def test_sparse_splits_frame_what_the_whole_file_frames(tmp_path: Path, framing: str,
                                                        seed: int) -> None:
    """A split's last frame is classified as in the whole file (a damaged record's reason
    depends on what follows the split's end: 'bad-rdw', not 'truncated-record')."""
    data = damaged(framing, seed)
    path = tmp_path / "extract.bin"
    path.write_bytes(data)
    ref = [(f.offset, f.length, f.rec_no, f.error) for f in frames([data], framing)]
    for size in (3333, 20_000):
        index = sparse_index(str(path), framing, split_size=size)
        got = [(f.offset, f.length, f.rec_no, f.error)
               for s in index.splits for f in split_frames(s, chunk=2048)]
        assert got == ref, size
