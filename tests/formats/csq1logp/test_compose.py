"""The CSQ1LOGP record's variable part as declared (IBM MQ for z/OS, CSQ1LOGP, "Record
layouts for the output data sets": csbora at offset 199 "if csverb is ALTER", then
csvardata of ldatalen bytes): the declaration, the nesting the decoder makes of it, the
round trip build(decode(x)) == x and the error contract over generated records."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.compose import Hook, Nest
from mqtool.errors import DecodeError
from mqtool.formats.csq1logp import build as csq_build
from mqtool.formats.csq1logp import decode as csq_decode
from mqtool.formats.csq1logp.layout import (
    DATA,
    DATA_LENGTH,
    HOOKS,
    RECORD,
    VARIABLE,
    VERBS,
    resolver,
)
from mqtool.model import Decoded, tree_faults

BASE = {"csrecorddate": "2024.075 13:45:12.345", "cstimedelta": 12, "cscnty": "BATCH",
        "csstatus": "BUR", "csqmgrname": "QM01", "csqueuename": "APP.INPUT",
        "cscmitstatus": "C", "csshunt": "N"}


def test_the_declaration_says_what_ibm_says() -> None:
    assert isinstance(VARIABLE, Hook) and isinstance(VARIABLE.content, Nest)
    nest = VARIABLE.content
    # csbora is the one-byte record at offset 199; csvardata follows it, ldatalen long
    assert resolver()(RECORD.layouts[0]).size == 199
    assert resolver()(nest.record).size == 1 and nest.rest == DATA == "csvardata"
    assert DATA_LENGTH == "ldatalen"
    # the judgement: 200 + ldatalen bytes after the RDW carry csbora, 199 + ldatalen do not
    bora = HOOKS[VARIABLE.name]
    assert bora(211, 11) and not bora(210, 11) and bora(200, 0) and not bora(199, 0)


def one(data: bytes) -> Decoded:
    [unit] = list(csq_decode.decode(data, framing="rdw"))
    return unit


def test_the_variable_part_nests_under_the_fixed_part() -> None:
    rec = csq_build.build_record({**BASE, "csverb": "ALTER", "csbora": "B"}, b"OBJ")
    unit = one(rec)
    _rdw, fixed = unit.elements
    assert (fixed.type, fixed.offset, fixed.length) == ("CSQ4LOGD", 4, 200 + 3)
    [var] = fixed.children
    assert (var.type, var.offset, var.length, var.value("csbora")) == ("CSBORA", 4 + 199, 4, "B")
    assert (var.data, var.data_offset, var.data_name) == (b"OBJ", 4 + 200, "csvardata")
    assert tree_faults(unit.elements) == [] and fixed.data is None
    # no csbora byte (199 + ldatalen after the RDW): the data is the fixed part's own
    short = one(csq_build.build_record({**BASE, "csverb": "MQPUT"}, b"MSG", bora=False))
    assert short.elements[1].children == [] and short.elements[1].data == b"MSG"
    assert short.elements[1].data_offset == 4 + 199


@st.composite
def records(draw: st.DrawFn) -> bytes:
    verb = draw(st.sampled_from(sorted(VERBS)))
    bora = draw(st.booleans())
    values = {**BASE, "csverb": verb, "lsegment": draw(st.integers(1, 9))}
    if bora and verb == "ALTER":
        values["csbora"] = draw(st.sampled_from(["A", "B"]))
    return csq_build.build_record(values, draw(st.binary(max_size=300)), bora=bora)


@settings(max_examples=60, deadline=None)
@given(records())
def test_round_trip(rec: bytes) -> None:
    """build(decode(x)) == x: the fixed part's and the variable part's decoded values and
    csvardata rebuild the record byte for byte."""
    unit = one(rec)
    assert unit.ok and tree_faults(unit.elements) == []
    fixed = unit.elements[1]
    var = fixed.children[0] if fixed.children else fixed
    values = {**fixed.all_values, **(var.all_values if var is not fixed else {})}
    rebuilt = csq_build.build_record(values, var.data or b"", bora=var is not fixed)
    assert rebuilt == rec


@settings(max_examples=60, deadline=None)
@given(records(), st.data())
def test_damaged_records_keep_the_error_contract(rec: bytes, data: st.DataObject) -> None:
    """A cut or overwritten record: units with errors or problems at offsets inside the
    input and a tree without overlaps, or one DecodeError; nothing else escapes."""
    blob = bytearray(rec)
    at = data.draw(st.integers(0, len(blob) - 1))
    blob[at] = data.draw(st.integers(0, 255))
    cut = bytes(blob[:data.draw(st.integers(1, len(blob)))])
    try:
        units = list(csq_decode.decode(cut, framing="rdw"))
    except DecodeError as e:
        assert 0 <= e.offset <= len(cut)
        return
    for unit in units:
        assert tree_faults(unit.elements) == []
        for p in (*unit.errors, *unit.problems):
            assert 0 <= p.offset <= len(cut), p
