"""The nested element tree: children with absolute offsets, the sibling rule, and how JSON,
the listing and the annotated hex show the nesting (for any format: built by hand here)."""

from __future__ import annotations

import pytest

from mqtool.model import HEX, INT, Decoded, Element, Span, element_json, tree_faults
from mqtool.render.annotate import annotate_unit
from mqtool.render.listing import unit_lines


def field(path: str, start: int, n: int, value: object, kind: str = INT) -> Span:
    return Span(path, start, start + n, value, kind=kind, raw=bytes(n))


def tree() -> Decoded:
    """An 8-byte outer record holding two 4-byte inner ones, then a 4-byte sibling."""
    inner = [Element("IN", 8 + 4 * k, 4, [field(f"out[0].in[{k}].v", 8 + 4 * k, 4, k)],
                     path=f"out[0].in[{k}]") for k in range(2)]
    outer = Element("OUT", 0, 16, [field("out[0].len", 0, 4, 16), field("out[0].n", 4, 4, 2)],
                    data=bytes(8), data_offset=8, data_name="ins", children=inner, path="out[0]")
    after = Element("END", 16, 4, [field("end[0].x", 16, 4, b"\x00" * 4, HEX)])
    return Decoded("toy", 0, 20, [outer, after], attrs={"codepage": "latin-1"})


def test_children_nest_in_json_and_the_walk_is_document_order() -> None:
    unit = tree()
    assert [e.type for e in unit.walk()] == ["OUT", "IN", "IN", "END"]
    assert [s.path for s in unit.spans()] == ["out[0].len", "out[0].n", "out[0].in[0].v", "out[0].in[1].v",
                                              "end[0].x"]
    js = element_json(unit.elements[0])
    assert js["data"] == "0000000000000000"  # the bytes, and what they hold:
    assert [(c["type"], c["offset"], c["fields"]) for c in js["children"]] == [  # type: ignore[union-attr]
        ("IN", 8, {"v": 0}), ("IN", 12, {"v": 1})]
    assert "children" not in element_json(unit.elements[1])
    assert unit.elements[1].own_path() == "end[0]" and unit.elements[0].own_path() == "out[0]"


def test_siblings_apart_and_children_inside() -> None:
    unit = tree()
    assert tree_faults(unit.elements) == []
    unit.elements[0].children[1].offset = 10  # overlaps its sibling 8..12
    unit.elements[1].children.append(Element("X", 30, 2))  # outside its parent 16..20
    assert tree_faults(unit.elements) == ["IN 8..12 overlaps its sibling IN 10..14",
                                          "X 30..32 lies outside its parent 16..20"]


def test_the_listing_indents_children_and_shows_no_data_they_hold() -> None:
    lines = list(unit_lines(tree()))
    assert lines[:7] == ["OUT element at offset X'0000'", "  len = 16", "  n   = 2",
                         "  IN element at offset X'0008'", "    v = 0",
                         "  IN element at offset X'000C'", "    v = 1"]
    assert "ins" not in "\n".join(lines)  # the children show the data
    assert lines[7:] == ["END element at offset X'0010'", "  x = X'00000000'"]


def test_annotate_marks_where_a_nested_element_starts() -> None:
    lines = [t.plain for t in annotate_unit(tree(), bytes(20))]
    assert lines[0].endswith(" len n [IN] v [IN] v")
    assert lines[1].endswith(" x")


def test_value_as_returns_a_field_of_the_declared_type_and_refuses_others() -> None:
    outer = tree().elements[0]
    assert outer.value_as("len", int) == 16
    assert tree().elements[1].value_as("x", bytes) == b"\x00" * 4
    with pytest.raises(TypeError, match=r"OUT\.len is int, not bytes"):
        outer.value_as("len", bytes)
    with pytest.raises(TypeError, match=r"OUT\.missing is NoneType, not int"):
        outer.value_as("missing", int)
