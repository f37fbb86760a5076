"""The ``decode urb`` listing from the generated per-layout listing builders equals the
span decoder's listing, line for line, in UTC and in a zone with DST."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.urb.decode import decode
from mqtool.formats.urb.fastlist import Listed, TimeText, text, units
from mqtool.render.listing import quote, unit_lines
from mqtool.tod import Tod
from tests.formats.urb.test_urb_bulk import SERVER
from tests.formats.urb.test_urb_extract import _stream
from tests.helpers import mq, seed_bytes

BERLIN = ZoneInfo("Europe/Berlin")


def same_lines(data: bytes, tz: object = None) -> int:
    fast = list(units(data, tz))  # type: ignore[arg-type]
    assert [u.lines if isinstance(u, Listed) else list(unit_lines(u, tz)) for u in fast] == [  # type: ignore[arg-type]
        list(unit_lines(u, tz)) for u in decode(data)]  # type: ignore[arg-type]
    return sum(isinstance(u, Listed) for u in fast)


def test_the_seed_messages_in_utc_and_berlin() -> None:
    data = b"".join(seed_bytes(f"urb/{n}.dump") for n in SERVER)
    assert same_lines(data) == 12 and same_lines(data, BERLIN) == 12  # requests too


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 3)), min_size=1, max_size=8),
       st.integers(0, 3000), st.binary(min_size=1, max_size=4))
def test_generated_and_damaged_streams(picks: list[tuple[int, int]], at: int, junk: bytes) -> None:
    stream = _stream(picks)
    same_lines(stream, BERLIN)
    same_lines(stream[:at] + junk + stream[at + len(junk):])


@given(st.integers(0, 2**64 - 1))
def test_times_and_text_render_alike(raw: int) -> None:
    dt = Tod(raw).datetime()
    if dt is not None and 1 < dt.year < 9999:
        assert TimeText(BERLIN)(raw) == Tod(raw).render(BERLIN)
    assert TimeText(None)(0) == Tod(0).render()
    s = raw.to_bytes(8, "big").decode("latin-1")
    assert text(s) == quote(s)


def test_the_cli_listing_is_unchanged() -> None:
    data = b"".join(seed_bytes(f"urb/{n}.dump") for n in SERVER) + b"tail"
    res = mq("decode", "urb", "--tz", "Europe/Berlin", "-", input=data)
    assert res.status == 2 and "not a URB message" in res.stderr
    blocks = ["\n".join(unit_lines(u, BERLIN, errors=False)) for u in decode(data)]
    assert res.stdout.decode() == "\n\n".join(blocks) + "\n"
