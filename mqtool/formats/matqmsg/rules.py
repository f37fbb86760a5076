"""The machine's MATQMSG template rules (IBM i, MATQMSG, "Message selection template"
and "Exceptions") in one place: the decoder reports what
they find as problems, the builder refuses the same things."""

from __future__ import annotations

from dataclasses import dataclass

from mqtool.formats.matqmsg.layout import (
    EXCEPTIONS,
    INFERRED_CODES,
    MAX_KEY_BYTES,
    MAX_TEXT_BYTES,
    RELATIONS,
    SELECTION,
    SELECTION_LEN,
    TYPE_SHIFT,
    TYPES,
)
from mqtool.model import Problem


@dataclass(frozen=True)
class Violation:
    """A template value the machine would refuse: exception code, its name, where, why."""

    code: str
    path: str
    offset: int
    reason: str

    @property
    def name(self) -> str:
        return EXCEPTIONS[self.code]

    def describe(self) -> str:
        inferred = " (code inferred)" if self.code in INFERRED_CODES else ""
        return f"{self.reason} — MI exception {self.code} {self.name}{inferred}"

    def problem(self, base: int = 0) -> Problem:
        return Problem(self.path, base + self.offset, self.describe())

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "name": self.name, "reason": self.reason}


def check_lengths(key_bytes: int, text_bytes: int) -> list[Violation]:
    """K and T: 0 or a multiple of 16; K <= 256, T <= 65,536 (FACT)."""
    out = []
    for name, value, most in (("key_bytes", key_bytes, MAX_KEY_BYTES),
                              ("text_bytes", text_bytes, MAX_TEXT_BYTES)):
        path, off = f"selection.{name}", SELECTION.offset_of(name)
        if value < 0:
            out.append(Violation("3801", path, off, f"{name} {value} is negative"))
        elif value % 16:
            out.append(Violation("3801", path, off, f"{name} {value} is not 0 or a multiple of 16"))
        if value > most:
            out.append(Violation("3801", path, off, f"{name} {value} exceeds the maximum {most:,}"))
    return out


def check_selection(selection: int, key_bytes: int, text_bytes: int, options: int,
                    reserved_01: bytes = b"", reserved_0b: bytes = b"", key: bytes | None = None,
                    queue_key_size: int | None = None) -> list[Violation]:
    """Every rule of "Message selection template" on a selection template's values. ``reserved_01`` and
    ``reserved_0b`` are the reserved fields' bytes; ``key`` the bytes after the fixed part
    (None or empty: no key); ``queue_key_size`` the queue's key size when known (0: not a
    keyed queue)."""
    at = SELECTION.offset_of
    out = []
    kind, rel = selection >> TYPE_SHIFT, selection & 0xF
    if kind not in TYPES:
        out.append(Violation("3801", "selection.selection_type", at("selection"),
                             f"selection type B'{kind:04b}' is reserved (all B'0001', first "
                             "B'0010', last B'0100', keyed B'1000')"))
    elif TYPES[kind] == "keyed":
        if rel not in RELATIONS:
            out.append(Violation("3801", "selection.key_relationship", at("selection"),
                                 f"key relationship B'{rel:04b}' is reserved (> B'0010', < B'0100', "
                                 "!= B'0110', = B'1000', >= B'1010', <= B'1100')"))
        if not key:
            out.append(Violation("3802", "selection.key", SELECTION_LEN,
                                 "keyed selection needs a key after offset 16, the template has none"))
        if queue_key_size == 0:
            out.append(Violation("3801", "selection.selection_type", at("selection"),
                                 "keyed selection on a queue that is not keyed (key size 0)"))
    if any(reserved_01):
        out.append(Violation("3801", "selection.reserved_01", at("reserved_01"),
                             f"reserved bits 8-15 are X'{reserved_01.hex().upper()}', must be zero"))
    out += check_lengths(key_bytes, text_bytes)
    if options & 0x7F:
        out.append(Violation("3801", "selection.options", at("options"),
                             f"reserved bits 1-7 of the materialize options are B'{options & 0x7F:07b}',"
                             " must be zero"))
    if any(reserved_0b):
        out.append(Violation("3801", "selection.reserved_0b", at("reserved_0b"),
                             f"reserved bytes 11-15 are X'{reserved_0b.hex().upper()}', must be zero"))
    return out


