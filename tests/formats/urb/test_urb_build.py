"""Building URB input requests: the seed's five requests byte-exact, the spec's ISN-list
example, alignment, selection encoding, every refusal, and round trips in all four
encoding / byte-order combinations (hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import BuildError
from mqtool.formats.urb.build import (
    MAX_ISN,
    apply_options,
    build,
    build_request,
    check_isn_list,
    from_mapping,
    load_requests,
    validate,
)
from mqtool.formats.urb.decode import decode
from mqtool.formats.urb.layout import layouts
from mqtool.tod import Tod
from tests.helpers import TESTDATA, seed_bytes

ADMIN = {"sender": "Admin"}
SEED_REQUESTS = {
    "close-destination.request": ("CLSD", {"token": ["TOKEN001"], "rnam": ["BROUT1"], "dnam": ["BROUT2"]},
                                  {"sender": "CLOSDEST", "msnr": "16", "stck": "BBBBBBBBBBBBBBBB"}, {}),
    "inst-color.request": ("INST", {"token": ["TOKENTOK"], "rnam": ["OUT1"], "inam": ["ICOLOR"],
                                    "dbid": ["10006"], "fnr": ["4"]}, ADMIN, {}),
    "inst-employee.request": ("INST", {"token": ["EMPLTOKN"], "rnam": ["OUT2"], "inam": ["IEMPLAA"],
                                       "dbid": ["10006"], "fnr": ["9"], "acode": ["819"],
                                       "wcode": ["4091"], "arc": ["9"],
                                       "selection": ["2001100020011100"]},
                              ADMIN, {"encoding": "ascii", "byte_order": "little"}),
    "status.request": ("STAT", {"token": ["TOKTOK"], "snam": ["COLOR"]}, ADMIN, {}),
    "prior-transaction.request": ("TRAN", {"token": ["TOKTOK"], "rnam": ["OUT3"], "snam": ["COLOR"],
                                           "tsnr": ["0"]}, ADMIN, {}),
}


def make(rtype: str | None, per_urbi: dict, header: dict | None = None, message: dict | None = None,
         isns: tuple[str, ...] = ()) -> bytes:
    req = apply_options(None, rtype, per_urbi, header or {}, message or {}, isns)
    validate(req)
    return build_request(req)


def refused(*args: object, **kw: object) -> BuildError:
    with pytest.raises(BuildError) as e:
        make(*args, **kw)  # type: ignore[arg-type]
    return e.value


@pytest.mark.parametrize("name", list(SEED_REQUESTS))
def test_the_seeds_requests_byte_exact(name: str) -> None:
    rtype, per_urbi, header, message = SEED_REQUESTS[name]
    expected = seed_bytes(f"urb/{name}.dump")
    if name == "prior-transaction.request":  # the seed's bytes say TRAM (X'D4'); we write TRAN
        assert expected[0x63] == 0xD4
        expected = expected[:0x63] + b"\xd5" + expected[0x64:]
    assert make(rtype, per_urbi, header, message) == expected


def test_prior_transaction_for_transaction_100() -> None:
    """Spec §9.2: differs from the seed's bytes only at X'0063' ('TRAN') and X'008F' (100)."""
    rtype, per_urbi, header, message = SEED_REQUESTS["prior-transaction.request"]
    built = make(rtype, per_urbi | {"tsnr": ["100"]}, header, message)
    seed = seed_bytes("urb/prior-transaction.request.dump")
    assert [k for k in range(len(seed)) if built[k] != seed[k]] == [0x63, 0x8F]
    assert built[0x8C:0x90] == bytes.fromhex("00000064")


ISN_OPTS = {"token": ["ISNTOKEN"], "rnam": ["OUT1"], "inam": ["IEMPLISN"], "dbid": ["10006"], "fnr": ["9"]}
ISNS = ("602", "603", "700-710", "900")


def test_isn_list_request_of_the_spec() -> None:
    """Spec §9.7 (synthetic), EBCDIC big-endian and ASCII little-endian."""
    assert make("INST", ISN_OPTS, ADMIN, {}, ISNS) == seed_bytes("urb/synthetic/inst-isnlist.request.dump")
    le = make("INST", ISN_OPTS, ADMIN, {"encoding": "ascii", "byte_order": "little"}, ISNS)
    assert le[0x0A:0x10] == bytes.fromhex("0100 B8000000")
    assert le[0x44:0x50] == bytes.fromhex("78000000 60000000 18000000")
    assert le[0x64:0x68] == bytes.fromhex("16270900")
    assert le[0xA0:] == bytes.fromhex("5A020000 5B020000 FFFFFFFF BC020000 C6020000 84030000")
    assert le[0x50:0x60] == b"ISNTOKENOUT1    "


@pytest.mark.parametrize(("align", "urbilen"), [(None, 104), (4, 104), (1, 101), (8, 104), (16, 112)])
def test_alignment_filler(align: int | None, urbilen: int) -> None:
    """Spec §6.4: 5 bytes of selection data -> urbilen 104 (align 4) or 101 (align 1)."""
    data = make("INST", ISN_OPTS | {"selection_hex": ["C1C2C3C4C5"]}, {}, {"align": align})
    assert int.from_bytes(data[0x44:0x48], "big") == urbilen
    assert int.from_bytes(data[0x4C:0x50], "big") == 5  # urbilend: the unpadded length
    assert int.from_bytes(data[0x0C:0x10], "big") == len(data) == 64 + urbilen
    assert data[0xA0:0xA5] == bytes.fromhex("C1C2C3C4C5") and not any(data[0xA5:])


@pytest.mark.parametrize(("acode", "encoding", "expected"), [
    (None, "ebcdic", bytes.fromhex("C1C2F1")),  # the message's code page: cp037
    (None, "ascii", b"AB1"),
    ("819", "ebcdic", b"AB1"),  # --acode names the selection data's code page
    ("37", "ascii", bytes.fromhex("C1C2F1")),
    ("4091", "ebcdic", b"AB1"),
])
def test_selection_text_encoding(acode: str | None, encoding: str, expected: bytes) -> None:
    opts = ISN_OPTS | {"selection": ["AB1"]} | ({"acode": [acode]} if acode else {})
    data = make("INST", opts, {}, {"encoding": encoding, "align": 1})
    assert data[0xA0:] == expected


def test_several_urbis_from_repeated_options() -> None:
    close2 = make("CLSD", {"dnam": ["BROUT2", "BROUT3"], "rnam": ["BROUT1"], "token": ["TOKEN001"]})
    assert len(close2) == 64 + 2 * 96 and close2[0x0C:0x10] == (256).to_bytes(4, "big")
    assert close2[0xD8:0xE0] == "BROUT3  ".encode("cp037") and close2[0xB8:0xC0] == close2[0x58:0x60]
    files = make("INST", ISN_OPTS | {"fnr": ["4", "9"]})
    units = list(decode(files))
    assert [e.fields["urbifnr"] for e in units[0].elements[1:]] == [4, 9]
    assert {e.fields["urbidbid"] for e in units[0].elements[1:]} == {10006}


REFUSALS = [
    ("name too long", ("CLSD", {"dnam": ["BROUT2TOOLONG"]}), "urbi[0].urbidnam (--dnam)",
     "'BROUT2TOOLONG' is 13 characters, the field holds 8"),
    ("sender too long", ("STAT", {"snam": ["COLOR"]}, {"sender": "ADMINISTRATOR"}),
     "urbh.urbhname (--sender)", "is 13 characters, the field holds 8"),
    ("token not in the code page", ("STAT", {"snam": ["COLOR"], "token": ["€"]}),
     "urbi[0].urbirtok (--token)", "lacks"),
    ("dbid too big", ("INST", ISN_OPTS | {"dbid": ["70000"]}), "urbi[0].urbidbid (--dbid)",
     "70000 does not fit: the field takes 0..65535"),
    ("tsnr negative", ("TRAN", {"snam": ["COLOR"], "tsnr": ["-1"]}), "urbi[0].urbitsnr (--tsnr)",
     "does not fit"),
    ("arc too big", ("INST", ISN_OPTS | {"arc": ["256"], "selection": ["X"]}), "urbi[0].urbiarc (--arc)",
     "0..255"),
    ("not a number", ("INST", ISN_OPTS | {"fnr": ["nine"]}), "urbi[0].urbifnr (--fnr)",
     "'nine' is not a number"),
    ("open with inam", ("OPND", {"dnam": ["D1"], "inam": ["ICOLOR"]}), "urbi[0].urbiinam (--inam)",
     "an OPND request does not allow it"),
    ("open with snam", ("OPND", {"dnam": ["D1"], "snam": ["S"]}), "urbi[0].urbisnam (--snam)",
     "subcode 99"),
    ("stat with tsnr", ("STAT", {"snam": ["S"], "tsnr": ["5"]}), "urbi[0].urbitsnr (--tsnr)", "subcode 100"),
    ("tran with dbid", ("TRAN", {"snam": ["COLOR"], "dbid": ["10006"]}), "urbi[0].urbidbid (--dbid)",
     "a TRAN request does not allow it (the server answers response 131 subcode 40)"),
    ("tran with isns", ("TRAN", {"snam": ["COLOR"]}, {}, {}, ("5",)), "urbi[0]",
     "a TRAN request carries no selection data or ISN list (subcode 39)"),
    ("tran with acode", ("TRAN", {"snam": ["COLOR"], "acode": ["819"]}), "urbi[0].urbiacod (--acode)",
     "subcode 42"),
    ("inst without inam", ("INST", {"dbid": ["1"], "fnr": ["2"], "rnam": ["O"]}), "urbi[0].urbiinam (--inam)",
     "an INST request needs it"),
    ("inst without rnam", ("INST", {"dbid": ["1"], "fnr": ["2"], "inam": ["I"]}), "urbi[0].urbirnam (--rnam)",
     "needs it"),
    ("close without dnam", ("CLSD", {"rnam": ["R"]}), "urbi[0].urbidnam (--dnam)", "needs it"),
    ("stat without names", ("STAT", {"token": ["T"]}), "urbi[0]", "subcode 7"),
    ("tran without snam", ("TRAN", {"dnam": ["D"]}), "urbi[0].urbisnam (--snam)", "needs it"),
    ("acode without selection", ("INST", ISN_OPTS | {"acode": ["819"]}), "urbi[0].urbiacod (--acode)",
     "describes selection data"),
    ("isns and selection", ("INST", ISN_OPTS | {"selection": ["A"]}, {}, {}, ("5",)), "urbi",
     "give --isn or --selection, not both"),
    ("unknown ECS code page", ("INST", ISN_OPTS | {"selection": ["A"], "acode": ["1234"]}),
     "urbi[0].urbiacod (--acode)", "is not one mqtool knows"),
    ("different definitions", ("INST", ISN_OPTS | {"fnr": ["4", "9"], "inam": ["A", "B"]}),
     "urbi.urbiinam (--inam)", "subcode 11"),
    ("different tokens", ("INST", ISN_OPTS | {"fnr": ["4", "9"], "token": ["A", "B"]}),
     "urbi.urbirtok (--token)", "subcode 18"),
    ("two status requests", ("STAT", {"snam": ["A", "B"]}), "urbi", "at most one status request"),
    ("two transactions", ("TRAN", {"snam": ["A", "B"]}), "urbi", "exactly one URBI"),
    ("options disagree", ("CLSD", {"dnam": ["A", "B"], "token": ["X", "Y", "Z"]}), "",
     "repeated options disagree on the number of URBIs"),
    ("bad stck", ("STAT", {"snam": ["S"]}, {"stck": "yesterday"}), "urbh.urbhtime (--stck)",
     "neither 16 hex digits"),
    ("ascii code page for ebcdic", ("STAT", {"snam": ["S"]}, {}, {"encoding": "ebcdic", "codepage": "ascii"}),
     "codepage", "is an ASCII code page, the encoding is ebcdic"),
    ("unknown code page", ("STAT", {"snam": ["S"]}, {}, {"codepage": "cp9999"}), "codepage", "unknown"),
]


@pytest.mark.parametrize(("case", "args", "path", "words"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_name_the_field_and_the_rule(case: str, args: tuple, path: str, words: str) -> None:
    err = refused(*args)
    assert err.path == path, str(err)
    assert words in err.reason, str(err)
    assert str(err).startswith("urb: ")


@pytest.mark.parametrize("items", [
    [1, 2, 3, (11, 20), 25],
    [(602, 602), 700],
    [(1, 5), (6, 9), 10, 0],
])
def test_valid_isn_lists(items: list) -> None:
    assert check_isn_list(items) is None  # accepted: no ValueError naming a rule


@pytest.mark.parametrize(("items", "index", "rule"), [
    ([5, 5], 1, "rule 1: no ISN more than once"),
    ([15, (11, 20)], 0, "rule 2: no single ISN inside a range"),
    ([(11, 20), 20], 1, "rule 2"),
    ([(11, 20), (20, 30)], 1, "rule 3: ranges must not overlap"),
    ([(40, 50), 1, (11, 20), (15, 16)], 3, "rule 3"),
    ([(20, 11)], 0, "rule 4: starting ISN <= ending ISN"),
    ([1, 4294967295], 1, "is the range indicator"),
    ([1, 2**32], 1, "does not fit a fullword"),
])
def test_isn_list_rules_report_item_and_rule(items: list, index: int, rule: str) -> None:
    with pytest.raises(BuildError) as e:
        check_isn_list(items)
    assert e.value.path == f"urbi[0].isn[{index}]" and rule in e.value.reason


def test_isn_rules_via_options() -> None:
    err = refused("INST", ISN_OPTS, {}, {}, ("15", "11-20"))
    assert err.path == "urbi[0].isn[0]"
    assert err.reason == ("ISN 15 lies inside the range 11-20 of item 1 (rule 2: no single ISN inside "
                          "a range); the server would answer response 131 subcode 16")


def test_prior_transaction_warnings() -> None:
    req = apply_options(None, "TRAN", {"snam": ["COLOR"]}, {}, {})
    warnings = validate(req)
    assert [w.split(":")[0] for w in warnings] == ["urbi[0].urbidnam", "urbi[0].urbitsnr"]
    req = apply_options(None, "TRAN", {"snam": ["COLOR"], "dnam": ["OUT1"], "tsnr": ["100"]}, {}, {})
    assert validate(req) == []


# --------------------------------------------------------------------------- descriptions


def test_yaml_description_with_a_list_per_file() -> None:
    reqs = load_requests((TESTDATA / "urb" / "synthetic" / "inst-two-files.request.yaml").read_text())
    data = build(reqs[0])
    unit = next(decode(data))
    assert unit.attrs == {"codepage": "latin-1", "byte_order": "little"}
    lists = [e.extra["fields"]["isns"] for e in unit.walk() if e.type == "ISNLIST"]  # type: ignore[index]
    assert lists == [[602, 603, [700, 710], 900], [[1, 100], 250]]
    assert [e.fields["urbifnr"] for e in unit.elements if e.type == "URBI"] == [9, 11]
    assert unit.elements[0].fields["urbhlent"] == len(data) == 64 + 120 + 112


def test_json_description_equals_the_options() -> None:
    reqs = load_requests((TESTDATA / "urb" / "synthetic" / "close-two.request.json").read_text())
    built = build(reqs[0])
    by_options = make("CLSD", {"dnam": ["BROUT2", "BROUT3"], "rnam": ["BROUT1"], "token": ["TOKEN001"]},
                      {"sender": "CLOSDEST", "msnr": "16", "stck": "BBBBBBBBBBBBBBBB"})
    assert built == by_options
    seed = seed_bytes("urb/close-destination.request.dump")  # the same header and first URBI
    assert built[:0x0C] == seed[:0x0C] and built[0x10:0xA0] == seed[0x10:0xA0]
    assert built[0x0C:0x10] == (64 + 2 * 96).to_bytes(4, "big")


@pytest.mark.parametrize("name", [n for n in SEED_REQUESTS if n != "prior-transaction.request"])
def test_decoded_json_rebuilds_byte_exact(name: str) -> None:
    data = seed_bytes(f"urb/{name}.dump")
    line = json.dumps(next(decode(data)).to_json())
    assert build(load_requests(line)) == data


def test_decoded_tram_needs_the_type_corrected() -> None:
    data = seed_bytes("urb/prior-transaction.request.dump")
    line = json.dumps(next(decode(data)).to_json())
    with pytest.raises(BuildError) as e:
        build(load_requests(line))
    assert e.value.path == "urbi[0].urbirt" and "'TRAM' is not a request type" in e.value.reason
    req = apply_options(load_requests(line)[0], "TRAN", {}, {}, {})
    validate(req)
    assert build_request(req) == data[:0x63] + b"\xd5" + data[0x64:]


def test_options_override_the_file() -> None:
    line = json.dumps(next(decode(seed_bytes("urb/status.request.dump"))).to_json())
    req = apply_options(load_requests(line)[0], None, {"snam": ["OTHER"]}, {"sender": "ME"},
                        {"byte_order": "little"})
    validate(req)
    unit = next(decode(build_request(req)))
    assert unit.attrs["byte_order"] == "little"
    assert unit.elements[0].fields["urbhname"] == "ME" and unit.elements[1].fields["urbisnam"] == "OTHER"
    assert unit.elements[1].fields["urbirtok"] == "TOKTOK"


@pytest.mark.parametrize(("doc", "path", "words"), [
    ({"type": "stat", "snam": "S", "colour": "red"}, "colour", "unknown key"),
    ({"type": "stat", "urbis": [{"snam": "S", "bogus": 1}]}, "urbi[0].bogus", "unknown key"),
    ({"type": "stat", "urbis": "S"}, "urbis", "must be a list"),
    ({"type": "inst", "isns": ["1-x"]}, "isns", "not a number"),
])
def test_bad_descriptions(doc: dict, path: str, words: str) -> None:
    with pytest.raises(BuildError) as e:
        build(from_mapping(doc))
    assert e.value.path == path and words in e.value.reason


def test_decoded_server_messages_build_and_damaged_decodes_are_refused() -> None:
    data = seed_bytes("urb/status.reply.dump")
    reply = json.dumps(next(decode(data)).to_json())
    assert build(load_requests(reply)) == data
    damaged = json.dumps(next(decode(seed_bytes("urb/status.request.dump")[:150])).to_json())
    with pytest.raises(BuildError, match="the decoded message has errors"):
        load_requests(damaged)
    with pytest.raises(BuildError, match="neither JSON nor YAML"):
        load_requests("{not: [valid")


def test_several_messages_in_one_file_are_built_back_to_back() -> None:
    lines = "\n".join(json.dumps(next(decode(seed_bytes(f"urb/{n}.dump"))).to_json())
                      for n in ("status.request", "inst-employee.request"))
    reqs = load_requests(lines)
    assert [r.where for r in reqs] == ["line 1", "line 2"]
    assert build(reqs) == seed_bytes("urb/status.request.dump") + seed_bytes("urb/inst-employee.request.dump")


# --------------------------------------------------------------------------- round trips

NAME = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#@$abc", min_size=1, max_size=8)
OPT = st.one_of(st.just(""), NAME)
U2 = st.integers(1, 0xFFFF)
U4 = st.integers(0, 0xFFFFFFFF)


@st.composite
def isn_lists(draw: st.DrawFn) -> list:
    """Valid ISN lists: distinct sorted values, neighbours paired into ranges, any order."""
    values = sorted(draw(st.sets(st.integers(0, MAX_ISN), min_size=1, max_size=10)))
    items: list = []
    i = 0
    while i < len(values):
        kind = draw(st.sampled_from(["single", "range", "same"]))
        if kind == "range" and i + 1 < len(values):
            items.append([values[i], values[i + 1]])
            i += 2
            continue
        items.append([values[i], values[i]] if kind == "same" else values[i])
        i += 1
    return draw(st.permutations(items))


@st.composite
def descriptions(draw: st.DrawFn, encoding: str, byte_order: str) -> dict:
    rt = draw(st.sampled_from(["open", "close", "inst", "tran", "stat"]))
    n = draw(st.integers(1, 3)) if rt in ("open", "close", "inst") else 1
    token = draw(OPT)
    rnam = draw(NAME) if rt == "inst" else draw(OPT)
    inam = draw(NAME)
    kind = draw(st.sampled_from(["isns", "selection"]))  # the definition decides, for every file
    urbis = []
    for _ in range(n):
        u: dict = {}
        if rt in ("open", "close"):
            u["dnam"] = draw(NAME)
        elif rt == "inst":
            u.update(inam=inam, dbid=draw(U2), fnr=draw(U2))
            data = draw(st.sampled_from(["none", kind]))
            if data == "isns":
                u["isns"] = draw(isn_lists())
            elif data == "selection":
                u["selection_hex"] = draw(st.binary(min_size=1, max_size=40)).hex()
                u.update(acode=draw(U4), wcode=draw(U4), arc=draw(st.integers(0, 15)))
        elif rt == "tran":
            u.update(snam=draw(NAME), dnam=draw(OPT), tsnr=draw(U4))
        else:
            u.update(snam=draw(NAME), dnam=draw(OPT))
        urbis.append(u)
    return {"type": rt, "encoding": encoding, "byte_order": byte_order, "token": token, "rnam": rnam,
            "sender": draw(OPT), "msnr": draw(U4), "stck": draw(st.integers(0, 2**64 - 1)),
            "align": draw(st.sampled_from([1, 4, 8])), "urbis": urbis}


def described(unit_json: dict) -> dict:
    """A description of what was decoded, in the generator's terms."""
    head = unit_json["elements"][0]["fields"]
    out: dict = {"encoding": "ascii" if unit_json["codepage"] == "latin-1" else "ebcdic",
                 "byte_order": unit_json["byte_order"], "sender": head["urbhname"],
                 "msnr": head["urbhmsnr"], "stck": int(head["urbhtime_hex"], 16), "urbis": []}
    els = unit_json["elements"][1:]
    for el in els:
        if el["type"] != "URBI":
            continue
        f = el["fields"]
        u = {"fields": {n: f[n] for n in ("urbirt", "urbirtok", "urbirnam", "urbiinam", "urbisnam",
                                         "urbidnam", "urbidbid", "urbifnr", "urbitsnr", "urbiacod",
                                         "urbiwcod", "urbiarc")}}
        lists = [c for c in el.get("children", []) if c["type"] == "ISNLIST"]  # under its URBI
        if lists:
            u["isns"] = lists[0]["fields"]["isns"]
        elif "data" in el:
            u["data"] = el["data"]
        out["urbis"].append(u)
    return out


def expected(desc: dict) -> dict:
    """The same description normalised to what a decode shows."""
    rt = {"open": "OPND", "close": "CLSD", "inst": "INST", "tran": "TRAN", "stat": "STAT"}[desc["type"]]
    out: dict = {k: desc[k] for k in ("encoding", "byte_order", "sender", "msnr", "stck")}
    out["urbis"] = []
    for u in desc["urbis"]:
        f = {"urbirt": rt, "urbirtok": desc["token"], "urbirnam": desc["rnam"], "urbiinam": u.get("inam", ""),
             "urbisnam": u.get("snam", ""), "urbidnam": u.get("dnam", ""), "urbidbid": u.get("dbid", 0),
             "urbifnr": u.get("fnr", 0), "urbitsnr": u.get("tsnr", 0), "urbiacod": u.get("acode", 0),
             "urbiwcod": u.get("wcode", 0), "urbiarc": u.get("arc", 0)}
        e: dict = {"fields": f}
        if "isns" in u:
            e["isns"] = u["isns"]
        elif "selection_hex" in u:
            e["data"] = u["selection_hex"].upper()
        out["urbis"].append(e)
    return out


ENCODINGS = [("ebcdic", "big"), ("ebcdic", "little"), ("ascii", "big"), ("ascii", "little")]


def _built(data: st.DataObject, encoding: str, byte_order: str):  # type: ignore[no-untyped-def]
    """A drawn request description, its bytes, and how decode must read URBI data."""
    desc = data.draw(descriptions(encoding, byte_order))
    built = build(from_mapping(desc))
    urbi_data = "isn" if any("isns" in u for u in desc["urbis"]) else "selection"
    return desc, built, urbi_data


@pytest.mark.parametrize(("encoding", "byte_order"), ENCODINGS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_decode_of_build_is_identity(encoding: str, byte_order: str, data: st.DataObject) -> None:
    desc, built, urbi_data = _built(data, encoding, byte_order)
    units = list(decode(built, urbi_data=urbi_data))
    assert len(units) == 1 and not units[0].errors and not units[0].problems
    assert described(units[0].to_json()) == expected(desc)
    urbis = [e for e in units[0].elements if e.type == "URBI"]
    align = desc["align"]
    assert len(urbis) == len(desc["urbis"])
    for el in urbis:
        n = el.fields["urbilend"]
        assert el.fields["urbilen"] == 96 + n + (-n) % align  # type: ignore[operator]


@pytest.mark.parametrize(("encoding", "byte_order"), ENCODINGS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_build_of_decode_is_identity(encoding: str, byte_order: str, data: st.DataObject) -> None:
    _desc, built, urbi_data = _built(data, encoding, byte_order)
    unit = next(decode(built, urbi_data=urbi_data))
    line = json.dumps(unit.to_json())
    assert build(load_requests(line)) == built


def test_stck_sub_microsecond_bits_survive_the_json_round_trip() -> None:
    req = apply_options(None, "STAT", {"snam": ["S"]}, {"stck": "BB680AF2C1C27F60"}, {})
    validate(req)
    built = build_request(req)
    j = next(decode(built)).to_json()
    assert j["elements"][0]["fields"]["urbhtime_hex"] == "BB680AF2C1C27F60"  # type: ignore[index]
    assert build(load_requests(json.dumps(j)))[0x14:0x1C] == bytes.fromhex("BB680AF2C1C27F60")
    assert Tod(0xBB680AF2C1C27F60).submicro == 0xF60


def test_the_builder_uses_the_decoders_declarations() -> None:
    """One declaration: the URBI the builder writes is the dsect's build of the same values."""
    data = make("STAT", {"snam": ["COLOR"], "token": ["TOKTOK"]})
    values = next(decode(data)).elements[1].all_values
    assert layouts().URBI.build(values) == data[64:160]
