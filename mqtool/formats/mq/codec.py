"""The IBM MQ header chain, as the registry lists it; also the queue-dump producers whose
files carry MQ messages (``dumps.producers``), and PCF messages recognised with or without
an MQMD (``pcf_detect``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqtool.codec import ELEMENTS, Codec, Later, LaterModule
from mqtool.formats.mq.dumps.producers import PRODUCERS

if TYPE_CHECKING:
    from mqtool.model import Detection


def detect(data: bytes, /) -> Detection | None:
    """A body that starts with an MQ header (``decode.detect``), or a PCF message -- an
    MQCFH and its parameter chain walked to the end -- alone or behind an MQMD whose Format
    is MQADMIN, MQEVENT or MQPCF (``pcf_detect.detect``): the more confident opinion."""
    from mqtool.formats.mq import decode, pcf_detect

    found = [d for d in (decode.detect(data), pcf_detect.detect(data)) if d is not None]
    return max(found, key=lambda d: d.confidence, default=None)


CODEC = Codec(
    name="mq",
    title="IBM MQ header chain (MQDLH, MQRFH2, MQXQH, MQTM, MQCIH, MQIIH, ...) and payload.",
    info=(ELEMENTS, "reason", "destqname", "remoteqname", "qname", "format"),
    aliases=("mqmd",),
    decode=Later("mqtool.formats.mq.decode:decode"),
    detect=detect,
    build=Later("mqtool.formats.mq.decode:build"),
    build_title="A payload wrapped in IBM MQ headers (MQDLH, MQRFH2, ...).",
    dump_kinds=PRODUCERS,
    sniff_dump=Later("mqtool.formats.mq.dumps.sniff:sniff"),
    dump_reader=Later("mqtool.formats.mq.dumps.read:Dumps"),
    carve=LaterModule("mqtool.formats.mq.carve"),
)
