"""The IBM MQ header chain, as the registry lists it; also the queue-dump producers whose
files carry MQ messages (``dumps.producers``)."""

from mqtool.codec import ELEMENTS, Codec, Later
from mqtool.formats.mq.dumps.producers import PRODUCERS

CODEC = Codec(
    name="mq",
    title="IBM MQ header chain (MQDLH, MQRFH2, MQXQH, MQTM, MQCIH, MQIIH, ...) and payload.",
    info=(ELEMENTS, "reason", "destqname", "remoteqname", "qname", "format"),
    aliases=("mqmd",),
    decode=Later("mqtool.formats.mq.decode:decode"),
    detect=Later("mqtool.formats.mq.decode:detect"),
    build=Later("mqtool.formats.mq.decode:build"),
    build_title="A payload wrapped in IBM MQ headers (MQDLH, MQRFH2, ...).",
    dump_kinds=PRODUCERS,
    sniff_dump=Later("mqtool.formats.mq.dumps.sniff:sniff"),
    dump_reader=Later("mqtool.formats.mq.dumps.read:Dumps"),
)
