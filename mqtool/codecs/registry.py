"""Format name -> codec module, and the detectors ``decode auto`` / ``identify`` use.

Every codec module (``mqtool/codecs/<module>.py``) exposes the same small protocol:

    FORMAT: str                                       # "urb"
    def decode(data: bytes, **options) -> Iterator[Decoded]   # units, offsets into data
    def detect(data: bytes) -> Detection | None        # is this blob mine? how sure? why?

Codecs register by being listed in ``CODECS`` (one table, no if-chain); ``detectors()``
asks each one. Modules not present yet are skipped.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType

from mqtool.errors import InputError

CODECS: dict[str, str] = {
    "urb": "mqtool.codecs.urb",
    "sas-attachment": "mqtool.codecs.sas_attachment",
    "csq1logp": "mqtool.codecs.csq1logp",
    "redolog": "mqtool.codecs.osb_redolog",
    "matqmsg": "mqtool.codecs.matqmsg",
}


@dataclass(frozen=True)
class Detection:
    """A codec's opinion of a blob: format, confidence 0..1, and the evidence in words."""

    format: str
    confidence: float
    reason: str
    options: dict[str, object] = field(default_factory=dict)  # e.g. {"part": "header"}


def available() -> list[str]:
    return [name for name, mod in CODECS.items() if importlib.util.find_spec(mod) is not None]


def codec(name: str) -> ModuleType:
    """The codec module of a format name; a clear error for unknown names."""
    module = CODECS.get(name)
    if module is None or importlib.util.find_spec(module) is None:
        raise InputError(f"unknown format {name!r}; known: {', '.join(available())}")
    return importlib.import_module(module)


def detectors() -> Iterator[tuple[str, object]]:
    for name in available():
        mod = importlib.import_module(CODECS[name])
        detect = getattr(mod, "detect", None)
        if detect is not None:
            yield name, detect
