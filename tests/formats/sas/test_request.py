"""Requests from YAML / JSON: every bad field refused at once, with its path; what a request
builds; hostile documents (wrong types, huge numbers) raise only MqtoolError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import BuildError, MqtoolError
from mqtool.formats.sas.layout import CHAR_LENGTH_MAX, PROFILES
from mqtool.formats.sas.message_set import BuildOptions, build_messages, new_g, stepped_g
from mqtool.formats.sas.request import (
    RequestError,
    SenderOverrides,
    load_request,
    parse_g,
    request_of,
    sender_settings,
)


def problems(doc: object, base: Path = Path(".")) -> list[tuple[str, str]]:
    return request_of(doc, base).problems


@pytest.mark.parametrize(("doc", "expected"), [
    ({"attachments": 2147483648}, [("attachments", "2147483648: a list is needed")]),
    ({"attachments": [{"version": 5}]},
     [("attachments[1].version", "5: [major, minor], two whole numbers 0..2147483647"),
      ("attachments[1]", "a file attachment needs path or data")]),
    ({"attachments": [{"path": {}}]}, [("attachments[1].path", "a mapping: a file name is needed")]),
    ({"original_msgtype": "x", "message": "m"},
     [("original_msgtype", "'x': a whole number is needed")]),
    ({"message": "m", "original_correlid": "zz"},
     [("original_correlid", "'zz': up to 24 bytes in hex")]),
    ({"attachments": [{"type": "binary", "path": "nope.txt"}]},
     [("attachments[1].path", "nope.txt: no such file")]),
    ({"original_msgtype": 2**40}, [("original_msgtype",
                                     "1099511627776 is out of range -2147483648..2147483647")]),
    ({"header_correlid": "11" * 15}, [("header_correlid",
                                       "15 bytes; give the 16-byte G (or the 20/24-byte CorrelId)")]),
    ({"attachments": [{"type": "zip"}]}, [("attachments[1].type", "'zip': use binary, text, dataset")]),
    ({"attachmnets": []}, [("attachmnets", "unknown field; known: attachments, header_correlid, "
                            "message, message_correlid, message_file, original_correlid, "
                            "original_msgtype")]),
    ([1, 2], [("", "a list: a mapping is needed")]),
])
def test_each_bad_field_is_named(tmp_path: Path, doc: object,
                                 expected: list[tuple[str, str]]) -> None:
    assert problems(doc, tmp_path) == expected


def test_variable_lengths_sas_cannot_hold_are_refused_before_any_allocation() -> None:
    doc = {"attachments": [{"type": "dataset", "variables": [
        {"name": "C", "vartype": 2, "length": 2147483647},
        {"name": "N", "vartype": 1, "length": 2147483647},
        {"name": "OK", "vartype": 2, "length": CHAR_LENGTH_MAX},
        {"vartype": 1, "length": 1}],
        "rows": [["a", 1, "b", 2]]}]}
    assert problems(doc) == [
        ("attachments[1].variables[1].length", "2147483647: a character variable has 1..32767 bytes"),
        ("attachments[1].variables[2].length", "2147483647: a numeric variable has 2..8 bytes"),
        ("attachments[1].variables[4].name", "every variable needs a name"),
        ("attachments[1].variables[4].length", "1: a numeric variable has 2..8 bytes"),
    ]


def test_rows_with_values_no_numeric_holds() -> None:
    doc = {"attachments": [{"type": "dataset", "variables": [{"name": "N"}],
                            "rows": [[10**400], [{"a": 1}], [True], [1.5]]}]}
    got = problems(doc)
    assert [p for p, _ in got] == ["attachments[1].rows[1][1]", "attachments[1].rows[2][1]",
                                   "attachments[1].rows[3][1]"]
    assert got[0][1].endswith(": not a finite number a SAS numeric holds (use null or .A for missing)")
    assert got[1][1] == "a mapping: a number, text or null"


def test_load_request_refuses_all_at_once(tmp_path: Path) -> None:
    p = tmp_path / "r.json"
    p.write_text('{"original_msgtype": "x", "message": "m", "original_correlid": "zz", '
                 '"attachments": [{"type": "binary", "path": "nope.txt"}]}')
    with pytest.raises(RequestError) as e:
        load_request(str(p))
    assert str(e.value).splitlines() == [
        f"sas-attachment: {p}: original_msgtype: 'x': a whole number is needed",
        f"sas-attachment: {p}: original_correlid: 'zz': up to 24 bytes in hex",
        f"sas-attachment: {p}: attachments[1].path: nope.txt: no such file"]
    p.write_text("{unclosed: [")
    with pytest.raises(MqtoolError, match=r"not YAML/JSON at line 1 column 13"):
        load_request(str(p))


def test_a_good_request_builds_what_it_says(tmp_path: Path) -> None:
    (tmp_path / "f.bin").write_bytes(b"\x00\x01payload")
    loaded = request_of({"message": "hi", "header_correlid": "AB" * 24, "original_msgtype": 8,
                         "attachments": [{"path": "f.bin", "name": "d:\\f.bin", "version": [2, 1],
                                          "correlid": "CD" * 16}]}, tmp_path)
    assert loaded.problems == [] and loaded.message_text == "hi"
    r = loaded.request
    assert r.header_correlid == bytes([0xAB]) * 16 and r.original_msgtype == 8
    msgs = list(build_messages(r, BuildOptions(PROFILES["zos"])))
    assert [m.correlid.hex().upper() for m in msgs] == [  # type: ignore[union-attr]
        "AB" * 16 + "00" * 8, "BC" * 16 + "00" * 8,  # X'AB' + X'11'
        "CD" * 16 + "00000001" + "00" * 4, "CD" * 16 + "00000002" + "00" * 4, "CD" * 16 + "00" * 8]
    assert msgs[2].body == bytes.fromhex("00007FFC" "00000009")  # lrecl 32768 - 4, 9 bytes
    assert msgs[3].body == bytes.fromhex("00000009") + b"\x00\x01payload"


def test_correlid_steps_and_seeds() -> None:
    g = bytes.fromhex("F0" + "00" * 15)
    assert stepped_g(g, 1) == bytes.fromhex("01" + "11" * 15)  # wraps modulo 256
    assert len({stepped_g(g, k) for k in range(1001)}) == 1001
    assert new_g(7) == new_g(7) and new_g(7) != new_g(8) and len(new_g()) == 16
    assert new_g() != new_g()
    assert parse_g("11" * 24, "x") == bytes([0x11]) * 16
    with pytest.raises(BuildError, match="'zz' is not hex"):
        parse_g("zz", "--correlid")


def test_sender_overrides() -> None:
    s = sender_settings(SenderOverrides("win", byte_order="big", long=8, codepage="cp500",
                                        nul=False, record_nul=True))
    assert (s.big, s.long, s.codepage, s.nul, s.record_nul, s.float_format) == (
        True, 8, "cp500", False, True, "ieee-le")
    with pytest.raises(BuildError, match="utf-8: a sender's code page is single-byte"):
        sender_settings(SenderOverrides(codepage="utf-8"))


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats()
                    | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=3)
                    | st.dictionaries(st.text(max_size=6), kids, max_size=3), max_leaves=12)
KEYS = st.sampled_from(["message", "original_msgtype", "original_correlid", "header_correlid",
                        "message_correlid", "attachments", "type", "path", "data", "version",
                        "variables", "rows", "name", "length", "vartype", "lrecl", "csv"])
HUGE = st.sampled_from([2**31, 2**63, -2**63, 10**30, 1e308, float("inf"), float("nan"), -1, 0])


@st.composite
def documents(draw: st.DrawFn) -> object:
    """Request-shaped documents with wrong types and huge numbers in every place."""
    value = st.one_of(JSON, HUGE)
    variable = st.dictionaries(st.sampled_from(["name", "vartype", "length", "format_w"]),
                               st.one_of(value, st.sampled_from(["A", 1, 2, 8])), max_size=4)
    attachment = st.fixed_dictionaries({}, optional={
        "type": st.one_of(st.sampled_from(["binary", "text", "dataset"]), value),
        "data": value, "version": value, "lrecl": value, "correlid": value,
        "variables": st.one_of(st.lists(variable, max_size=3), value),
        "rows": st.one_of(st.lists(st.lists(value, max_size=3), max_size=3), value)})
    return draw(st.one_of(value, st.dictionaries(KEYS, value, max_size=4),
                          st.fixed_dictionaries({}, optional={
                              "message": value, "original_msgtype": value,
                              "attachments": st.one_of(st.lists(attachment, max_size=3), value)})))


@settings(max_examples=150, deadline=None)
@given(documents())
def test_hostile_documents_raise_only_mqtool_errors(doc: object) -> None:
    loaded = request_of(doc, Path("/nonexistent"))
    for path, reason in loaded.problems:
        assert isinstance(path, str) and reason
    if loaded.problems:
        return
    try:
        for _ in build_messages(loaded.request, BuildOptions(PROFILES["win"], max_msg=64)):
            pass
    except MqtoolError:
        pass


def test_aliased_documents_cannot_make_a_request_huge() -> None:
    cells = {"attachments": [{"type": "dataset", "variables": [{"name": "N"}],
                              "rows": [[[]] * 1000] * 1000}]}  # a million bad values
    got = problems(cells)
    assert len(got) == 101 and got[-1] == ("", "999900 more problems not listed")
    many = {"attachments": [{"data": "x"}] * 1001}
    assert problems(many) == [("attachments", "1001 attachments: a header lists at most 1000")]
    rows = {"attachments": [{"type": "dataset", "variables": [{"name": "N"}],
                             "rows": [[1] * 1000] * 10001}]}
    assert problems(rows) == [("attachments[1].rows", "more than 10000000 values: build a data "
                               "set this large from a CSV file (csv:)")]
