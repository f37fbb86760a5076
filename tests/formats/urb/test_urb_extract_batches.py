"""``extract urb`` of a queue dump larger than one batch of bodies (``stream.BATCH``): the
``offset`` column is the offset in the dump's bodies read back to back, so it grows in
reading order across batches (it restarted at 0 in each batch), and a global format field
table read in the first batch lays out the images of later batches (``--typed`` called
them "no layout"). Expected offsets are the sums of the body lengths written here."""

from __future__ import annotations

import io
from itertools import accumulate
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mqtool import api
from mqtool.formats.mq.dumps.message import Message
from mqtool.formats.mq.dumps.write import write_dmpmqmsg
from mqtool.formats.urb.extract import Collect, extract
from mqtool.formats.urb.stream import BATCH
from mqtool.formats.urb.tables import TABLES
from mqtool.formats.urb.typed.run import typed_run
from mqtool.testing import urb_gen as g

FIELDS = g.employees()
BEFORE_GFFT = 20  # data messages ahead of the format field table: no layout for them
REPEAT = 32  # the data messages again and again, to pass BATCH


class Dump:
    """A dmpmqmsg file: ``BEFORE_GFFT`` data messages, the URBF message, then the data
    messages ``REPEAT`` times; one URB message per body."""

    def __init__(self, path: Path) -> None:
        txs = g.changes(200, seed=3)
        gfft = g.gfft_message(FIELDS, g.ZOS)
        data = g.stream(FIELDS, txs, gfft=False).data
        msgs, pos = [], 0
        while pos < len(data):  # cut at URBHLENT (big-endian, offset 12: z/OS byte order)
            n = int.from_bytes(data[pos + 12:pos + 16], "big")
            msgs.append(data[pos:pos + n])
            pos += n
        assert len(msgs) == len(txs)
        self.bodies = msgs[:BEFORE_GFFT] + [gfft] + msgs * REPEAT
        self.txs = txs[:BEFORE_GFFT] + [[]] + txs * REPEAT  # the changes of each body
        self.starts = [0, *accumulate(len(b) for b in self.bodies)][:-1]
        buf = io.BytesIO()
        write_dmpmqmsg([Message(k + 1, b, {"msgtype": 8}) for k, b in enumerate(self.bodies)], buf)
        path.write_bytes(buf.getvalue())
        self.path = path


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Dump:
    d = Dump(tmp_path_factory.mktemp("batches") / "q.dmp")
    assert sum(len(b) for b in d.bodies) > BATCH  # two batches
    return d


def _images(txs: list[list[g.Change]]) -> int:
    return sum((c.before is not None) + (c.after is not None) for tx in txs for c in tx)


def test_offsets_run_on_across_batches_and_typed_images_get_their_layout(dump: Dump, tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = extract([str(dump.path)], str(out), typed=typed_run())
    t = {name: pq.read_table(out / f"{name}.parquet").to_pylist() for name in TABLES}
    n = len(dump.bodies)
    assert [(m["offset"], m["msg"], m["dump_message"]) for m in t["messages"]] == [
        (dump.starts[k], dump.starts[k], k + 1) for k in range(n)]  # a message named by its offset
    for name in ("transactions", "records", "images", "changes"):
        rows = t[name]
        offsets = [r["offset"] for r in rows]
        assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets), name
        for r in rows:  # in the body of its dump message
            k = r["dump_message"] - 1
            assert dump.starts[k] < r["offset"] < dump.starts[k] + len(dump.bodies[k]), (name, r["offset"])
    assert t["changes"][-1]["offset"] > BATCH
    # the table (message BEFORE_GFFT + 1) lays out every image after it, in every batch
    before = _images(dump.txs[:BEFORE_GFFT])
    assert summary.errors == 1
    (err,) = t["errors"]
    assert err["reason"].startswith(f"no layout for {before} images of database 10006 file 9")
    assert (err["offset"], err["dump_message"]) == (t["changes"][0]["offset"], 1)
    typed = pq.read_table(out / "changes_10006_9.parquet").to_pylist()
    changes = [c for tx in dump.txs for c in tx]
    assert [(r["isn"], r["record_type"]) for r in typed] == [(c.isn, c.kind) for c in changes]
    gfft_at = dump.starts[BEFORE_GFFT]
    for r, c in zip(typed, changes, strict=True):
        laid_out = r["offset"] > gfft_at
        assert (r["layout"] is not None) == laid_out, r["offset"]
        if laid_out:
            for side in ("before", "after"):
                want = getattr(c, side)
                assert r[side] == (None if want is None else g.expected(FIELDS, want))
    assert sum(r["layout"] is not None for r in typed) == len(changes) - len(
        [c for tx in dump.txs[:BEFORE_GFFT] for c in tx])
    assert summary.layouts == [f"file 10006:9: sources GFFT EMPLTYP at {dump.path} offset {gfft_at + 64}; "
                               f"used GFFT EMPLTYP of file 9 ({dump.path}, offset {gfft_at + 64}): "
                               f"{_images(dump.txs) - before} images"]


def test_spark_tasks_function_gives_the_same_offsets(dump: Dump) -> None:
    """``spark-extract urb`` decodes each file with ``api.urb_write_file``: the same rows."""
    out = Collect()
    api.urb_write_file(str(dump.path), out)
    msgs = out.table("messages")
    assert msgs.column("offset").to_pylist() == dump.starts
    assert msgs.column("dump_message").to_pylist() == list(range(1, len(dump.bodies) + 1))
    offsets = out.table("changes").column("offset").to_pylist()
    assert offsets == sorted(offsets) and offsets[-1] > BATCH
