"""A decoded unit as a tree of byte ranges: unit > elements (nested as the decoder nested
them: a URBF > its URBGs) > fields (and data).

The tree is the model's (``Element.children``), never re-derived from path strings; paths are
the decoders' dotted paths (``urbr[1].urbrisn``) and label the nodes. A node covers
``start..end`` (absolute, end exclusive). ``innermost`` answers "which field is this byte in", ``find``
searches paths, values and meanings, ``find_bytes`` searches the unit's bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from mqtool.model import RESERVED, Decoded, Element, Problem, Span
from mqtool.render.listing import render_value

UNIT, ELEMENT, FIELD, DATA = "unit", "element", "field", "data"


@dataclass(eq=False)
class Node:
    """One tree node: what it is, where its bytes are, what went wrong inside it."""

    kind: str
    path: str
    name: str
    start: int
    end: int
    span: Span | None = None
    element: Element | None = None
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    depth: int = 0

    @property
    def length(self) -> int:
        return self.end - self.start

    def covers(self, offset: int) -> bool:
        return self.start <= offset < self.end

    def value_text(self) -> str:
        if self.span is not None:
            return render_value(self.span)
        if self.kind == DATA:
            return f"{self.length} bytes"
        return ""

    def label(self) -> str:
        """One line: ``name = value  meaning (note)`` for fields, the heading for the rest."""
        if self.span is None:
            return self.name
        s = self.span
        tail = " ".join(t for t in (s.meaning, f"({s.note})" if s.note else "") if t)
        return f"{self.name} = {self.value_text()}" + (f"  {tail}" if tail else "")

    def walk(self) -> Iterator[Node]:
        yield self
        for c in self.children:
            yield from c.walk()

    def ancestors(self) -> Iterator[Node]:
        n = self.parent
        while n is not None:
            yield n
            n = n.parent


def _element(parent: Node, el: Element) -> Node:
    """The node of one element: its fields, its data (unless nested elements show it), and
    the elements nested in it, as the decoder nested them."""
    path = el.own_path()
    start = min([el.offset, *(s.start for s in el.spans)])
    end = max([el.end, *(s.end for s in el.spans)])
    enode = _add(parent, Node(ELEMENT, path, el.heading(), start, end, element=el))
    for s in el.spans:
        _add(enode, Node(FIELD, s.path, s.name, s.start, s.end, span=s))
    if el.shows_data and el.data is not None and el.data_offset is not None:
        dpath = f"{path}.{el.data_name}" if path else el.data_name
        _add(enode, Node(DATA, dpath, el.data_name, el.data_offset, el.data_offset + len(el.data)))
        enode.end = max(enode.end, el.data_offset + len(el.data))
    for child in el.children:
        c = _element(enode, child)
        enode.start, enode.end = min(enode.start, c.start), max(enode.end, c.end)
    return enode


def build_tree(unit: Decoded) -> Node:
    """The unit's tree, nested as its elements are; problems and errors hang on the innermost
    node covering their offset (or the node their path names)."""
    root = Node(UNIT, "", unit.title or f"{unit.format} unit at offset X'{unit.offset:04X}'",
                unit.offset, unit.offset + unit.length)
    for el in unit.elements:
        _element(root, el)
    root.start = min([root.start, *(c.start for c in root.children)])
    root.end = max([root.end, *(c.end for c in root.children)])
    by_path = {n.path: n for n in root.walk() if n.path}
    for p in [*unit.errors, *unit.problems]:
        target = by_path.get(p.path) or _by_name(root, p.path) or innermost(root, p.offset) or root
        target.problems.append(p)
    return root


def _by_name(root: Node, name: str) -> Node | None:
    """The field a problem names by its bare name (``ldatalen``), when exactly one has it."""
    if not name:
        return None
    found = [n for n in root.walk() if n.kind == FIELD and n.name == name]
    return found[0] if len(found) == 1 else None


def _add(parent: Node, child: Node) -> Node:
    child.parent, child.depth = parent, parent.depth + 1
    parent.children.append(child)
    return child


def innermost(root: Node, offset: int) -> Node | None:
    """The smallest node covering ``offset`` (the deepest of equals); None outside the unit."""
    best: Node | None = None
    for n in root.walk():
        if n.covers(offset) and (best is None or n.length < best.length
                                 or (n.length == best.length and n.depth >= best.depth)):
            best = n
    return best


def spans_in(node: Node) -> list[Span]:
    return [n.span for n in node.walk() if n.span is not None]


# --------------------------------------------------------------------------- search

_HEX_QUERY = re.compile(r"^\s*[xX]'([0-9A-Fa-f\s]*)'\s*$|^\s*0[xX]([0-9A-Fa-f]+)\s*$")


def hex_query(query: str) -> bytes | None:
    """The bytes of ``X'C1C2'`` or ``0xC1C2`` (a search for bytes), else None."""
    m = _HEX_QUERY.match(query)
    if not m:
        return None
    digits = re.sub(r"\s", "", m.group(1) if m.group(1) is not None else m.group(2))
    if not digits or len(digits) % 2:
        return None
    return bytes.fromhex(digits)


def matches(node: Node, query: str) -> bool:
    """Does the node's path, name, value or meaning contain ``query`` (any case)?"""
    q = query.lower()
    if q in node.path.lower() or q in node.name.lower():
        return True
    if node.span is not None and node.span.kind != RESERVED:
        if q in node.value_text().lower() or q in node.span.meaning.lower():
            return True
        return q in str(node.span.value).lower()
    return False


def find(root: Node, query: str, after: Node | None = None) -> Node | None:
    """The next node after ``after`` (tree order, wrapping) that matches ``query``."""
    nodes = [n for n in root.walk() if n is not root]
    if not nodes or not query.strip():
        return None
    k = next((i for i, n in enumerate(nodes) if n is after), -1)
    for n in nodes[k + 1:] + nodes[:k + 1]:
        if matches(n, query.strip()):
            return n
    return None


def find_bytes(data: bytes, origin: int, needle: bytes, after: int | None = None) -> int | None:
    """The absolute offset of the next occurrence of ``needle`` after ``after`` (wrapping)."""
    if not needle:
        return None
    start = 0 if after is None else max(0, after - origin + 1)
    k = data.find(needle, start)
    if k < 0:
        k = data.find(needle)
    return None if k < 0 else origin + k
