"""IBM i MATQMSG templates, as the registry lists them."""

from mqtool.codec import ELEMENTS, Codec, Later, LaterModule

CODEC = Codec(
    name="matqmsg",
    title="IBM i MATQMSG receiver or message selection template.",
    info=(ELEMENTS, "selection_type", "mode", "messages_available", "key"),
    decode=Later("mqtool.formats.matqmsg.decode:decode"),
    detect=Later("mqtool.formats.matqmsg.detect:detect"),
    build=Later("mqtool.formats.matqmsg.request:build"),
    build_title="IBM i MATQMSG message selection template.",
    carve=LaterModule("mqtool.formats.matqmsg.carve"),
)
