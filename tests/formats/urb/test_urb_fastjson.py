"""``decode urb --json`` from the generated per-layout JSON builders equals the span
decoder's JSON, message for message, on seed streams in four variants and damaged ones."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.urb.decode import decode
from mqtool.formats.urb.fastjson import FastUnit, iso, units
from mqtool.tod import Tod
from tests.formats.urb.test_urb_bulk import SERVER
from tests.formats.urb.test_urb_extract import _stream
from tests.helpers import mq, seed_bytes


def same_json(data: bytes) -> int:
    fast = list(units(data))
    spans = list(decode(data))
    assert [u.to_json() for u in fast] == [u.to_json() for u in spans]
    return sum(isinstance(u, FastUnit) for u in fast)


def test_the_seed_messages() -> None:
    assert same_json(b"".join(seed_bytes(f"urb/{n}.dump") for n in SERVER)) == 12  # requests too


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 3)), min_size=1, max_size=10),
       st.integers(0, 3000), st.binary(min_size=1, max_size=4))
def test_generated_and_damaged_streams(picks: list[tuple[int, int]], at: int, junk: bytes) -> None:
    stream = _stream(picks)
    same_json(stream)
    same_json(stream[:at] + junk + stream[at + len(junk):])
    same_json(stream[:at])


@given(st.integers(0, 2**64 - 1))
def test_iso_equals_the_tod_text(raw: int) -> None:
    if Tod(raw).datetime() is not None and Tod(raw).datetime().year < 10000:  # type: ignore[union-attr]
        assert iso(raw) == Tod(raw).iso()


def test_the_cli_prints_the_same_lines() -> None:
    data = b"".join(seed_bytes(f"urb/{n}.dump") for n in SERVER) + b"tail"
    res = mq("decode", "urb", "--json", "-", input=data)
    assert res.status == 2 and "not a URB message" in res.stderr
    expected = [json.dumps(u.to_json(), ensure_ascii=False, separators=(",", ":")) for u in decode(data)]
    assert res.stdout.decode().splitlines() == expected
