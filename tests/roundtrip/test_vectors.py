"""``build(decode(x)) == x`` through the CLI's JSON, for every MQ vector in testdata/mq: each
``.bin`` body (``decode mq --json --raw``, and without ``--raw`` where the JSON alone says
everything), and each message of each queue dump and capture there (``messages --json``,
``decode auto --json --raw``). Parametrized by file: a new vector is picked up by itself."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, mq

MQ = TESTDATA / "mq"
BINS = sorted(MQ.glob("*.bin"))
DUMPS = sorted([*MQ.glob("*.dmpmqmsg"), *MQ.glob("*.qmsg"), *(MQ / "captures").glob("*.pcap*")])
# dumps that hold no message mqtool can decode, and why
NO_MESSAGES = {"tls.pcap": "a TLS-protected channel: nothing to decode without its keys"}


def _lines(out: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.decode("utf-8").splitlines() if line.strip()]


def test_every_listed_vector_is_tested() -> None:
    listed = set(json.loads((MQ / "vectors.json").read_text()))
    assert listed and listed <= {p.name for p in BINS}, f"{len(BINS)} .bin vectors"
    assert DUMPS, "no queue dumps or captures under testdata/mq"


def test_the_dumps_hold_the_messages_they_were_made_with() -> None:
    counts = {p.name: len(_lines(mq("messages", p, "--json").stdout)) for p in DUMPS}
    # dlq.dmpmqmsg: 2 dead letters; events.qmsg: 5 events; payments.pcapng: 9 (SOURCES.md)
    assert counts == {"dlq.dmpmqmsg": 2, "events.qmsg": 5, "payments.pcapng": 9, "tls.pcap": 0}


@pytest.mark.parametrize("path", BINS, ids=lambda p: p.name)
def test_a_body_rebuilds_from_its_decode_json(path: Path) -> None:
    doc = mq("decode", "mq", "--json", "--raw", path)
    assert doc.status == 0, doc.stderr
    built = mq("build-request", "mq", "--from", "-", input=doc.stdout)
    assert built.status == 0, built.stderr
    assert built.stdout == path.read_bytes()


@pytest.mark.parametrize("path", [p for p in BINS if p.name.startswith("event.")],
                         ids=lambda p: p.name)
def test_a_pcf_body_without_its_hex_is_built_from_pcf(path: Path) -> None:
    """No payload bytes in the JSON: the PCF builder makes them from ``pcf``. The vectors'
    MQCFSL strings are 4 bytes, StringLength 4, holding two characters and two blanks: the
    JSON shows "AB" and the builder gives StringLength 2 -- the only difference."""
    doc = json.loads(mq("decode", "mq", "--json", path).stdout)
    assert "hex" not in doc["payload"]
    built = mq("build-request", "mq", "--from", "-", input=json.dumps(doc))
    assert built.status == 0, built.stderr
    want = path.read_bytes()
    assert len(built.stdout) == len(want) - 4
    back = json.loads(mq("decode", "mq", "--json", "-", input=built.stdout).stdout)
    assert back["pcf"] == doc["pcf"]


@pytest.mark.parametrize("path", DUMPS, ids=lambda p: p.name)
def test_every_message_of_a_dump_rebuilds_from_messages_json(path: Path) -> None:
    listed = mq("messages", path, "--json")
    docs = _lines(listed.stdout)
    if path.name in NO_MESSAGES:
        assert not docs and listed.status == ExitStatus.DECODE, listed.stderr
        return
    assert docs, listed.stderr
    for doc in docs:
        built = mq("build-request", "mq", "--from", "-", input=json.dumps(doc))
        assert built.status == 0, (doc["message"], built.stderr)
        assert len(built.stdout) == doc["body_length"], doc["message"]
        assert hashlib.sha256(built.stdout).hexdigest() == doc["body_sha256"], doc["message"]


@pytest.mark.parametrize("path", [p for p in DUMPS if p.name not in NO_MESSAGES],
                         ids=lambda p: p.name)
def test_every_message_of_a_dump_rebuilds_from_decode_auto_json(path: Path) -> None:
    """An MQ unit rebuilds its message; a unit of the codec the payload belongs to (a SAS
    attachment record) is no MQ JSON and is refused in one line, not half built."""
    bodies = {d["message"]: d["body_sha256"] for d in _lines(mq("messages", path, "--json").stdout)}
    units = _lines(mq("decode", "auto", path, "--json", "--raw").stdout)
    assert {u["message"] for u in units} == set(bodies)
    for unit in units:
        built = mq("build-request", "mq", "--from", "-", input=json.dumps(unit))
        if unit["format"] != "mq":
            assert built.status == ExitStatus.USAGE and not built.stdout
            assert built.stderr.count("\n") == 1 and "format:" in built.stderr, built.stderr
            continue
        assert built.status == 0, built.stderr
        assert hashlib.sha256(built.stdout).hexdigest() == bodies[unit["message"]]
