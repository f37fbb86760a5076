"""Builders of the attachment messages, from the declarations in ``layout`` (the message set
of a whole request is ``message_set``)."""

from __future__ import annotations

from typing import Any

from mqtool.errors import BuildError
from mqtool.formats.sas.layout import (
    DSDEF,
    FORMAT,
    DatasetDef,
    Header,
    Settings,
    Variable,
    layouts_for,
    strings_of,
    values_of,
)
from mqtool.layout import Layout


def _build(lay: Layout, values: dict[str, Any], s: Settings) -> bytes:
    """``lay`` built from ``values``, each string's ``<name>_len`` filled from its encoded
    length in the sender's code page."""
    out = dict(values)
    for name in strings_of(lay):
        text = "" if out.get(name) is None else str(out[name])
        out[name] = text
        try:
            out[f"{name}_len"] = len(text.encode(s.codepage))
        except UnicodeEncodeError as e:
            raise BuildError(FORMAT, name, f"{text!r}: {text[e.start:e.end]!r} has no form in "
                             f"code page {s.codepage}") from None
    return lay.build(out, fmt=FORMAT)


def build_header(header: Header, s: Settings) -> bytes:
    lay = layouts_for(s)
    head = {n: getattr(header, n) for n in lay.header.names if hasattr(header, n)}
    parts = [_build(lay.header, {**head, "num_attachments": len(header.entries)}, s)]
    for e in header.entries:
        parts.append(_build(lay.entry, {n: getattr(e, n) for n in lay.entry.names
                                        if hasattr(e, n)}, s))
    return b"".join(parts)


def build_count(n: int, s: Settings) -> bytes:
    return layouts_for(s).count.build({"count": n}, fmt=FORMAT)


def build_fileinfo(lrecl: int, filesize: int, s: Settings) -> bytes:
    return layouts_for(s).fileinfo.build({"lrecl": lrecl, "filesize": filesize}, fmt=FORMAT)


def build_record(data: bytes, s: Settings) -> bytes:
    """One ``len|record`` pair (and its NUL when the variant writes them)."""
    return layouts_for(s).record.build({"len": len(data), "record": data}, fmt=FORMAT)


def build_typeid(kind: int, s: Settings) -> bytes:
    return layouts_for(s).typeid.build({"type": kind}, fmt=FORMAT)


def build_dsdef(ds: DatasetDef, s: Settings) -> bytes:
    """Type-1 message: the type word and the data set definition."""
    lay = layouts_for(s).dsdef
    return build_typeid(DSDEF, s) + _build(lay, values_of(ds, lay), s)


def build_vardef(var: Variable, s: Settings) -> bytes:
    """One variable definition, without the type word."""
    lay = layouts_for(s).vardef
    return _build(lay, values_of(var, lay), s)
