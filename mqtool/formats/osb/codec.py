"""TIBCO OSB user-exit structures (redolog), as the registry lists them."""

from mqtool.codec import Codec, Later

CODEC = Codec(
    name="redolog",
    title="TIBCO OSB redolog parameter list, header or intent list.",
    aliases=("osb",),
    decode=Later("mqtool.formats.osb.decode:decode"),
    detect=Later("mqtool.formats.osb.detect:detect"),
    build=Later("mqtool.formats.osb.build:build"),
)
