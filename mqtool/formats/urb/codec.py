"""The registry protocol of this format: ``FORMAT``, ``decode``, ``detect``, ``build``."""


from mqtool.formats.urb.build import build
from mqtool.formats.urb.decode import decode, detect
from mqtool.formats.urb.layout import FORMAT

__all__ = ["FORMAT", "build", "decode", "detect"]
