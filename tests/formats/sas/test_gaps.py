"""``reassemble attachment --partial``: a missing message leaves a hole at its offset and
never shifts the bytes after it; what cannot be placed is written aside, not guessed.

The expected offsets are computed here from the messages themselves (their ``len|record``
streams walked byte by byte), not with ``formats.sas.placement``.
"""

from __future__ import annotations

import hashlib
import json
import random
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from mqtool.formats.mq.dumps.read import Message
from mqtool.formats.sas import layout as sas_layout
from mqtool.formats.sas.message_set import BuildOptions, FileAttachment, Request, build_messages
from mqtool.formats.sas.placement import Placement, placement, stream_size
from mqtool.formats.sas.reassemble import reassemble
from tests.helpers import mq

SIZE = 200_000  # the reproducer: a 200,000-byte file sent as an attachment
DATA = random.Random(22).randbytes(SIZE)
G = bytes([0x5A]) * 16
FOLDER = G.hex().upper() + "00" * 8
ZOS = sas_layout.PROFILES["zos"]


def messages(data: bytes = DATA, *, text: bool = False, **options: object) -> list[Message]:
    request = Request(message=b"app", attachments=[FileAttachment(data=data, name="f.bin",
                                                                  text=text)])
    return list(build_messages(request, BuildOptions(ZOS, correlid=G, **options)))  # type: ignore[arg-type]


def seq_of(m: Message) -> int | None:
    """The sequence number of an attachment message (0: the count), None for the header and
    the application message."""
    cid = m.correlid or b""
    if m.msgtype != 100001 or cid[:16] == bytes(b + 0x11 for b in G):
        return None
    return int.from_bytes(cid[16:20], "big")


def walk_ranges(msgs: list[Message]) -> dict[int, tuple[int, int]]:
    """File offsets of each data message's bytes, from walking the complete ``len|record``
    stream of messages 2..N a byte at a time (records may straddle messages)."""
    out: dict[int, tuple[int, int]] = {}
    at, left, lenbuf = 0, 0, bytearray()
    for m in sorted((m for m in msgs if (seq_of(m) or 0) >= 2), key=seq_of):
        start = at
        for b in m.body:
            if left:
                left -= 1
                at += 1
            else:
                lenbuf.append(b)
                if len(lenbuf) == 4:
                    left = int.from_bytes(lenbuf, "big", signed=True)
                    lenbuf.clear()
        out[seq_of(m)] = (start, at)  # type: ignore[index]
    return out


def drop(msgs: list[Message], seqs: set[int]) -> list[Message]:
    return [m for m in msgs if seq_of(m) not in seqs]


def run(msgs: list[Message], out: Path, partial: bool = True) -> tuple[dict, Path]:
    report = reassemble("-", str(out), messages=msgs, partial=partial)
    assert report.status == ExitStatus.INCOMPLETE
    man = json.loads((out / FOLDER / "manifest.json").read_text())
    return man["attachments"][0], out / FOLDER


def with_holes(data: bytes, holes: list[tuple[int, int]]) -> bytes:
    out = bytearray(data)
    for start, end in holes:
        out[start:end] = bytes(end - start)
    return bytes(out)


def test_the_walks_agree() -> None:
    """The two independent stream walks give the same offsets (the test's own check)."""
    for opts in ({}, {"straddle": True, "max_msg": 1000}):
        msgs = messages(**opts)  # type: ignore[arg-type]
        assert walk_ranges(msgs)[2] == (0, walk_ranges(msgs)[3][0])
        assert max(e for _s, e in walk_ranges(msgs).values()) == SIZE


CASES = {
    "middle (the reproducer: message 3)": ({}, {3}),
    "start": ({}, {2}),
    "end: the last message": ({}, {8}),
    "several": ({}, {2, 4, 6}),
    "the last two": ({}, {7, 8}),
    "records straddle messages": ({"straddle": True, "max_msg": 5000}, {3, 9}),
    "several records per message": ({"max_msg": 4096}, {2, 30}),
}


@pytest.mark.parametrize("case", CASES)
def test_a_missing_message_is_a_hole_at_its_offset(case: str, tmp_path: Path) -> None:
    opts, missing = CASES[case]
    msgs = messages(**opts)  # type: ignore[arg-type]
    where = walk_ranges(msgs)
    a, folder = run(drop(msgs, missing), tmp_path / "o")
    holes = [where[k] for k in sorted(missing)]
    rebuilt = (folder / a["output"]).read_bytes()
    assert len(rebuilt) == SIZE and rebuilt == with_holes(DATA, holes)
    merged: list[tuple[int, int]] = []
    for start, end in holes:  # adjacent missing messages are one gap
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    assert [(g["offset"], g["offset"] + g["length"]) for g in a["gaps"]] == merged
    assert a["missing"] == sorted(missing) and a["unplaced"] == []
    assert a["size"] == SIZE and a["sha256"] == hashlib.sha256(rebuilt).hexdigest()


def test_the_issue_reproducer_from_the_command_line(tmp_path: Path) -> None:
    """200,000 bytes sent as an attachment, message 3 deleted from the dump: the rebuilt
    file is 200,000 bytes, its second 32,764 bytes a hole, everything else in place."""
    src = tmp_path / "f200k.bin"
    src.write_bytes(DATA)
    assert mq("build-request", "sas-attachment", "--message", "Hi", "--attach", f"binary:{src}",
              "--correlid", G.hex(), "--to", "mqtool-dir", "-o", tmp_path / "set").status == 0
    index = (tmp_path / "set" / "index.jsonl").read_text().splitlines()
    kept = [line for line in index if json.loads(line)["correlid"][32:40] != "00000003"]
    assert len(kept) == len(index) - 1
    (tmp_path / "set" / "index.jsonl").write_text("\n".join(kept) + "\n")
    r = mq("reassemble", "attachment", tmp_path / "set", "-o", tmp_path / "o", "--partial")
    assert r.status == ExitStatus.INCOMPLETE, r.stderr
    rebuilt = (tmp_path / "o" / FOLDER / "f200k.bin").read_bytes()
    assert len(rebuilt) == SIZE
    assert rebuilt == DATA[:32764] + bytes(32764) + DATA[65528:]
    a = json.loads((tmp_path / "o" / FOLDER / "manifest.json").read_text())["attachments"][0]
    assert a["gaps"] == [{"messages": "3", "offset": 32764, "length": 32764}]
    assert "gap: message 3 missing (32764 bytes at offset 32764 left as a hole)" in r.text


def test_count_and_last_message_missing(tmp_path: Path) -> None:
    """Without the count message, a last message the declared size still fits (one
    message) is placed; two are not: the gap is said, its length unknown."""
    msgs = messages()
    last = max(seq_of(m) or 0 for m in msgs)
    where = walk_ranges(msgs)
    a, folder = run(drop(msgs, {0, last}), tmp_path / "a")
    assert (folder / a["output"]).read_bytes() == with_holes(DATA, [where[last]])
    assert a["gaps"] == [{"messages": f"after {last - 1} (count unknown)",
                          "offset": where[last][0], "length": SIZE - where[last][0]}]
    a, folder = run(drop(msgs, {0, last - 1, last}), tmp_path / "b")
    assert (folder / a["output"]).read_bytes() == DATA[:where[last - 1][0]]
    assert a["gaps"] == [{"messages": f"after {last - 2} (count unknown)",
                          "offset": where[last - 1][0], "length": None}]


def test_unknown_sizes_are_written_aside_not_guessed(tmp_path: Path) -> None:
    """Message 1 (lrecl, file size) lost as well: the output stops at the gap, the
    messages after it are kept as sent in unplaced/."""
    msgs = messages()
    where = walk_ranges(msgs)
    a, folder = run(drop(msgs, {1, 3}), tmp_path / "o")
    assert (folder / a["output"]).read_bytes() == DATA[:where[3][0]]
    after = [m for m in msgs if (seq_of(m) or 0) >= 4]
    assert a["gaps"] == [{"messages": "3", "offset": where[3][0], "length": None}]
    assert [u["file"] for u in a["unplaced"]] == ["unplaced/f.bin.from-message-4"]
    assert (folder / "unplaced" / "f.bin.from-message-4").read_bytes() == b"".join(
        m.body for m in sorted(after, key=seq_of))
    assert a["unplaced"][0]["messages"] == f"4-{max(seq_of(m) or 0 for m in msgs)}"


def test_messages_of_several_sizes_are_not_placed(tmp_path: Path) -> None:
    """The sender's shape broken (a record moved from message 4 to message 3: the stream is
    the same, the message sizes differ): a gap after them cannot be placed."""
    msgs = messages(max_msg=4096)
    by = {seq_of(m): m for m in msgs}
    cut = 4 + struct.unpack(">i", by[4].body[:4])[0]
    i3, i4 = msgs.index(by[3]), msgs.index(by[4])
    msgs[i3] = replace(by[3], body=by[3].body + by[4].body[:cut])
    msgs[i4] = replace(by[4], body=by[4].body[cut:])
    where = walk_ranges(msgs)
    a, folder = run(drop(msgs, {6}), tmp_path / "o")
    assert (folder / a["output"]).read_bytes() == DATA[:where[6][0]]
    assert a["gaps"][0] == {"messages": "6", "offset": where[6][0], "length": None}
    assert a["unplaced"][0]["file"] == "unplaced/f.bin.from-message-7"


def test_a_text_file_is_never_placed(tmp_path: Path) -> None:
    text = b"".join(b"line %d of a text file\n" % i for i in range(3000))
    msgs = messages(text, text=True, max_msg=2048)
    a, folder = run(drop(msgs, {3}), tmp_path / "o")
    assert a["gaps"][0]["length"] is None and a["unplaced"][0]["messages"].startswith("4-")
    assert text.startswith((folder / a["output"]).read_bytes())


def test_a_hostile_count_places_nothing(tmp_path: Path) -> None:
    """A count message claiming a million messages: nothing is placed, no huge file."""
    from mqtool.formats.sas.build import build_count

    msgs = [m if seq_of(m) != 0 else replace(m, body=build_count(1_000_000, ZOS))
            for m in messages()]
    a, folder = run(drop(msgs, {3}), tmp_path / "o")
    assert (folder / a["output"]).stat().st_size == 32764
    assert a["gaps"][0]["length"] is None


def test_without_partial_nothing_is_written(tmp_path: Path) -> None:
    a, folder = run(drop(messages(), {3}), tmp_path / "o", partial=False)
    assert a["output"] is None and a["gaps"] == [] and not (folder / "unplaced").exists()


# --------------------------------------------------------------------------- Placement


@settings(max_examples=60, deadline=None)
@given(lrecl=st.integers(1, 40), long=st.sampled_from([4, 8]), nul=st.integers(0, 1),
       filesize=st.integers(1, 600), size=st.integers(6, 90))
def test_placement_agrees_with_a_byte_walk(lrecl: int, long: int, nul: int, filesize: int,
                                           size: int) -> None:
    """Every data byte of a synthetic stream, cut into messages of ``size`` bytes: the file
    offset ``Placement.pieces`` gives is the one a byte-by-byte walk finds."""
    stream, owner = bytearray(), []  # owner: file offset of each stream byte (-1: framing)
    for r in range(-(-filesize // lrecl)):
        n = min(lrecl, filesize - r * lrecl)
        stream += n.to_bytes(long, "big") + bytes(n) + bytes(nul)
        owner += [-1] * long + list(range(r * lrecl, r * lrecl + n)) + [-1] * nul
    assert len(stream) == stream_size(filesize, long, lrecl, nul)
    last = 1 + -(-len(stream) // size)
    lengths = {k: min(size, len(stream) - (k - 2) * size) for k in range(2, last + 1)}
    p = placement(long=long, lrecl=lrecl, nul=nul, filesize=filesize, count=last, lengths=lengths)
    assert p == Placement(long, lrecl, nul, filesize, size if last > 2 else len(stream), last)
    for k in range(2, last + 1):
        q = p.stream_start(k)
        got = {}
        for kind, a, b, v in p.pieces(k, lengths[k]):
            if kind == "data":
                got.update({q + i: v + i - a for i in range(a, b)})
            else:
                assert int.from_bytes(stream[q + a:q + b], "big") == v
        assert got == {q + i: owner[q + i] for i in range(lengths[k]) if owner[q + i] >= 0}
        assert p.span(k) == (min([owner[i] for i in range(q, len(owner)) if owner[i] >= 0] or [filesize]),
                             min([owner[i] for i in range(q + lengths[k], len(owner)) if owner[i] >= 0]
                                 or [filesize]))
