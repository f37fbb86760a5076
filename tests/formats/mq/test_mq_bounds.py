"""The MQ header chain decoded in bounded memory and time (issue 22, fuzz root causes 7
and 18): a chain longer than ``chain.MAX_HEADERS`` stops there with an error naming the
offset (before: 80,000 MQMDE headers, 5.5 MiB, peaked at 494 MB listed and 569 MB as
JSON, 20 s); a large text payload is listed up to ``decode.LISTED`` bytes and said how
long it is in all, and written whole to ``--json`` piece by piece (before: a 64 MiB
payload peaked at 352 MB listed, 413 MB as JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mqtool.formats.mq import layout as lay
from mqtool.formats.mq.build import build_chain
from mqtool.formats.mq.chain import MAX_HEADERS, walk
from mqtool.formats.mq.decode import LISTED, decode
from tests.helpers import ROOT
from tests.rss import peak

MDE = lay.header_layout("MQMDE").size or 0


def mde_chain(count: int, payload: bytes = b"end") -> bytes:
    """``count`` MQMDE headers (each announcing the next) in front of an MQSTR payload:
    the first of two built is repeated, the second ends the chain."""
    two = build_chain([{"type": "MQMDE"}] * 2, payload, payload_format="MQSTR")
    return two[:MDE] * (count - 1) + two[MDE:]


MQMD = {"format": "MQHMDE", "encoding": 273, "codedcharsetid": 819}


def test_a_chain_at_the_limit_is_walked_and_one_longer_stops_there() -> None:
    chain = walk(mde_chain(MAX_HEADERS), MQMD)
    assert (len(chain.elements), chain.errors) == (MAX_HEADERS, [])
    assert chain.payload_offset == MAX_HEADERS * MDE and chain.payload_format == "MQSTR"
    chain = walk(mde_chain(MAX_HEADERS + 1), MQMD)
    assert len(chain.elements) == MAX_HEADERS  # the headers before the limit are kept
    (err,) = chain.errors
    assert err.offset == MAX_HEADERS * MDE == chain.payload_offset
    assert f"longer than {MAX_HEADERS} headers" in err.reason
    (unit,) = decode(mde_chain(MAX_HEADERS + 1), MQMD)
    assert unit.errors == chain.errors and unit.to_json()["payload"]["offset"] == err.offset


@pytest.mark.parametrize("json_out", [False, True])
def test_80000_headers_stop_at_the_limit_in_bounded_memory(tmp_path: Path,
                                                           json_out: bool) -> None:
    path = tmp_path / "chain.bin"
    path.write_bytes(mde_chain(80_000))
    assert path.stat().st_size == 80_000 * MDE + 3  # 5.5 MiB
    p = peak("decode", "mq", *(["--json"] if json_out else []), path)
    assert p.status == 2
    assert f"offset X'{MAX_HEADERS * MDE:04X}' ({MAX_HEADERS * MDE})" in p.stderr
    assert p.mib < 100, p  # before: 494 MB listed, 569 MB as JSON


# --------------------------------------------------------------------------- payloads

BIG = 64 << 20
LINE = "MQSTR text \u00e9\u20ac\n".encode("utf-8")  # 1, 2 and 3-byte characters


@pytest.fixture(scope="module")
def big_message(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mq") / "big.bin"
    payload = LINE * (BIG // len(LINE))
    path.write_bytes(build_chain([{"type": "MQDLH", "fields": {"reason": 2051}}], payload,
                                 payload_format="MQSTR", payload_ccsid=1208))
    return path


@pytest.mark.parametrize("args", [("decode", "mq"), ("decode", "mq", "--json"),
                                  ("decode", "mq", "--json", "--raw"), ("decode", "auto"),
                                  ("decode", "auto", "--json")])
def test_a_large_text_payload_in_bounded_memory(big_message: Path, args: tuple[str]) -> None:
    p = peak(*args, big_message)
    assert p.status == 0, p.stderr
    assert p.mib < 64 + 64, p  # the input and some; before: 352 MB listed, 413 MB JSON


def test_the_listing_shows_the_first_bytes_and_the_json_all(big_message: Path) -> None:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    data = big_message.read_bytes()
    payload = data[data.index(LINE):]

    def run(*args: str) -> bytes:
        return subprocess.run([sys.executable, "-m", "mqtool", *args, str(big_message)],
                              capture_output=True, env=env, check=True).stdout

    listing = run("decode", "mq").decode("utf-8")
    assert f"the first {LISTED:,} bytes shown, {len(payload):,} bytes in all" in listing
    shown = payload[:LISTED].decode("utf-8", "ignore")  # a character cut at the end: left out
    assert json.dumps(shown, ensure_ascii=False)[1:-1] in listing.replace("\\n", "\n") \
        or shown.replace("\n", "\\n") in listing
    assert len(listing) < 2 * LISTED
    obj = json.loads(run("decode", "mq", "--json", "--raw"))
    assert obj["payload"]["text"] == payload.decode("utf-8")
    assert bytes.fromhex(obj["payload"]["hex"]) == payload


def test_json_chunks_are_the_json_of_the_unit() -> None:
    """Pieces cut inside characters, control characters, both ``--raw`` and not, a chain
    that stops with an error: the same bytes as ``json.dumps`` of ``to_json``."""
    payload = ("\x00\x85 \u20ac \U0001f600 \"q\" \\".encode("utf-8")) * 150_000  # > 2 pieces
    cases = [build_chain([{"type": "MQRFH2", "folders": [{"name": "usr", "properties":
                                                          {"a": "\x1b[31m"}}]}], payload,
                         payload_format="MQSTR", payload_ccsid=1208),
             build_chain([{"type": "MQDLH"}], b"\x01\x02" * 10), mde_chain(MAX_HEADERS + 1)]
    for data in cases:
        (unit,) = decode(data)
        for raw in (False, True):
            want = json.dumps(unit.to_json(raw), ensure_ascii=False, separators=(",", ":"))
            assert b"".join(unit.json_chunks(raw)) == want.encode("utf-8", "surrogatepass")
