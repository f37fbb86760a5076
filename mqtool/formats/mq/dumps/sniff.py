"""Which queue-dump kind a file is, from its first 64 KiB, by scoring its lines.

Recognition does not need every line to match: a dmpmqmsg file with a damaged line, a cut
last line or a long comment is still a dmpmqmsg file (the reader then reports the bad lines
with their numbers). Binary kinds are recognised by an MQMD at offset 0 and, for RFHUtil
save files, the ``#@#@#`` separator or ``$%$%$`` property separator followed by an MQMD;
captures (pcap, pcapng) by their file magic.
"""

from __future__ import annotations

import json
import re

from mqtool.formats.mq.capture.packets import sniff_capture
from mqtool.formats.mq.dumps.dmpmqmsg import ATTRS, line_kind
from mqtool.formats.mq.dumps.rfhutil import props_like
from mqtool.formats.mq.mqmd import EYE_ASCII, EYE_EBCDIC, has_eye, sniff_mqmd

HEAD = 65536
RFH_DELIMITER = b"#@#@#"
RFH_PROP_DELIMITER = b"$%$%$"
_EYES = (EYE_ASCII, EYE_EBCDIC)
_RFH_EYES = (b"RFH ", b"\xd9\xc6\xc8\x40")
_AMQSBCG = re.compile(rb"AMQSBCG0|\*\*\*\*\s*Message descriptor\s*\*\*\*\*|MQGET of message number")
_KNOWN_CODES = {code.encode() for code in ATTRS}
_HEADER = re.compile(rb"^\* *(?:QLOAD|Dumped by dmpmqmsg|dmpmqmsg)", re.IGNORECASE)


def sniff(data: bytes) -> str | None:
    """``dmpmqmsg``, ``amqsbcg``, ``rfhutil``, ``mqmd-binary``, ``mqtool-dir`` (an
    ``index.jsonl``), ``pcap``, ``pcapng`` or None, for ``data``, the start of a file."""
    head = data[:HEAD]
    capture = sniff_capture(head)
    if capture is not None:
        return capture
    if has_eye(head):
        if sniff_mqmd(head + bytes(400)) is None:
            return None
        return "rfhutil" if _rfh_delimited(head) else "mqmd-binary"
    if head.startswith(_RFH_EYES):
        return "rfhutil"
    if _rfh_properties_first(head):
        return "rfhutil"
    text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    if not is_text(text):
        return None
    if _AMQSBCG.search(text.replace(b"\\*", b"*")):
        return "amqsbcg"
    if text.lstrip()[:1] == b"{":
        return _index_jsonl(text)
    return "dmpmqmsg" if dmpmqmsg_score(text, len(head) == HEAD) >= 0.5 else None


def _rfh_delimited(head: bytes) -> bool:
    """An RFHUtil save file with MQMDs: the separator, then (properties and) an MQMD."""
    at = head.find(RFH_DELIMITER)
    while at >= 0:
        nxt = head[at + len(RFH_DELIMITER):]
        if has_eye(nxt) or _rfh_properties_first(nxt) or len(nxt) < 4 or props_like(nxt):
            return True
        at = head.find(RFH_DELIMITER, at + 1)
    return False


def _rfh_properties_first(head: bytes) -> bool:
    """RFHUtil writes properties (``name=value`` lines) and ``$%$%$`` before the MQMD."""
    at = head.find(RFH_PROP_DELIMITER)
    if at <= 0 or not has_eye(head, at + len(RFH_PROP_DELIMITER)):
        return False
    return all(b"=" in ln for ln in head[:at].splitlines() if ln.strip())


def _index_jsonl(text: bytes) -> str | None:
    first = text.lstrip().split(b"\n", 1)[0]
    try:
        obj = json.loads(first)
    except ValueError:
        return None
    if isinstance(obj, dict) and "file" in obj and ("correlid" in obj or "msgtype" in obj):
        return "mqtool-dir"
    return None


def dmpmqmsg_score(text: bytes, cut: bool = False) -> float:
    """0..1: how much of ``text`` reads as dmpmqmsg lines (0 when it has no A, N or header
    line: plain hex is not a queue dump). ``cut``: the last line may be incomplete."""
    lines = text.splitlines()
    if (cut or not text.endswith((b"\n", b"\r"))) and len(lines) > 1:
        lines.pop()  # the last line may be incomplete
    good = bad = anchors = 0
    header = False
    comment_only = True
    for ln in lines:
        kind = line_kind(ln)
        if kind in ("blank", "comment"):
            header = header or (kind == "comment" and bool(_HEADER.match(ln)))
            continue
        comment_only = False
        if kind is None or (kind == "A" and ln[2:5] not in _KNOWN_CODES):
            bad += 1
        else:
            good += 1
            anchors += kind in ("A", "N")
    if header:
        return 1.0  # the writer's own header line
    if not anchors:
        # all comments (a long first comment line, a header-less comment-only file)
        return 0.5 if comment_only and text.lstrip()[:1] == b"*" else 0.0
    return good / max(1, good + bad) if good else (1.0 if comment_only else 0.0)


def is_text(head: bytes) -> bool:
    """UTF-8 (or Latin-1) text with line ends and no control bytes but tab, CR, LF, FF."""
    sample = head[:4096]
    if not sample:
        return False
    if any(b < 0x20 and b not in b"\t\r\n\x0c" for b in sample):
        return False
    return b"\n" in head or b"\r" in head or len(head) < 4096 or sample[:1] == b"*"
