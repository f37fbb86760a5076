"""Selecting and counting decoded units by their fields: ``--where EXPR``, ``--fields a,b,c``
and ``stats --by``, over decoded units (``model.Decoded``: dotted span paths, meanings,
attributes) and over extract rows (a mapping of columns).

Expressions (parsed with lark, never evaluated as Python)::

    mqdlh.reason == MQRC_Q_FULL and mqmd.putapplname contains "amqs"
    urbr.urbrfnr in {12, 13} or not urbs            # a bare field: does it exist?
    csverb matches "^(PUT|GET)$" and ldatalen >= 0x100

Operators: ``== != < <= > >=``, ``in {…}`` / ``not in {…}``, ``contains``, ``matches``
(RE2 syntax, linear time), ``and`` / ``&&``, ``or`` / ``||``, ``not`` / ``!``, parentheses.
Constants by name resolve through the meaning tables (``MQRC_Q_FULL`` is 2053).

Field paths are the spans' paths with repeat indexes optional: ``urbr.urbrisn`` is every
``urbr[k].urbrisn``, ``urbr[1].urbrisn`` one of them; ``<path>_meaning`` is a field's
meaning; a record name alone (``mqdlh``) exists when any of its fields does; ``format``,
``offset``, ``length``, ``title``, ``errors`` and the unit's attributes are fields too.
Like Wireshark's display filters, a comparison is true when *any* value of a repeated
field satisfies it, ``!=`` when *no* value equals, and every comparison with a missing
field is false (wireshark-filter(4), "Comparing values").

``--fields`` prints one line per unit, the values tab-separated, a repeated field's values
joined by ``,`` and a missing field empty (tshark ``-T fields -e``, ``-E aggregator=,``).
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    VisitError,
)

from mqtool.errors import InputError
from mqtool.model import RESERVED, Decoded, json_value

MEANING = "_meaning"  # suffix of a field's meaning
AGGREGATOR = ","  # between a repeated field's values in a column
SEPARATOR = "\t"
MISSING = ""  # a missing field's cell
CLOSE = 4  # close names listed in an error
UNIT_FIELDS = ("format", "offset", "length", "title", "errors")

_INDEX = re.compile(r"\[\d+\]")


class QueryError(InputError):
    """A filter or field list that cannot be used: one line naming the fault."""


# --------------------------------------------------------------------------- records


def plain(path: str) -> str:
    """A path without repeat indexes: ``urbr[1].urbrisn`` -> ``urbr.urbrisn``."""
    return _INDEX.sub("", path) if "[" in path else path


class Fields:
    """The fields of one record by path: values, meanings, which names exist."""

    def __init__(self) -> None:
        self._values: dict[str, list[Any]] = {}
        self._groups: set[str] = set()

    def add(self, path: str, value: Any, meaning: str = "") -> None:
        keys = {path, plain(path)}
        for key in keys:
            self._values.setdefault(key, []).append(value)
            if meaning:
                self._values.setdefault(key + MEANING, []).append(meaning)
            head = key
            while "." in head:
                head = head.rsplit(".", 1)[0]
                self._groups.add(head)

    def values(self, path: str) -> list[Any]:
        return self._values.get(path, [])

    def exists(self, path: str) -> bool:
        return path in self._values or path in self._groups

    def names(self) -> Iterable[str]:
        yield from self._values
        yield from self._groups


def unit_fields(unit: Decoded) -> Fields:
    """The fields of a decoded unit: every span (JSON value, meaning), the unit's
    attributes (nested ones dotted: ``context.format``) and ``UNIT_FIELDS``."""
    f = Fields()
    for name in UNIT_FIELDS[:4]:
        f.add(name, getattr(unit, name))
    for p in unit.errors:
        f.add("errors", p.reason)
    _flatten(f, "", unit.attrs)
    for span in unit.spans():
        if span.kind != RESERVED:
            f.add(span.path, json_value(span), span.meaning)
    return f


def row_fields(row: Mapping[str, Any]) -> Fields:
    """The fields of an extract row (columns; nested mappings dotted, lists repeated)."""
    f = Fields()
    _flatten(f, "", row)
    return f


def _flatten(f: Fields, prefix: str, value: Any) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(f, f"{prefix}.{k}" if prefix else str(k), v)
    elif isinstance(value, list | tuple):
        for v in value:
            _flatten(f, prefix, v)
    elif prefix and value is not None:
        f.add(prefix, value.hex().upper() if isinstance(value, bytes | bytearray) else value)


def fields_of(record: Decoded | Mapping[str, Any] | Fields) -> Fields:
    if isinstance(record, Fields):
        return record
    if isinstance(record, Decoded):
        return unit_fields(record)
    return row_fields(record)


# --------------------------------------------------------------------------- constants


@lru_cache(maxsize=1)
def constants() -> dict[str, int]:
    """Constant names -> values, from the meaning tables (IBM MQ ``MQRC_*``, ``MQFB_*``,
    ``MQAT_*``, ``MQMT_*``, ``MQPER_*``, ``MQCC_*``, ``MQCFT_*``, ``MQCMD_*``, ``MQIA_*``,
    ``MQCA_*``, ... as the IBM MQ constants documentation names them)."""
    from mqtool.formats.mq import meanings, pcf_names, reason_codes

    out: dict[str, int] = {}
    for prefix, table in (("MQRC_", reason_codes.MQRC), ("MQFB_", reason_codes.MQFB)):
        out.update({prefix + name: value for value, name in table.items()})
    for module in (meanings, pcf_names):
        for name, table in vars(module).items():
            if name.isupper() and isinstance(table, dict):
                out.update({v: k for k, v in table.items()
                            if isinstance(k, int) and isinstance(v, str) and v.startswith("MQ")})
    return out


# --------------------------------------------------------------------------- grammar

GRAMMAR = r"""
?start: or_
?or_: and_ ((OR) and_)*
?and_: not_ ((AND) not_)*
?not_: (NOT | BANG) not_ -> negate
     | atom
?atom: "(" or_ ")"
     | operand CMP operand      -> compare
     | operand IN set_          -> member
     | operand NOT IN set_      -> not_member
     | operand CONTAINS operand -> contains
     | operand MATCHES STRING   -> matches
     | FIELD                    -> exists
set_: ("{" | "(") [operand ("," operand)*] ("}" | ")")
?operand: FIELD -> name
        | NUMBER -> number
        | STRING -> string
        | "-" NUMBER -> negative
CMP: "==" | "!=" | "<=" | ">=" | "<" | ">" | "eq" | "ne" | "le" | "ge" | "lt" | "gt"
OR: "or" | "||"
AND: "and" | "&&"
NOT: "not"
BANG: "!"
IN: "in"
CONTAINS: "contains"
MATCHES: "matches" | "~"
FIELD: /[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?([.][A-Za-z_][A-Za-z0-9_\/-]*(\[[0-9]+\])?)*/
NUMBER: /0[xX][0-9A-Fa-f]+|[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/
STRING: /"(\\.|[^"\\])*"|'(\\.|[^'\\])*'/
%ignore /[ \t\r\n]+/
"""

_WORDS = {"eq": "==", "ne": "!=", "le": "<=", "ge": ">=", "lt": "<", "gt": ">"}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr", maybe_placeholders=False)


# what a node evaluates to: a function of a record's fields
Test = Callable[[Fields], bool]
Values = Callable[[Fields], list[Any]]


@dataclass(frozen=True)
class Name:
    """A bare name in an operand position: a field, or a constant when no field has it."""

    text: str


@dataclass(frozen=True)
class Const:
    """A constant (``MQRC_Q_FULL``): its value, and its name (which a meaning may carry)."""

    name: str
    value: int


def _unquote(token: str) -> str:
    body = token[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def _number(text: str) -> int | float:
    if text[:2].lower() == "0x":
        return int(text, 16)
    return float(text) if any(c in text for c in ".eE") else int(text)


@v_args(inline=True)
class _Build(Transformer):  # type: ignore[type-arg]
    """Parse tree -> closures over ``Fields``; collects the names used."""

    def __init__(self, query: Query) -> None:
        super().__init__()
        self.q = query

    # operands
    def name(self, tok: Token) -> Name:
        return Name(str(tok))

    def number(self, tok: Token) -> int | float:
        return _number(str(tok))

    def negative(self, tok: Token) -> int | float:
        return -_number(str(tok))

    def string(self, tok: Token) -> str:
        return _unquote(str(tok))

    def set_(self, *items: Any) -> list[Any]:
        return [i for i in items if not isinstance(i, Token)]

    # tests
    def or_(self, *parts: Any) -> Test:
        tests = [p for p in parts if not isinstance(p, Token)]
        return lambda f: any(t(f) for t in tests)

    def and_(self, *parts: Any) -> Test:
        tests = [p for p in parts if not isinstance(p, Token)]
        return lambda f: all(t(f) for t in tests)

    def negate(self, _not: Token, test: Test) -> Test:
        return lambda f: not test(f)

    def exists(self, tok: Token) -> Test:
        path = self.q.field(str(tok))
        return lambda f: f.exists(path)

    def compare(self, left: Any, op: Token, right: Any) -> Test:
        op_ = _WORDS.get(str(op).lower(), str(op))
        lv, rv = self.q.operand(left), self.q.operand(right)
        if op_ == "!=":
            return lambda f: _present(lv(f), rv(f)) and not _any(_eq, lv(f), rv(f))
        rel = _COMPARE[op_]
        return lambda f: _any(rel, lv(f), rv(f))

    def member(self, left: Any, _in: Token, items: list[Any]) -> Test:
        lv = self.q.operand(left)
        ivs = [self.q.operand(i) for i in items]
        return lambda f: any(_any(_eq, lv(f), iv(f)) for iv in ivs)

    def not_member(self, left: Any, _not: Token, _in: Token, items: list[Any]) -> Test:
        lv = self.q.operand(left)
        ivs = [self.q.operand(i) for i in items]
        return lambda f: bool(lv(f)) and not any(_any(_eq, lv(f), iv(f)) for iv in ivs)

    def contains(self, left: Any, _op: Token, right: Any) -> Test:
        lv, rv = self.q.operand(left), self.q.operand(right)
        return lambda f: _any(_contains, lv(f), rv(f))

    def matches(self, left: Any, _op: Token, pattern: Token) -> Test:
        lv = self.q.operand(left)
        rx = _regex(_unquote(str(pattern)))
        return lambda f: any(rx.search(_text(v)) is not None for v in lv(f))


def _regex(pattern: str) -> Any:
    """An RE2 pattern (linear time whatever the input: no backtracking)."""
    import re2

    options = re2.Options()
    options.log_errors = False  # the error is ours to report, in one line
    try:
        return re2.compile(pattern, options)
    except re2.error as e:
        why = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) \
            else str(e)
        raise QueryError(f"--where: bad regular expression {pattern!r}: {why}") from None


def _present(a: list[Any], b: list[Any]) -> bool:
    return bool(a) and bool(b)


def _any(rel: Callable[[Any, Any], bool], a: list[Any], b: list[Any]) -> bool:
    return any(rel(x, y) for x in a for y in b)


def _num(v: Any) -> int | float | None:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | float):
        return v
    if isinstance(v, Const):
        return v.value
    if isinstance(v, str):
        s = v.strip()
        try:
            return _number(s) if s and (s[0].isdigit() or (s[:1] == "-" and s[1:2].isdigit())) \
                else None
        except ValueError:
            return None
    return None


def _text(v: Any) -> str:
    if isinstance(v, Const):
        return v.name
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


_HEXLIKE = re.compile(r"^[0-9A-Fa-f]+$")


def _eq(a: Any, b: Any) -> bool:
    if isinstance(b, Const) and isinstance(a, str):
        return a == b.name or _num(a) == b.value
    if isinstance(a, Const) and isinstance(b, str):
        return _eq(b, a)
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        return math.isclose(na, nb, rel_tol=0, abs_tol=0) if isinstance(na, float) or \
            isinstance(nb, float) else na == nb
    ta, tb = _text(a).rstrip(), _text(b).rstrip()
    if _HEXLIKE.match(ta) and _HEXLIKE.match(tb):
        return ta.upper() == tb.upper()
    return ta == tb


def _order(a: Any, b: Any) -> tuple[Any, Any]:
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        return na, nb
    return _text(a), _text(b)


def _rel(test: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def rel(a: Any, b: Any) -> bool:
        x, y = _order(a, b)
        return bool(test(x, y))
    return rel


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": _eq,
    "<": _rel(lambda x, y: x < y),
    "<=": _rel(lambda x, y: x <= y),
    ">": _rel(lambda x, y: x > y),
    ">=": _rel(lambda x, y: x >= y),
}


def _contains(a: Any, b: Any) -> bool:
    return _text(b) in _text(a)


# --------------------------------------------------------------------------- the query


class Query:
    """A compiled ``--where`` expression: ``query.match(unit_or_row)``.

    ``known``: every field name the records can have (from the declarations, or the names
    seen so far); a name that is neither known nor a constant is refused at once, with the
    closest names. Without ``known`` bare names are fields unless they are constants, and
    ``unknown(seen)`` names the fields no record had."""

    def __init__(self, text: str, known: Iterable[str] | None = None) -> None:
        self.text = text
        self.known = None if known is None else {plain(k) for k in known} | set(known)
        self.used: list[str] = []
        try:
            tree = _parser().parse(text)
        except UnexpectedInput as e:
            raise QueryError(_syntax(text, e)) from None
        except LarkError as e:
            raise QueryError(f"--where: {e}".splitlines()[0]) from None
        try:
            built = _Build(self).transform(tree)
        except VisitError as e:
            if isinstance(e.orig_exc, QueryError):
                raise e.orig_exc from None
            raise
        self._test: Test = built if callable(built) else _truth(built)

    def field(self, name: str) -> str:
        """A name used as a field: checked against ``known``, remembered."""
        base = name[:-len(MEANING)] if name.endswith(MEANING) else name
        if self.known is not None and plain(base) not in self.known and base not in self.known:
            raise QueryError(unknown_field(name, self.known | set(constants())))
        self.used.append(name)
        return name

    def operand(self, item: Any) -> Values:
        if isinstance(item, Name):
            const = constants().get(item.text)
            is_field = self.known is not None and (plain(item.text) in self.known or
                                                   item.text.endswith(MEANING))
            if const is not None and not is_field:
                value = Const(item.text, const)
                return lambda f: [value]
            path = self.field(item.text)
            return lambda f: f.values(path)
        return lambda f: [item]

    def match(self, record: Decoded | Mapping[str, Any] | Fields) -> bool:
        return self._test(fields_of(record))

    __call__ = match

    def unknown(self, seen: Iterable[str]) -> str | None:
        """The error line for the first field used that no record had, None if all were."""
        names = set(seen)
        for name in self.used:
            if name not in names and plain(name) not in names:
                return unknown_field(name, names)
        return None


def _truth(value: Any) -> Test:
    """A query that is a bare operand (a number or a string): refused."""
    raise QueryError(f"--where: {value!r} is a value, not a condition (compare it with a field)")


def _syntax(text: str, e: UnexpectedInput) -> str:
    col = getattr(e, "column", 0) or len(text) + 1
    tok = getattr(e, "token", None)
    if isinstance(e, UnexpectedEOF) or (tok is not None and tok.type == "$END"):
        return (f"--where: {text!r} ends too early (a condition is a field, or a field, an "
                "operator and a value)")
    if isinstance(e, UnexpectedCharacters):
        ch = text[col - 1:col] if col <= len(text) else ""
        return f"--where: unexpected character {ch!r} at column {col} of {text!r}"
    what = repr(str(tok)) if tok is not None else "input"
    return f"--where: unexpected {what} at column {col} of {text!r}"


def unknown_field(name: str, candidates: Iterable[str], option: str = "--where") -> str:
    """``unknown field 'x'; close names: a, b`` (difflib's closest, one line)."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=CLOSE, cutoff=0.6)
    hint = f"; close names: {', '.join(close)}" if close else ""
    return f"{option}: unknown field {name!r}{hint}"


def where(records: Iterable[Any], text: str | None, known: Iterable[str] | None = None
          ) -> Iterator[Any]:
    """The records (units or rows) that satisfy ``text`` (all of them when None)."""
    if not text:
        yield from records
        return
    q = Query(text, known)
    for r in records:
        if q.match(r):
            yield r


# --------------------------------------------------------------------------- columns


def field_list(text: str, option: str = "--fields") -> list[str]:
    """``a,b, c`` -> ``["a", "b", "c"]``; an empty name is refused (the error names
    ``option``)."""
    names = [n.strip() for n in text.split(",")]
    if not names or any(not n for n in names):
        raise QueryError(f"{option}: {text!r}: give field names separated by commas")
    bad = next((n for n in names if not re.fullmatch(r"[A-Za-z_][\w\[\].\/-]*", n)), None)
    if bad is not None:
        raise QueryError(f"{option}: {bad!r} is not a field path")
    return names


def cell(values: Sequence[Any]) -> str:
    """One column's text: the values joined by ``AGGREGATOR``; tabs, line ends and other
    control or bidi characters escaped (``\\t``, ``\\n``, ``\\x1b``: ``render.terminal``)
    so input text never steers a terminal or splits a line."""
    from mqtool.render.terminal import escape

    return escape(AGGREGATOR.join(_text(v) for v in values))


def columns(records: Iterable[Any], names: Sequence[str], header: bool = False) -> Iterator[str]:
    """One tab-separated line per record (no line end); ``header`` first the names."""
    if header:
        yield SEPARATOR.join(names)
    for r in records:
        f = fields_of(r)
        yield SEPARATOR.join(cell(f.values(n)) for n in names)


# --------------------------------------------------------------------------- selection

SAMPLE = 256  # records whose names are kept for the close names of an unknown field


class Selection:
    """What ``--where``, ``--fields`` and ``--header`` ask of a command's units or rows:
    which to keep (``kept``) and, with ``--fields``, the columns printed instead of the
    command's own output (``heading``, ``row``). Every expression and field list is
    checked when the selection is made; a name that no record had is refused once the
    records were seen (``check``), with the closest names they did have."""

    def __init__(self, where: str | None = None, fields: str | None = None,
                 header: bool = False, fields_option: str = "--fields") -> None:
        self.query = Query(where) if where else None
        self.names = field_list(fields, fields_option) if fields is not None else None
        if header and self.names is None:
            raise QueryError("--header goes with --fields (it names the columns)")
        self.header = header
        used = [("--where", n) for n in (self.query.used if self.query else [])]
        used += [(fields_option, n) for n in self.names or []]
        self._pending = dict.fromkeys(used)  # (option, name) not yet seen in any record
        self._seen: set[str] = set()  # names of the first SAMPLE records
        self.records = 0
        self.last: Fields | None = None  # the fields of the record ``match`` kept last

    def __bool__(self) -> bool:
        return self.query is not None or self.names is not None

    @property
    def columns(self) -> bool:
        """``--fields``: the command prints these columns instead of its own output."""
        return self.names is not None

    def kept(self, records: Iterable[Any], key: Callable[[Any], Any] | None = None
             ) -> Iterator[tuple[Any, Fields]]:
        """Each record ``--where`` keeps (all without it), with its fields; ``key`` gives
        the unit or row of an item (``(unit, bytes)`` pairs: the unit)."""
        for item in records:
            f = self.match(key(item) if key is not None else item)
            if f is not None:
                yield item, f

    def match(self, record: Any) -> Fields | None:
        """The fields of ``record`` when ``--where`` keeps it (always without it), else None."""
        f = fields_of(record)
        self._see(f)
        self.last = f if self.query is None or self.query.match(f) else None
        return self.last

    def heading(self) -> str | None:
        """The header line of ``--fields --header`` (None without ``--header``)."""
        return SEPARATOR.join(self.names) if self.header and self.names else None

    def row(self, f: Fields | None = None) -> str:
        """One tab-separated line of the ``--fields`` columns (tshark ``-T fields``) of
        ``f`` (default: the record ``match`` kept last)."""
        g = f if f is not None else self.last or Fields()
        return SEPARATOR.join(cell(g.values(n)) for n in self.names or ())

    def _see(self, f: Fields) -> None:
        self.records += 1
        if not self._pending:
            return
        if self.records <= SAMPLE:
            self._seen.update(f.names())
        for key in [k for k in self._pending if _has(f, k[1])]:
            del self._pending[key]

    def check(self) -> None:
        """Refuse (``QueryError``) the first name no record had, naming the close names."""
        if not self.records or not self._pending:
            return
        option, name = next(iter(self._pending))
        candidates = self._seen | (set(constants()) if name.isupper() else set())
        raise QueryError(unknown_field(name, candidates, option))


def _has(f: Fields, name: str) -> bool:
    base = name[:-len(MEANING)] if name.endswith(MEANING) else name
    return f.exists(name) or f.exists(base) or f.exists(plain(base))


class RowFilter:
    """``--where`` over Arrow tables of rows, after a format's own row filters (``base``:
    an object with ``apply(table) -> table``); rows that record a bad span (``_error``
    set) are always kept: bad input is never dropped silently."""

    ERROR = "_error"

    def __init__(self, base: Any, selection: Selection) -> None:
        self.base, self.selection = base, selection

    def __bool__(self) -> bool:
        return True

    def apply(self, table: Any) -> Any:
        import pyarrow as pa

        table = self.base.apply(table) if self.base else table
        if table.num_rows == 0:
            return table
        keep = [bool(row.get(self.ERROR)) or self.selection.match(row) is not None
                for row in table.to_pylist()]
        return table.filter(pa.array(keep, pa.bool_()))


class ColumnStream:
    """A binary stream that JSON lines are written to, passing on each row's ``--fields``
    columns instead (the header line first with ``--header``)."""

    def __init__(self, out: Any, selection: Selection) -> None:
        self.out, self.selection = out, selection
        self.pending = b""
        self.headed = False

    def write(self, data: bytes) -> int:
        import json

        lines = (self.pending + bytes(data)).split(b"\n")
        self.pending = lines.pop()
        for line in lines:
            if not line.strip():
                continue
            f = self.selection.match(json.loads(line))
            if f is None:
                continue
            heading = None if self.headed else self.selection.heading()
            self.headed = True
            text = self.selection.row(f) + "\n"
            self.out.write(((heading + "\n") if heading else "").encode("utf-8") +
                           text.encode("utf-8"))
        return len(data)

    def flush(self) -> None:
        if self.pending.strip():
            self.write(b"\n")
        self.out.flush()


# --------------------------------------------------------------------------- stats


@dataclass(frozen=True)
class Count:
    """How many records have one combination of values of the ``by`` fields."""

    key: tuple[str, ...]  # one cell per field ("" when missing)
    meanings: tuple[str, ...]  # the values' meanings, when the fields have them
    count: int

    def to_json(self, by: Sequence[str]) -> dict[str, Any]:
        d: dict[str, Any] = {}
        for name, value, meaning in zip(by, self.key, self.meanings, strict=True):
            d[name] = value if value else None
            if meaning:
                d[name + MEANING] = meaning
        d["count"] = self.count
        return d


def stats(records: Iterable[Any], by: Sequence[str]) -> list[Count]:
    """Counts by the values of ``by`` (a repeated field's values joined, as a column
    shows them), most frequent first, then by key."""
    if not by:
        raise QueryError("stats: give at least one field to count by (--by)")
    counts: Counter[tuple[str, ...]] = Counter()
    meaning: dict[tuple[str, ...], tuple[str, ...]] = {}
    for r in records:
        f = fields_of(r)
        key = tuple(cell(f.values(n)) for n in by)
        counts[key] += 1
        if key not in meaning:
            meaning[key] = tuple(cell(f.values(n + MEANING)) for n in by)
    return [Count(k, meaning[k], n) for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def stats_table(counts: Sequence[Count], by: Sequence[str]) -> list[list[str]]:
    """Rows for a table: a header row, then ``count`` and each field (``value meaning``)."""
    rows = [["count", *by]]
    for c in counts:
        rows.append([str(c.count), *(f"{v} {m}".strip() if m else (v or "(missing)")
                                     for v, m in zip(c.key, c.meanings, strict=True))])
    return rows


def known_names(records: Iterable[Any]) -> set[str]:
    """Every field name the records have (for ``Query.unknown`` and suggestions)."""
    out: set[str] = set()
    for r in records:
        out.update(fields_of(r).names())
    return out
