"""TIBCO OSB user-exit structures (redolog), as the registry lists them."""

from mqtool.codec import ELEMENTS, Codec, Later, LaterModule

CODEC = Codec(
    name="redolog",
    title="TIBCO OSB redolog parameter list, header or intent list.",
    info=(ELEMENTS, "rl_seq", "rl_time", "r2b_req", "r2b_table", "userid"),
    aliases=("osb",),
    decode=Later("mqtool.formats.osb.decode:decode"),
    detect=Later("mqtool.formats.osb.detect:detect"),
    build=Later("mqtool.formats.osb.build:build"),
    carve=LaterModule("mqtool.formats.osb.carve"),
)
