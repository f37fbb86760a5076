"""The format-buffer parser and the FDT, against Software AG's published examples
(``testdata/urb/SOURCES.md``, "Typed images"), and its error contract."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus, MqtoolError
from mqtool.formats.urb.fdt import load_fdt, parse_fdt
from mqtool.formats.urb.formatbuffer import layout_for, load_option_file, parse, parse_option
from mqtool.formats.urb.typed.images import decode_images
from mqtool.formats.urb.typed.layout import Count, LayoutError, Repeat, Skip, Value
from mqtool.formats.urb.typed.values import Encoding

DATA = Path(__file__).resolve().parents[3] / "testdata" / "urb" / "typed"
# adapya-era, doc/replication.rst: the EMPLTEL global format (ADARPD GFB=, three lines joined)
# and the datamap the example reads its record buffer with (field, length)
EMPLTEL = "AA,AC,AD,AE,AH,8,U,AL,AN,AM,AO,AP."
EMPLTEL_DATAMAP = [("personnel_id", 8), ("firstname", 20), ("m_initial", 20), ("lastname", 20),
                   ("birth", 8), ("country", 3), ("areacode", 6), ("phone", 15), ("department", 6),
                   ("jobtitle", 25)]
# the same document: reading the replicated file back with adapya-adabas search.py
SEARCH = "AA,2X,AC,12,AE,15,AH,8,U,AL,AN,AM,AO,AP."


@pytest.fixture(scope="module")
def employees():  # type: ignore[no-untyped-def]
    (fdt,) = load_fdt(str(DATA / "employees-empltel.fdt.json"))
    return fdt


def test_empltel_global_format_with_the_fdt(employees) -> None:  # type: ignore[no-untyped-def]
    layout = parse(EMPLTEL, fdt=employees)
    assert layout.fixed_size() == sum(n for _, n in EMPLTEL_DATAMAP) == 131
    assert [(v.name, v.length) for v in layout.items] == [
        ("AA", 8), ("AC", 20), ("AD", 20), ("AE", 20), ("AH", 8), ("AL", 3), ("AN", 6), ("AM", 15),
        ("AO", 6), ("AP", 25)]
    assert layout.columns() == ["PERSONNEL-ID", "FIRST-NAME", "MIDDLE-I", "NAME", "BIRTH", "COUNTRY",
                                "AREA-CODE", "PHONE", "DEPT", "JOB-TITLE"]
    assert layout.items[4] == Value("AH", "BIRTH", "U", 8)  # the override of the standard 6,U


def test_search_format_buffer_with_skip_and_overrides(employees) -> None:  # type: ignore[no-untyped-def]
    layout = parse(SEARCH, fdt=employees)
    assert layout.items[1] == Skip(2, "X")
    assert [(getattr(i, "name", "X"), i.length) for i in layout.items] == [
        ("AA", 8), ("X", 2), ("AC", 12), ("AE", 15), ("AH", 8), ("AL", 3), ("AN", 6), ("AM", 15),
        ("AO", 6), ("AP", 25)]
    assert layout.fixed_size() == 100


def test_empltel_record_decodes(employees) -> None:  # type: ignore[no-untyped-def]
    layout = parse(EMPLTEL, fdt=employees)
    values = ["20002900", "TOM", "", "DILWORTH", "00540212", "USA", "(219)", "464-2421", "MGMT10",
              "SECRETARY"]
    raw = b"".join(v.encode("latin-1").ljust(n, b" ")
                   for v, (_, n) in zip(values, EMPLTEL_DATAMAP, strict=True))
    rec, fails = decode_images(layout, pa.array([raw]), Encoding(ebcdic=False, acodec="latin-1", big=False,
                                                                    floats="ieee"))
    assert not fails
    row = rec.to_pylist()[0]
    assert row["PERSONNEL-ID"] == "20002900" and row["NAME"] == "DILWORTH" and row["BIRTH"] == 540212
    assert row["JOB-TITLE"] == "SECRETARY"


@pytest.mark.parametrize(("text", "items"), [
    # Adabas Command Reference, Format and Record Buffer Examples (titles; entries in the syntax
    # of "Format Buffers"): the sixth value of MU field MF, its first two values, the count of
    # its values and the highest occurrence of PE group GC
    ("MF6,5,A.", [Value("MF", "MF_6", "A", 5)]),
    ("MF1-2,5,A.", [Repeat("MF", "MF", "MU", (Value("MF", "MF", "A", 5),), 1, 2)]),
    ("GCC,MFC.", [Count("GC"), Count("MF")]),
    ("MFC,2,B,MF1-N,5,A.", [Count("MF", 2), Repeat("MF", "MF", "MU", (Value("MF", "MF", "A", 5),), 1, None)]),
    # Record Buffers: "AA,BB" with the standard lengths given
    ("AA,8,A,BB,4,P", [Value("AA", "AA", "A", 8), Value("BB", "BB", "P", 4)]),
    # the example, length 0 (variable), decimal places, a literal, an edit mask
    ("AA,8,A,AB,2,P,AC,20,A.", [Value("AA", "AA", "A", 8), Value("AB", "AB", "P", 2),
                                Value("AC", "AC", "A", 20)]),
    ("AA,0,A,AB,5.2,U,'*',AH,8,U,DATE.", [Value("AA", "AA", "A", 0), Value("AB", "AB", "U", 5, 2),
                                         Skip(1, "literal"), Value("AH", "AH", "U", 8, mask="DATE")]),
    ("BB1(1-3),3,P", [Repeat("BB", "BB_1", "MU", (Value("BB", "BB", "P", 3),), 1, 3)]),
    ("aa , 8 , a", [Value("AA", "AA", "A", 8)]),
])
def test_entries(text: str, items: list[object]) -> None:
    assert list(parse(text).items) == items


def test_pe_group_occurrences_from_the_fdt() -> None:
    (fdt,) = parse_fdt('{"fields": [{"level": 1, "name": "GB", "long_name": "INCOME", "options": ["PE"]},'
                       '{"level": 2, "name": "BA", "long_name": "CURR", "length": 3, "format": "A"},'
                       '{"level": 2, "name": "BB", "long_name": "AMOUNT", "length": 4, "format": "P",'
                       ' "decimals": 2}]}')
    layout = parse("GB1-2.", fdt=fdt)  # Example 4: the first two occurrences of PE group GB
    assert layout.items == (Repeat("GB", "INCOME", "PE", (Value("BA", "CURR", "A", 3),
                                                         Value("BB", "AMOUNT", "P", 4, 2)), 1, 2),)
    assert str(layout.struct_type()) == ("struct<INCOME: list<item: struct<CURR: string, "
                                         "AMOUNT: decimal128(7, 2)>>>")


def test_option_and_file() -> None:
    g = parse_option("10006:9='AA,8,A,AB,2,P.'")
    assert (g.dbid, g.fnr, g.text) == (10006, 9, "AA,8,A,AB,2,P.")
    given = load_option_file(str(DATA / "format-buffers.txt"))
    assert [(x.dbid, x.fnr) for x in given] == [(10006, 9), (10007, 11)]
    assert given[0].text == EMPLTEL
    assert "line 6" in given[1].source
    lay = layout_for(given[1])
    assert lay.fixed_size() is None and (lay.dbid, lay.fnr) == (10007, 11)


@pytest.mark.parametrize(("text", "says"), [
    ("", "empty format buffer"),
    ("AA,8,Q", "column 6: cannot read 'Q'"),
    ("AA,8,A,AB", "column 8: AB has no length and format"),
    ("AA1-N,3,A", "AA: occurrences up to N need the count AAC before them"),
    ("AA5-2,3,A", "AA5-2: the range runs backwards"),
    ("(AA=1)AA,8,A", "field selection criteria"),
    ("AA,3,F", "an F value is 1, 2, 4 or 8 bytes"),
    ("AA,20,P", "39 digits (at most 38)"),
    ("AA,3.6,P", "6 decimal places in 5 digits"),
    ("AAL,4", "length indicators"),
    ("AA,8,A.\x1b[31m", "column 8"),
])
def test_bad_format_buffers_say_where(text: str, says: str) -> None:
    with pytest.raises(LayoutError) as e:
        parse(text, "format buffer 1:2")
    msg = str(e.value)
    assert says in msg and "\n" not in msg and "\x1b" not in msg
    assert msg.startswith("urb: format buffer 1:2: ")
    assert e.value.status == ExitStatus.DECODE


@pytest.mark.parametrize(("option", "says"), [
    ("AA,8,A", "give DBID:FNR="), ("0:9=AA,8,A", "numbers 1..65535"), ("1:99999=AA,8,A", "numbers"),
])
def test_bad_options(option: str, says: str) -> None:
    with pytest.raises(LayoutError, match=says):
        parse_option(option)


@pytest.mark.parametrize(("fdt", "says"), [
    ("[", "not JSON"), ("{}", "a \"fields\" list"), ('{"fields": [{"name": "A"}]}', "two-character"),
    ('{"fields": [{"name": "AA", "length": 8}]}', r"a length \(0\.\.32767\) and a format"),
    ('{"fields": [{"name": "AA", "level": 2, "length": 8, "format": "A"}]}', "skips a level"),
    ('{"fields": [{"name": "AA", "length": 8, "format": "A"}, {"name": "AA", "length": 1, "format": "B"}]}',
     "defined twice"),
    ('{"dbid": 0, "fields": []}', "dbid 0"),
])
def test_bad_fdts(fdt: str, says: str) -> None:
    with pytest.raises(LayoutError, match=says):
        parse_fdt(fdt)


def test_fdt_as_a_layout() -> None:
    (fdt,) = parse_fdt('{"fields": [{"name": "AA", "length": 8, "format": "A"},'
                       '{"name": "AZ", "long_name": "LANG", "length": 3, "format": "A", "options": ["MU"],'
                       ' "count": true}]}')
    assert fdt.layout().items == (Value("AA", "AA", "A", 8), Count("AZ"),
                                  Repeat("AZ", "LANG", "MU", (Value("AZ", "LANG", "A", 3),), 1, None))
    (bare,) = parse_fdt('{"fields": [{"name": "AZ", "length": 3, "format": "A", "options": ["MU"]}]}')
    with pytest.raises(LayoutError, match="needs \"occurrences\""):
        bare.layout()


ALPHABET = "AB019,.-()'NCXLSPUW GFDT\x00é"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_any_text_gives_a_layout_or_one_line(text: str) -> None:
    try:
        layout = parse(text)
    except MqtoolError as e:
        assert "\n" not in str(e) and str(e).startswith("urb: ")
        return
    layout.struct_type()  # a usable layout


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_any_fdt_text_gives_fdts_or_one_line(text: str) -> None:
    try:
        parse_fdt(text)
    except MqtoolError as e:
        assert "\n" not in str(e)
