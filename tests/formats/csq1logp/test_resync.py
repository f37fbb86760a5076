"""CSQ1LOGP never loses a good record to a plausible wrong length (issue 12 item 3, F14, F15,
D6): an RDW is cross-checked against the record's own fixed part and ``ldatalen``, reading
resynchronises on a confirmed record, auto framing survives a damaged first record."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.csq1logp.framing import frames, resolve_framing
from mqtool.testing import csq1logp_gen
from tests.helpers import seed_bytes

RECS = csq1logp_gen.records(csq1logp_gen.Spec(count=40, multi_every=9, multi_size=40_000, seed=5))
HELLO = seed_bytes("csq1logp/hello-2seg.dump")  # two RDW records: 212 + 207 bytes


def good(data: bytes, framing: str) -> list[tuple[int, int]]:
    return [(f.offset, f.length) for f in frames([data], framing) if not f.error]


def starts(recs: list[bytes]) -> list[int]:
    out, at = [], 0
    for r in recs:
        out.append(at)
        at += len(r)
    return out


def test_hello_is_two_records() -> None:
    assert len(HELLO) == 419 and HELLO[:4].hex() == "00d40000"
    assert good(HELLO, "rdw") == [(0, 212), (212, 207)]


def test_f14_plausible_wrong_length_is_a_bad_span_not_a_lost_record() -> None:
    # X'01A3' = 419: the whole file would be one record; ldatalen (8) says 212
    bad = b"\x01\xa3" + HELLO[2:]
    got = list(frames([bad], "rdw"))
    assert [(f.offset, f.length, f.error) for f in got] == [(0, 212, "bad-rdw"), (212, 207, "")]
    assert got[0].detail == ("RDW X'01A30000' (419) disagrees with ldatalen 8: a record starts at X'D4' "
                             "where ldatalen says this one ends")


def test_too_short_length_resyncs_on_the_next_record() -> None:
    data = b"".join(RECS[:6])
    at = starts(RECS)[2]
    # a plausible length shorter than the record (and not 199/200 + ldatalen)
    bad = data[:at] + (300).to_bytes(2, "big") + data[at + 2:]
    got = [(f.offset, f.length, f.error) for f in frames([bad], "rdw")]
    assert got[2] == (at, len(RECS[2]), "bad-rdw")
    assert [g[:2] for g in got if not g[2]] == [(s, len(r)) for s, r in zip(starts(RECS[:6]), RECS[:6],
                                                                            strict=True) if s != at]


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 3))
def test_random_rdw_damage_loses_no_undamaged_record(seed: int, hits: int) -> None:
    rnd = random.Random(seed)
    recs = RECS
    data = bytearray(b"".join(recs))
    offs = starts(recs)
    damaged = set(rnd.sample(range(len(recs)), hits))
    for i in damaged:
        at = offs[i]
        # a plausible RDW length (valid range, bytes 2-3 zero) that is not the true one
        n = rnd.choice([rnd.randrange(203, 1200), rnd.randrange(203, 32761)])
        if n == len(recs[i]):
            n += 1
        data[at:at + 2] = n.to_bytes(2, "big")
    for chunk in (None, 997):
        pieces = [bytes(data)] if chunk is None else [bytes(data[i:i + chunk])
                                                      for i in range(0, len(data), chunk)]
        got = {(f.offset, f.length) for f in frames(pieces, "rdw") if not f.error}
        for i, (at, r) in enumerate(zip(offs, recs, strict=True)):
            if i not in damaged:
                assert (at, len(r)) in got, (i, sorted(damaged))


def test_f15_unframed_tail_cut_into_the_next_record_is_not_absorbed() -> None:
    body = b"".join(r[4:] for r in RECS[:4])
    nxt = RECS[4][4:]
    last = starts([r[4:] for r in RECS[:4]])[-1]
    for cut in range(1, 11):
        got = [(f.offset, f.length, f.error) for f in frames([body + nxt[:cut]], "none")]
        assert got[-2] == (last, len(RECS[3]) - 4, ""), cut
        assert got[-1] == (len(body), cut, "truncated-record"), cut


def test_d6_auto_framing_survives_a_damaged_first_rdw() -> None:
    bad = bytes.fromhex("00CC0100") + HELLO[4:]
    framing, reason = resolve_framing(bad, "auto", "cp037")
    assert framing == "rdw" and "first record damaged" in reason
    got = [(f.offset, f.length, f.error) for f in frames([bad], framing)]
    assert got == [(0, 212, "bad-rdw"), (212, 207, "")]


def test_d6_bdw_file_with_a_damaged_first_block() -> None:
    data = csq1logp_gen.framed(RECS, "bdw", block_size=4096)
    first = int.from_bytes(data[:2], "big")  # the first block's length
    in_first = [f for f in frames([data], "bdw") if f.offset < first]
    bad = b"\x00\x00" + data[2:]
    framing, _ = resolve_framing(bad, "auto", "cp037")
    assert framing == "bdw"
    got = list(frames([bad], "bdw"))
    assert (got[0].offset, got[0].length, got[0].error) == (0, first, "bad-bdw")
    assert sum(1 for f in got if not f.error) == len(RECS) - len(in_first)


def test_d4_decode_stream_in_small_chunks_equals_whole_input() -> None:
    import json

    from mqtool.formats.csq1logp.decode import decode_stream

    data = b"".join(RECS[:12]) + b"\x00" * 30 + b"".join(RECS[12:20])
    whole = [(json.dumps(u.to_json(True)), u.title, b) for u, b in decode_stream([data], data)]
    pieces = [data[i:i + 1000] for i in range(0, len(data), 1000)]
    streamed = [(json.dumps(u.to_json(True)), u.title, b) for u, b in decode_stream(pieces, data[:4096])]
    assert streamed == whole and len(whole) == 21
    units = [json.loads(j) for j, _, _ in whole]
    assert [u["offset"] for u in units[:3]] == starts(RECS[:3])
    assert units[12]["errors"][0]["offset"] == sum(len(r) for r in RECS[:12])


@settings(max_examples=120, deadline=None)
@given(st.binary(max_size=3000), st.integers(0, 10**6), st.sampled_from(["auto", "rdw", "bdw", "none"]))
def test_mutated_input_raises_only_mqtool_errors(noise: bytes, seed: int, framing: str) -> None:
    """Any bytes, any cut: framing, range reading and the stream decoder either decode or
    raise an MqtoolError (a text-mode transfer, no record date for auto framing)."""
    from mqtool.errors import MqtoolError
    from mqtool.formats.csq1logp.decode import decode_stream
    from mqtool.formats.csq1logp.framing import byte_ranges, range_frames

    rnd = random.Random(seed)
    data = bytearray(b"".join(RECS[:6]))
    at = rnd.randrange(len(data))
    data[at:at + len(noise)] = noise
    data = bytes(data[:rnd.randrange(len(data) + 1)])
    try:
        units = list(decode_stream([data[i:i + 777] for i in range(0, len(data), 777)], data[:65536],
                                   framing))
    except MqtoolError as e:
        assert "offset" in str(e) or "empty" in str(e)
        return
    assert sum(u.length for u, _ in units) <= len(data)
    chosen = units[0][0].attrs["framing"] if units else "rdw"
    whole = [(f.offset, f.length, f.error) for f in frames([data], chosen)]
    ranged = [(f.offset, f.length, f.error) for r in byte_ranges("m", len(data), chosen, 500)
              for f in range_frames([data[r.start:]], chosen, start=r.start, end=r.end)]
    assert ranged == whole
