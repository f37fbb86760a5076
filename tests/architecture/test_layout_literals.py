"""No layout fact outside its declaration: a numeric literal that equals a declared field's
offset, used in a slice, an index or an ``unpack_from`` / ``from_bytes`` call, in a module of
a format package other than its ``layout`` module, is a restated layout fact. Use the
declaration (``layout.offset_of("urbhlent")``, ``Layout.size``, ``Layout.format``).

Where a literal is truly not a layout fact, list it in ``ALLOWED`` with the reason.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.layout import Layout

FORMATS = Path(__file__).resolve().parents[2] / "mqtool" / "formats"

# format package -> (module, factory call) that returns its declarations
DECLARATIONS: dict[str, list[tuple[str, str, dict]]] = {
    "urb": [("mqtool.formats.urb.layout", "layouts", {})],
    "csq1logp": [("mqtool.formats.csq1logp.layout", "layouts", {})],
    "sas": [("mqtool.formats.sas.layout", "layouts", {})],
    "osb": [("mqtool.formats.osb.layout", "layouts", {})],
    "matqmsg": [("mqtool.formats.matqmsg.layout", "selection_layout", {"key_len": 8}),
                ("mqtool.formats.matqmsg.layout", "message_layout",
                 {"key_bytes": 8, "text_bytes": 8}),
                ("mqtool.formats.matqmsg.layout", "receiver_layout", {})],
    "mq": [("mqtool.formats.mq.layout", "layouts", {})],
}

# (module, value): why this literal is not a layout fact
ALLOWED: dict[tuple[str, int], str] = {
    ("mqtool.formats.mq.dumps.amqsbcg", 40): "characters of a bad listing value quoted in a problem",
    ("mqtool.formats.mq.dumps.amqsbcg", 60): "characters of a bad listing value quoted in a problem",
    ("mqtool.formats.mq.dumps.dmpmqmsg", 24): "characters of a bad dump line quoted in a problem",
    ("mqtool.formats.mq.dumps.dmpmqmsg", 60): "characters of a bad attribute value quoted in a problem",
    ("mqtool.formats.mq.dumps.mqtool_dir", 40): "characters of a bad index value quoted in a problem",
    ("mqtool.formats.mq.dumps.rfhutil", 40): "characters of a bad property value quoted in a problem",
    ("mqtool.formats.mq.dumps.summary", 4): "YYYYMMDD / HHMMSSTH text split for display, not a byte offset",
    ("mqtool.formats.mq.dumps.read", 4): "the MD eyecatcher sniffed before any MQMD is parsed",
    ("mqtool.formats.mq.dumps.read", 20): "characters of a bad dump line quoted in a message",
    ("mqtool.formats.mq.dumps.write", 16): "bytes per amqsbcg dump line, not a field offset",
}

# modules whose job is the declaration itself
DECLARING = {"layout", "meanings", "mqmd", "codec", "__init__"}


def layouts_in(obj: object, seen: set[int] | None = None) -> Iterator[Layout]:
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, Layout):
        yield obj
        return
    values = (obj.values() if isinstance(obj, dict)
              else obj if isinstance(obj, (list, tuple))
              else vars(obj).values() if hasattr(obj, "__dict__")
              else (getattr(obj, s) for s in getattr(type(obj), "__slots__", ())))
    for v in values:
        if isinstance(v, (Layout, dict, list, tuple)) or hasattr(v, "__dataclass_fields__"):
            yield from layouts_in(v, seen)


def declared_offsets(fmt: str) -> set[int]:
    out: set[int] = set()
    for module, factory, kwargs in DECLARATIONS[fmt]:
        mod = importlib.import_module(module)
        if not hasattr(mod, factory):
            continue
        for lay in layouts_in(getattr(mod, factory)(**kwargs)):
            out.update(f.start for f in lay.fields if f.start)
    return out


def numbers(node: ast.AST) -> Iterator[ast.Constant]:
    """Int literals, except those negated: ``x[-1]`` counts from the end, never an offset."""
    negated = {id(n.operand) for n in ast.walk(node)
               if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)}
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and type(n.value) is int and id(n) not in negated:
            yield n


def suspects(tree: ast.AST) -> Iterator[tuple[int, int]]:
    """(line, value) of int literals in subscripts and in unpack_from/from_bytes calls."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            for c in numbers(node.slice):
                yield c.lineno, c.value
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in ("unpack_from", "from_bytes"):
                for arg in node.args:
                    for c in numbers(arg):
                        yield c.lineno, c.value


def findings(fmt: str) -> list[str]:
    offsets = declared_offsets(fmt)
    out = []
    for path in sorted((FORMATS / fmt).rglob("*.py")):
        if path.stem in DECLARING:
            continue
        module = ".".join(path.relative_to(FORMATS.parent.parent).with_suffix("").parts)
        for line, value in suspects(ast.parse(path.read_text())):
            if value in offsets and (module, value) not in ALLOWED:
                out.append(f"{module}:{line}: {value}")
    return out


# formats whose walkers still restate offsets: each entry goes when its package is cleaned
@pytest.mark.parametrize("fmt", sorted(DECLARATIONS))
def test_no_declared_offset_is_restated(fmt: str) -> None:
    assert findings(fmt) == []


def test_the_scan_finds_a_restated_offset() -> None:
    tree = ast.parse("x = data[40:48]\ny = struct.unpack_from('>I', data, 12)\nz = d[off + 8]\n"
                     "last = spans[-1]\n")
    assert sorted(v for _, v in suspects(tree)) == [8, 12, 40, 48]
