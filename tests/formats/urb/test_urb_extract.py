"""``extract urb``: the change tables, row by row from the seed, the columnar path equal to
the span path, continued transactions stitched, queue dumps with provenance, damage."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import DecodeError, MqtoolError
from mqtool.formats.mq.dumps.read import Message
from mqtool.formats.mq.dumps.write import write_dmpmqmsg
from mqtool.formats.urb.decode import decode
from mqtool.formats.urb.extract import extract
from mqtool.formats.urb.layout import layouts
from mqtool.formats.urb.tables import TABLES, column_tables, span_tables
from mqtool.tod import Tod
from tests.formats.urb.test_urb_bulk import SERVER
from tests.formats.urb.test_urb_decode import VARIANTS, reencode
from tests.helpers import TESTDATA, seed_bytes

COLOR = TESTDATA / "urb" / "inst-color.data.dump"


def tables(outdir: Path) -> dict[str, list[dict]]:
    return {t: pq.read_table(outdir / f"{t}.parquet").to_pylist() for t in TABLES}


def test_changes_of_the_initial_state_data_message(tmp_path: Path) -> None:
    """Seed 001, inst-color.data: file 4 of database 10006, ISNs 2, 3, 4 (GREEN, BLUE,
    YELLOW). Expected values read off the dump bytes (offsets in the comments)."""
    data = seed_bytes("urb/inst-color.data.dump")
    summary = extract([str(COLOR)], str(tmp_path))
    assert summary.errors == 0
    t = tables(tmp_path)
    assert [len(t[n]) for n in TABLES] == [1, 1, 3, 3, 0, 0, 3]
    rows = t["changes"]

    def tod(at: int) -> object:
        return Tod(int.from_bytes(data[at:at + 8], "big")).datetime()

    expected = [  # (URBD offset, ISN, URBR time at, image at, text)
        (0xF0, 2, 0xC4, 0x110, "GREEN           2004052518354610"),
        (0x170, 3, 0x144, 0x190, "BLUE            2004052518354611"),
        (0x1F0, 4, 0x1C4, 0x210, "YELLOW          2004052518354612"),
    ]
    # a transaction, record and image is named by the offset of its URBT (X'40'), URBR
    # (its time field is at X'14' in it) and URBD; a message by its URBH's
    for row, (off, isn, rtime, img, text) in zip(rows, expected, strict=True):
        assert row == {
            "file": str(COLOR), "offset": off, "msg": 0, "dump_message": None, "transaction": 0x40,
            "subscription": "COLOR", "dbid": 10006, "file_number": 4, "isn": isn,
            "record_type": "R", "record_type_meaning": "initial state", "image_type": "A",
            "image_type_meaning": "after image", "transaction_number": 0, "initial_state": "Y",
            "transaction_time": tod(0x58), "record_time": tod(rtime), "record_number": rtime - 0x14,
            "image_number": off, "image": data[img:img + 32], "image_text": text,
            "image_codepage": "cp037"}
    assert [r["transaction"] for r in t["records"]] == [0x40, 0x40, 0x40]
    assert t["transactions"][0]["urbtrcnt"] == 3 and t["transactions"][0]["transaction"] == 0x40
    m = t["messages"][0]
    assert (m["urbhlent"], m["urbhmsnr"], m["urbhname"], m["codepage"], m["byte_order"]) == (
        592, 105, "REPTOR", "cp037", "big")


def _stream(draw_variants: list[tuple[int, int]]) -> bytes:
    out = []
    for k, v in draw_variants:
        name = SERVER[k % len(SERVER)]
        data = seed_bytes(f"urb/{name}.dump")
        big, cp = VARIANTS[v]
        out.append(reencode(next(decode(data)), data, big, cp))
    return b"".join(out)


def _rows(tabs: dict, etype: str) -> list[dict]:
    t = tabs.get(etype)
    return [] if t is None else t.to_pylist()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 3)), min_size=1, max_size=12),
       st.integers(0, 2000), st.binary(min_size=1, max_size=4))
def test_columnar_path_equals_span_path(picks: list[tuple[int, int]], at: int, junk: bytes) -> None:
    """On streams of seed messages in any variant, some damaged: every table row the columnar
    walker gives equals the row the span decoder's units give."""
    stream = _stream(picks)
    damaged = stream[:at] + junk + stream[at + len(junk):] if at < len(stream) else stream
    for data in (stream, damaged):
        cols, irregular = column_tables(data, "f")
        units = list(decode(data))
        skip = {u.offset for u in irregular}
        regular = [u for u in units if u.offset not in skip]
        for k, u in enumerate(units):
            u.attrs["msg"] = k
        spans = span_tables(regular, "f")
        for etype in ("URBH", "URBT", "URBR", "URBD", "URBS", "URBC", "URBE"):
            assert _rows(cols, etype) == _rows(spans, etype), etype
        if data is stream:
            assert not irregular or all(not u.errors for u in irregular)


def _message(*elements: bytes, big: bool = True, cp: str = "cp037") -> bytes:
    lay = layouts(big, cp)
    body = b"".join(elements)
    return lay.URBH.build({"urbhlen": 64, "urbhvers": "01", "urbhbord": 1,
                           "urbhlent": 64 + len(body), "urbhname": "REPTOR"}) + body


def test_continued_transaction_is_stitched(tmp_path: Path) -> None:
    """A transaction over two messages: URBT (urbtcont Y) + record 1 with one image; then
    URBC (record 1, more images) + its second image + record 2 + URBE."""
    lay = layouts()
    t = lay.URBT112.build({"urbtlen": 112, "urbtsnam": "SUB1", "urbttsnr": 77, "urbtrcnt": 2,
                           "urbtdbid": 12, "urbtcont": "Y"})
    r1 = lay.URBR.build({"urbrlen": 64, "urbrrsnr": 1, "urbrdcnt": 2, "urbrfnr": 5, "urbrisn": 100,
                         "urbrtyp": "U"})
    r2 = lay.URBR.build({"urbrlen": 64, "urbrrsnr": 2, "urbrdcnt": 1, "urbrfnr": 5, "urbrisn": 200,
                         "urbrtyp": "D"})

    def image(text: str, kind: str, n: int) -> bytes:
        data = text.encode("cp037")
        return lay.URBD.build({"urbdlen": 32 + len(data), "urbdlenh": 32, "urbdlend": len(data),
                               "urbddsnr": n, "urbdtyp": kind}) + data

    c = lay.URBC.build({"urbclen": 48, "urbcsnam": "SUB1", "urbctsnr": 77, "urbcrsnr": 1,
                        "urbcdsnr": 2, "urbccont": " "})
    e = lay.URBE.build({"urbelen": 32, "urbesnam": "SUB1", "urbetsnr": 77})
    first = _message(t, r1, image("OLD1", "B", 1))
    second = _message(c, image("NEW1", "A", 2), r2, image("GONE", "B", 1), e)
    (tmp_path / "in.bin").write_bytes(first + second)
    out = tmp_path / "out"
    summary = extract([str(tmp_path / "in.bin")], str(out))
    assert summary.errors == 0
    rows = tables(out)["changes"]
    assert [(r["transaction"], r["subscription"], r["transaction_number"], r["dbid"], r["isn"],
             r["record_type"], r["image_type"], r["image_text"], r["msg"], r["record_number"])
            for r in rows] == [  # named by offsets: URBT at 64, URBR 1 at 176, URBR 2 in the second
        (64, "SUB1", 77, 12, 100, "U", "B", "OLD1", 0, 176),
        (64, "SUB1", 77, 12, 100, "U", "A", "NEW1", len(first), 176),
        (64, "SUB1", 77, 12, 200, "D", "B", "GONE", len(first), second.index(r2) + len(first))]
    assert [r["transaction"] for r in tables(out)["records"]] == [64, 64]


def test_queue_dump_rows_carry_dump_provenance(tmp_path: Path) -> None:
    bodies = [seed_bytes("urb/inst-color.data.dump"), seed_bytes("urb/status.reply.dump")]
    msgs = [Message(k + 1, b, {"msgtype": 8, "correlid": bytes([k]) * 24}) for k, b in enumerate(bodies)]
    buf = io.BytesIO()
    write_dmpmqmsg(msgs, buf)
    (tmp_path / "q.dmp").write_bytes(buf.getvalue())
    extract([str(tmp_path / "q.dmp")], str(tmp_path / "o"), fmt="parquet")
    t = tables(tmp_path / "o")
    assert [(m["dump_message"], m["msgtype"], m["correlid"], m["offset"], m["msg"])
            for m in t["messages"]] == [(1, 8, "00" * 24, 0, 0), (2, 8, "01" * 24, 592, 592)]
    assert [r["isn"] for r in t["changes"]] == [2, 3, 4]
    assert {r["dump_message"] for r in t["changes"]} == {1}
    assert [s["urbsst"] for s in t["status"]] == ["SUBS"]
    assert t["status"][0]["dump_message"] == 2


def test_damage_is_an_error_row_and_the_walk_resynchronises(tmp_path: Path) -> None:
    color = seed_bytes("urb/inst-color.data.dump")
    status = seed_bytes("urb/status.reply.dump")
    junk = b"\x00\x11garbage\xff" * 3
    (tmp_path / "in.bin").write_bytes(color + junk + status + color)
    summary = extract([str(tmp_path / "in.bin")], str(tmp_path / "o"))
    t = tables(tmp_path / "o")
    assert [m["offset"] for m in t["messages"]] == [0, len(color) + len(junk),
                                                      len(color) + len(junk) + len(status)]
    assert summary.errors == 1
    (err,) = t["errors"]
    assert (err["offset"], err["path"], err["first_bytes"]) == (
        len(color), "urbh.urbheye", junk[:32].hex().upper())
    assert "not a URB message" in err["reason"]
    assert [r["isn"] for r in t["changes"]] == [2, 3, 4, 2, 3, 4]


def test_failfast_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "in.bin").write_bytes(seed_bytes("urb/status.reply.dump") + b"junk")
    with pytest.raises(DecodeError) as e:
        extract([str(tmp_path / "in.bin")], str(tmp_path / "o"), mode="FAILFAST")
    assert e.value.offset == 192 and "FAILFAST" in e.value.reason
    assert not (tmp_path / "o").exists()  # the directory it made is removed too


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_jsonl_and_csv(tmp_path: Path, fmt: str) -> None:
    extract([str(COLOR)], str(tmp_path), fmt=fmt)
    text = (tmp_path / f"changes.{fmt}").read_text()
    lines = text.splitlines()
    if fmt == "jsonl":
        import json

        rows = [json.loads(ln) for ln in lines]
        assert [r["image_text"].split()[0] for r in rows] == ["GREEN", "BLUE", "YELLOW"]
        assert rows[0]["record_time"] == "2004-06-09T15:22:52.384870Z"
    else:
        assert lines[0].startswith('"file","offset","msg"')
        assert len(lines) == 4 and "C7D9C5C5D5" in lines[1]


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 800), st.binary(max_size=8), st.integers(0, 1400))
def test_mutated_and_truncated_streams_keep_the_error_contract(
        tmp_path_factory: pytest.TempPathFactory, at: int, junk: bytes, cut: int) -> None:
    tmp_path = tmp_path_factory.mktemp("example")  # one folder per example
    data = seed_bytes("urb/inst-color.data.dump") + seed_bytes("urb/inst-employee.data.dump")
    data = (data[:at] + junk + data[at + len(junk):])[:cut]
    src = tmp_path / "m.bin"
    src.write_bytes(data)
    try:
        summary = extract([str(src)], str(tmp_path / "o"), force=True)
    except MqtoolError:
        return
    t = tables(tmp_path / "o")
    offsets = [m["offset"] for m in t["messages"]]
    assert offsets == sorted(offsets)
    for e in t["errors"]:
        assert 0 <= e["offset"] <= len(data) and e["reason"]
    assert summary.errors == len(t["errors"])
    if data and not t["messages"]:
        assert t["errors"]  # nothing decoded is never silent


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 3)), min_size=1, max_size=15))
def test_vectorised_joins_equal_the_element_walk(picks: list[tuple[int, int]]) -> None:
    """Without continuations the changes are joined with numpy; the element-by-element walk
    (which stitches URBCs) gives the same rows, transaction ids and record ids."""
    from mqtool.formats.urb.changes import Stitch, _changes_columnar, _changes_stitched, _with_codepage

    cols, _ = column_tables(_stream(picks), "f")
    tabs = {k: v.sort_by([("offset", "ascending")]) for k, v in cols.items()}
    if "URBD" in tabs:
        tabs["URBD"] = _with_codepage(tabs["URBD"], tabs["URBH"])
    fast, slow = _changes_columnar(tabs, Stitch()), _changes_stitched(tabs, Stitch())
    assert fast[0].to_pylist() == slow[0].to_pylist()
    assert fast[1].to_pylist() == slow[1].to_pylist() and fast[2].to_pylist() == slow[2].to_pylist()


def test_blocks_are_cut_at_message_boundaries_and_damage_resynchronises() -> None:
    """A small block size: every cut falls between messages; damage mid-stream costs one
    error stretch, then the messages after it are read."""
    import tempfile

    from mqtool.formats.urb.stream import raw_parts

    color, status = seed_bytes("urb/inst-color.data.dump"), seed_bytes("urb/status.reply.dump")
    good = (color + status) * 6
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "s.bin"
        p.write_bytes(good)
        parts = [part for part, _ in raw_parts(str(p), block=1000)]
        assert b"".join(x.data for x in parts) == good
        assert [x.base for x in parts] == [sum(len(y.data) for y in parts[:k]) for k in range(len(parts))]
        assert all(len(list(decode(x.data))) == sum(1 for _ in decode(x.data)) and
                   not any(u.errors for u in decode(x.data)) for x in parts)
        p.write_bytes(good[:1500] + b"\xff" * 700 + good[1500:])
        summary = extract([str(p)], str(Path(d) / "o"))
        assert summary.rows["messages"] >= 10 and summary.errors >= 1


def test_leap_seconds_shift_the_timestamps_not_the_raw_values(tmp_path: Path) -> None:
    from datetime import timedelta

    extract([str(COLOR)], str(tmp_path / "a"))
    extract([str(COLOR)], str(tmp_path / "b"), leap_seconds=27)
    a, b = tables(tmp_path / "a"), tables(tmp_path / "b")
    for name in ("messages", "transactions", "records", "changes"):
        for ra, rb in zip(a[name], b[name], strict=True):
            for k, v in ra.items():
                if hasattr(v, "tzinfo"):
                    assert rb[k] == v - timedelta(seconds=27), (name, k)
                else:
                    assert rb[k] == v, (name, k)


def test_stdin_is_read_like_a_file(tmp_path: Path) -> None:
    """``extract urb -``: the same tables as the file (stdin spooled, then removed)."""
    from tests.helpers import mq, seed_bytes

    data = seed_bytes("urb/inst-color.data.dump")
    (tmp_path / "m.bin").write_bytes(data)
    a = mq("extract", "urb", "-", "-o", tmp_path / "a", "--to", "jsonl", input=data)
    b = mq("extract", "urb", tmp_path / "m.bin", "-o", tmp_path / "b", "--to", "jsonl")
    assert a.status == b.status == 0, a.stderr
    changes_a = (tmp_path / "a" / "changes.jsonl").read_text().splitlines()
    changes_b = (tmp_path / "b" / "changes.jsonl").read_text().splitlines()
    assert len(changes_a) == 3
    strip = [{k: v for k, v in json.loads(x).items() if k != "file"} for x in changes_a]
    assert strip == [{k: v for k, v in json.loads(x).items() if k != "file"} for x in changes_b]
