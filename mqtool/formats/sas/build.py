"""Builders of the attachment messages, from the declarations in ``layout`` (the message set
of a whole request is ``message_set``)."""

from __future__ import annotations

from typing import Any

from mqtool.compose import sized as compose
from mqtool.errors import BuildError
from mqtool.formats.sas.layout import (
    DSDEF,
    ENTRIES,
    FORMAT,
    HEADER_MESSAGE,
    DatasetDef,
    Header,
    Settings,
    Variable,
    layout_named,
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
    """The header message (SAS Application Messaging, "Attachment Layout for WebSphere MQ and MSMQ"):
    the HEADER, then its entries as the composition ``HEADER_MESSAGE`` declares them, the
    count field set from the entries."""
    lay = layouts_for(s)
    head = {n: getattr(header, n) for n in lay.header.names if hasattr(header, n)}
    entry = layout_named(lay, str(ENTRIES.item))
    entries = compose.build(ENTRIES, head, header.entries, lambda e: _build(
        entry, {n: getattr(e, n) for n in entry.names if hasattr(e, n)}, s), FORMAT)
    return _build(layout_named(lay, HEADER_MESSAGE.record), head, s) + entries


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
