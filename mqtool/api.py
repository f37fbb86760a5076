"""The library API the shells (the CLI, the Spark jobs, the viewer) call. Thin: each
function hands over to the module that owns the work, so this file stays a map of what
mqtool can do.

    >>> from mqtool import api
    >>> units = api.decode("urb", data)              # list[Decoded], with spans
    >>> api.dump(data)                               # the documents' dump style
    >>> api.undump(text)                             # dump text -> bytes
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING

from mqtool.model import Decoded, Detection

if TYPE_CHECKING:
    from mqtool.formats.csq1logp.extract import Filters
    from mqtool.formats.csq1logp.extract import Summary as CsqSummary
    from mqtool.formats.mq.dumps.message import Message
    from mqtool.formats.mq.dumps.read import QueueDump
    from mqtool.formats.sas.decode import Hints
    from mqtool.formats.sas.layout import Settings
    from mqtool.formats.sas.message_set import Request
    from mqtool.formats.sas.reassemble import Report
    from mqtool.formats.urb.extract import Summary as ExtractSummary


def decode(fmt: str, data: bytes, **options: object) -> list[Decoded]:
    """Decode every unit in ``data`` with the codec of ``fmt`` (a name or alias of
    ``registry.CODECS``)."""
    from mqtool.registry import codec

    return list(codec(fmt).decode(data, **options))


def build(fmt: str, request: object, **options: object) -> bytes:
    """Build a request / template / message from a description (the codec's ``build``);
    for ``sas-attachment`` the message set as dmpmqmsg text (``build_sas_attachment``)."""
    from mqtool.errors import InputError
    from mqtool.registry import codec

    c = codec(fmt)
    if c.build is None:
        raise InputError(f"{c.name}: mqtool builds no {c.name} request")
    return c.build(request, **options)


def dump(data: bytes, **options: object) -> str:
    """Hex dump text (``render.hexdump.DumpOptions`` fields as keywords)."""
    from mqtool.render.hexdump import dump_bytes

    return dump_bytes(data, None, **options)


def undump(text: str) -> bytes:
    """Bytes of dump text: the documents' style, xxd, hexdump -C, plain hex."""
    from mqtool.io.undump import undump as _undump

    return _undump(text)


def identify(data: bytes) -> list[Detection]:
    """Detections for a blob, best first (``registry.identify``)."""
    from mqtool.registry import identify as _identify

    return _identify(data)


def messages(path: str, input_format: str | None = None,
             progress: Callable[[int], None] | None = None) -> QueueDump:
    """The messages of a queue dump (``formats.mq.dumps.read.QueueDump``: iterate it for
    ``Message`` objects; ``errors``, ``count`` and ``truncated`` once read)."""
    from mqtool.formats.mq.dumps.read import QueueDump

    return QueueDump(path, input_format, progress)


def reassemble_attachments(dump: str, outdir: str | None = None, *,
                           messages: Iterable[Message] | None = None,
                           progress: Callable[[int], None] | None = None, force: bool = False,
                           partial: bool = False, keep_orphans: bool = False,
                           encoding: str = "utf-8", newline: str = "lf",
                           hints: Hints | None = None, obs_layout: str = "definition",
                           formats: tuple[str, ...] = ("parquet", "csv", "xpt"),
                           input_format: str | None = None) -> Report:
    """Rebuild the SAS attachments of a queue dump (a file, ``-`` or a directory; or the
    ``messages`` themselves) into ``outdir``, one folder per header (None: check and list
    only, nothing written). ``Report.status`` is the exit status (0 complete, 2 damaged, 3
    incomplete); ``reassemble.summary(report)`` and ``manifest(header)`` give its JSON.
    Raises only ``MqtoolError`` subclasses."""
    from mqtool.formats.sas.decode import Hints
    from mqtool.formats.sas.reassemble import reassemble

    return reassemble(dump, outdir, messages=messages, progress=progress, force=force,
                      partial=partial, keep_orphans=keep_orphans, encoding=encoding,
                      newline=newline, hints=hints or Hints(), obs_layout=obs_layout,
                      formats=formats, input_format=input_format)


def build_sas_attachment(request: Request | Mapping[str, object], *,
                         settings: Settings | None = None, max_msg: int = 32768,
                         straddle: bool = False, seq_order: str = "big",
                         correlid: bytes | None = None, seed: int | None = None
                         ) -> Iterator[Message]:
    """The message set SAS puts on a queue for ``request`` (a ``message_set.Request`` or a
    request document as YAML / JSON holds it), in queue order, built lazily. ``settings``:
    the sender (``layout.PROFILES``, default z/OS); ``correlid``: the header's 16-byte G
    (default a new random one, the same for the same ``seed``). Bad requests raise
    ``request.RequestError`` naming every bad field at once; ``api.build("sas-attachment",
    ...)`` gives the same set as dmpmqmsg text."""
    from mqtool.formats.sas.codec import messages
    from mqtool.formats.sas.layout import PROFILES

    return messages(request, settings=settings or PROFILES["zos"], max_msg=max_msg,
                    straddle=straddle, seq_order=seq_order, correlid=correlid, seed=seed)


def extract(paths: list[str], out: IO[bytes] | str, *, fmt: str = "jsonl", framing: str = "auto",
            codepage: str = "cp037", mode: str = "PERMISSIVE", filters: Filters | None = None,
            messages: bool = False, workers: int | None = None,
            progress: Callable[[int], None] | None = None,
            options: Mapping[str, str] | None = None) -> CsqSummary:
    """CSQ1LOGP records of ``paths`` (files or URIs: ``s3://``, ``gs://``, ``hdfs://``,
    ``file://``; ``options`` their credentials/endpoint) to ``out``: a binary stream or a
    path for ``fmt`` ``jsonl``/``csv``/``parquet``, or a directory (``fmt="dir"``:
    ``records/log_date=YYYY-MM-DD/``, ``errors/``, ``messages/``). ``mode``: PERMISSIVE
    (bad spans become error rows), DROPMALFORMED, FAILFAST (``DecodeError`` at the first,
    nothing written); ``messages`` gives one row per logical message. The returned
    ``formats.csq1logp.extract.Summary`` counts records, bad spans by reason and rows."""
    from mqtool.formats.csq1logp.extract import extract as _extract

    return _extract(paths, out, fmt=fmt, framing=framing, codepage=codepage, mode=mode,
                    filters=filters, messages=messages, workers=workers, progress=progress,
                    options=options)


def extract_urb(paths: list[str], outdir: str, *, fmt: str = "parquet", mode: str = "PERMISSIVE",
                force: bool = False, progress: Callable[[int], None] | None = None,
                leap_seconds: int = 0) -> ExtractSummary:
    """URB messages (raw streams, queue dumps, dump text, directories) to the change tables
    in ``outdir``; returns the ``formats.urb.extract.Summary``."""
    from mqtool.formats.urb.extract import extract as _extract

    return _extract(paths, outdir, fmt=fmt, mode=mode, force=force, progress=progress,
                    leap_seconds=leap_seconds)
