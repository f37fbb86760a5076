"""The registry protocol of this format: ``FORMAT``, ``decode``, ``detect``."""


from mqtool.formats.csq1logp.decode import decode, detect
from mqtool.formats.csq1logp.layout import FORMAT

__all__ = ["FORMAT", "decode", "detect"]
