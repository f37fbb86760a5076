"""The mqtool directory: ``index.jsonl`` (one object per message) next to the body files.

Each object: ``seq``, ``file``, the MQMD fields the dump carried under their lower-cased MQMD
names (bytes as hex), ``properties`` (name -> value, bytes as ``{"hex": ...}``) and
``truncated`` when the body holds only part of the message, ``capture`` (file, frames,
endpoints, verb, queue) when it was read from a network capture. Body files are read only when
they are regular files inside the directory (no FIFOs, devices or escaping symlinks).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from mqtool.formats.mq.dumps.dmpmqmsg import property_json, property_value
from mqtool.formats.mq.dumps.message import Message
from mqtool.formats.mq.mqmd import FIELD_NAMES, HEX_FIELDS, INT_FIELDS

INDEX = "index.jsonl"
_ALIASES = {"msg_type": "msgtype", "correl_id": "correlid", "msg_id": "msgid", "ccsid":
            "codedcharsetid", "coded_char_set_id": "codedcharsetid", "put_date": "putdate",
            "put_time": "puttime", "group_id": "groupid", "msg_seq_number": "msgseqnumber",
            "reply_to_q": "replytoq", "reply_to_q_mgr": "replytoqmgr",
            "user_identifier": "useridentifier", "put_appl_name": "putapplname",
            "put_appl_type": "putappltype", "backout_count": "backoutcount"}


def inside(root: Path, p: Path) -> bool:
    try:
        return p.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def read_mqtool_dir(root: Path, where: str, count: Callable[[], int],
                    advance: Callable[[int], None]) -> Iterator[Message]:
    """The messages of an mqtool directory; ``count()`` is the number read so far."""
    index = root / INDEX
    with index.open("rb") as f:
        for n, raw in enumerate(f, 1):
            advance(len(raw))
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
                if not isinstance(entry, dict):
                    raise ValueError("not an object")
            except (ValueError, RecursionError) as e:
                msg = Message(count() + 1, b"", {}, f"{where} line {n}")
                msg.problem(f"mqtool-dir: {INDEX} line {n} is not a JSON object ({e}); "
                            "this message is lost", 0, usable=False)
                yield msg
                continue
            yield _message(root, entry, n, where, count, advance)


def _message(root: Path, entry: dict[str, Any], n: int, where: str, count: Callable[[], int],
             advance: Callable[[int], None]) -> Message:
    seq = entry.get("seq")
    position = seq if isinstance(seq, int) and not isinstance(seq, bool) and seq > 0 else count() + 1
    name = entry.get("file")
    msg = Message(position, b"", {}, f"{where} line {n}")
    for key, value in entry.items():
        key = _ALIASES.get(key, key)
        if key in ("seq", "file") or key not in FIELD_NAMES or value is None:
            continue
        try:
            msg.mqmd[key] = _field(key, value)
        except (TypeError, ValueError):
            msg.problem(f"mqtool-dir: line {n}: {key} value {str(value)[:40]!r} is not readable; "
                        "field left out", 0, f"{where} line {n}")
    props = entry.get("properties")
    if isinstance(props, dict):
        for k, v in props.items():
            try:
                msg.properties[str(k)] = property_value(v)
            except ValueError as e:
                msg.problem(f"mqtool-dir: line {n}: property {k!r} not readable ({e}); left out",
                            0, f"{where} line {n}")
    if entry.get("truncated") is True:
        msg.cut(f"mqtool-dir: line {n}: the index says this body is truncated", 0,
                f"{where} line {n}")
    if not isinstance(name, str) or not name:
        msg.problem(f"mqtool-dir: line {n}: {INDEX} names no body file", 0,
                    f"{where} line {n}", usable=False)
        return msg
    p = root / name
    if Path(name).is_absolute() or not inside(root, p):
        msg.problem(f"mqtool-dir: line {n}: body file {name!r} is outside the dump directory; "
                    "not read", 0, f"{where} line {n}", usable=False)
        return msg
    try:
        mode = os.stat(p).st_mode
        if not stat.S_ISREG(mode):
            msg.problem(f"mqtool-dir: line {n}: body file {name!r} is not a regular file "
                        "(a FIFO, device or directory); not opened", 0, f"{where} line {n}",
                        usable=False)
            return msg
        msg.body = p.read_bytes()
        advance(len(msg.body))
    except OSError as e:
        msg.problem(f"mqtool-dir: line {n}: body file {name!r}: {e.strerror}", 0,
                    f"{where} line {n}", usable=False)
    msg.source = "stdin" if str(p) == "-" else str(p)
    return msg


def _field(key: str, value: Any) -> Any:
    """An MQMD field's value from its index text: bytes from hex, integers, text;
    ``ValueError`` when it is none of them."""
    if key in HEX_FIELDS:
        raw = bytes.fromhex(str(value))
        if key == "correlid" and len(raw) == 20:
            raw += bytes(4)  # an MSMQ 20-byte correlation id
        return raw
    if key in INT_FIELDS:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError("not a number")
        return int(value)
    return str(value)


def message_json(msg: Message, file: str) -> dict[str, Any]:
    """The ``index.jsonl`` object of a message (MQMD fields it carries, bytes as hex)."""
    out: dict[str, Any] = {"seq": msg.position, "file": file}
    for key in FIELD_NAMES:
        if key in msg.mqmd and key != "strucid":
            v = msg.mqmd[key]
            out[key] = v.hex().upper() if isinstance(v, bytes) else v
    if msg.properties:
        out["properties"] = {k: property_json(v) for k, v in msg.properties.items()}
    if msg.truncated:
        out["truncated"] = True
    seen = getattr(msg, "provenance", None)
    if seen is not None:  # read from a capture: where it was seen
        out["capture"] = seen.to_json()
    return out


def write_mqtool_dir(messages: Iterable[Message], outdir: Any) -> int:
    """Write messages as an mqtool directory (``OutputDir``): ``index.jsonl`` + ``NNNNNN.bin``.

    Returns the number of messages written.
    """
    n = 0
    with outdir.create(INDEX) as index:
        for n, msg in enumerate(messages, 1):
            seq = msg.position or n
            name = f"{seq:06d}.bin"
            with outdir.create(name) as f:
                f.write(msg.body)
            index.write(json.dumps(message_json(msg, name), separators=(",", ":")).encode() + b"\n")
    return n
