"""Messages the Event Replicator Server sends, built from what a user gives: a status reply
(URBH + URBS) or a data message (URBH + URBT, per record a URBR and its URBD images, URBE)
(Software AG, Event Replicator for Adabas, output messages: URBS status, URBT transaction,
URBR record, URBD data). Values come as text, per field; every refusal is collected and
raised at once (``compose.Refusals``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mqtool.formats.urb.build import REQUEST_TYPES, parse_int
from mqtool.formats.urb.compose import Message, Refusals, data_message, status_reply

KINDS = ("reply", "data")
# what a per-URBI value sets in a status reply (URBS) or a data message (URBT, URBR)
REPLY_FIELDS = {"token": "urbsrtok", "snam": "urbssnam", "dnam": "urbsdnam", "inam": "urbsinam",
                "dbid": "urbsdbid", "fnr": "urbsfnr", "tsnr": "urbstsnr"}
DATA_FIELDS = {"token": "urbtrtok", "snam": "urbtsnam", "dbid": "urbtdbid", "tsnr": "urbttsnr",
               "fnr": "urbrfnr"}
TEXT_FIELDS = {"urbsrtok", "urbssnam", "urbsdnam", "urbsinam", "urbtrtok", "urbtsnam"}
# the reply's own values, by the option that gives each
REPLY_ONLY = {"status": "--reply-status", "answers": "--answers", "rsp": "--rsp",
              "subcode": "--subcode"}
BEFORE, AFTER = "B", "A"  # URBDTYP: before and after images
HEX = "HEX:"  # an image given as hex digits


@dataclass
class ServerRequest:
    """A reply or data message as given: text values, None or empty when not given.
    ``per_urbi`` and ``isn`` are the request options (refused here, but for those a
    reply or a data message has); ``images`` and ``befores`` are ``ISN=TEXT`` (TEXT in
    the message's code page, or ``HEX:..``)."""

    kind: str
    per_urbi: Mapping[str, Sequence[str]] = field(default_factory=dict)
    isn: Sequence[str] = ()
    status: str | None = None
    answers: str | None = None
    rsp: str | None = None
    subcode: str | None = None
    images: Sequence[str] = ()
    befores: Sequence[str] = ()
    record_type: str | None = None
    initial_state: bool = False
    sender: str | None = None  # urbhname
    msnr: str | None = None  # urbhmsnr
    stck: str | None = None  # urbhtime
    encoding: str | None = None  # "ebcdic" or "ascii"
    codepage: str | None = None
    byte_order: str | None = None
    align: int | None = None

    @property
    def data_only(self) -> list[str]:
        """The data-message options given (``--image``, ``--record-type``, ...)."""
        given = [("--image", self.images), ("--before", self.befores),
                 ("--record-type", self.record_type), ("--initial-state", self.initial_state)]
        return [name for name, value in given if value]

    @property
    def reply_only(self) -> list[str]:
        return [option for name, option in REPLY_ONLY.items() if getattr(self, name)]


def server_message(r: ServerRequest) -> Message:
    """The message ``r`` describes, every refusal at once (``BuildError``)."""
    bad = Refusals()
    table = REPLY_FIELDS if r.kind == "reply" else DATA_FIELDS
    fields = _fields(r, table, bad)
    header = _header(r, bad)
    build = _reply if r.kind == "reply" else _data
    msg = build(r, fields, header, bad)
    msg.encoding, msg.codepage = r.encoding, r.codepage
    msg.byte_order = r.byte_order or "big"
    return msg


def _fields(r: ServerRequest, table: Mapping[str, str], bad: Refusals) -> dict[str, object]:
    """The per-URBI values a reply or data message takes, each once, numbers parsed."""
    fields: dict[str, object] = {}
    for key, values in r.per_urbi.items():
        option = f"--{key.replace('_', '-')}"
        if not values:
            continue
        if key not in table:
            bad.add(option, f"not an option of a {r.kind} message")
        elif len(values) > 1:
            bad.add(option, f"given {len(values)} times; a {r.kind} message takes one")
        else:
            fields[table[key]] = _value(values[0], table[key] in TEXT_FIELDS, option, bad)
    if r.isn:
        bad.add("--isn", f"not an option of a {r.kind} message")
    if r.align is not None:
        bad.add("--align", f"not an option of a {r.kind} message")
    return fields


def _value(text: str, is_text: bool, option: str, bad: Refusals) -> object:
    if is_text:
        return text
    try:
        return parse_int(text)
    except ValueError as e:
        bad.add(option, str(e))
        return text


def _header(r: ServerRequest, bad: Refusals) -> dict[str, object]:
    header: dict[str, object] = {k: v for k, v in (("urbhname", r.sender), ("urbhtime", r.stck))
                                 if v is not None}
    if r.msnr is not None:
        header["urbhmsnr"] = _value(r.msnr, False, "--msnr", bad)
    return header


def _reply(r: ServerRequest, fields: dict[str, object], header: dict[str, object],
           bad: Refusals) -> Message:
    bad.items += [(option, "for data messages only") for option in r.data_only]
    if not r.status:
        bad.add("urbs.urbsst (--reply-status)", "a reply needs a status")
    if r.answers:
        fields["urbsrt"] = REQUEST_TYPES.get(r.answers.lower(), r.answers.upper())
    for option, name in (("rsp", "urbsrsp"), ("subcode", "urbssubc")):
        text = getattr(r, option)
        if text is not None:
            fields[name] = _value(text, False, f"--{option}", bad)
    if "urbhtime" in header:
        fields["urbstime"] = header["urbhtime"]
    bad.raise_any()
    return status_reply(str(r.status), fields, header)


def _data(r: ServerRequest, fields: dict[str, object], header: dict[str, object],
          bad: Refusals) -> Message:
    bad.items += [(option, "for status replies only") for option in r.reply_only]
    fnr = fields.pop("urbrfnr", 0)
    rtyp = (r.record_type or ("R" if r.initial_state else "U")).upper()
    cp = Message(encoding=r.encoding, codepage=r.codepage).cp  # the images' code page
    records = _records(r, {"urbrfnr": fnr, "urbrtyp": rtyp}, cp, bad)
    if not records:
        bad.add("--image", "a data message needs at least one record image")
    if r.initial_state:
        fields["urbtinst"] = "Y"
    if "urbhtime" in header:
        fields["urbtttim"] = fields["urbtptim"] = header["urbhtime"]
    bad.raise_any()
    return data_message(fields, list(records.values()), header)


Images = list[tuple[str, bytes]]


def _records(r: ServerRequest, common: Mapping[str, object], cp: str,
             bad: Refusals) -> dict[int, tuple[dict[str, Any], Images]]:
    """Records by ISN in ``--image`` order, each with its images (text in ``cp``, or
    ``HEX:..``), before images first."""
    records: dict[int, tuple[dict[str, Any], Images]] = {}
    for option, kind, items in (("--image", AFTER, r.images), ("--before", BEFORE, r.befores)):
        for item in items:
            isn_text, sep, text = item.partition("=")
            try:
                isn = parse_int(isn_text)
            except ValueError as e:
                bad.add(option, str(e))
                continue
            if not sep:
                bad.add(option, f"{item!r} is not ISN=TEXT")
                continue
            image = _image(text, cp, bad)
            record = records.setdefault(isn, ({"urbrisn": isn, **common}, []))
            images = record[1]
            before = sum(1 for k, _ in images if k == BEFORE)
            images.insert(before if kind == BEFORE else len(images), (kind, image))
    return records


def _image(text: str, cp: str, bad: Refusals) -> bytes:
    """An image's bytes: its text in the message's code page (``HEX:..``: as is)."""
    try:
        if text.upper().startswith(HEX):
            return bytes.fromhex(text.removeprefix(text[:len(HEX)]))
        return text.encode(cp)
    except (ValueError, UnicodeEncodeError) as e:
        bad.add("--image", f"{text!r}: {e}")
        return b""
