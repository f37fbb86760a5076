"""The library API gives what the commands give: the CLI is a shell over these functions."""

from __future__ import annotations

import io
import json
from pathlib import Path

from mqtool import api
from tests.helpers import TESTDATA, mq, seed_bytes


def test_decode_identify_dump_undump() -> None:
    data = seed_bytes("urb/status.reply.dump")
    (unit,) = api.decode("urb", data)
    assert unit.format == "urb" and unit.length == len(data) == unit.elements[0].fields["urbhlent"]
    assert api.identify(data)[0].format == "urb"
    assert api.undump(api.dump(data)) == data


def test_extract_rows_equal_the_command(tmp_path: Path) -> None:
    src = tmp_path / "two.bin"
    src.write_bytes(seed_bytes("csq1logp/hello-2seg.dump"))
    out = io.BytesIO()
    summary = api.extract([str(src)], out, fmt="jsonl")
    rows = [json.loads(x) for x in out.getvalue().splitlines()]
    cli = [json.loads(x) for x in mq("extract", src).stdout.splitlines()]
    assert rows == cli and len(rows) == 2 and summary.to_json()["records"] == 2


def test_messages_and_reassembly() -> None:
    dump = str(TESTDATA / "sas" / "mytext-zos.qmsg")
    msgs = list(api.messages(dump))
    assert [m.msgtype for m in msgs] == [100000] + [100001] * 5
    report = api.reassemble_attachments(dump)  # no outdir: check and list only
    assert report.status == 0 and len(report.headers) == 1
    assert [a.entry.qualifier2 for a in report.headers[0].attachments] == ["d:\\mytext.txt"]
