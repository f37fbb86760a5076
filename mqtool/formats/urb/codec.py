"""Event Replicator for Adabas URB messages, as the registry lists them."""

from mqtool.codec import ELEMENTS, Codec, Later, LaterModule

CODEC = Codec(
    name="urb",
    title="Event Replicator URB messages (URBH, URBI, URBS, URBT, URBR, URBD, URBE, ...).",
    info=(ELEMENTS, "urbirt", "urbsrt", "urbsst", "urbtsnam", "urbssnam", "urbisnam"),
    decode=Later("mqtool.formats.urb.decode:decode"),
    detect=Later("mqtool.formats.urb.decode:detect"),
    build=Later("mqtool.formats.urb.build:build"),
    fast_json=Later("mqtool.formats.urb.fastjson:units"),
    fast_listing=Later("mqtool.formats.urb.fastlist:units"),
    build_title="Event Replicator input request (open, close, inst, tran, stat).",
    carve=LaterModule("mqtool.formats.urb.carve"),
)
