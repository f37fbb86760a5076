"""IBM MQ for z/OS CSQ1LOGP EXTRACT records, as the registry lists them."""

from mqtool.codec import Codec, Later, LaterModule

CODEC = Codec(
    name="csq1logp",
    title="IBM MQ for z/OS CSQ1LOGP EXTRACT records.",
    info=("csverb", "csqueuename", "cscmitstatus", "csrecorddate"),
    decode=Later("mqtool.formats.csq1logp.decode:decode"),
    detect=Later("mqtool.formats.csq1logp.decode:detect"),
    stream=Later("mqtool.formats.csq1logp.decode:decode_stream"),
    carve=LaterModule("mqtool.formats.csq1logp.carve"),
)
