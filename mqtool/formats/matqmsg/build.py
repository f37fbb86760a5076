"""Building MATQMSG selection templates (validated as the machine validates them) and
simulating what MATQMSG writes into a receiver (IBM i, MATQMSG, "Receiver template")."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from mqtool.compose import sized as compose
from mqtool.errors import BuildError, InputError
from mqtool.formats.matqmsg.decode import decode_selection
from mqtool.formats.matqmsg.layout import (
    FORMAT,
    HEADER_LEN,
    MESSAGES,
    MIN_PROVIDED,
    MODES,
    RECEIVER,
    RELATION_ALIASES,
    RELATION_CODES,
    SELECTION_LEN,
    TYPE_CODES,
    TYPE_SHIFT,
    MiTime,
    message_layout,
    resolve_codepage,
    selection_layout,
    to_bytes,
)
from mqtool.formats.matqmsg.rules import Violation, check_selection


class SelectionRefusedError(BuildError):
    """The builder refused a selection template: every violation, each explained."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = list(violations)
        first = self.violations[0]
        super().__init__(FORMAT, first.path.removeprefix("selection."),
                         "; ".join(v.describe() for v in self.violations))


def normalise_relation(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    v = value.strip().lower()
    v = RELATION_ALIASES.get(v, v)
    if v not in RELATION_CODES:
        raise BuildError(FORMAT, "key_relationship", f"{value!r} is not one of >, <, !=, =, >=, <= "
                                                     "(or gt, lt, ne, eq, ge, le)")
    return v


def build_selection(selection_type: str = "all", key_relationship: str | None = None,
                    key_bytes: int = 0, text_bytes: int = 0, mode: str = "blocked",
                    key: bytes | str | None = None, *, queue_key_size: int | None = None,
                    codepage: str | None = "cp037") -> bytes:
    """A message selection template, validated as the machine would ("Message selection template"); the key at
    offset 16, padded with zeros to ``queue_key_size`` and to a multiple of 16. Raises
    ``SelectionRefusedError`` listing every rule broken, ``BuildError`` for unusable values."""
    kind = (selection_type or "").strip().lower()
    if kind not in TYPE_CODES:
        raise BuildError(FORMAT, "selection_type", f"{selection_type!r} is not all, first, last "
                                                   "or keyed")
    relation = normalise_relation(key_relationship)
    if mode not in MODES:
        raise BuildError(FORMAT, "mode", f"{mode!r} is not blocked or concurrent")
    cp = resolve_codepage(codepage)
    try:
        keydata = to_bytes(key, cp) if key is not None else b""
    except ValueError as e:
        raise BuildError(FORMAT, "key", str(e)) from None
    refusals = []
    if kind == "keyed" and relation is None:
        refusals.append(Violation("3801", "selection.key_relationship", 0,
                                  "keyed selection needs a key relationship (>, <, !=, =, >=, <=)"))
    if kind != "keyed" and relation is not None:
        refusals.append(Violation("3801", "selection.key_relationship", 0,
                                  f"a key relationship only applies to keyed selection, not {kind}"))
    if kind != "keyed" and keydata:
        refusals.append(Violation("3801", "selection.key", SELECTION_LEN,
                                  f"a key only applies to keyed selection, not {kind}"))
    if queue_key_size is not None and len(keydata) > queue_key_size > 0:
        refusals.append(Violation("3801", "selection.key", SELECTION_LEN,
                                  f"the key has {len(keydata)} bytes, the queue's key size is "
                                  f"{queue_key_size}"))
    selection = (TYPE_CODES[kind] << TYPE_SHIFT) | (RELATION_CODES[relation] if relation else 0)
    refusals += [v for v in check_selection(selection, key_bytes, text_bytes, MODES[mode], b"", b"",
                                            keydata, queue_key_size)
                 if relation is not None or v.path != "selection.key_relationship"]
    if refusals:
        raise SelectionRefusedError(refusals)
    if queue_key_size and len(keydata) < queue_key_size:
        keydata += bytes(queue_key_size - len(keydata))
    pad = -(SELECTION_LEN + len(keydata)) % 16
    layout = selection_layout(len(keydata), pad, None)
    return layout.build({"selection": selection, "key_bytes": key_bytes, "text_bytes": text_bytes,
                         "options": MODES[mode], "key": keydata}, fmt=FORMAT)


def selection_request(text: str, source: str = "") -> dict[str, Any]:
    """Builder arguments from a request file: one JSON object (its first line: ``decode
    matqmsg --json`` output or an object of field names). ``InputError`` when it is not."""
    text = text.strip()
    line = text.splitlines()[0] if text else ""
    where = f"{source}: " if source else ""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}not JSON ({e.msg} at line 1 column {e.colno})") from None
    if not isinstance(obj, dict):
        raise InputError(f"{where}expected a JSON object")
    return selection_from_json(obj)


def selection_from_json(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Builder arguments from ``decode matqmsg --json`` output or a plain object of the
    mqtool's field names (``selection_type``, ``key_relationship``, ...). Values of the
    wrong type are refused (``BuildError`` naming the field)."""
    if not isinstance(obj, Mapping):
        raise BuildError(FORMAT, "", f"a template is described by a mapping of field names, not "
                                     f"{type(obj).__name__}")
    fields: Any = obj
    where = ""
    elements = obj.get("elements")
    if elements is not None and not isinstance(elements, list):
        raise BuildError(FORMAT, "elements", f"must be a list, not {type(elements).__name__}")
    for i, el in enumerate(elements or ()):
        if isinstance(el, Mapping) and el.get("type") == "SELECTION":
            fields, where = el.get("fields", {}), f"elements[{i}].fields."
            break
    if not isinstance(fields, Mapping):
        raise BuildError(FORMAT, where.rstrip("."), f"must be a mapping of field names, not "
                                                    f"{type(fields).__name__}")
    out: dict[str, Any] = {}
    for name in ("selection_type", "key_relationship", "key_bytes", "text_bytes", "mode", "key"):
        value = fields.get(name)
        if value in (None, ""):
            continue
        wanted = int if name in ("key_bytes", "text_bytes") else str
        if type(value) is not wanted:  # bool is no int here, 1.5 no length
            raise BuildError(FORMAT, where + name, f"must be {'an integer' if wanted is int else 'text'},"
                                                   f" not {type(value).__name__} {value!r}")
        out[name] = value
    key_hex = fields.get("key_hex")
    if key_hex:
        try:
            out["key"] = bytes.fromhex(str(key_hex)).rstrip(b"\x00")
        except ValueError:
            raise BuildError(FORMAT, where + "key_hex", f"{key_hex!r} is not hex") from None
    return out



@dataclass(frozen=True)
class Message:
    """A message on a simulated queue: enqueue time, key and text (bytes or text)."""

    time: Any
    text: bytes | str = b""
    key: bytes | str = b""


@dataclass(frozen=True)
class Queue:
    """Queue attributes and messages, oldest first (what MATQMSG materializes)."""

    max_message_size: int
    key_size: int = 0
    messages: Sequence[Message] = ()


def _compare(key: bytes, comparand: bytes, relation: str) -> bool:
    return {">": key > comparand, "<": key < comparand, "!=": key != comparand, "=": key == comparand,
            ">=": key >= comparand, "<=": key <= comparand}[relation]


def simulate_receiver(queue: Queue, selection: bytes, provided: int,
                      codepage: str | None = "cp037") -> bytes:
    """What MATQMSG writes into a receiver of ``provided`` bytes ("Receiver template": bytes provided and
    available): selection,
    zero padding of key and text, bytes available, truncation to the receiver. Returns the
    bytes written (``min(provided, bytes available)``); a receiver under 8 bytes raises."""
    if provided < MIN_PROVIDED:
        raise BuildError(FORMAT, "bytes_provided", f"{provided} is less than 8 — MI exception 3803 "
                                                   "materialization length invalid")
    sel = decode_selection(selection, queue_key_size=queue.key_size, codepage=None)
    if sel.problems or sel.errors:
        raise BuildError(FORMAT, "selection", "; ".join(p.reason for p in sel.problems + sel.errors))
    f = sel.elements[0].all_values
    kind, relation = f["selection_type"], f["key_relationship"]
    k, t = cast(int, f["key_bytes"]), cast(int, f["text_bytes"])  # binary fields
    cp = resolve_codepage(codepage)
    msgs = list(queue.messages)
    if kind == "first":
        chosen = [msgs[0]] if msgs else []
    elif kind == "last":
        chosen = msgs[-1:]
    elif kind == "keyed":
        comparand = cast(bytes, f["key"]).ljust(queue.key_size, b"\x00")[:queue.key_size]
        chosen = [m for m in msgs if _compare(to_bytes(m.key, cp).ljust(queue.key_size, b"\x00"),
                                              comparand, cast(str, relation))]  # keyed: a valid relation
    else:
        chosen = msgs
    header = {"bytes_provided": provided, "messages_on_queue": len(msgs),
              "max_message_size": queue.max_message_size, "key_size": queue.key_size}
    entries = []
    for m in chosen:
        text, key = to_bytes(m.text, cp), to_bytes(m.key, cp)
        entries.append({"enqueue_time": MiTime.coerce(m.time), "message_length": len(text),
                        "key": key[:k], "text": text[:t]})
    out = build_receiver(header, entries, k, t)
    return out[:min(provided, len(out))]


def build_receiver(header: Mapping[str, Any], messages: Sequence[Mapping[str, Any]], key_bytes: int,
                   text_bytes: int, codepage: str | None = None) -> bytes:
    """A whole receiver template (IBM i, MATQMSG, "Receiver template") as the composition
    ``RECEIVER_TEMPLATE`` declares it: the header, then one entry of 16 + K + T bytes per
    message (keys and text as bytes, or text in ``codepage``). ``messages_available`` is
    set from the entries (a given one that disagrees is refused), ``bytes_available``
    from the whole when not given."""
    values = dict(header)
    layout = message_layout(key_bytes, text_bytes, resolve_codepage(codepage))
    body = compose.build(MESSAGES, values, list(messages),
                         lambda m: layout.build(dict(m), fmt=FORMAT), FORMAT, "receiver")
    if values.get("bytes_available") is None:
        values["bytes_available"] = HEADER_LEN + len(body)
    return RECEIVER.build(values, fmt=FORMAT) + body


def build(request: Mapping[str, Any], **options: Any) -> bytes:
    """``api.build("matqmsg", {...})``: a selection template from mqtool's field names."""
    args = selection_from_json(request)
    return build_selection(**args, **options)


