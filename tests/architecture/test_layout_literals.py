"""No layout fact outside its declaration: a numeric literal that equals a declared field's
offset or end, or a declared record's size, used as a position -- in a slice or an index
(``head[4:8]``), in an ``unpack_from`` / ``from_bytes`` call, as the position argument of a
pattern or search (``pat.match(head, 4)``, ``buf.find(x, 4)``), or passed to a parameter
named for a position (``at``, ``pos``, ``off``, ``offset``, ``start``, ``end``, ``base``)
of a function of the package (``_rdw_len(head, 4)``) or of the model's locators
(``Problem(path, offset + 4, reason)``) -- in a module of a format package other
than its declaring modules, is a restated layout fact. Use the declaration
(``layout.offset_of("urbhlent")``, ``Layout.size``, ``Layout.format``, the equates).

0 and 1 are never counted (the first byte, the element after the first). Where a literal
is truly not a layout fact, list it in ``ALLOWED`` with the reason.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from mqtool.errors import DecodeError
from mqtool.layout import Layout
from mqtool.model import Decoded, Element, Problem, Span

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
    """Every declared field's offset and end, and every declared record's size."""
    out: set[int] = set()
    for module, factory, kwargs in DECLARATIONS[fmt]:
        mod = importlib.import_module(module)
        if not hasattr(mod, factory):
            continue
        for lay in layouts_in(getattr(mod, factory)(**kwargs)):
            out.update(f.start for f in lay.fields if f.start is not None)
            out.update(f.start + f.size for f in lay.fields if f.start is not None and f.size)
            if lay.size:
                out.add(lay.size)
    return out - {0, 1}


def numbers(node: ast.AST) -> Iterator[ast.Constant]:
    """Int literals, except those negated: ``x[-1]`` counts from the end, never an offset."""
    negated = {id(n.operand) for n in ast.walk(node)
               if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)}
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and type(n.value) is int and id(n) not in negated:
            yield n


POSITION_PARAMS = {"at", "pos", "off", "offset", "start", "end", "base", "data_offset"}
UNPACKS = {"unpack_from", "from_bytes"}  # every argument may be a position
SEARCHES = {"match", "search", "fullmatch", "finditer", "findall", "find", "rfind", "index",
            "rindex", "startswith", "endswith"}  # the arguments after the first are positions


# what decoders locate things with: a problem's, an element's, a span's, an error's offset
LOCATORS = (Problem, Element, Span, Decoded, DecodeError)


def signatures(trees: Iterable[ast.AST]) -> dict[str, list[str]]:
    """Function (and method) name -> its positional parameter names, ``self`` left out: the
    functions of ``trees`` and the model's locators."""
    out = {c.__name__: list(inspect.signature(c).parameters) for c in LOCATORS}
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [a.arg for a in n.args.posonlyargs + n.args.args]
                out[n.name] = names[1:] if names[:1] in (["self"], ["cls"]) else names
    return out


def foreign_modules(tree: ast.AST) -> set[str]:
    """Names a module binds to other packages' modules (``np``, ``pc``, ``re``): calls
    through them are never the package's helpers (``np.where`` is not a local ``where``)."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out.update((a.asname or a.name).split(".")[0] for a in n.names
                       if not a.name.startswith("mqtool"))
        elif isinstance(n, ast.ImportFrom) and not (n.module or "").startswith("mqtool"):
            out.update(a.asname or a.name for a in n.names)
    return out


def _call_positions(node: ast.Call, sigs: dict[str, list[str]],
                    foreign: set[str]) -> Iterator[ast.AST]:
    """The arguments of a call that are positions."""
    name = getattr(node.func, "attr", getattr(node.func, "id", ""))
    receiver = getattr(getattr(node.func, "value", None), "id", None)
    if name in UNPACKS:
        yield from node.args
    elif name in SEARCHES:
        yield from node.args[1:]
    elif name in sigs and receiver not in foreign:
        params = sigs[name]
        yield from (a for i, a in enumerate(node.args) if i < len(params)
                    and params[i] in POSITION_PARAMS)
        yield from (k.value for k in node.keywords if k.arg in POSITION_PARAMS)


def suspects(tree: ast.AST, sigs: dict[str, list[str]] | None = None) -> Iterator[tuple[int, int]]:
    """(line, value) of int literals used as positions: in subscripts, in unpack and search
    calls, and for the position parameters of the functions in ``sigs``."""
    sigs = signatures([tree]) if sigs is None else sigs
    foreign = foreign_modules(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            for c in numbers(node.slice):
                yield c.lineno, c.value
        elif isinstance(node, ast.Call):
            for arg in _call_positions(node, sigs, foreign):
                for c in numbers(arg):
                    yield c.lineno, c.value


def findings(fmt: str) -> list[str]:
    offsets = declared_offsets(fmt)
    paths = [p for p in sorted((FORMATS / fmt).rglob("*.py")) if p.stem not in DECLARING]
    trees = {p: ast.parse(p.read_text()) for p in paths}
    sigs = signatures(trees.values())
    out = []
    for path, tree in trees.items():
        module = ".".join(path.relative_to(FORMATS.parent.parent).with_suffix("").parts)
        for line, value in suspects(tree, sigs):
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


def test_the_scan_finds_positions_passed_to_helpers_and_searches() -> None:
    tree = ast.parse(
        "import numpy as np\n"
        "def _rdw_len(b, at):\n    return b[at]\n"
        "def where(offset):\n    return offset\n"
        "def sniff(head, pat):\n"
        "    n = _rdw_len(head, 4) + _rdw_len(b=head, at=6)\n"
        "    ok = pat.match(head, 8) and head.find(b'x', 10)\n"
        "    p = Problem('rdw.length', off + 2, 'bad')\n"
        "    q = np.where(x & 0x80, 1, 2)  # numpy's, not a helper of the package\n"
        "    return head[4:8], len(head) > 12, _rdw_len(head, n)\n")
    assert sorted(v for _, v in suspects(tree)) == [2, 4, 4, 6, 8, 8, 10]


def test_a_declared_size_or_end_counts() -> None:
    """CSQ1LOGP: the RDW (4 bytes) ends where the record date starts; CSQ4LOGD is 199."""
    assert {4, 199, 97, 101} <= declared_offsets("csq1logp")
