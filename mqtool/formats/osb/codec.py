"""The registry protocol of this format: ``FORMAT``, ``decode``, ``detect``, ``build``."""


from mqtool.formats.osb.build import build
from mqtool.formats.osb.decode import decode
from mqtool.formats.osb.detect import detect
from mqtool.formats.osb.layout import FORMAT

__all__ = ["FORMAT", "build", "decode", "detect"]
