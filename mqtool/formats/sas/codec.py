"""The registry protocol of this format: ``FORMAT``, ``decode``, ``detect``, ``build``."""


from __future__ import annotations

import io
from typing import Any

from mqtool.formats.sas.decode import MessageDecoder, decode, detect
from mqtool.formats.sas.layout import FORMAT

__all__ = ["FORMAT", "MessageDecoder", "build", "decode", "detect"]


def build(request: Any, **options: Any) -> bytes:
    """The message set of ``request`` (a ``message_set.Request``) as dmpmqmsg text.
    ``options`` are ``BuildOptions`` fields (``settings``, ``max_msg``, ``straddle``,
    ``seq_order``)."""
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg
    from mqtool.formats.sas.message_set import BuildOptions, build_messages

    out = io.BytesIO()
    write_dmpmqmsg(build_messages(request, BuildOptions(**options)), out)
    return out.getvalue()
