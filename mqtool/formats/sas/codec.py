"""SAS Application Messaging attachments, as the registry lists them: bodies of the MQMD
MsgTypes ``msgtypes`` declares are attachment messages, and the message set a request
builds (``messages``; ``build`` gives it as dmpmqmsg text)."""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqtool.codec import ELEMENTS, Codec, Later, LaterModule
from mqtool.formats.sas.msgtypes import HEADER_MSGTYPE, SUBORDINATE_MSGTYPE

if TYPE_CHECKING:
    from mqtool.formats.mq.dumps.message import Message


def messages(request: Any, **options: Any) -> Iterator[Message]:
    """The messages of a message set in queue order (``mq.dumps.message.Message``).

    ``request``: a ``message_set.Request``, or a request document (the mapping a YAML /
    JSON request holds; paths in it are relative to the working directory; every bad field
    is refused at once with ``request.RequestError``). ``options`` are ``BuildOptions``
    fields: ``settings``, ``max_msg``, ``straddle``, ``seq_order``, ``correlid`` (header G),
    ``seed``."""
    from mqtool.formats.sas.message_set import BuildOptions, Request, build_messages, encode_message
    from mqtool.formats.sas.request import RequestError, request_of

    o = BuildOptions(**options)
    if isinstance(request, Mapping):
        loaded = request_of(request, Path.cwd())
        if loaded.problems:
            raise RequestError("request", loaded.problems)
        request = loaded.request
        if loaded.message_text is not None:
            request.message = encode_message(loaded.message_text, o.settings)
    if not isinstance(request, Request):
        from mqtool.errors import BuildError

        raise BuildError(CODEC.name, "", f"a request is a Request or a mapping, not "
                         f"{type(request).__name__}")
    return build_messages(request, o)


def _build(request: Any, /, **options: Any) -> bytes:
    """The message set of ``request`` as dmpmqmsg text (see ``messages``)."""
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg

    out = io.BytesIO()
    write_dmpmqmsg(messages(request, **options), out)
    return out.getvalue()


CODEC = Codec(
    name="sas-attachment",
    title="SAS Application Messaging attachment header or subordinate message.",
    info=(ELEMENTS, "num_attachments", "qualifier2", "label", "nobs", "count"),
    aliases=("sas",),
    decode=Later("mqtool.formats.sas.decode:decode"),
    detect=Later("mqtool.formats.sas.decode:detect"),
    build=_build,
    build_title="The message set of a SAS attachment, as a queue dump.",
    msgtypes=frozenset({HEADER_MSGTYPE, SUBORDINATE_MSGTYPE}),
    message_decoder=Later("mqtool.formats.sas.decode:MessageDecoder"),
    carve=LaterModule("mqtool.formats.sas.carve"),
)
