"""MQRFH2 NameValueData folders: XML with ``dt`` types, read into folder-qualified properties
(``jms.Dst``, ``mcd.Msd``, ``usr.MyProp``, nested groups ``usr.Group.Child``), and written back.

A folder that is not well-formed XML (or declares a DTD, which RFH2 folders never do) is
kept as text and reported; it never raises.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

# dt attribute -> how the text becomes a value (MQRFH2 NameValueData element types)
INT_TYPES = frozenset({"i1", "i2", "i4", "i8", "int"})
FLOAT_TYPES = frozenset({"r4", "r8"})
DT_TYPES = INT_TYPES | FLOAT_TYPES | {"string", "boolean", "bin.hex", "date", "time", "datetime"}
NIL = "xsi_nil"  # what an undeclared xsi:nil attribute is read as


class FolderError(ValueError):
    """A folder that is not one well-formed XML element; ``where`` is the character index."""

    def __init__(self, reason: str, where: int = 0) -> None:
        super().__init__(reason)
        self.where = where


def typed(text: str | None, dt: str | None, nil: bool = False) -> Any:
    """The value of one element's text under its ``dt`` type (unknown types stay text)."""
    if nil:
        return None
    text = text or ""
    try:
        if dt in INT_TYPES:
            return int(text.strip())
        if dt in FLOAT_TYPES:
            return float(text.strip())
    except ValueError:
        return text
    if dt == "boolean":
        low = text.strip().lower()
        return True if low in ("1", "true") else False if low in ("0", "false") else text
    if dt == "bin.hex":
        return text.strip().upper()
    return text


def folder_text(data: str) -> str:
    """The XML of a folder without the blank / NUL padding that rounds it to 4 bytes."""
    return data.rstrip(" \x00")


def parse_folder(data: str) -> tuple[str, dict[str, Any]]:
    """``(folder name, {qualified name: value})`` of one folder; ``FolderError`` if bad."""
    text = folder_text(data)
    if "<!" in text:
        raise FolderError("DTDs and declarations are not allowed in an RFH2 folder",
                          text.index("<!"))
    if "xmlns:xsi" not in text:  # folders use xsi:nil without declaring the prefix
        text = text.replace("xsi:nil", NIL)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        line, col = e.position
        where = sum(len(x) + 1 for x in text.split("\n")[:line - 1]) + col
        raise FolderError(f"folder is not well-formed XML: {e}", where) from None
    props: dict[str, Any] = {}
    _collect(root, root.tag, props)
    return root.tag, props


def _collect(node: ET.Element, prefix: str, props: dict[str, Any]) -> None:
    for child in node:
        name = f"{prefix}.{child.tag}"
        nil = child.get(NIL) == "true" or any(
            k.endswith("}nil") and v == "true" for k, v in child.attrib.items())
        if len(child):
            _collect(child, name, props)
        else:
            props[name] = typed(child.text, child.get("dt"), nil)


def _dt_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "i8" if not -(1 << 31) <= value < (1 << 31) else "i4"
    if isinstance(value, float):
        return "r8"
    if isinstance(value, bytes | bytearray):
        return "bin.hex"
    return None


def _text_of(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex().upper()
    return str(value)


def folder_xml(name: str, props: dict[str, Any], dts: dict[str, str] | None = None) -> str:
    """The XML of one folder from ``{element: value}`` (dotted names nest groups);
    ``dts`` forces a ``dt`` per element (``{"Ttl": "i8"}``), else it follows the value's type.
    String values carry no ``dt`` (the default)."""
    root = ET.Element(name)
    dts = dts or {}
    for key, value in props.items():
        node = root
        parts = key.split(".")
        for part in parts[:-1]:
            found = node.find(part)
            node = found if found is not None else ET.SubElement(node, part)
        el = ET.SubElement(node, parts[-1])
        dt = dts.get(key) or _dt_of(value)
        if dt:
            el.set("dt", dt)
        if value is None:
            el.set("xsi:nil", "true")
        else:
            el.text = _text_of(value)
    return ET.tostring(root, encoding="unicode", short_empty_elements=False)


def padded(data: bytes, align: int, pad: bytes) -> bytes:
    """``data`` padded with ``pad`` (the code page's blank) to a multiple of ``align``."""
    extra = (-len(data)) % align
    return data + pad * extra
