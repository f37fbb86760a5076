"""The catalog documents each format from its own declarations, and the renderers (table,
Markdown, JSON, Kaitai Struct) say what those declarations say."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool import catalog, registry
from mqtool.codec import Codec
from mqtool.compose import Nest
from mqtool.errors import InputError
from mqtool.formats.csq1logp.layout import layouts as csq_layouts
from mqtool.formats.mq.mqmd import mqmd_layout
from mqtool.formats.urb.layout import layouts as urb_layouts
from mqtool.render import layouts as render


def test_records_are_the_formats_own_declarations() -> None:
    urb = catalog.format_doc("urb")
    assert urb.record("URBH").layout is urb_layouts().URBH
    assert urb.record("urbt112").layout is urb_layouts().URBT112
    csq = catalog.format_doc("csq1logp")
    assert csq.record("CSQ4LOGD").layout is csq_layouts().logd
    assert catalog.format_doc("mqmd").record("MQMD").layout is mqmd_layout()


def test_every_format_is_documented() -> None:
    assert [f.name for f in catalog.formats()] == [
        "urb", "csq1logp", "sas-attachment", "redolog", "matqmsg", "mq"]
    for fmt in catalog.formats():
        assert fmt.records and fmt.variants and fmt.title
        assert len({r.name for r in fmt.records}) == len(fmt.records), fmt.name


def test_field_offsets_and_sizes_come_from_the_layout() -> None:
    """Offsets are running sums of the fields' sizes (computed here independently)."""
    for fmt in catalog.formats():
        for rec in fmt.records:
            pos: int | None = 0
            for fd in render.fields(rec):
                size = fd.info.con.sizeof() if fd.size is not None else None
                if rec.sizes and pos is not None and fd.name in rec.sizes:
                    assert fd.offset == pos
                    pos = None
                    continue
                assert fd.offset == pos, (fmt.name, rec.name, fd.name)
                pos = None if pos is None or size is None else pos + size


def test_documented_offsets_match_the_manuals() -> None:
    """Values printed in the source documents: URBH X'0A' urbhbord, X'0C' urbhlent; CSQ4LOGD
    ldatalen at 97 and lsegment at 195 of a 199-byte fixed part; MQMD v2 364 bytes with
    MsgId at 48 and CorrelId at 72 (MQ manual, MQMD field offsets)."""
    urbh = {fd.name: fd for fd in render.fields(catalog.format_doc("urb").record("URBH"))}
    assert (urbh["urbhbord"].offset, urbh["urbhbord"].type) == (0x0A, "X U2")
    assert (urbh["urbhlent"].offset, urbh["urbhlent"].type) == (0x0C, "U4")
    assert (urbh["urbhtime"].offset, urbh["urbhtime"].type) == (0x14, "STCK")
    logd = {fd.name: fd for fd in render.fields(catalog.format_doc("csq1logp").record("CSQ4LOGD"))}
    assert (logd["ldatalen"].offset, logd["lsegment"].offset) == (97, 195)
    assert catalog.format_doc("csq1logp").record("CSQ4LOGD").layout.size == 199
    mqmd = {fd.name: fd for fd in render.fields(catalog.format_doc("mq").record("MQMD"))}
    assert (mqmd["msgid"].offset, mqmd["correlid"].offset, mqmd["correlid"].size) == (48, 72, 24)
    assert mqmd["originallength"].offset == 360


def test_meaning_tables_and_notes_are_listed() -> None:
    urbs = {fd.name: fd for fd in render.fields(catalog.format_doc("urb").record("URBS"))}
    assert ("CLOS", "Destination closed") in urbs["urbsst"].meanings
    assert urbs["urbseye"].description == "eyecatcher 'URBS'"
    urbg = {fd.name: fd for fd in render.fields(catalog.format_doc("urb").record("URBG"))}
    assert ("X'02'", "MU") in urbg["urbgtype"].meanings  # a flag byte's bits
    parmlist = {fd.name: fd for fd in render.fields(catalog.format_doc("redolog").record("PARMLIST"))}
    assert parmlist["intent@"].description == "address of the intent list"
    assert parmlist["unk_0c"].description == "(unknown)"
    assert parmlist["userid"].description == "user ID of the committing session (inferred)"


def test_parameter_sized_fields_make_later_offsets_variable() -> None:
    msg = {fd.name: fd for fd in render.fields(catalog.format_doc("matqmsg").record("MESSAGE"))}
    assert (msg["key"].offset, render.shown(msg["key"].length)) == (16, "key_bytes")
    assert msg["text"].offset is None
    obj = json.loads(render.to_json(catalog.format_doc("matqmsg"), catalog.format_doc("matqmsg")
                                    .record("MESSAGE")))
    assert obj["size"] is None and obj["fields"][3] == {
        "name": "key", "offset": 16, "size": None, "length": "key_bytes", "type": "char", "kind": "text",
        "description": "the message's key, K bytes"}


def test_lookup() -> None:
    fmt, rec = catalog.lookup("sas.variable")
    assert (fmt.name, rec and rec.name) == ("sas-attachment", "VARIABLE")
    with pytest.raises(InputError, match="urb has no record 'URBX'; its records: URBH, URBI"):
        catalog.lookup("urb.URBX")
    with pytest.raises(InputError, match="unknown format 'zip'; known: urb, csq1logp"):
        catalog.lookup("zip")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=30))
def test_lookup_of_any_text_answers_or_refuses_clearly(text: str) -> None:
    try:
        fmt, rec = catalog.lookup(text)
    except InputError as e:
        assert str(e).startswith(("unknown format", f"{text.partition('.')[0].lower()}"))
    else:
        assert fmt.name in catalog.FORMATS
        assert rec is None or rec.name.lower() == text.partition(".")[2].lower()


def test_markdown_tables_have_one_row_per_field() -> None:
    for fmt in catalog.formats():
        md = render.markdown(fmt)
        for rec in fmt.records:
            block = md.split(f"\n## {rec.name}\n", 1)[1].split("\n## ", 1)[0]
            rows = [ln for ln in block.splitlines() if ln.startswith("| ")][1:]
            assert [r.split("|")[5].strip().strip("`") for r in rows] == list(rec.layout.names)
            assert all(r.count(" | ") == 5 for r in rows), rec.name  # pipes in text escaped


def _ksy(name: str) -> dict:
    return yaml.safe_load(catalog.ksy(name))


@pytest.mark.parametrize("name", list(catalog.FORMATS))
def test_ksy_is_valid_yaml_with_the_required_keys(name: str) -> None:
    spec = _ksy(name)
    fmt = catalog.format_doc(name)
    assert spec["meta"]["id"] == render.ksy_id(name)
    if fmt.both_orders:  # byte order is a parameter of the parser
        assert spec["meta"]["endian"] == {"switch-on": "_root.is_le",
                                          "cases": {"true": "le", "false": "be"}}
        assert {"id": "is_le", "type": "bool", "doc": "true for the little-endian variant"} in spec["params"]
    else:
        assert spec["meta"]["endian"] == "be"
    assert spec["meta"]["encoding"] == fmt.encoding
    ident = re.compile(r"^[a-z][a-z0-9_]*$")
    for tname, t in spec["types"].items():
        assert ident.match(tname), tname
        for item in t.get("seq", []):
            assert ident.match(item["id"]), (tname, item)
            assert "type" in item or "size" in item or "size-eos" in item, (tname, item)
    for rec in fmt.records:  # every declared field, in order, in the record's type
        ids = [i["id"] for i in spec["types"][render.ksy_id(rec.name)]["seq"]]
        assert ids[:len(rec.layout.names)] == [render.ksy_id(n) for n in rec.layout.names]
    for p in spec["seq"]:
        assert p["type"] in spec["types"], p


def test_byte_order_variants_are_a_parameter() -> None:
    assert [f.name for f in catalog.formats() if f.both_orders] == ["urb", "sas-attachment", "mq"]
    assert "params" not in _ksy("csq1logp")
    assert [p["id"] for p in _ksy("matqmsg")["params"]] == ["key_bytes", "text_bytes"]


def test_ksy_types_sizes_enums_and_chains() -> None:
    urb = _ksy("urb")
    urbh = {i["id"]: i for i in urb["types"]["urbh"]["seq"]}
    assert urbh["urbheye"] == {"id": "urbheye", "size": 4, "type": "str", "encoding": "cp037",
                               "valid": '"URBH"', "doc": "eyecatcher 'URBH'"}
    assert urbh["urbhlent"]["type"] == "u4" and urbh["urbhres"]["size"] == 24
    cases = urb["types"]["element"]["seq"][-1]["type"]["cases"]
    assert cases['"URBT"'] == "urbt112_body" and cases['"URBS"'] == "urbs_body"
    assert urb["types"]["element"]["seq"][-1]["size"] == "len - 8"
    assert urb["enums"]["urbsu_urbsutyp"][0x44] == {"id": "delete_file", "doc": "delete file"}
    urbf = urb["types"]["urbf_body"]["seq"]  # the URBGs: urbfcntg of them, urbfleng bytes each
    assert urbf[-1] == {"id": "urbg", "type": "urbg", "size": "urbfleng", "repeat": "expr",
                        "repeat-expr": "urbfcntg", "doc": "each urbfleng bytes long, from urbflenh"}
    urbd = {i["id"]: i for i in urb["types"]["urbd_body"]["seq"]}
    assert urbd["urbddata"] == {"id": "urbddata", "size": "urbdlend"}  # the image: urbdlend bytes
    message = urb["types"]["message"]["seq"]
    assert message[1] == {"id": "elements", "type": "elements", "size": "urbh.urbhlent - urbh.urbhlen"}
    csq = _ksy("csq1logp")
    logd = {i["id"]: i for i in csq["types"]["csq4logd"]["seq"]}
    assert logd["csbora"]["if"] == "_io.size == 200 + ldatalen"
    assert logd["csvardata"] == {"id": "csvardata", "size-eos": True}
    assert csq["types"]["record"]["seq"][1]["size"] == "rdw.length - 4"
    sas = {i["id"]: i for i in _ksy("sas-attachment")["types"]["attachment"]["seq"]}
    assert sas["qualifier1"]["size"] == "qualifier1_len"
    osb = {i["id"]: i for i in _ksy("redolog")["types"]["r1bf"]["seq"]}
    assert osb["r1bfl"]["type"] == "varlen" and osb["r1bfv"]["size"] == "r1bfl.value"


def test_descriptions_name_declared_fields() -> None:
    """A description for a field the declaration no longer has would document nothing."""
    described = 0
    for fmt in catalog.formats():
        for rec in fmt.records:
            assert set(rec.descriptions) <= set(rec.layout.names), (fmt.name, rec.name)
            described += len(rec.descriptions)
    assert described > 100
    logd = {fd.name: fd for fd in render.fields(catalog.format_doc("csq1logp").record("CSQ4LOGD"))}
    assert logd["lsegment"].description == "segment number of the data, from 1"


def _declarations() -> dict[str, object]:
    """Each format's composition as the format declares it (its own module's objects)."""
    from mqtool.formats.csq1logp.layout import RECORD
    from mqtool.formats.matqmsg.layout import RECEIVER_TEMPLATE
    from mqtool.formats.mq.compose import CHAIN
    from mqtool.formats.osb.compose import REDOLOG
    from mqtool.formats.sas.layout import HEADER_MESSAGE
    from mqtool.formats.urb.layout import MESSAGE

    return {"urb": MESSAGE, "csq1logp": RECORD, "sas-attachment": HEADER_MESSAGE,
            "redolog": REDOLOG, "matqmsg": RECEIVER_TEMPLATE, "mq": CHAIN}


@pytest.mark.parametrize("codec", registry.CODECS, ids=lambda c: c.name)
def test_every_composition_is_reached_from_its_declaration(codec: Codec) -> None:
    """The catalog hands each format of the registry its declared composition and writes
    none itself: before ``composed`` no record has members, trailing data or a switch, no
    element chain has cases; what the docs and the .ksy say is what ``composed`` renders
    from the declaration objects."""
    bare = catalog.FORMATS[codec.name]()
    assert bare.composition is _declarations()[codec.name]
    for rec in bare.records:
        assert (rec.members, rec.data, rec.data_size, rec.data_doc, rec.data_switch) == (
            (), "", "", "", None), (codec.name, rec.name)
    assert not bare.elements or (bare.elements.head, bare.elements.cases) == ("", {})
    assert not bare.top or codec.name == "mq"  # the MQMD before the chain (keyed Previous)
    derived = render.composed(bare)
    fmt = catalog.format_doc(codec.name)
    assert render.markdown(fmt) == render.markdown(derived)
    assert render.listing(fmt) == render.listing(derived)
    assert catalog.ksy(codec.name) == render.ksy(derived)
    assert derived != bare  # the declaration says something about every format


def test_the_composition_words_are_the_declarations() -> None:
    """The .ksy reads the declared objects' fields: the csbora condition is the one declared
    with the format's hook, the counted entries and the length-prefixed update segments
    are the declared repeats, the intent list's format the declared switch."""
    from mqtool.formats.csq1logp.layout import VARIABLE
    from mqtool.formats.matqmsg.layout import MESSAGES
    from mqtool.formats.osb.compose import INTENT_LIST, SEGMENTS
    from mqtool.formats.sas.layout import ENTRIES

    logd = {i["id"]: i for i in _ksy("csq1logp")["types"]["csq4logd"]["seq"]}
    assert logd["csbora"]["if"] == VARIABLE.when == "_io.size == 200 + ldatalen"
    assert VARIABLE.says in catalog.format_doc("csq1logp").record("CSQ4LOGD").members[0].doc
    header = _ksy("sas-attachment")["types"]["header"]["seq"][-1]
    assert (header["id"], header["repeat-expr"]) == (ENTRIES.name, ENTRIES.count)
    receiver = _ksy("matqmsg")["types"]["receiver"]["seq"][-1]
    assert (receiver["id"], receiver["repeat-expr"]) == (MESSAGES.name, MESSAGES.count)
    osb = _ksy("redolog")
    r1hdr = osb["types"]["r1hdr"]["seq"][-1]
    assert r1hdr == {"id": SEGMENTS.name, "type": "r1seg", "repeat": "eos"}
    assert osb["types"]["r1seg"]["seq"][-1]["size"] == SEGMENTS.length
    intents = osb["types"]["rlhdr_intents"]
    assert intents["instances"] == {"r2_len": {"pos": 0, "type": "u2"}}
    assert intents["seq"][0]["type"]["cases"] == {1: "r1hdr", "_": "r2hdr"} == {
        **{k: v.lower() for k, v in INTENT_LIST.cases.items()}, "_": str(INTENT_LIST.default).lower()}
    assert osb["seq"] == [{"id": "rlhdrs", "type": "rlhdr", "repeat": "eos",
                           "doc": "RLHDR records back to back"}]


def test_a_repeat_to_the_end_of_self_sized_items_is_a_member_repeated_to_eos() -> None:
    """A data set message of SAS variable definitions (``Repeat`` with no count: to the end,
    each item its own size): the record's member, ``repeat: eos`` with no size in the .ksy."""
    from mqtool.formats.sas.layout import VARIABLES, layout_named, layouts

    lay = layouts()
    fmt = render.composed(render.FormatDoc(
        name="t", title="t", big=True, encoding="cp037", variants=("v",),
        records=(render.RecordDoc("TYPE", lay.typeid, "type word"),
                 render.RecordDoc("VARIABLE", lay.vardef, "variable")),
        composition=Nest("message", "TYPE", then=VARIABLES),
        resolve=lambda name: layout_named(lay, name)))
    assert fmt.record("TYPE").members == (render.Member("variable", "VARIABLE", repeat="eos"),)
    spec = yaml.safe_load(render.ksy(fmt))
    assert spec["seq"] == [{"id": "message", "type": "type",
                            "doc": "a TYPE, then items to the end: VARIABLE"}]
    assert spec["types"]["type"]["seq"][-1] == {"id": "variable", "type": "variable", "repeat": "eos"}
