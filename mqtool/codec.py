"""What one wire format offers the rest of mqtool: its ``Codec``.

Each format package declares one ``Codec`` in ``mqtool/formats/<name>/codec.py``;
``registry.CODECS`` lists them, and everything that names formats is derived from that
list: the decoders ``identify`` asks, the ``decode`` and ``build-request`` commands and
their one-line help, ``mqtool layouts``' format names and aliases, the codec a queue-dump
message's MsgType names, the queue-dump producers ``identify`` recognises, the tests'
format tables.

A ``Codec`` is cheap to import: its functions are ``Later`` references, which load the
format's modules when first called, so listing the formats (``mqtool --help``) loads no
decoder.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mqtool.io.inputs import QueueDumps
    from mqtool.model import Decoded, Detection


class Decoder(Protocol):
    """``decode(data, **options)``: every unit of ``data`` (offsets into ``data``), a
    partial tree plus an error naming the field and byte offset where decoding stopped."""

    def __call__(self, data: bytes, /, **options: Any) -> Iterable[Decoded]: ...


class Detector(Protocol):
    """``detect(data)``: is this blob the format's? How sure (0..1), and why, in words."""

    def __call__(self, data: bytes, /) -> Detection | None: ...


class Builder(Protocol):
    """``build(request, **options)``: the bytes of a request, template or message built
    from its description (a mapping as ``decode --json`` prints it, or the format's own
    request object)."""

    def __call__(self, request: Any, /, **options: Any) -> bytes: ...


class StreamDecoder(Protocol):
    """Decode an input of any size read as ``chunks`` (``head``: its first bytes, for
    detection; ``final``: ``head`` is the whole input): each unit with its own bytes,
    offsets into the input, memory bounded."""

    def __call__(self, chunks: Iterable[bytes], head: bytes, /, *, final: bool = True,
                 **options: Any) -> Iterator[tuple[Decoded, bytes]]: ...


class ListingDecoder(Protocol):
    """Units straight from the declarations, no spans: each carrying its listing
    ``lines`` (times in ``tz``) where it can, else a unit as ``decode`` gives it."""

    def __call__(self, data: bytes, tz: tzinfo | None = None, /) -> Iterable[Decoded]: ...


class MessageDecoder(Protocol):
    """Decodes the messages of one queue dump in order, keeping what earlier messages
    said (a SAS attachment header gives later messages their role)."""

    def decode(self, msg: Any, /) -> tuple[Decoded, bytes]: ...


class Carver(Protocol):
    """A format's ``carve`` module as ``mqtool scan`` reads it (``io.carving`` describes
    the protocol): the signatures every structure carries, how far before its signature a
    structure starts, and ``confirm`` -- a structure decoded where a signature was seen."""

    SIGNATURES: tuple[bytes, ...]
    PATTERNS: tuple[bytes, ...]
    BEFORE: int

    def confirm(self, view: memoryview, at: int, final: bool, work: Any, /) -> Any: ...


class LaterModule:
    """The module ``name``, imported at its first attribute access (a format's ``carve``
    module: ``mqtool --help`` and listing the formats import none)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self._module is None:
            self._module = importlib.import_module(self.name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        return f"LaterModule({self.name!r})"


ELEMENTS = "<elements>"  # in ``Codec.info``: the unit's element types (URBH URBT URBR×3 ...)


class Later:
    """The function ``module:name``, imported at its first call."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self._function: Callable[..., Any] | None = None

    def resolve(self) -> Callable[..., Any]:
        if self._function is None:
            module, name = self.ref.split(":")
            self._function = getattr(importlib.import_module(module), name)
        return self._function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Later({self.ref!r})"


@dataclass(frozen=True, eq=False)
class Codec:
    """One format, as the registry, the commands, the catalog and the tests see it."""

    name: str  # as the commands spell it: ``decode NAME``
    title: str  # what the format is, in one line (``decode NAME``'s help)
    decode: Decoder
    detect: Detector
    aliases: tuple[str, ...] = ()  # other names ``layouts`` and ``--decode-as`` take
    # the fields that say what a unit is in one line (``view``'s Info column, as
    # Wireshark's), in the order shown; ``ELEMENTS``: the chain of its element types
    info: tuple[str, ...] = ()
    build: Builder | None = None
    build_title: str = ""  # what ``build-request NAME`` builds, in one line
    stream: StreamDecoder | None = None  # large inputs decoded piece by piece
    fast_json: Decoder | None = None  # units whose JSON comes straight from the declarations
    fast_listing: ListingDecoder | None = None  # units carrying their listing lines
    msgtypes: frozenset[int] = frozenset()  # MQMD MsgType values whose bodies are this format
    message_decoder: Callable[[], MessageDecoder] | None = None  # for messages of those MsgTypes
    dump_kinds: Mapping[str, str] = field(default_factory=dict)  # queue-dump producer -> words
    sniff_dump: Callable[[bytes], str | None] | None = None  # which of ``dump_kinds`` a head is
    dump_reader: Callable[[Callable[[str], None]], QueueDumps] | None = None  # their messages
    carve: Carver | LaterModule | None = None  # finds the format's structures inside any bytes

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)
