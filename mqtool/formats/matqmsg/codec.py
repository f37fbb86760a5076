"""The registry protocol of this format: ``FORMAT``, ``decode``, ``detect``, ``build``."""


from mqtool.formats.matqmsg.build import build
from mqtool.formats.matqmsg.decode import decode
from mqtool.formats.matqmsg.detect import detect
from mqtool.formats.matqmsg.layout import FORMAT

__all__ = ["FORMAT", "build", "decode", "detect"]
