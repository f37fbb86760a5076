"""Reassembly as a library: summaries and errors, code pages that lack bytes, the one place a
body is taken from a dump message (the vectors are the seed example of tests/cli)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mqtool.formats.mq.dumps.read import Message
from mqtool.formats.sas import layout as sas_layout
from mqtool.formats.sas.message_set import BuildOptions, FileAttachment, Request, build_messages
from mqtool.formats.sas.reassemble import reassemble
from tests.cli.test_reassemble import HEADER_DIR, SEED_G, seed_messages


def test_library_summary_and_errors(tmp_path: Path) -> None:
    from mqtool.formats.sas.reassemble import attachment_status, report_errors, summary, summary_line

    msgs = seed_messages("zos")
    report = reassemble("", None, messages=[m for m in msgs if m.position != 4])  # message 2 lost
    a = report.headers[0].attachments[0]
    assert attachment_status(a) == "incomplete: missing 2"
    assert summary_line(report) == ("5 messages, 1 header, 1 attachment (0 complete, 1 incomplete), "
                                    "0 orphans")
    assert summary(report) == {"summary": {
        "messages": 5, "headers": 1, "attachments": 1, "complete": 0, "orphans": 0,
        "orphan_dir": None, "unplaceable": {}, "dump_format": "", "dead_letters": {}, "status": 3}}
    assert report_errors(report) == [f"{HEADER_DIR} attachment 1 (d:\\mytext.txt): incomplete: "
                                     "missing 2"]


def test_text_attachment_whose_mqmd_names_utf8_but_holds_cp1252(tmp_path: Path) -> None:
    s = replace(sas_layout.PROFILES["win"])  # cp1252 sender
    request = Request(message=b"m", attachments=[FileAttachment(
        data="caf\u00e9 \u20ac\r\n".encode("utf-8"), name="c.txt", text=True)])
    msgs = list(build_messages(request, BuildOptions(s, correlid=SEED_G)))
    for m in msgs:
        m.mqmd["codedcharsetid"] = 1208  # what a converting channel or a wrong MQMD says
    report = reassemble("", str(tmp_path / "o"), messages=msgs)
    a = report.headers[0].attachments[0]
    assert report.status == 0 and a.complete
    # the MQMD's UTF-8 is taken for the sender's page (the names are ASCII either way); the
    # cp1252 bytes E9 and 80 are no UTF-8: written as U+FFFD, and said so
    assert a.settings.codepage == "utf-8"
    out = (tmp_path / "o" / HEADER_DIR / "c.txt").read_text("utf-8")
    assert out == "caf\ufffd \ufffd\n"
    assert a.anomalies == ["bytes that are no character of code page utf-8 were written as U+FFFD"]


def test_payload_is_the_one_place_a_body_is_taken(tmp_path: Path) -> None:
    import mqtool.formats.sas.reassemble as reassembly

    seen: list[int] = []
    original = reassembly.payload

    def spy(msg: Message) -> Message:
        seen.append(msg.position)
        return original(msg)

    reassembly.payload = spy  # type: ignore[assignment]
    try:
        report = reassemble("", None, messages=seed_messages("win"))
    finally:
        reassembly.payload = original  # type: ignore[assignment]
    assert report.status == 0 and seen == [1, 2, 3, 4, 5, 6]


def test_text_files_are_read_in_blocks_and_refused_by_line(tmp_path: Path) -> None:
    import pytest

    from mqtool.errors import BuildError

    lines = [b"short", b"x" * (3 << 20), b"", b"caf\xc3\xa9 au lait", b"last without LF"]
    src = tmp_path / "t.txt"
    src.write_bytes(b"\n".join(lines))
    s = sas_layout.PROFILES["zos"]
    msgs = list(build_messages(Request(message=b"m", attachments=[FileAttachment(
        path=src, name="t.txt", text=True)]), BuildOptions(s, correlid=SEED_G, straddle=True)))
    info = sas_layout.layouts_for(s).fileinfo.values(msgs[2].body)
    assert info == {"lrecl": 3 << 20, "filesize": sum(len(x) + 1 for x in
                                                       [b"short", b"x" * (3 << 20), b"",
                                                        b"caf\xe9 au lait", b"last without LF"])}
    report = reassemble("", str(tmp_path / "o"), messages=msgs)
    assert report.status == 0
    out = (tmp_path / "o" / HEADER_DIR / "t.txt").read_bytes()
    assert out == b"\n".join(lines) + b"\n"
    src.write_bytes(b"one\ntwo\n\xe2\x82\xac three\n")  # the euro sign: not in cp037
    with pytest.raises(BuildError, match=r"t.txt line 3: not convertible from utf-8 to cp037"):
        list(build_messages(Request(attachments=[FileAttachment(path=src, name="t.txt",
                                                                text=True)]), BuildOptions(s)))


def test_a_csv_data_set_is_read_and_encoded_in_batches(tmp_path: Path) -> None:
    import pyarrow.parquet as pq
    import pytest

    from mqtool.errors import BuildError
    from mqtool.formats.sas.message_set import ROWS_AT_ONCE, CsvRows, dataset_from_csv

    n = 2 * ROWS_AT_ONCE + 5
    csv = tmp_path / "big.csv"
    csv.write_text("ID,NAME\n" + "".join(f"{i},N{i}\n" for i in range(n)), encoding="utf-8")
    att = dataset_from_csv(csv, member="BIG")
    assert isinstance(att.rows, CsvRows) and len(att.rows) == n
    assert [(v.name, v.numeric, v.length) for v in att.variables] == [
        ("ID", True, 8), ("NAME", False, len(f"N{n - 1}"))]
    msgs = build_messages(Request(message=b"m", attachments=[att]),
                          BuildOptions(sas_layout.PROFILES["win"], correlid=SEED_G))
    report = reassemble("", str(tmp_path / "o"), messages=msgs, formats=("parquet",))
    assert report.status == 0
    table = pq.read_table(tmp_path / "o" / HEADER_DIR / "BIG.parquet").to_pydict()
    assert table["ID"] == [float(i) for i in range(n)]
    assert table["NAME"][-1] == f"N{n - 1}"
    csv.write_text("NAME\n" + "A\n" * (ROWS_AT_ONCE + 2) + "\u20ac\n", encoding="utf-8")
    with pytest.raises(BuildError, match=rf"T.NAME\[{ROWS_AT_ONCE + 3}\]: '€' has characters"):
        list(build_messages(Request(attachments=[dataset_from_csv(csv, member="T")]),
                            BuildOptions(sas_layout.PROFILES["zos"])))


def test_no_xport_for_a_data_set_too_large_to_hold(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pytest

    pytest.importorskip("pyreadstat")
    import mqtool.formats.sas.datasets as datasets
    from tests.helpers import TESTDATA

    monkeypatch.setattr(datasets, "XPORT_LIMIT", 100)  # class-zos.qmsg: 5 x (7 + 1 + 3 x 8)
    report = reassemble(str(TESTDATA / "sas" / "class-zos.qmsg"), str(tmp_path / "o"))
    a = report.headers[0].attachments[0]
    assert report.status == 0 and a.complete
    assert ("no .xpt written: 160 bytes of observations, more than 100 (pyreadstat needs the "
            "whole data set in memory); the Parquet and CSV outputs hold it") in a.anomalies
    folder = tmp_path / "o" / HEADER_DIR
    assert sorted(p.name for p in folder.iterdir()) == ["CLASS.csv", "CLASS.parquet",
                                                        "manifest.json", "message.bin"]
