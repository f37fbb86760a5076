"""``--where``, ``--fields``, ``--header`` on every command that prints units or rows, and
``stats --by``: what they select and print is computed here again from the same command's
``--json`` output (an independent reading of the same values), and names no unit has are
refused in one line with the closest names the units do have."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, mq

DLQ = TESTDATA / "mq" / "dlq.dmpmqmsg"
Unit = dict[str, Any]


def _json(*args: object) -> list[Unit]:
    r = mq(*args, "--json")
    assert r.status == 0, r.stderr
    return [json.loads(line) for line in r.text.splitlines()]


def _el(unit: Unit, kind: str) -> list[dict[str, Any]]:
    return [e["fields"] for e in unit.get("elements", []) if e["type"] == kind]


def _cell(values: list[Any]) -> str:
    return ",".join(str(v) for v in values)


# argv of a decoder, the --fields list, and each unit's cells computed from its JSON
CASES: dict[str, tuple[list[object], str, Callable[[Unit], list[str]]]] = {
    "decode urb": (["decode", "urb", "--hex", TESTDATA / "urb" / "inst-color.data.dump"],
                   "urbh.urbhlent,urbt.urbtsnam,urbr.urbrisn",
                   lambda u: [_cell([f["urbhlent"] for f in _el(u, "URBH")]),
                              _cell([f["urbtsnam"] for f in _el(u, "URBT")]),
                              _cell([f["urbrisn"] for f in _el(u, "URBR")])]),
    "decode mq": (["decode", "mq", DLQ], "message,mqdlh.reason,mqdlh.reason_meaning",
                  lambda u: [str(u["message"]), _cell([f["reason"] for f in _el(u, "MQDLH")]),
                             _cell([u["elements"][0]["meanings"]["reason"]])]),
    "decode csq1logp": (["decode", "csq1logp", "--hex", TESTDATA / "csq1logp" / "hello-2seg.dump"],
                        "rec_no,csverb,ldatalen",
                        lambda u: [str(u["rec_no"]), _cell([f["csverb"] for f in _el(u, "CSQ4LOGD")]),
                                   _cell([f["ldatalen"] for f in _el(u, "CSQ4LOGD")])]),
    "decode redolog": (["decode", "redolog", "--hex", TESTDATA / "osb" / "sample3.header.dump"],
                       "rlhdr.rl_len,rlhdr.rl_seq",
                       lambda u: [_cell([f["rl_len"] for f in _el(u, "RLHDR")]),
                                  _cell([f["rl_seq"] for f in _el(u, "RLHDR")])]),
    "decode auto": (["decode", "auto", DLQ], "source,mqdlh.destqname",
                    lambda u: [u["source"], _cell([f["destqname"] for f in _el(u, "MQDLH")])]),
}


@pytest.mark.parametrize("command", sorted(CASES))
def test_fields_print_the_values_the_json_has(command: str) -> None:
    argv, fields, cells = CASES[command]
    units = _json(*argv)
    r = mq(*argv, "--fields", fields, "--header")
    assert r.status == 0, r.stderr
    assert r.text.splitlines() == [fields.replace(",", "\t")] + ["\t".join(cells(u)) for u in units]


def test_where_keeps_the_units_whose_json_satisfies_it() -> None:
    units = _json("decode", "mq", DLQ)
    by_reason = {u["elements"][0]["fields"]["reason"]: u for u in units}
    assert set(by_reason) == {2053, 2035}
    for expr, reason in (("mqdlh.reason == MQRC_NOT_AUTHORIZED", 2035),
                         ("mqdlh.reason_meaning matches '^MQRC_Q_'", 2053),
                         ("not mqdlh.reason in {2035} and payload.text contains 'order'", 2053)):
        assert _json("decode", "mq", DLQ, "--where", expr) == [by_reason[reason]]
    records = _json("decode", "csq1logp", "--hex", TESTDATA / "csq1logp" / "hello-2seg.dump")
    small = [u for u in records if _el(u, "CSQ4LOGD")[0]["ldatalen"] < 5]
    assert len(small) == 1
    assert _json("decode", "csq1logp", "--hex", TESTDATA / "csq1logp" / "hello-2seg.dump",
                 "--where", "ldatalen < 5") == small


def test_messages_where_and_fields() -> None:
    msgs = _json("messages", DLQ)
    want = [m for m in msgs if m["headers"][0]["fields"]["reason"] == 2035]
    assert _json("messages", DLQ, "--where", "mqdlh.reason == 2035") == want
    r = mq("messages", DLQ, "--fields", "message,mqmd.putapplname,mqdlh.reason_meaning")
    assert r.text.splitlines() == [
        f"{m['message']}\t{m['mqmd']['putapplname']}\t{m['headers'][0]['meanings']['reason']}"
        for m in msgs]


def test_extract_where_and_fields(tmp_path: Path) -> None:
    from tests.helpers import seed_bytes

    f = tmp_path / "log.bin"
    f.write_bytes(seed_bytes("csq1logp/hello-2seg.dump") + seed_bytes("csq1logp/mqput-rdw.dump"))
    rows = [json.loads(x) for x in mq("extract", f).text.splitlines()]
    kept = [r for r in rows if r["ldatalen"] > 5]
    got = [json.loads(x) for x in mq("extract", f, "--where", "ldatalen > 5").text.splitlines()]
    assert got == kept and len(kept) == 2
    r = mq("extract", f, "--fields", "offset,csverb,csqueuename", "--header")
    assert r.text.splitlines() == ["offset\tcsverb\tcsqueuename"] + [
        f"{x['offset']}\t{x['csverb']}\t{x['csqueuename']}" for x in rows]
    out = mq("extract", f, "--fields", "csverb", "-o", tmp_path / "x.jsonl")
    assert out.status == ExitStatus.USAGE and "--fields prints columns on stdout" in out.stderr


def test_stats_counts_what_the_json_counts() -> None:
    inputs = [DLQ, *sorted((TESTDATA / "mq").glob("dlh-*.bin"))]
    units = [u for p in inputs for u in _json("decode", "auto", p)]
    reasons = Counter(str(_el(u, "MQDLH")[0]["reason"]) if _el(u, "MQDLH") else ""
                      for u in units)
    r = mq("stats", "--by", "mqdlh.reason", *inputs, "--json")
    assert r.status == 0, r.stderr
    got = {(d["mqdlh.reason"] or ""): d["count"] for d in map(json.loads, r.text.splitlines())}
    assert got == dict(reasons)
    table = mq("stats", "--by", "mqdlh.reason", *inputs).text.splitlines()
    assert table[0].split() == ["count", "mqdlh.reason"]
    assert table[1].split()[:3] == [str(reasons["2051"]), "2051", "MQRC_PUT_INHIBITED"]


def test_stats_by_two_fields_with_where() -> None:
    csq = TESTDATA / "csq1logp" / "hello-2seg.dump"
    (record, *_rest) = _json("decode", "csq1logp", "--hex", csq)
    (meanings,) = [e["meanings"] for e in record["elements"] if e["type"] == "CSQ4LOGD"]
    r = mq("stats", "--by", "csqueuename,csverb", "--where", "ldatalen > 0", csq, "--json")
    assert [json.loads(x) for x in r.text.splitlines()] == [
        {"csqueuename": "APP.INPUT", "csverb": "MQPUT", "csverb_meaning": meanings["csverb"],
         "count": 2}]


@pytest.mark.parametrize(("argv", "said"), [
    (["decode", "mq", DLQ, "--where", "mqdlh.reasn == 1"],
     "--where: unknown field 'mqdlh.reasn'; close names: mqdlh.reason, "),
    (["decode", "auto", DLQ, "--fields", "mqdlh.destqnam"],
     "--fields: unknown field 'mqdlh.destqnam'; close names: mqdlh.destqname"),
    (["messages", DLQ, "--where", "mqmd.putaplname contains 'x'"],
     "--where: unknown field 'mqmd.putaplname'; close names: mqmd.putapplname"),
    (["stats", "--by", "mqdlh.reasn", DLQ], "--by: unknown field 'mqdlh.reasn'; close names: "),
    (["decode", "mq", DLQ, "--where", "mqdlh.reason == MQRC_Q_FULLL"],
     "--where: unknown field 'MQRC_Q_FULLL'; close names: MQRC_Q_FULL"),
])
def test_unknown_names_are_one_line_with_close_names(argv: list[object], said: str) -> None:
    r = mq(*argv)
    assert r.status == ExitStatus.USAGE
    assert said in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


@pytest.mark.parametrize("argv", [
    ["decode", "urb", "--where", "urbh.urbhlent >", "-"],
    ["decode", "urb", "--fields", "a b", "-"],
    ["decode", "urb", "--header", "-"],
    ["decode", "urb", "--fields", "urbh", "--json", "-"],
    ["decode", "urb", "--fields", "urbh", "--annotate", "-"],
    ["messages", "--where", "(", "-"],
    ["stats", "--by", "", "-"],
])
def test_bad_expressions_are_refused_before_reading(argv: list[str]) -> None:
    r = mq(*argv, input=b"never read")
    assert r.status == ExitStatus.USAGE and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stdout == b""
