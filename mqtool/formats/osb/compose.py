"""How a redolog entry composes, declared once in the composition vocabulary (TIBCO Object
Service Broker, "Using Data Object Broker User Exits: Data Layouts", sections "Redolog
header" and "Redolog Entries").

* A redolog stream is entries back to back (``REDOLOG``): each is a 48-byte header whose
  RLLEN is the entry's whole length, recognised by its REDODATA eyecatcher.
* The header's intent list follows it directly, ``rl_intent_len`` bytes long (``ENTRY``'s
  trailing data; RLLEN = 48 + rl_intent_len).
* The intent list's first halfword says its format (``INTENT_LIST``): X'0001' is format 1
  (row updates), anything else is format 2's list length (table-level requests).
* A format-2 list spans its first halfword's length (``FORMAT2_LENGTH``), a 2-byte trailer
  after it.
* A format-1 list is its 8-byte header, then update segments to the end of the list
  (``SEGMENTS``), each a halfword length (not counting itself) and that many bytes.

The decoder (``decode``), the bulk header path (``iter_headers``) and the builders
(``build``) read these objects; they do not restate the lengths or the repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from mqtool.compose import At, Chain, Record, Switch
from mqtool.compose.prefixed import Prefixed, follows
from mqtool.formats.osb.layout import EYECATCHER, FORMAT1_ID, layouts
from mqtool.layout import Layout

INTENT_LIST = Switch(At("R2HDR", "r2_len"), {FORMAT1_ID: "R1HDR"}, default="R2HDR",
                     name="intent", title="intent list in format {key}")
ENTRY = Record("RLHDR", "rl_len", ("RLHDR",), fixed=False, key=EYECATCHER,
               trailing=follows("intents", "rl_intent_len", content=INTENT_LIST))
REDOLOG = Chain(key=At("RLHDR", "rl_eye"), length=At("RLHDR", "rl_len"),
                records={ENTRY.type: ENTRY})
# Format 2: the list's first halfword is its length (incl. itself); the header, the fixed
# body and the parameter data and key name R2BOPARM / R2BOMISC point at lie inside it (the
# base those offsets count from is the format's judgement: ``decode.resolve_body_base``);
# the 2-byte trailer the passed length also counts follows it.
FORMAT2_LENGTH = At("R2HDR", "r2_len")
SEGMENTS = Prefixed("r1seg", "R1SEG", "r1_seglen",
                    title="Format-1 update segment {number} at offset X'{offset:04X}'")

ENTRY_LENGTH = ENTRY.length  # RLLEN: the entry's whole length
INTENT_LENGTH = ENTRY.trailing.length if ENTRY.trailing else ""  # rl_intent_len


@lru_cache(maxsize=16)
def resolver(codepage: str = "cp037") -> Callable[[str], Layout]:
    """Layout names of the declarations above, in ``codepage``."""
    lay = layouts(codepage)
    by_name = {v.name: v for v in vars(lay).values() if isinstance(v, Layout)}
    return by_name.__getitem__


def intent_format(data: bytes, pos: int, codepage: str = "cp037") -> int:
    """The format (1 or 2) of the intent list at ``pos``, as ``INTENT_LIST`` chooses it."""
    at = INTENT_LIST.on
    assert isinstance(at, At)
    f = resolver(codepage)(at.layout).field(at.field)
    key = int.from_bytes(data[pos + (f.start or 0):pos + (f.start or 0) + (f.size or 0)], "big")
    return 1 if INTENT_LIST.choose(key) == "R1HDR" else 2
