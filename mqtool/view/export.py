"""Exporting a selection: its bytes as dump text (``mqtool dump -r`` reads them back), or
its subtree as JSON (the fields' JSON forms, as ``--json`` writes them)."""

from __future__ import annotations

import json
import re

from mqtool.model import Decoded, element_json, fields_json, json_value
from mqtool.render.hexdump import DumpOptions, dump_bytes
from mqtool.view.fields import DATA, ELEMENT, FIELD, UNIT, Node, spans_in


def selection_bytes(node: Node, data: bytes, origin: int) -> bytes:
    lo, hi = max(node.start - origin, 0), max(min(node.end - origin, len(data)), 0)
    return data[lo:hi]


def as_dump(node: Node, data: bytes, origin: int, codepage: str = "cp037") -> str:
    """The node's bytes in the documents' style, offsets as in the unit (absolute)."""
    chunk = selection_bytes(node, data, origin)
    return dump_bytes(chunk, DumpOptions(codepage=codepage, base=max(node.start, origin)))


def as_json(node: Node, unit: Decoded, data: bytes, origin: int) -> dict[str, object]:
    """The node as JSON: the whole unit, an element, a group of fields, one field, or data."""
    if node.kind == UNIT:
        return unit.to_json()
    if node.kind == ELEMENT and node.element is not None:
        return element_json(node.element)
    out: dict[str, object] = {"path": node.path, "offset": node.start, "length": node.length}
    if node.kind == FIELD and node.span is not None:
        s = node.span
        out["value"] = json_value(s)
        if s.meaning:
            out["meaning"] = s.meaning
        if s.note:
            out["note"] = s.note
        out["hex"] = selection_bytes(node, data, origin).hex().upper()
    elif node.kind == DATA:
        out["hex"] = selection_bytes(node, data, origin).hex().upper()
    else:
        out["fields"] = fields_json(spans_in(node))
    if node.problems:
        out["problems"] = [p.to_json() for p in node.problems]
    return out


def default_name(node: Node, unit_index: int) -> str:
    """``<path>.json`` for structures, ``<path>.dump`` for a field's or data's bytes."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", node.path or node.kind).strip("._") or node.kind
    suffix = ".dump" if node.kind in (FIELD, DATA) else ".json"
    return f"unit{unit_index + 1}-{base}{suffix}"


def export(node: Node, unit: Decoded, data: bytes, origin: int, path: str,
           codepage: str = "cp037") -> str:
    """Write the selection to ``path`` (``.json``: the subtree; else dump text of its bytes);
    a new file only, written whole. Returns what was written, in words."""
    from mqtool.io.outputs import write_file

    if path.lower().endswith(".json"):
        text = json.dumps(as_json(node, unit, data, origin), ensure_ascii=False, indent=2) + "\n"
        what = f"{node.path or node.kind} as JSON"
    else:
        text = as_dump(node, data, origin, codepage)
        what = f"{len(selection_bytes(node, data, origin))} bytes as dump text"
    write_file(path, text.encode("utf-8"))
    return f"wrote {what} to {path}"
