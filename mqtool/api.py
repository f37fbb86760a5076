"""The library API the CLI and the Spark job call. Thin: each function hands over to the
module that owns the work, so this file stays a map of what mqtool can do.

    >>> from mqtool import api
    >>> units = api.decode("urb", data)              # list[Decoded], with spans
    >>> api.dump(data)                               # the documents' dump style
    >>> api.undump(text)                             # dump text -> bytes
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqtool.model import Decoded

if TYPE_CHECKING:
    from mqtool.formats.urb.extract import Summary as ExtractSummary


def decode(fmt: str, data: bytes, **options: Any) -> list[Decoded]:
    """Decode every unit in ``data`` with the codec of ``fmt`` (see codecs.registry)."""
    from mqtool.registry import codec

    return list(codec(fmt).decode(data, **options))


def build(fmt: str, request: Any, **options: Any) -> bytes:
    """Build a request / template / message from a description (the codec's ``build``)."""
    from mqtool.registry import codec

    return codec(fmt).build(request, **options)


def dump(data: bytes, **options: Any) -> str:
    """Hex dump text (``render.hexdump.DumpOptions`` fields as keywords)."""
    from mqtool.render.hexdump import dump_bytes

    return dump_bytes(data, **options)


def undump(text: str) -> bytes:
    """Bytes of dump text: the documents' style, xxd, hexdump -C, plain hex."""
    from mqtool.io.undump import undump as _undump

    return _undump(text)


def identify(data: bytes) -> list[Any]:
    """Detections for a blob, best first (``codecs.registry.Detection``)."""
    from mqtool.registry import identify as _identify

    return _identify(data)


def reassemble_attachments(*args: Any, **kwargs: Any) -> Any:
    """SAS attachments from a queue dump (``reassemble.attachment.reassemble``)."""
    from mqtool.formats.sas.reassemble import reassemble

    return reassemble(*args, **kwargs)


def extract(*args: Any, **kwargs: Any) -> Any:
    """CSQ1LOGP records to rows / files (``extract.extract``)."""
    from mqtool.formats.csq1logp.extract import extract as _extract

    return _extract(*args, **kwargs)


def extract_urb(paths: list[str], outdir: str, *, fmt: str = "parquet", mode: str = "PERMISSIVE",
                force: bool = False) -> ExtractSummary:
    """URB messages (raw streams, queue dumps, dump text, directories) to the change tables
    in ``outdir``; returns the ``formats.urb.extract.Summary``."""
    from mqtool.formats.urb.extract import extract as _extract

    return _extract(paths, outdir, fmt=fmt, mode=mode, force=force)
