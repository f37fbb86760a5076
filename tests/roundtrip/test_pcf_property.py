"""PCF messages round-trip through the CLI's JSON, and a mutated or cut PCF JSON is refused
in one line naming its path (bounded hypothesis properties).

The messages are made here from IBM MQ's structure layouts (Programmable Command Formats
reference: MQCFH 36 bytes; MQCFIN 16; MQCFST 20 + the string; MQCFIL 16 + 4 per value;
MQCFSL 24 + Count strings of StringLength; MQCFBS 16 + the bytes; MQCFIF 20; MQCFSF 24 +
the string; MQCFBF 20 + the bytes; MQCFGR 16, its parameters after it; MQCFIN64 24; MQCFIL64
16 + 8 per value; every StrucLength a multiple of 4), with struct, not with mqtool's
declarations: an independent writer. Strings are padded with blanks, bytes with nulls.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from tests.helpers import mq

ENCODING = {">": 273, "<": 546}  # MQENC_NATIVE on a big-endian / little-endian machine
TEXT = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ.0123456789_", max_size=20)
I32 = st.integers(-(2**31), 2**31 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)
PID = st.integers(1, 9999)


def _padded(raw: bytes, fill: bytes, n: int | None = None) -> bytes:
    raw = raw.ljust(len(raw) if n is None else n, fill)
    return raw + fill * (-len(raw) % 4)


def _leaf(o: str) -> st.SearchStrategy[bytes]:
    def ints(fmt: str, *v: int) -> bytes:
        return struct.pack(f"{o}{len(v)}{fmt}", *v)

    def cfst(pid: int, text: str) -> bytes:
        data = _padded(text.encode("latin-1"), b" ")
        return ints("i", 4, 20 + len(data), pid, 0, len(text)) + data

    def cfsl(pid: int, texts: list[str]) -> bytes:
        n = max(map(len, texts), default=0)
        data = _padded(b"".join(t.encode("latin-1").ljust(n) for t in texts), b" ")
        return ints("i", 6, 24 + len(data), pid, 0, len(texts), n) + data

    def cfbs(pid: int, raw: bytes) -> bytes:
        data = _padded(raw, b"\0")
        return ints("i", 9, 16 + len(data), pid, len(raw)) + data

    def cfsf(pid: int, op: int, text: str) -> bytes:
        data = _padded(text.encode("latin-1"), b" ")
        return ints("i", 14, 24 + len(data), pid, op, 0, len(text)) + data

    def cfbf(pid: int, op: int, raw: bytes) -> bytes:
        data = _padded(raw, b"\0")
        return ints("i", 15, 20 + len(data), pid, op, len(raw)) + data

    return st.one_of(
        st.builds(lambda p, v: ints("i", 3, 16, p, v), PID, I32),
        st.builds(cfst, PID, TEXT),
        st.builds(lambda p, vs: ints("i", 5, 16 + 4 * len(vs), p, len(vs)) + ints("i", *vs),
                  PID, st.lists(I32, max_size=4)),
        st.builds(cfsl, PID, st.lists(TEXT, max_size=4)),
        st.builds(cfbs, PID, st.binary(max_size=12)),
        st.builds(lambda p, op, v: ints("i", 13, 20, p, op, v), PID, st.integers(0, 31), I32),
        st.builds(cfsf, PID, st.integers(0, 31), TEXT),
        st.builds(cfbf, PID, st.integers(0, 31), st.binary(max_size=12)),
        st.builds(lambda p, v: ints("i", 23, 24, p, 0) + ints("q", v), PID, I64),
        st.builds(lambda p, vs: ints("i", 25, 16 + 8 * len(vs), p, len(vs)) + ints("q", *vs),
                  PID, st.lists(I64, max_size=3)),
    )


@st.composite
def _params(draw: st.DrawFn, o: str, depth: int = 0) -> list[bytes]:
    """Parameter structures; an MQCFGR is followed by its ParameterCount members."""
    out = []
    for _ in range(draw(st.integers(0, 4 if depth == 0 else 2))):
        if depth < 2 and draw(st.integers(0, 5)) == 0:
            members = draw(_params(o, depth + 1))
            out.append(struct.pack(f"{o}4i", 20, 16, draw(PID), len(members)) + b"".join(members))
        else:
            out.append(draw(_leaf(o)))
    return out


@st.composite
def pcf_messages(draw: st.DrawFn) -> tuple[str, bytes]:
    o = draw(st.sampled_from(["<", ">"]))
    params = draw(_params(o))
    head = struct.pack(f"{o}9i", draw(st.sampled_from([1, 2, 7, 12])), 36, draw(st.integers(1, 3)),
                       draw(st.integers(0, 250)), draw(st.integers(1, 9)), draw(st.integers(0, 1)),
                       draw(st.integers(0, 2)), draw(st.sampled_from([0, 2035, 2085])), len(params))
    return o, head + b"".join(params)


def _decoded(o: str, body: bytes, *raw: str) -> dict[str, Any]:
    r = mq("decode", "mq", "--json", *raw, "--format", "MQADMIN", "--encoding", ENCODING[o], "-",
           input=body)
    assert r.status == 0, r.stderr
    doc: dict[str, Any] = json.loads(r.stdout)
    return doc


PROPERTY = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY
@given(pcf_messages())
def test_a_pcf_message_rebuilds_from_its_json(message: tuple[str, bytes]) -> None:
    o, body = message
    for raw in ((), ("--raw",)):  # built from pcf; the bytes kept, pcf checked against them
        doc = _decoded(o, body, *raw)
        assert ("hex" in doc["payload"]) == bool(raw)
        built = mq("build-request", "mq", "--from", "-", input=json.dumps(doc))
        assert built.status == 0, built.stderr
        assert built.stdout == body


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            out += _paths(v, (*path, k))
    return out


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=8),
                 st.lists(st.integers(-3, 3), max_size=2), st.just({"x": 1}), st.floats())


def _refused_in_one_line(r: Any) -> None:
    assert r.status in (ExitStatus.OK, ExitStatus.USAGE), r.stderr
    if r.status:
        assert not r.stdout and r.stderr.count("\n") == 1, r.stderr
        assert "Traceback" not in r.stderr


@PROPERTY
@given(pcf_messages(), st.data())
def test_a_mutated_pcf_json_is_refused_by_path(message: tuple[str, bytes],
                                               data: st.DataObject) -> None:
    o, body = message
    doc = _decoded(o, body)
    path = data.draw(st.sampled_from(_paths(doc["pcf"])[1:]))
    *parent_path, last = path
    parent = doc["pcf"]
    for k in parent_path:
        parent = parent[k]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[last]
    else:
        parent[last] = data.draw(JUNK)
    r = mq("build-request", "mq", "--from", "-", input=json.dumps(doc))
    _refused_in_one_line(r)
    if r.status:
        assert "mqtool: mq: pcf" in r.stderr, r.stderr  # named by its path under pcf


@PROPERTY
@given(pcf_messages(), st.data())
def test_a_cut_json_is_refused_in_one_line(message: tuple[str, bytes], data: st.DataObject) -> None:
    o, body = message
    text = json.dumps(_decoded(o, body))
    cut = text[:data.draw(st.integers(0, len(text) - 1))]
    r = mq("build-request", "mq", "--from", "-", input=cut)
    assert r.status == ExitStatus.USAGE, r.stderr
    _refused_in_one_line(r)
