"""The MQ header chain of a message body as a decoded unit: ``decode``, ``detect``, ``build``.

``decode`` gives one unit per message body: the header chain (one element per structure),
the RFH2 properties and where the payload starts. In JSON::

    {"format": "mq", "offset": 0, "length": N, "context": {...}, "elements": [...],
     "properties": {"jms.Dst": ...}, "payload": {"format", "offset", "length", "text"},
     "errors": [...], "problems": [...]}
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mqtool.formats.mq import layout as lay
from mqtool.formats.mq.bridge import data_elements
from mqtool.formats.mq.build import build_chain
from mqtool.formats.mq.chain import (
    CCSID_ASCII,
    CCSID_EBCDIC,
    ENC_BIG,
    ENC_LITTLE,
    PIECE,
    Chain,
    as_int,
    header_codepage,
    sniff,
    walk,
)
from mqtool.formats.mq.compose import format_of
from mqtool.model import (
    INT,
    LISTED,
    TEXT,
    Decoded,
    Detection,
    Element,
    Problem,
    Span,
    element_json,
    listed_note,
    unit_json,
)

FORMAT = lay.FORMAT
PAYLOAD = "payload"  # listing-only element: the application data after the chain
PROPERTIES = "properties"  # listing-only element: the RFH2 properties, folder-qualified
LISTING_ONLY = (PAYLOAD, PROPERTIES, "MQCFH", *lay.PCF_BY_NAME)  # PCF: in "pcf" instead

__all__ = ["FORMAT", "MqMessage", "build", "decode", "detect", "unit_of"]


@dataclass(slots=True)
class MqMessage(Decoded):
    """A decoded message body: its ``chain`` and its bytes (for the payload)."""

    chain: Chain | None = None
    body: bytes = b""

    def spans(self) -> Iterator[Span]:
        """Spans of the bytes, nested elements' too (the properties element has none of
        its own)."""
        for el in self.elements:
            if el.type != PROPERTIES:
                yield from el.spans_deep()

    def to_json(self, raw: bool = False) -> dict[str, object]:
        return self._json(raw, None)

    def json_chunks(self, raw: bool = False) -> Iterator[bytes]:
        """``to_json`` as compact JSON (``json.dumps(..., ensure_ascii=False,
        separators=(",", ":"))``, UTF-8): the same bytes, the payload's text (and with
        ``raw`` its hex) written a piece at a time, so a payload of hundreds of MiB is
        never held as one string, nor its JSON."""
        hole = f"\x00{secrets.token_hex(16)}\x00"  # no input can spell it
        rest = json.dumps(self._json(raw, hole), ensure_ascii=False, separators=(",", ":"))
        for part in (self._text_json, self._hex_json):  # in payload_json's order
            head, found, tail = rest.partition(json.dumps(hole + part.__name__))
            if found:  # else: not there, all of it is still to come
                yield head.encode("utf-8", "surrogatepass") + b'"'
                yield from part()
                rest = '"' + tail
        yield rest.encode("utf-8", "surrogatepass")

    def _text_json(self) -> Iterator[bytes]:
        assert self.chain is not None
        for piece in self.chain.payload_text_pieces(self.body) or ():
            yield json.dumps(piece, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass")

    def _hex_json(self) -> Iterator[bytes]:
        assert self.chain is not None
        view = memoryview(self.body)
        for at in range(self.chain.payload_offset, len(self.body), PIECE):
            yield view[at:at + PIECE].hex().upper().encode("ascii")

    def _json(self, raw: bool, hole: str | None) -> dict[str, object]:
        """The unit as ``--json`` gives it; ``hole``: put in place of the payload's text
        and hex (``json_chunks`` writes them)."""
        d = unit_json(self, raw)
        elements = d["elements"]
        assert isinstance(elements, list)
        d["elements"] = [e for e in elements if e.get("type") not in LISTING_ONLY]
        if self.chain is not None:
            d["properties"] = self.chain.properties
            payload = self.chain.payload_json(
                self.body, None if hole is None else hole + self._text_json.__name__)
            # the bytes too, unless its text gives them back (``--raw``: always), so that
            # build-request mq --from rebuilds the message from this JSON alone
            if raw or not ("text" in payload and self.chain.payload_text_exact(self.body)):
                payload["hex"] = hole + self._hex_json.__name__ if hole is not None else \
                    self.body[self.chain.payload_offset:].hex().upper()
            shown = next((e for e in self.elements if e.type == PAYLOAD), None)
            if shown is not None and shown.children:  # IMS segments, a CICS COMMAREA
                payload["elements"] = [element_json(c, raw) for c in shown.children]
            d["payload"] = payload
            if self.chain.pcf is not None:
                d["pcf"] = self.chain.pcf.to_json()
            reason = self.chain.dead_letter_reason
            if reason:
                d["dead_letter_reason"] = {"reason": reason[0], "name": reason[1]}
        return d


def _context(mqmd: Mapping[str, Any] | None, chain: Chain, body: bytes) -> dict[str, Any]:
    """What the first header was read with: the MQMD's values, or what its StrucId said."""
    if mqmd is not None and mqmd.get("format") is not None:
        return {k: mqmd.get(k) for k in ("format", "encoding", "codedcharsetid")}
    found = sniff(body)
    if found is None:
        return {"format": "", "encoding": ENC_BIG, "codedcharsetid": CCSID_ASCII}
    header, big, ebcdic = found
    return {"format": format_of(header), "encoding": ENC_BIG if big else ENC_LITTLE,
            "codedcharsetid": CCSID_EBCDIC if ebcdic else CCSID_ASCII}


def unit_of(body: bytes, mqmd: Mapping[str, Any] | None = None, chain: Chain | None = None,
            *, require_header: bool = False) -> MqMessage:
    """The decoded unit of one body (``chain`` when already walked). ``require_header``:
    a body with no header at all is an error (``decode mq`` was told it is one)."""
    chain = walk(body, mqmd) if chain is None else chain
    ctx = _context(mqmd, chain, body)
    codepage = header_codepage(as_int(ctx.get("codedcharsetid")))
    unit = MqMessage(FORMAT, 0, len(body), list(chain.elements),
                     {"context": ctx, "codepage": codepage},
                     list(chain.errors), list(chain.problems), chain=chain, body=body)
    for el in unit.elements:
        if el.length == 0 and el.spans:
            el.length = el.spans[-1].end - el.offset
    if require_header and not (chain.elements or chain.errors or chain.problems or chain.pcf):
        ids = ", ".join(repr(s) for s in lay.STRUC_IDS)
        unit.errors.append(Problem("strucid", 0, f"no MQ header here (StrucId {ids}, ASCII or "
                                                 "EBCDIC, with Version 1 to 3)"))
    names = " -> ".join(el.type for el in chain.elements) or "no headers"
    reason = chain.dead_letter_reason
    dl = f"; dead-letter reason {reason[0]} {reason[1]}".rstrip() if reason else ""
    unit.title = (f"MQ message ({len(body)} bytes): {names}; payload "
                  f"{chain.payload_format or '(no Format)'} at offset "
                  f"X'{chain.payload_offset:04X}', {chain.payload_length} bytes{dl}")
    _event(unit, chain)
    if chain.properties:
        props = Element(PROPERTIES, 0, 0, title="properties (MQRFH2 folders, MQRFH name/value "
                                                "pairs)")
        for name, value in chain.properties.items():
            kind = TEXT if isinstance(value, str) else INT
            props.spans.append(Span(f"{PROPERTIES}.{name.replace('.', '/')}", 0, 0, value, "",
                                    kind))
        unit.elements.append(props)
    if chain.pcf is not None:
        unit.elements += chain.pcf.elements
    elif not chain.errors and chain.payload_length:
        payload = _payload_element(chain, body)
        payload.children = data_elements(chain, body, mqmd, unit.problems)
        unit.elements.append(payload)
    return unit


def _event(unit: MqMessage, chain: Chain) -> None:
    """An event message says what happened in one line (``formats.mq.events``): at the
    end of the title, and in JSON as ``event`` (type, reason, reason_name, summary)."""
    if chain.pcf is None:
        return
    from mqtool.formats.mq.events import summarize

    event = summarize(chain.pcf)
    if event is not None:
        unit.title += f"; {event.type} event: {event.text}"
        unit.attrs["event"] = event.to_json()


# The listing shows this many bytes of a payload at most (as text in its CCSID, or in
# hex), saying how many there are in all: a message's payload can be hundreds of MiB, and
# the listing is for reading. ``--json`` gives the whole text, ``--json --raw`` every byte.


def _payload_element(chain: Chain, body: bytes) -> Element:
    at, n = chain.payload_offset, chain.payload_length
    fmt = repr(chain.payload_format) if chain.payload_format else "(none)"
    el = Element(PAYLOAD, at, n, title=f"payload at offset X'{at:04X}': Format "
                 f"{fmt}, Encoding {chain.payload_encoding}, "
                 f"CCSID {chain.payload_ccsid}, {n} bytes")
    shown = min(n, LISTED)
    cut = listed_note(n)
    text = chain.payload_text(body, shown)
    if text is not None:
        el.spans.append(Span("payload.text", at, at + n, text, cut, TEXT, "",
                             bytes(body[at:at + shown])))
    else:
        el.data, el.data_offset = bytes(body[at:at + shown]), at
        el.data_name = f"data ({cut})" if cut else "data"
        codec = chain.payload_codec()
        el.data_codepage = codec if codec and len(" ".encode(codec)) == 1 else "latin-1"
    return el


def decode(data: bytes, mqmd: Mapping[str, Any] | None = None, *,
           require_header: bool | None = None, **options: Any) -> Iterator[Decoded]:
    """One unit: the header chain of ``data`` (a message body) and its payload. A body
    with no header at all is an error when ``require_header`` (default: no ``mqmd``
    says what the body is), unless it is a PCF message (``pcf_detect``: then read as the
    MQMD that would announce it says)."""
    if not mqmd and sniff(data) is None:
        from mqtool.formats.mq.pcf_detect import find_pcf

        found = find_pcf(data)
        if found is not None:
            mqmd, require_header = found.mqmd(), False
    yield unit_of(data, mqmd or None, require_header=not mqmd if require_header is None
                  else require_header)


def detect(data: bytes) -> Detection | None:
    """A body that starts with an MQ header: how sure, and the chain in words."""
    found = sniff(data)
    if found is None:
        return None
    header, big, ebcdic = found
    chain = walk(data)
    if not chain.elements:
        return None
    confidence = 0.9 if not chain.errors else 0.6
    first = chain.elements[0]
    if header.length and first.length < (lay.header_layout(header.type).size or 0):
        confidence = 0.5
    names = " -> ".join(el.type for el in chain.elements)
    reason = chain.dead_letter_reason
    dl = f", dead-letter reason {reason[0]} {reason[1]}" if reason else ""
    where = f"{'EBCDIC' if ebcdic else 'ASCII'}, {'big' if big else 'little'}-endian"
    return Detection(FORMAT, confidence,
                     f"MQ headers {names} ({where}{dl}); payload "
                     f"{chain.payload_format or '(no Format)'} at offset {chain.payload_offset}, "
                     f"{chain.payload_length} bytes")


def build(request: Mapping[str, Any], **options: Any) -> bytes:
    """A chain from ``{"headers": [...], "payload": bytes, "encoding", "ccsid",
    "payload_format", "payload_encoding", "payload_ccsid"}`` (see ``build.build_chain``)."""
    req = {**request, **options}
    return build_chain(req.get("headers") or [], req.get("payload") or b"",
                       encoding=req.get("encoding", ENC_BIG), ccsid=req.get("ccsid", CCSID_ASCII),
                       payload_format=req.get("payload_format", ""),
                       payload_encoding=req.get("payload_encoding"),
                       payload_ccsid=req.get("payload_ccsid"))
