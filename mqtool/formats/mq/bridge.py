"""The application data of the IMS and CICS bridges, as elements.

What the data after the chain holds is declared in ``formats.mq.compose`` (``AFTER_HEADER``,
``AFTER_FORMAT``); this reads that declaration:

* IMS (IBM MQ, "Message segmentation" and "The MQIIH fields" of the IMS bridge): after an
  MQIIH, or in a message of Format MQIMSVS, one or more LLZZ-data segments. LL is the
  segment's length including LL and ZZ, in the Encoding the structure before says; the
  first segment's data starts with the IMS transaction code (up to 8 characters, ended by
  a blank).
* CICS (IBM MQ, "MQCIH - LinkType field", "CICS DPL bridge message structure"): with
  LinkType MQCLT_PROGRAM the data is the program name (8 characters, in a request) and the
  COMMAREA; with MQCLT_TRANSACTION the 3270 bridge vectors, shown as bytes. That data is in
  the character set of the MQCIH itself ("MQCIH - Character set and encoding").

Data that is not what the declaration says (an LL past the end, too few bytes for LL and
ZZ) is a problem, the rest kept as bytes: the bridge formats are the application's, and a
reply need not follow them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from mqtool.compose import Content, Hook, Repeat, When
from mqtool.formats.mq import compose as mqc
from mqtool.formats.mq.chain import FORMAT, Chain, header_codepage
from mqtool.formats.mq.mqmd import byte_order_of
from mqtool.model import TEXT, Element, Problem, Span

TRANCODE_MAX = 8  # IMS transaction codes are 1 to 8 characters
PROGRAM_NAME = 8  # a CICS program name, padded with blanks to 8 characters
MQMT_REPLY = 2  # cmqc.h: a reply carries the COMMAREA alone
_NAME = re.compile(r"[A-Z0-9@#$][A-Z0-9@#$_]{0,7} *")


def data_elements(chain: Chain, body: bytes, mqmd: Mapping[str, Any] | None,
                  problems: list[Problem]) -> list[Element]:
    """The elements of the application data of ``body`` after ``chain`` (none when the
    declaration says nothing about it); what does not fit goes to ``problems``."""
    last = chain.elements[-1] if chain.elements else None
    content = mqc.AFTER_HEADER.get(last.type) if last is not None else None
    if content is None:
        content = mqc.AFTER_FORMAT.get(chain.payload_format)
    start, end = chain.payload_offset, len(body)
    if content is None or start >= end or chain.errors:
        return []
    ctx = _Data(body, start, end, chain, last, mqmd, problems)
    return ctx.read(content)


class _Data:
    """One message's application data being read."""

    def __init__(self, body: bytes, start: int, end: int, chain: Chain, last: Element | None,
                 mqmd: Mapping[str, Any] | None, problems: list[Problem]) -> None:
        self.body, self.start, self.end = body, start, end
        self.last, self.mqmd, self.problems = last, mqmd or {}, problems
        self.big = byte_order_of(chain.payload_encoding) != "little"
        self.codepage = header_codepage(chain.payload_ccsid)

    def read(self, content: Content) -> list[Element]:
        if isinstance(content, When):
            value = self.last.value(content.field) if self.last is not None else None
            return self.read(content.content) if value in content.values else []
        if isinstance(content, Hook):
            return HOOKS[content.name](self)
        if isinstance(content, Repeat):
            return self.segments(content)
        return []

    def segments(self, rep: Repeat) -> list[Element]:
        """Items to the end of the data, each ``rep.size`` bytes long (its own field)."""
        assert isinstance(rep.item, str) and rep.size
        layout = mqc.resolver(self.big, self.codepage)(rep.item)
        head = layout.size or 0
        out: list[Element] = []
        pos, k = self.start, 0
        while pos < self.end:
            path = f"payload.{rep.name}[{k}]"
            left = self.end - pos
            if left < head:
                self.problems.append(Problem(path, pos, f"{left} bytes after the last "
                                             f"{rep.item} segment, too few for LL and ZZ; "
                                             "kept as bytes"))
                break
            el = layout.parse(self.body, pos, fmt=FORMAT, prefix=path)
            size = el.value_as(rep.size, int)
            if size < head or size > left:
                what = f"less than {head}" if size < head else "past the end of the message"
                self.problems.append(Problem(f"{path}.{rep.size}", pos, f"{rep.item} "
                                             f"{rep.size} {size} is {what} ({left} bytes "
                                             "left); the rest kept as bytes"))
                break
            el.length, el.path = size, path
            el.title = rep.title.format(index=k, offset=pos, length=size)
            if k == 0:
                self._trancode(el, pos + head, pos + size)
            el.data, el.data_offset = self.body[pos + head:pos + size], pos + head
            el.data_name, el.data_codepage = "data", self.codepage
            out.append(el)
            pos, k = pos + size, k + 1
        return out

    def _trancode(self, el: Element, start: int, stop: int) -> None:
        """The IMS transaction code at the start of the first segment's data."""
        raw = self.body[start:min(stop, start + TRANCODE_MAX + 1)]
        text = raw.decode(self.codepage, errors="replace")
        code = text.split(" ", 1)[0][:TRANCODE_MAX]
        if code and code.isprintable():
            n = len(code.encode(self.codepage, errors="replace"))
            el.spans.append(Span(f"{el.path}.trancode", start, start + n, code, "", TEXT, "",
                                 bytes(raw[:n])))

    def cics(self) -> list[Element]:
        """The data after an MQCIH by its LinkType: program name and COMMAREA, or the 3270
        bridge vectors."""
        assert self.last is not None
        codepage = _own_codepage(self.last)
        start, end = self.start, self.end
        if self.last.value("linktype") == mqc.MQCLT_TRANSACTION:
            el = Element("BRMQ", start, end - start, path="payload.vectors",
                         title=f"CICS 3270 bridge vectors (MQCIH LinkType MQCLT_TRANSACTION) "
                               f"at offset X'{start:04X}', {end - start} bytes")
            el.data, el.data_offset, el.data_name = self.body[start:end], start, "vectors"
            el.data_codepage = codepage
            return [el]
        el = Element("COMMAREA", start, end - start, path="payload.commarea")
        name = self._program(start, end, codepage)
        if name:
            el.spans.append(Span("payload.commarea.program", start, start + PROGRAM_NAME,
                                 name, "", TEXT, "",
                                 bytes(self.body[start:start + PROGRAM_NAME])))
            start += PROGRAM_NAME
        what = f"program {name}, " if name else ""
        el.title = (f"CICS DPL {what}COMMAREA (MQCIH LinkType MQCLT_PROGRAM) at offset "
                    f"X'{start:04X}', {end - start} bytes")
        el.data, el.data_offset, el.data_name = self.body[start:end], start, "commarea"
        el.data_codepage = codepage
        return [el]

    def _program(self, start: int, end: int, codepage: str) -> str:
        """The program name a DPL request starts with, "" in a reply or when the first
        eight bytes are no CICS program name."""
        if self.mqmd.get("msgtype") == MQMT_REPLY or end - start < PROGRAM_NAME:
            return ""
        text = self.body[start:start + PROGRAM_NAME].decode(codepage, errors="replace")
        return text.rstrip() if _NAME.fullmatch(text) else ""


def _own_codepage(el: Element) -> str:
    """The code page a header was read in (its StrucId's)."""
    raw = next((s.raw for s in el.spans if s.name == "strucid"), b"")
    return "cp037" if raw[:1] and raw[0] >= 0x80 else "latin-1"


HOOKS: dict[str, Callable[[_Data], list[Element]]] = {mqc.CICS_DATA: _Data.cics}
