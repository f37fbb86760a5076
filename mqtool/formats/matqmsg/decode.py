"""Decoding MATQMSG templates: the selection template with its key, the receiver with its
message entries (IBM i, MATQMSG, "Receiver template" and "Message selection template"), and
the bulk path over message entries."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from mqtool.compose.sized import count_of, end_of, items
from mqtool.errors import DecodeError, InputError
from mqtool.formats.matqmsg.layout import (
    ATTR_LEN,
    FORMAT,
    HEADER_LEN,
    MAX_KEY_BYTES,
    MESSAGES,
    MIN_PROVIDED,
    PARTS,
    RECEIVER,
    RELATION_WORDS,
    RELATIONS,
    SELECTION,
    SELECTION_LEN,
    TIME_ZONE_NOTE,
    TYPE_SHIFT,
    TYPE_WORDS,
    TYPES,
    codepage_attrs,
    field_slice,
    field_value,
    has_field,
    message_layout,
    resolve_codepage,
    selection_layout,
)
from mqtool.formats.matqmsg.rules import check_lengths, check_selection
from mqtool.layout import Layout
from mqtool.model import HEX, INT, TEXT, Decoded, Element, Problem, Span, fields_json


def _derived(path: str, start: int, value: object, meaning: str, raw: bytes) -> Span:
    return Span(path, start, start + 1, value, meaning, INT, "", raw)


def _keep_partial(unit: Decoded, err: DecodeError, title: str) -> None:
    """Keep what a truncated template decoded, labelled partial."""
    if isinstance(err.partial, Element) and err.partial.spans:
        err.partial.title = title
        err.partial.length = err.partial.spans[-1].end - err.partial.offset
        unit.elements.append(err.partial)


def decode_selection(data: bytes, offset: int = 0, *, queue_key_size: int | None = None,
                     codepage: str | None = "cp037") -> Decoded:
    """The selection template at ``offset`` (to the end of ``data``) with its key:
    ``queue_key_size`` bytes when known, else every byte after offset 16."""
    n = len(data) - offset
    cp = resolve_codepage(codepage)
    unit = Decoded(FORMAT, offset, n, attrs={"part": "selection", **codepage_attrs(cp)})
    rest = max(n - SELECTION_LEN, 0)
    key_len = rest if not queue_key_size or queue_key_size < 0 else min(queue_key_size, rest)
    layout = selection_layout(key_len, rest - key_len, cp)
    try:
        el = layout.parse(data, offset, prefix="selection", fmt=FORMAT)
    except DecodeError as e:
        _keep_partial(unit, e, f"MATQMSG message selection template at X'{offset:04X}' (partial)")
        unit.errors.append(Problem(e.path, e.offset, e.reason + " (the template is at least 16 bytes)"))
        return unit
    el.title = f"MATQMSG message selection template at offset X'{offset:04X}'"
    unit.elements.append(el)
    f = el.all_values
    sel, opts = cast(int, f["selection"]), cast(int, f["options"])  # binary fields
    kind, rel = TYPES.get(sel >> TYPE_SHIFT), sel & 0xF
    raw0 = data[field_slice(SELECTION, "selection", offset)]
    raw_opts = data[field_slice(SELECTION, "options", offset)]
    type_span = _derived("selection.selection_type", offset, kind,
                         TYPE_WORDS.get(kind or "", f"reserved value B'{sel >> TYPE_SHIFT:04b}'"), raw0)
    if kind == "keyed":
        relation = RELATIONS.get(rel)
        rel_meaning = RELATION_WORDS.get(relation or "", f"reserved value B'{rel:04b}'")
    else:
        relation = None
        rel_meaning = (f"not used by selection type {kind or 'reserved'}" if rel == 0 else
                       f"B'{rel:04b}' ignored: only keyed selection uses it")
    rel_span = _derived("selection.key_relationship", offset, relation, rel_meaning, raw0)
    mode = "concurrent" if opts & 0x80 else "blocked"
    mode_span = _derived("selection.mode", offset + SELECTION.offset_of("options"), mode,
                         "ENQ/DEQ allowed during the materialize" if mode == "concurrent" else
                         "other queue activity blocked", raw_opts)
    spans = []
    for s in el.spans:
        spans.append(s)
        if s.name == "selection":
            spans += [type_span, rel_span]
        elif s.name == "options":
            spans.append(mode_span)
    el.spans = spans
    key = bytes(data[offset + SELECTION_LEN:offset + SELECTION_LEN + key_len])
    reserved_01 = bytes(data[field_slice(SELECTION, "reserved_01", offset)])
    reserved_0b = bytes(data[field_slice(SELECTION, "reserved_0b", offset)])
    for v in check_selection(sel, cast(int, f["key_bytes"]), cast(int, f["text_bytes"]), opts, reserved_01,
                             reserved_0b, key, queue_key_size):
        unit.problems.append(v.problem(offset))
    if rest - key_len and any(data[offset + SELECTION_LEN + key_len:offset + n]):
        unit.problems.append(Problem("selection.padding", offset + SELECTION_LEN + key_len,
                                     "bytes after the key (queue key size "
                                     f"{queue_key_size}) are not zero"))
    if queue_key_size is not None and queue_key_size > rest and kind == "keyed":
        unit.errors.append(Problem("selection.key", offset + n,
                                   f"input ends inside the key: the key has {rest} bytes, the "
                                   f"queue's key size is {queue_key_size}"))
    return unit


def selection_lengths(data: bytes, offset: int = 0) -> tuple[int, int]:
    """(key_bytes, text_bytes) of a selection template (what a receiver decode needs)."""
    if len(data) - offset < SELECTION_LEN:
        raise InputError(f"a selection template has at least 16 bytes, this one {len(data) - offset}")
    v = selection_layout(0, 0, None).values(data, offset)
    return int(v["key_bytes"]), int(v["text_bytes"])



def _partial_tail(el: Element, layout: Layout, data: bytes, off: int, limit: int,
                  prefix: str) -> None:
    """After a cut entry: the bytes of the field the cut fell into, as a hex span."""
    done = el.spans[-1].end if el.spans else off
    if done >= limit:
        return
    nxt = layout.fields[len(el.spans)].name if len(el.spans) < len(layout.fields) else "data"
    raw = bytes(data[done:limit])
    el.spans.append(Span(f"{prefix}.{nxt}", done, limit, raw, f"first {len(raw)} byte(s) only",
                         HEX, "partial", raw))


def _lengths(header: Mapping[str, Any], key_bytes: int | None, text_bytes: int | None,
             selection: bytes | None) -> tuple[int, int, str] | str:
    """K, T and where they came from; or why they cannot be known."""
    if key_bytes is not None or text_bytes is not None:
        return key_bytes or 0, text_bytes or 0, "options"
    if selection is not None:
        k, t = selection_lengths(selection)
        return k, t, "selection template"
    n, avail, ksize = header["messages_available"], header["bytes_available"], header["key_size"]
    if n <= 0:
        return 0, 0, "no messages available"
    size, rem = divmod(avail - HEADER_LEN, n)
    if rem or size < ATTR_LEN or size % 16:
        return (f"bytes_available {avail} is not 32 + {n} × (16 + K + T) for multiples of 16: "
                "give --key-bytes/--text-bytes or --selection")
    if size == ATTR_LEN or ksize == 0:
        return 0, size - ATTR_LEN, "inferred from bytes_available"
    k = min(-(-ksize // 16) * 16, MAX_KEY_BYTES)
    if k > size - ATTR_LEN:
        return "the entry size leaves no room for the key: give --key-bytes/--text-bytes"
    return k, size - ATTR_LEN - k, "inferred from bytes_available (key_bytes = key size rounded up to 16)"


def decode_receiver(data: bytes, offset: int = 0, *, key_bytes: int | None = None,
                    text_bytes: int | None = None, selection: bytes | None = None,
                    codepage: str | None = "cp037") -> Decoded:
    """The receiver template at ``offset`` with its message entries (IBM i, MATQMSG,
    "Materialization template")."""
    cp = resolve_codepage(codepage)
    n = len(data) - offset
    unit = Decoded(FORMAT, offset, n, attrs={"part": "receiver", **codepage_attrs(cp),
                                             "time_zone": TIME_ZONE_NOTE})
    try:
        head = RECEIVER.parse(data, offset, prefix="receiver", fmt=FORMAT)
    except DecodeError as e:
        _head_cut(unit, data, offset, e)
        return unit
    head.title = f"MATQMSG receiver at offset X'{offset:04X}'"
    unit.elements.append(head)
    h = head.fields
    provided, avail, count = (cast(int, h[name]) for name in  # binary fields
                              ("bytes_provided", "bytes_available", "messages_available"))
    if provided < MIN_PROVIDED:
        unit.problems.append(_provided_violation(provided, offset))
        return unit
    _header_checks(unit, h, offset)
    got = _lengths(h, key_bytes, text_bytes, selection)
    if isinstance(got, str):
        unit.errors.append(Problem("receiver.messages", offset + HEADER_LEN, got))
        return unit
    k, t, source = got
    for v in check_lengths(k, t):
        unit.problems.append(Problem(v.path, offset + v.offset, f"{source}: {v.describe()}"))
    if k < 0 or t < 0:
        unit.errors.append(Problem("receiver.messages", offset + HEADER_LEN,
                                   "negative key/text lengths: cannot locate message entries"))
        return unit
    unit.attrs.update(key_bytes=k, text_bytes=t, lengths_from=source)
    head.title += f" (key_bytes {k}, text_bytes {t}: {source})"
    entry = ATTR_LEN + k + t
    if count > 0 and avail != HEADER_LEN + count * entry:
        unit.problems.append(Problem("receiver.bytes_available", offset + _AVAILABLE_AT,
                                     f"bytes_available {avail} is not {HEADER_LEN} + {count} × "
                                     f"{entry} = {HEADER_LEN + count * entry}"))
    written = min(provided, max(avail, HEADER_LEN))
    complete, partial = _entries(unit, head, data, offset, written, message_layout(k, t, cp), t)
    _receiver_end(unit, data, offset, h, written, complete, partial)
    return unit


_AVAILABLE_AT = RECEIVER.offset_of("bytes_available")


def _head_cut(unit: Decoded, data: bytes, offset: int, e: DecodeError) -> None:
    """A receiver shorter than its header: what is there, and why it is short."""
    n = len(data) - offset
    _keep_partial(unit, e, f"MATQMSG receiver at offset X'{offset:04X}' (partial)")
    provided = (field_value(data, RECEIVER, "bytes_provided", offset)
                if has_field(data, RECEIVER, "bytes_provided", offset) else None)
    avail = (field_value(data, RECEIVER, "bytes_available", offset)
             if has_field(data, RECEIVER, "bytes_available", offset) else None)
    if provided is not None and provided < MIN_PROVIDED:
        unit.problems.append(_provided_violation(provided, offset))
    elif avail is not None and provided is not None and n >= min(provided, avail):
        unit.problems.append(Problem("receiver", offset + n, f"receiver too small: "
                                     f"bytes_provided {provided}, the {HEADER_LEN}-byte header "
                                     f"is cut after {n} bytes"))
    else:
        unit.errors.append(Problem(e.path, e.offset, e.reason))


def _entries(unit: Decoded, head: Element, data: bytes, offset: int, written: int, layout: Layout,
             t: int) -> tuple[int, bool]:
    """The message entries the receiver holds (the composition ``RECEIVER_TEMPLATE``), nested
    in the receiver: how many whole, and whether one is cut (IBM i, MATQMSG, "Receiver
    template": the last entry may be partial when the receiver ends inside it)."""
    h = head.fields
    end = offset + min(written, len(data) - offset)
    first = head.end
    size = layout.size or 0
    count = count_of(MESSAGES, h) or 0
    present = min(max(count, 0), max(-(-(end - first) // size), 0))  # entries starting before the end
    messages: list[dict[str, Any]] = []
    unit.attrs["messages"] = messages
    try:
        for el in items(MESSAGES, layout, data, first, end, count=present, fmt=FORMAT, first=1):
            _message_checks(unit, el, h, t, data)
            head.children.append(el)
            messages.append(_message_json(el))
    except DecodeError as e:
        return _cut_entry(unit, head, e, layout, data, offset, written, end, messages)
    finally:
        head.length = end_of(head.children, first) - head.offset
    return len(messages), False


def _cut_entry(unit: Decoded, head: Element, e: DecodeError, layout: Layout, data: bytes, offset: int,
               written: int, end: int, messages: list[dict[str, Any]]) -> tuple[int, bool]:
    """The entry the receiver (or the input) ends inside: its fields that are there."""
    i = len(messages)
    start = head.end + i * (layout.size or 0) if not head.children else head.children[-1].end
    prefix = f"{MESSAGES.name}[{i + 1}]"
    title = MESSAGES.title.format(index=i + 1, offset=start)
    el = e.partial if isinstance(e.partial, Element) else Element(str(MESSAGES.item), start, 0)
    el.offset = start
    _partial_tail(el, layout, data, start, end, prefix)
    el.length = end - start
    head.children.append(el)
    if end < offset + written and end == len(data):  # the input stops early
        el.title = title + " (partial: input ends)"
        unit.errors.append(Problem(e.path, e.offset, f"input ends inside message {i + 1}: {e.reason}"))
        return i, False
    el.title = title + " (partial: truncated-entry, the receiver ends inside it)"
    el.extra["flags"] = ["truncated-entry"]
    messages.append(_message_json(el))
    return i, True


def _receiver_end(unit: Decoded, data: bytes, offset: int, h: Mapping[str, Any], written: int,
                  complete: int, partial: bool) -> None:
    """Counts, a receiver too small for what is available, the bytes MATQMSG left alone."""
    n = len(data) - offset
    provided, avail, count = h["bytes_provided"], h["bytes_available"], h["messages_available"]
    if not unit.errors and len(data) < offset + written and complete + partial < count:
        unit.errors.append(Problem("receiver.messages", len(data),
                                   f"input ends after {len(data) - offset} bytes; the receiver "
                                   f"holds {written}"))
    unit.attrs["messages_present"] = complete
    cut = max(count, 0) - complete
    unit.attrs["messages_cut"] = cut
    if avail > provided:
        unit.attrs["receiver_too_small"] = True
        unit.problems.append(Problem("receiver.bytes_available", offset + _AVAILABLE_AT,
                                     f"receiver too small: bytes_available {avail} > bytes_provided "
                                     f"{provided}; {cut} of {count} message(s) cut"
                                     + (f" (message {complete + 1} partial)" if partial else "")))
    if n > written:
        tail = Element("UNCHANGED", offset + written, n - written,
                       title=f"bytes X'{written:04X}'-X'{n - 1:04X}' of the input: not written by "
                             "MATQMSG (left unchanged)",
                       data=bytes(data[offset + written:]), data_offset=offset + written)
        unit.elements.append(tail)
        unit.attrs["unchanged_bytes"] = n - written


def _provided_violation(provided: int, offset: int) -> Problem:
    return Problem("receiver.bytes_provided", offset,
                   f"bytes_provided {provided} is less than 8 — MI exception 3803 materialization "
                   "length invalid; nothing was materialized")


def _header_checks(unit: Decoded, h: Mapping[str, Any], offset: int) -> None:
    for name in ("bytes_available", "messages_available", "messages_on_queue",
                 "max_message_size", "key_size"):
        if h[name] < 0:
            unit.problems.append(Problem(f"receiver.{name}", offset + RECEIVER.offset_of(name),
                                         f"{name} {h[name]} is negative"))
    if h["bytes_available"] < HEADER_LEN:
        unit.problems.append(Problem("receiver.bytes_available", offset + _AVAILABLE_AT,
                                     f"bytes_available {h['bytes_available']} is less than the "
                                     f"{HEADER_LEN}-byte header"))
    if h["messages_available"] > h["messages_on_queue"]:
        unit.problems.append(Problem("receiver.messages_available",
                                     offset + RECEIVER.offset_of("messages_available"),
                                     f"messages_available {h['messages_available']} > "
                                     f"messages_on_queue {h['messages_on_queue']}"))


def _message_checks(unit: Decoded, el: Element, h: Mapping[str, Any], t: int, data: bytes) -> None:
    _time, s, _reserved, key, text = el.spans  # the MESSAGE declaration's order
    length = cast(int, s.value)  # message_length: a binary field
    flags = []
    if length < 0:
        unit.problems.append(Problem(s.path, s.start, f"message_length {length} is negative"))
    elif length > t:
        flags.append("truncated-text")
        el.spans[el.spans.index(s)] = s._replace(
            meaning=f"truncated-text: {length} bytes, text_bytes {t} materialized")
    if length > h["max_message_size"] >= 0:
        unit.problems.append(Problem(s.path, s.start, f"message_length {length} exceeds "
                                                      f"max_message_size {h['max_message_size']}"))
    ksize = max(h["key_size"], 0)
    if any(key.raw[ksize:]):
        why = "the queue is not keyed" if ksize == 0 else f"key size {ksize}"
        unit.problems.append(Problem(key.path, key.start + ksize,
                                     f"key bytes beyond the key are not zero ({why})"))
    if 0 <= length < t and any(text.raw[length:]):
        unit.problems.append(Problem(text.path, text.start + length,
                                     "text bytes beyond message_length are not zero"))
    if flags:
        el.extra["flags"] = flags


def _message_json(el: Element) -> dict[str, object]:
    d: dict[str, object] = {"offset": el.offset}
    d.update(fields_json(el.spans))
    for s in el.spans:
        if s.name in ("key", "text") and s.kind == TEXT:
            d[f"{s.name}_hex"] = s.raw.hex().upper()
    if "flags" in el.extra:
        d["flags"] = el.extra["flags"]
    return d


def iter_messages(data: bytes, key_bytes: int, text_bytes: int,
                  codepage: str | None = "cp037") -> Iterator[dict[str, Any]]:
    """Bulk path: the complete message entries of a receiver as dicts (``offset`` added),
    no spans or checks — from the same composition as ``decode_receiver``
    (``RECEIVER_TEMPLATE``: the header, then ``messages_available`` entries of one size)."""
    head = RECEIVER.values(data) if len(data) >= HEADER_LEN else None
    if head is None:
        raise DecodeError(FORMAT, "receiver", 0, f"receiver truncated: {len(data)} bytes, the "
                                                 "header has 32")
    layout = message_layout(key_bytes, text_bytes, resolve_codepage(codepage))
    size = layout.size or 0
    end = min(len(data), max(head["bytes_provided"], 0), max(head["bytes_available"], 0))
    values = layout.values
    for i in range(max(count_of(MESSAGES, head) or 0, 0)):
        off = HEADER_LEN + i * size
        if off + size > end:
            return
        v = values(data, off)
        v["offset"] = off
        yield v


def guess_part(data: bytes, offset: int = 0) -> str:
    """``selection`` when byte 0 holds a valid selection type, else ``receiver``."""
    b0 = data[offset] if len(data) > offset else 0
    if b0 >> TYPE_SHIFT in TYPES and len(data) - offset <= SELECTION_LEN + MAX_KEY_BYTES + 15:
        return "selection"
    if b0 == 0 and len(data) - offset >= MIN_PROVIDED:
        return "receiver"
    return "selection" if len(data) - offset < HEADER_LEN else "receiver"


def decode(data: bytes, *, part: str = "auto", key_bytes: int | None = None,
           text_bytes: int | None = None, selection: bytes | None = None,
           key_size: int | None = None, codepage: str | None = "cp037") -> Iterator[Decoded]:
    """One MATQMSG template: the receiver (``key_bytes``/``text_bytes`` or the ``selection``
    template give the entry layout) or the selection template (``key_size``: the queue's)."""
    if part not in (*PARTS, "auto"):
        raise InputError(f"unknown part {part!r}; one of: receiver, selection, auto")
    if not data:
        raise DecodeError(FORMAT, part, 0, "no bytes to decode")
    kind = guess_part(data) if part == "auto" else part
    if kind == "selection":
        yield decode_selection(data, queue_key_size=key_size, codepage=codepage)
    else:
        yield decode_receiver(data, key_bytes=key_bytes, text_bytes=text_bytes, selection=selection,
                              codepage=codepage)


