"""The field tree, the annotated hex lines and the export of a selection, without Textual."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mqtool.errors import EnvError
from mqtool.io.outputs import OutputExistsError
from mqtool.io.undump import undump
from mqtool.model import element_json
from mqtool.render.annotate import PALETTE, annotate_unit
from mqtool.view.export import as_dump, as_json, default_name, export
from mqtool.view.fields import DATA, ELEMENT, FIELD, build_tree, find, find_bytes, hex_query, innermost
from mqtool.view.hexlines import CURSOR, SELECTED, HexModel
from mqtool.view.sources import open_source
from tests.view.conftest import CSQ_2SEG, URB_DATA, URB_PROBLEM

URBR_AT = 0x00B0  # the seed dump: the first URBR element starts on line 00B0


@pytest.fixture(scope="module")
def urb():  # type: ignore[no-untyped-def]
    loaded = open_source(str(URB_DATA)).load(0)
    return loaded, build_tree(loaded.unit)


def test_the_tree_follows_the_paths_and_covers_the_spans(urb) -> None:  # type: ignore[no-untyped-def]
    loaded, root = urb
    assert (root.start, root.end) == (0, 592)
    kinds = [(c.kind, c.path) for c in root.children]
    assert kinds[:3] == [(ELEMENT, "urbh"), (ELEMENT, "urbt[0]"), (ELEMENT, "urbr[0]")]
    urbr = root.children[2]
    assert (urbr.start, urbr.end) == (URBR_AT, URBR_AT + 64)
    assert [n.path for n in urbr.children][:2] == ["urbr[0].urbreye", "urbr[0].urbrlen"]
    # every span is exactly one field node, with the span's own range
    fields = {n.path: (n.start, n.end) for n in root.walk() if n.kind == FIELD}
    assert fields == {s.path: (s.start, s.end) for s in loaded.unit.spans()}
    # URBD carries the record image as data: X'0110', 32 bytes ("GREEN" in EBCDIC first)
    data = next(n for n in root.walk() if n.kind == DATA)
    assert (data.path, data.start, data.length) == ("urbd[0].urbddata", 0x110, 32)
    assert loaded.data[data.start:data.start + 5] == "GREEN".encode("cp037")


@pytest.mark.parametrize(("offset", "path"), [
    (0, "urbh.urbheye"),
    (URBR_AT + 16, "urbr[0].urbrisn"),  # X'000000' then X'02' in the seed: urbrisn = 2
    (URBR_AT + 19, "urbr[0].urbrisn"),
    (0x110 + 7, "urbd[0].urbddata"),
    (0x240, "urbe[0].urbetsnr"),
    (591, "urbe[0].urberes"),  # a reserved filler is a field too
])
def test_innermost_names_the_field_that_holds_a_byte(urb, offset: int, path: str) -> None:  # type: ignore[no-untyped-def]
    _, root = urb
    node = innermost(root, offset)
    assert node is not None and node.path == path and node.covers(offset)
    assert innermost(root, 592) is None


def test_search_by_path_value_meaning_and_bytes(urb) -> None:  # type: ignore[no-untyped-def]
    loaded, root = urb
    first = find(root, "URBRISN")
    assert first is not None and first.path == "urbr[0].urbrisn"
    assert find(root, "urbrisn", first).path == "urbr[1].urbrisn"  # type: ignore[union-attr]
    assert find(root, "reptor").path == "urbh.urbhname"  # type: ignore[union-attr]
    assert find(root, "initial-state").path == "urbt[0].urbtinst"  # type: ignore[union-attr]
    assert find(root, "no such thing") is None
    needle = hex_query("X'C2D3E4C5'")  # "BLUE" in EBCDIC, the second record image
    assert needle == b"\xc2\xd3\xe4\xc5" and hex_query("0xC2D3") == b"\xc2\xd3"
    assert hex_query("X'C2D'") is None and hex_query("C2D3") is None
    at = find_bytes(loaded.data, loaded.origin, needle)
    assert at == 0x190 and innermost(root, at).path == "urbd[1].urbddata"  # type: ignore[union-attr]
    assert find_bytes(loaded.data, 0, b"\xe4\xd9\xc2\xd9", after=URBR_AT) == 0x130  # next URBR


def test_problems_hang_on_the_field_they_name() -> None:
    loaded = open_source(str(URB_PROBLEM)).load(0)
    root = build_tree(loaded.unit)
    marked = [n for n in root.walk() if n.problems]
    assert [n.path for n in marked] == ["urbi[0].urbirt"]
    assert marked[0].start == loaded.unit.problems[0].offset == 96
    assert loaded.data[96:100] == "TRAM".encode("cp037")


def test_hex_lines_are_the_annotate_lines_plus_selection_and_cursor(urb) -> None:  # type: ignore[no-untyped-def]
    loaded, _ = urb
    spans = list(loaded.unit.spans())
    model = HexModel(loaded.data, loaded.origin, spans, loaded.codepage)
    reference = annotate_unit(loaded.unit, loaded.data)
    assert model.lines == len(reference) == 37
    for row in range(model.lines):
        assert model.line(row).plain == reference[row].plain
    # line 0 of the seed dump, byte for byte (the seed prints no field names)
    seed_line0 = "0000 E4D9C2C8 00000040 F0F10001 00000250"
    assert model.line(0).plain.startswith(seed_line0 + " *URBH... 01.....&*")
    text = model.line(URBR_AT // 16 + 1, selected=(URBR_AT + 16, URBR_AT + 20), cursor=URBR_AT + 17)
    styled = {(s.start, s.end): str(s.style) for s in text.spans}
    geo = model.geo
    isn = next(k for k, s in enumerate(spans) if s.path == "urbr[0].urbrisn")
    for j in range(4):  # urbrisn: the first four bytes of line 00C0
        p = geo.hex_pos[j]
        assert text.plain[p:p + 2] == ["00", "00", "00", "02"][j]
        assert SELECTED in styled[(p, p + 2)] and PALETTE[isn % len(PALETTE)] in styled[(p, p + 2)]
    assert CURSOR in styled[(geo.hex_pos[1], geo.hex_pos[1] + 2)]
    assert SELECTED not in styled.get((geo.hex_pos[4], geo.hex_pos[4] + 2), "")
    assert model.offset_at(URBR_AT // 16 + 1, geo.hex_pos[3] + 1) == URBR_AT + 19
    assert model.offset_at(0, geo.chr_pos[0][2]) == 2
    assert model.offset_at(0, 0) is None


def test_a_short_last_line_matches_annotate() -> None:
    src = open_source(str(CSQ_2SEG))
    for i in range(len(src)):
        loaded = src.load(i)
        model = HexModel(loaded.data, loaded.origin, list(loaded.unit.spans()), loaded.codepage)
        reference = annotate_unit(loaded.unit, loaded.data)
        # the hex pane marks no nested element ([CSBORA]): the tree pane shows the nesting
        plain = [re.sub(r" \[[A-Z0-9]+\]", "", t.plain) for t in reference]
        assert [model.line(r).plain for r in range(model.lines)] == plain


def test_export_bytes_as_dump_text_reads_back(urb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    loaded, root = urb
    node = innermost(root, 0x110)
    text = as_dump(node, loaded.data, loaded.origin)
    assert text.splitlines()[0].startswith("00000110 C7D9C5C5 D5404040")
    assert undump(text) == loaded.data[0x110:0x130]
    out = tmp_path / "image.dump"
    said = export(node, loaded.unit, loaded.data, loaded.origin, str(out))
    assert said == f"wrote 32 bytes as dump text to {out}"
    assert undump(out.read_text()) == loaded.data[0x110:0x130]
    with pytest.raises(OutputExistsError):
        export(node, loaded.unit, loaded.data, loaded.origin, str(out))
    with pytest.raises(EnvError):
        export(node, loaded.unit, loaded.data, loaded.origin, str(tmp_path / "no" / "dir" / "x.dump"))
    assert default_name(node, 0) == "unit1-urbd_0_.urbddata.dump"


def test_export_a_subtree_as_json(urb, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    loaded, root = urb
    urbr = root.children[2]
    out = tmp_path / "urbr.json"
    export(urbr, loaded.unit, loaded.data, loaded.origin, str(out))
    got = json.loads(out.read_text())
    assert got == json.loads(json.dumps(element_json(urbr.element)))
    assert got["fields"]["urbrisn"] == 2 and got["offset"] == URBR_AT
    isn = innermost(root, URBR_AT + 16)
    assert as_json(isn, loaded.unit, loaded.data, loaded.origin) == {
        "path": "urbr[0].urbrisn", "offset": URBR_AT + 16, "length": 4, "value": 2, "hex": "00000002"}
    assert as_json(root, loaded.unit, loaded.data, loaded.origin)["length"] == 592
    assert default_name(urbr, 0) == "unit1-urbr_0.json"


def test_the_tree_is_the_decoders_nesting() -> None:
    """A URBF's URBGs and a URBI's ISN list are nodes under their parent, as the decoder
    nested them (the view re-parses no path)."""
    from mqtool.formats.urb.decode import decode
    from tests.helpers import seed_bytes

    (unit,) = decode(seed_bytes("urb/synthetic/inst-isnlist.request.dump"))
    root = build_tree(unit)
    urbi = root.children[1]
    (isns,) = [n for n in urbi.children if n.kind == ELEMENT]
    assert (urbi.path, isns.path, isns.parent) == ("urbi[0]", "urbi[0].isn", urbi)
    assert (isns.start, isns.end) == (0xA0, 0xB8) and not [n for n in urbi.children if n.kind == DATA]
    leaf = innermost(root, 0xAC)  # the first ISN of the range 700-710
    assert leaf is not None and leaf.path == "urbi[0].isn[2].urbiisn1" and leaf.parent is isns
