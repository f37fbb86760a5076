"""PCF payloads (Format ``MQADMIN``, ``MQEVENT``, ``MQPCF``): the MQCFH, then ParameterCount
parameter structures (MQCFIN, MQCFST, MQCFIL, MQCFSL, MQCFBS, MQCFGR with its members, the
filters MQCFIF/MQCFSF/MQCFBF, MQCFIN64, MQCFIL64), each named by its MQIA_/MQCA_/... id.

Integers are in the payload's Encoding; strings in their own CodedCharSetId (0: the
message's). Declarations in ``layout`` (``MQCFH``, ``PCF_PARAMETERS``).

An integer parameter whose values IBM MQ names (cmqc.h, cmqcfc.h, cmqxc.h: ``MQRQ_*``
reason qualifiers, ``MQQT_*``, ``MQOT_*``, ``MQEVO_*``, ``MQCMD_*`` inside ``MQIACF_COMMAND``
...) shows the name beside the value; bit masks (open, get, put options) show the names of
their bits; attribute-selector lists (``MQIACF_Q_ATTRS`` ...) the parameter names they
select; a filter's operator its ``MQCFOP_*`` name (``value_meaning``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqtool.codepages import ccsid_codec
from mqtool.errors import DecodeError
from mqtool.formats.mq import layout as lay
from mqtool.formats.mq.pcf_names import PARAMETERS, family_meaning, value_meaning
from mqtool.model import HEX, INT, TEXT, Element, Problem, Span

__all__ = ["Pcf", "decode_pcf", "family_meaning", "value_meaning"]

FORMAT = lay.FORMAT
INT_SIZE, INT64_SIZE = 4, 8
MAX_DEPTH = 16  # nested MQCFGR groups followed before the walk refuses


@dataclass
class Pcf:
    """A decoded PCF payload: its elements (for listings) and its parameters as values."""

    elements: list[Element] = field(default_factory=list)
    parameters: list[dict[str, Any]] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        head = self.elements[0] if self.elements else None
        meanings = {s.name: s.meaning for s in head.spans if s.meaning} if head else {}
        return {"header": dict(head.fields) if head else {}, "meanings": meanings,
                "parameters": self.parameters}


class _Walker:
    def __init__(self, body: bytes, big: bool, codepage: str, ccsid: int) -> None:
        self.body, self.big, self.codepage, self.ccsid = body, big, codepage, ccsid
        self.out = Pcf()
        self.n = 0

    def _int(self, at: int, size: int = INT_SIZE) -> int:
        return int.from_bytes(self.body[at:at + size], "big" if self.big else "little",
                              signed=True)

    def params(self, pos: int, count: int, depth: int, into: list[Element]
               ) -> tuple[int, list[dict[str, Any]]] | None:
        """``count`` parameters from ``pos``, their elements appended to ``into`` (the
        top level, or the children of the MQCFGR that holds them)."""
        items: list[dict[str, Any]] = []
        for _ in range(count):
            got = self.param(pos, depth, into)
            if got is None:
                return None
            pos, item = got
            items.append(item)
        return pos, items

    def param(self, pos: int, depth: int, into: list[Element]) -> tuple[int, dict[str, Any]] | None:
        body, k = self.body, self.n
        self.n += 1
        head = lay.header_layout("MQCFIN", self.big, self.codepage)
        sl_at = pos + head.offset_of("struclength")
        if len(body) < sl_at + INT_SIZE:
            self.out.errors.append(Problem(f"pcf[{k}].type", pos, f"PCF parameter {k + 1} "
                                           f"truncated: {max(0, len(body) - pos)} bytes left"))
            return None
        type_, sl = self._int(pos), self._int(sl_at)
        if type_ not in lay.PCF_PARAMETERS:
            self.out.errors.append(Problem(f"pcf[{k}].type", pos, f"PCF structure type {type_} "
                                           "is not one mqtool knows"))
            return None
        name, _fields, rest = lay.PCF_PARAMETERS[type_]
        layout = lay.header_layout(name, self.big, self.codepage)
        try:
            el = layout.parse(body, pos, fmt=FORMAT, prefix=f"pcf[{k}]")
        except DecodeError as e:
            self.out.errors.append(Problem(e.path, e.offset, f"{name}: {e.reason}"))
            return None
        fixed = layout.size or 0
        if sl < fixed or pos + sl > len(body):
            where = "is less than its fixed part" if sl < fixed else "runs past the payload"
            self.out.errors.append(Problem(f"pcf[{k}].struclength", sl_at,
                                           f"{name} StrucLength {sl} {where} ({fixed} bytes, "
                                           f"{len(body) - pos} left)"))
            return None
        el.length = sl
        pid = el.value_as("parameter", int)
        el.title = f"{name} {PARAMETERS.get(pid, pid)} at offset X'{pos:04X}'"
        into.append(el)
        item: dict[str, Any] = {"parameter": pid, "name": PARAMETERS.get(pid, ""), "type": name}
        value = self.value(el, rest, pos + fixed, pos + sl, k)
        if rest == "group":
            # IBM MQ, "MQCFGR - PCF group parameter": its ParameterCount parameters follow
            # it; they are its children, and the group spans them
            got = self.params(pos + sl, el.value_as("parametercount", int), depth + 1,
                              el.children) if depth < MAX_DEPTH else None
            if got is None:
                if depth >= MAX_DEPTH:
                    self.out.errors.append(Problem(f"pcf[{k}]", pos, "PCF groups nested deeper "
                                                   f"than {MAX_DEPTH}"))
                return None
            end, members = got
            el.length = end - pos
            item["parameters"] = members
            return end, item
        if "operator" in layout.names:
            item["operator"] = el.value("operator")
            item["value"] = el.value("filtervalue") if value is None else value
        else:
            item["value"] = value
        _name_values(el, item, pid)
        return pos + sl, item

    def value(self, el: Element, rest: str, start: int, end: int, k: int) -> Any:
        body = self.body
        if rest == "":
            return el.value("value")
        if rest in ("string", "bytes"):
            length = el.value("stringlength", el.value("filtervaluelength"))
            n = length if isinstance(length, int) else 0
            if n < 0 or start + n > end:
                self.out.errors.append(Problem(f"pcf[{k}].stringlength", start, f"string of {n} "
                                               f"bytes does not fit StrucLength ({end - start} "
                                               "left)"))
                return None
            raw = bytes(body[start:start + n])
            if rest == "bytes":
                el.spans.append(Span(f"pcf[{k}].string", start, start + n, raw, "", HEX, "", raw))
                return raw.hex().upper()
            text = self.text(raw, el, start, k)
            el.spans.append(Span(f"pcf[{k}].string", start, start + n, text, "", TEXT, "", raw))
            return text
        if rest in ("ints", "int64s"):
            size = INT_SIZE if rest == "ints" else INT64_SIZE
            count = el.value_as("count", int)
            if count < 0 or start + count * size > end:
                self.out.errors.append(Problem(f"pcf[{k}].count", start, f"{count} values do not "
                                               f"fit StrucLength ({end - start} bytes left)"))
                return None
            values = [self._int(start + j * size, size) for j in range(count)]
            for j, v in enumerate(values):
                a = start + j * size
                el.spans.append(Span(f"pcf[{k}].values[{j}]", a, a + size, v, "", INT, "",
                                     bytes(body[a:a + size])))
            return values
        if rest == "strings":
            count, n = el.value_as("count", int), el.value_as("stringlength", int)
            if count < 0 or n < 0 or start + count * n > end:
                self.out.errors.append(Problem(f"pcf[{k}].count", start, f"{count} strings of {n} "
                                               f"bytes do not fit StrucLength ({end - start} "
                                               "bytes left)"))
                return None
            out = []
            for j in range(count):
                a = start + j * n
                raw = bytes(body[a:a + n])
                text = self.text(raw, el, a, k)
                el.spans.append(Span(f"pcf[{k}].strings[{j}]", a, a + n, text, "", TEXT, "", raw))
                out.append(text)
            return out
        return None

    def text(self, raw: bytes, el: Element, at: int, k: int) -> str:
        cc = el.value_as("codedcharsetid", int) or self.ccsid
        codec = ccsid_codec(cc, self.big) or self.codepage
        try:
            return raw.decode(codec).rstrip(" \x00")
        except (UnicodeDecodeError, LookupError):
            self.out.problems.append(Problem(f"pcf[{k}].string", at, f"string is not {codec} "
                                             f"(CCSID {cc}); shown in {self.codepage}"))
            return raw.decode(self.codepage, errors="replace").rstrip(" \x00")


def _name_values(el: Element, item: dict[str, Any], pid: int) -> None:
    """Put the names of integer values beside them: in the spans' meanings and as
    ``meaning`` / ``meanings`` / ``operator_meaning`` in the parameter's JSON."""
    for k, s in enumerate(el.spans):
        name = s.name
        if name == "operator":
            meaning = family_meaning("MQCFOP", s.value)
            item["operator_meaning"] = meaning
        elif name in ("value", "filtervalue") or name.startswith("values["):
            meaning = value_meaning(pid, s.value) if isinstance(s.value, int) else ""
        else:
            continue
        if meaning:
            el.spans[k] = s._replace(meaning=meaning)
    value = item.get("value")
    if isinstance(value, list):
        names = [value_meaning(pid, v) for v in value]
        if any(names):
            item["meanings"] = names
    elif isinstance(value, int) and item.get("type") != "MQCFBS":
        meaning = value_meaning(pid, value)
        if meaning:
            item["meaning"] = meaning


def decode_pcf(body: bytes, pos: int, big: bool, codepage: str, ccsid: int) -> Pcf:
    """The PCF message at ``pos``; never raises (``errors`` / ``problems`` say what is wrong)."""
    w = _Walker(body, big, codepage, ccsid)
    layout = lay.header_layout("MQCFH", big, codepage)
    try:
        cfh = layout.parse(body, pos, fmt=FORMAT, prefix="pcf.mqcfh")
    except DecodeError as e:
        if isinstance(e.partial, Element):
            w.out.elements.append(e.partial)
        w.out.errors.append(Problem(e.path, e.offset, f"MQCFH: {e.reason}"))
        return w.out
    cfh.title = f"MQCFH (PCF header) at offset X'{pos:04X}'"
    w.out.elements.append(cfh)
    if cfh.value("struclength") != layout.size:
        w.out.problems.append(Problem("pcf.mqcfh.struclength", pos + layout.offset_of(
            "struclength"), f"MQCFH StrucLength {cfh.value('struclength')} is not {layout.size}"))
    got = w.params(pos + (layout.size or 0), cfh.value_as("parametercount", int), 0,
                   w.out.elements)
    if got is not None:
        end, w.out.parameters = got
        if end < len(body):
            w.out.problems.append(Problem("pcf", end, f"{len(body) - end} bytes after the last "
                                                      "PCF parameter"))
    return w.out
