"""A decoded unit in one line, as Wireshark's Info column says what a packet is: the fields
its codec names (``Codec.info``) — a queue, a verb, a request type, a time, a reason —
each as a reader wants it, or else the chain of its element types."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import tzinfo

from mqtool.codec import ELEMENTS
from mqtool.model import EYE, RESERVED, STCK, TEXT, Decoded, Span
from mqtool.render.listing import render_value
from mqtool.tod import Tod

CODE = 2  # a text value this short is a code (C, R, A): its meaning says more
_CONTROL = {c: f"\\x{c:02X}" for c in (*range(0x20), *range(0x7F, 0xA0))}


def element_chain(unit: Decoded) -> str:
    """The unit's top-level element types in order of first appearance, repeats counted:
    ``URBH URBT URBR×3 URBD×3 URBE``."""
    counts = Counter(el.type for el in unit.elements)
    return " ".join(t if n == 1 else f"{t}×{n}" for t, n in counts.items())


def value_text(span: Span, tz: tzinfo | None = None) -> str:
    """One field as the Info column shows it: text without quotes (control characters
    escaped), a code by its meaning, a time in ``tz``, a number by its meaning or as
    ``name=value``; '' for what says nothing (blank text, no time, reserved bytes)."""
    v = span.value
    if span.kind == RESERVED or v is None:
        return ""
    if span.kind in (TEXT, EYE):
        text = str(v).translate(_CONTROL).strip()
        if not text or (span.raw and not any(span.raw)):
            return ""
        return span.meaning if span.meaning and len(text) <= CODE else text
    if span.kind == STCK:
        return v.render(tz) if isinstance(v, Tod) else str(v)
    return span.meaning or f"{span.name}={render_value(span, tz)}"


def info_line(unit: Decoded, fields: Iterable[str] = (), tz: tzinfo | None = None) -> str:
    """``unit`` in one line: each of ``fields`` it has (its first occurrence; ``ELEMENTS``
    the element chain) that says something, joined by ``, ``; without any, the element
    chain, else the unit's title."""
    first: dict[str, Span] = {}
    for s in unit.spans():
        first.setdefault(s.name, s)
    parts = []
    for name in fields:
        text = element_chain(unit) if name == ELEMENTS else (
            value_text(first[name], tz) if name in first else "")
        if text:
            parts.append(text)
    return ", ".join(parts) or element_chain(unit) or unit.title
