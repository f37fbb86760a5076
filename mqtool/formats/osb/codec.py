"""The registry protocol of this format: ``FORMAT``, ``decode``, ``detect``, ``build``."""


from mqtool.formats.osb.redolog import FORMAT, build, decode, detect

__all__ = ["FORMAT", "build", "decode", "detect"]
