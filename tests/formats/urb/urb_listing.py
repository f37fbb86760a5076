"""Parsers for the seed's "which can be interpreted as" listings and for mqtool's listing,
so tests compare the two field by field."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mqtool.io.undump import undump

SEED_HEADING = re.compile(r"(URB[A-Z]) element at offset X'([0-9A-F]{4})'")
SEED_FIELD = re.compile(r"\b(u[a-z0-9]+) = ")
DATE_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}|\d\d:\d\d:\d\d\.\d{6})\s*(.*)$")
NUMBER = re.compile(r"^(-?\d+)\s*(.*)$")
DUMP_START = re.compile(r"^0000 [0-9A-F]{2,8}\b")


@dataclass
class SeedField:
    name: str
    kind: str  # text, hex, time, number, empty, fields (GREEN,...), dump
    value: str
    meaning: str = ""
    data: bytes = b""


@dataclass
class SeedElement:
    type: str
    offset: int
    fields: list[SeedField] = field(default_factory=list)


def parse_seed_listing(text: str) -> list[SeedElement]:
    """The seed's listing (one long line, as extracted) -> elements and fields."""
    out: list[SeedElement] = []
    parts = SEED_HEADING.split(" ".join(text.split()))
    for etype, off, body in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
        el = SeedElement(etype, int(off, 16))
        marks = list(SEED_FIELD.finditer(body))
        for m, nxt in zip(marks, [*marks[1:], None], strict=True):
            raw = body[m.end():nxt.start() if nxt else len(body)].strip()
            el.fields.append(_seed_value(m.group(1), raw))
        out.append(el)
    return out


def _seed_value(name: str, raw: str) -> SeedField:
    if raw.startswith('"'):
        end = raw.index('"', 1)
        rest = raw[end + 1:].strip()
        if rest.startswith(","):  # "GREEN","2004052518354610": the image split into fields
            return SeedField(name, "fields", raw, "", b"")
        return SeedField(name, "text", raw[1:end], rest)
    if raw.startswith("X'"):
        end = raw.index("'", 2)
        return SeedField(name, "hex", raw[:end + 1], raw[end + 1:].strip())
    if DUMP_START.match(raw):
        return SeedField(name, "dump", raw, "", undump(raw))
    if m := DATE_TIME.match(raw):
        return SeedField(name, "time", m.group(1), m.group(2))
    if m := NUMBER.match(raw):
        return SeedField(name, "number", m.group(1), m.group(2))
    assert raw == "", f"{name}: cannot read the seed's value {raw!r}"
    return SeedField(name, "empty", "")


@dataclass
class Line:
    value: str
    meaning: str
    data: bytes | None = None


def parse_listing(text: str) -> dict[int, tuple[str, dict[str, Line]]]:
    """mqtool's listing -> {element offset: (heading, {field: Line})}; data sub-dumps are
    read back into bytes under their label (``urbddata``)."""
    out: dict[int, tuple[str, dict[str, Line]]] = {}
    current: dict[str, Line] = {}
    dump_name, dump_lines = None, []

    def flush() -> None:
        nonlocal dump_name, dump_lines
        if dump_name:
            current[dump_name] = Line("", "", undump("\n".join(dump_lines)))
        dump_name, dump_lines = None, []

    for line in text.splitlines():
        if m := re.match(r"^(\S.*) at offset X'([0-9A-F]{4})'", line):
            flush()
            current = {}
            out[int(m.group(2), 16)] = (m.group(1), current)
        elif m := re.match(r"^  (\w+) \((\d+) bytes\):$", line):
            flush()
            dump_name = m.group(1)
        elif line.startswith("    ") and dump_name:
            dump_lines.append(line.strip())
        elif m := re.match(r"^  (\w+)\s*= ?(.*)$", line):
            flush()
            current[m.group(1)] = _our_value(m.group(2))
    flush()
    return out


def _our_value(rest: str) -> Line:
    if rest.startswith('"'):
        out, i = [], 1
        while rest[i] != '"':
            if rest[i] == "\\":
                i += 1
            out.append(rest[i])
            i += 1
        return Line("".join(out), rest[i + 1:].strip())
    if rest.startswith("X'"):
        end = rest.index("'", 2)
        return Line(rest[:end + 1], rest[end + 1:].strip())
    if m := re.match(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}) \S+\s*(.*)$", rest):
        return Line(m.group(1), m.group(2))
    value, _, meaning = rest.partition("  ")
    return Line(value.strip(), meaning.strip())
