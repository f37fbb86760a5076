"""--where / --fields / stats over hand-checked units: the dead-letter message of the MQ
vectors (MQDLH reason 2051, PutApplName 'payroll-loader', an MQRFH2 with three folders of
32, 68 and 292 bytes; testdata/mq/SOURCES.md), the PCF event (reason 2085), and extract
rows written here."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool import api, query
from mqtool.errors import ExitStatus
from mqtool.query import Query, QueryError
from tests.helpers import TESTDATA

DLQ = api.decode("mq", (TESTDATA / "mq/dlh-rfh2-mqstr.be.ascii.bin").read_bytes())[0]
XQH = api.decode("mq", (TESTDATA / "mq/xqh-mqstr.be.ascii.bin").read_bytes())[0]
ROWS = [
    {"csverb": "PUT", "csqueuename": "APP.INPUT", "ldatalen": 120, "cscnty": "BATCH"},
    {"csverb": "GET", "csqueuename": "APP.INPUT", "ldatalen": 0, "cscnty": "CICS"},
    {"csverb": "PUT", "csqueuename": "APP.OUTPUT", "ldatalen": 4096, "cscnty": "BATCH"},
    {"csverb": "PUT", "csqueuename": "APP.INPUT", "ldatalen": 7},
]


@pytest.mark.parametrize(("expr", "dlq", "xqh"), [
    ("mqdlh.reason == 2051", True, False),
    ("mqdlh.reason == MQRC_PUT_INHIBITED", True, False),  # the constant is 2051
    ("mqdlh.reason == MQRC_Q_FULL", False, False),  # 2053
    ("mqdlh.reason == 0x803", True, False),
    ("mqdlh.reason_meaning == \"MQRC_PUT_INHIBITED\"", True, False),
    ("mqdlh.reason in {2053, 2051}", True, False),
    ("mqdlh.reason not in {2053}", True, False),  # a missing field is in no set, nor out
    ("mqdlh.reason != 2051", False, False),
    ("mqdlh.putapplname contains \"payroll\" and mqrfh2", True, False),
    ("mqdlh.putapplname matches \"^pay.*-loader$\"", True, False),
    ("mqdlh.putapplname matches \"(?i)PAYROLL\"", True, False),
    ("mqdlh", True, False),
    ("mqxqh", False, True),
    ("not mqdlh and !mqrfh2", False, True),
    ("mqxqh.remoteqmgrname == \"QM2\"", False, True),
    ("mqrfh2.namevaluelength > 100", True, False),  # any of 32, 68, 292
    ("mqrfh2.namevaluelength[0] == 32", True, False),
    ("mqrfh2.namevaluelength[0] > 32", False, False),
    ("mqdlh.putdate >= 20261123 and mqdlh.putdate < 20261124", True, False),
    ("format == \"mq\" and length == 639", True, False),
    ("(mqxqh or mqdlh) and payload.text contains \"salary\"", True, True),
    ("mqdlh and payload.text contains \"rejected\"", True, False),
    ("mqdlh.reason eq 2051 && mqdlh.version ge 1", True, False),
    ("mqdlh.reason == 2051 || mqxqh", True, True),
])
def test_filters_over_units(expr: str, dlq: bool, xqh: bool) -> None:
    q = Query(expr)
    assert (q.match(DLQ), q.match(XQH)) == (dlq, xqh)


def test_filters_over_rows() -> None:
    got = list(query.where(ROWS, 'csverb == "PUT" and ldatalen > 100'))
    assert got == [ROWS[0], ROWS[2]]
    assert list(query.where(ROWS, "not cscnty")) == [ROWS[3]]
    assert list(query.where(ROWS, None)) == ROWS


@pytest.mark.parametrize(("expr", "message"), [
    ("mqdlh.reasn == 1", "unknown field 'mqdlh.reasn'; close names: mqdlh.reason"),
    ("mqdlh.reason == MQRC_Q_FULLL", "unknown field 'MQRC_Q_FULLL'; close names: MQRC_Q_FULL"),
    ("mqdlh.reason ==", "ends too early"),
    ("mqdlh.reason = 3", "unexpected character '=' at column 14"),
    ("mqdlh.reason == 1 2", "unexpected '2' at column 19"),
    ('mqdlh.putapplname matches "("', "bad regular expression '(': missing )"),
])
def test_errors_are_one_line_and_name_the_fault(expr: str, message: str) -> None:
    with pytest.raises(QueryError) as e:
        Query(expr, known=query.known_names([DLQ]))
    text = str(e.value)
    assert message in text and "\n" not in text and text.startswith("--where: ")
    assert e.value.status == ExitStatus.USAGE


def test_unknown_fields_after_the_stream() -> None:
    q = Query("mqdlh.reasn == 1")
    assert not q.match(DLQ)
    assert q.unknown(query.known_names([DLQ])) == (
        "--where: unknown field 'mqdlh.reasn'; close names: mqdlh.reason, mqdlh.version, "
        "mqdlh.reason_meaning, mqdlh.format")
    assert Query("mqdlh.reason == 1").unknown(query.known_names([DLQ])) is None


def test_columns_like_tshark_fields() -> None:
    lines = list(query.columns([DLQ, XQH], ["mqdlh.reason", "mqdlh.reason_meaning",
                                            "mqrfh2.namevaluelength", "mqxqh.remoteqname"],
                               header=True))
    assert lines == [
        "mqdlh.reason\tmqdlh.reason_meaning\tmqrfh2.namevaluelength\tmqxqh.remoteqname",
        "2051\tMQRC_PUT_INHIBITED\t32,68,292\t",  # repeated: joined; missing: empty
        "\t\t\tPAYROLL.IN",
    ]


def test_cells_escape_control_characters() -> None:
    rows = [{"text": "a\tb\nc\x1b[31md\u202e"}]
    assert list(query.columns(rows, ["text"])) == ["a\\tb\\nc\\x1b[31md\\u202e"]


def test_field_lists() -> None:
    assert query.field_list("a, b.c ,d[1].e") == ["a", "b.c", "d[1].e"]
    for bad in ("a,,b", "", "a b"):
        with pytest.raises(QueryError, match="--fields"):
            query.field_list(bad)


def test_stats_count_by_fields() -> None:
    counts = query.stats(ROWS, ["csqueuename", "csverb"])
    assert [(c.key, c.count) for c in counts] == [
        (("APP.INPUT", "PUT"), 2), (("APP.INPUT", "GET"), 1), (("APP.OUTPUT", "PUT"), 1)]
    assert counts[0].to_json(["csqueuename", "csverb"]) == {
        "csqueuename": "APP.INPUT", "csverb": "PUT", "count": 2}
    by_reason = query.stats([DLQ, DLQ, XQH], ["mqdlh.reason"])
    assert [c.to_json(["mqdlh.reason"]) for c in by_reason] == [
        {"mqdlh.reason": "2051", "mqdlh.reason_meaning": "MQRC_PUT_INHIBITED", "count": 2},
        {"mqdlh.reason": None, "count": 1}]
    assert query.stats_table(by_reason, ["mqdlh.reason"]) == [
        ["count", "mqdlh.reason"], ["2", "2051 MQRC_PUT_INHIBITED"], ["1", "(missing)"]]
    with pytest.raises(QueryError, match="--by"):
        query.stats(ROWS, [])


def test_constants_come_from_the_meaning_tables() -> None:
    c = query.constants()
    assert (c["MQRC_Q_FULL"], c["MQRC_PUT_INHIBITED"], c["MQFB_EXPIRATION"]) == (2053, 2051, 258)
    assert (c["MQMT_DATAGRAM"], c["MQCFT_EVENT"], c["MQCMD_Q_MGR_EVENT"]) == (8, 7, 44)


# --------------------------------------------------------------------------- fuzz

WORDS = st.sampled_from(["mqdlh.reason", "mqdlh", "==", "!=", "<", ">=", "and", "or", "not",
                         "in", "{", "}", "(", ")", ",", "contains", "matches", '"a"', "'b'",
                         "2051", "0x10", "-1", "MQRC_Q_FULL", "!", "&&", "||", "~", "[",
                         "x.y[1].z", "\\", '"', "1e3", "\x00"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(WORDS, max_size=10).map(" ".join), st.text(max_size=40)))
def test_fuzz_parser_error_contract(text: str) -> None:
    try:
        q = Query(text)
    except QueryError as e:
        assert "\n" not in str(e) and str(e).startswith("--where: ")
        return
    assert q.match(DLQ) in (True, False)
    assert q.match({"mqdlh": {"reason": "x"}}) in (True, False)
