"""``--annotate`` made as it is printed (``render.annotate.annotated``): the same lines
and colours as the whole-unit rendering it replaced -- kept here as the reference, an
independent computation (an owner per byte, the last span covering it wins) -- and, for
a unit of many MiB, bounded memory: runs of whole lines inside one span come as plain
``Block``s of the vectorised dumper."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from mqtool.model import RESERVED, Span
from mqtool.registry import decode_blob
from mqtool.render import annotate as ann
from mqtool.render.annotate import PALETTE, Block, annotate, annotate_unit, annotated
from mqtool.render.hexdump import DumpOptions, format_line, geometry
from mqtool.render.terminal import escape
from tests.helpers import TESTDATA
from tests.rss import peak


def reference(data: bytes, spans: Sequence[Span], *, origin: int = 0, codepage: str = "cp037",
              cols: int = 16, marks: Sequence[tuple[int, str]] = ()) -> list[Text]:
    """The whole-unit rendering: an owner for every byte, then one Text per line."""
    geo = geometry(DumpOptions(style="document", cols=cols, codepage=codepage),
                   max(4, len(f"{origin + len(data):X}")))
    owner = [-1] * len(data)
    for k, s in enumerate(spans):
        lo, hi = max(s.start, origin), min(s.end, origin + len(data))
        if hi > lo:
            owner[lo - origin:hi - origin] = [k] * (hi - lo)
    lines = []
    for lo in range(0, len(data), cols):
        chunk = data[lo:lo + cols]
        text = Text(format_line(chunk, origin + lo, 0, geo, True).decode("latin-1").rstrip("\n"))
        for j in range(len(chunk)):
            k = owner[lo + j]
            if k >= 0:
                style = "dim" if spans[k].kind == RESERVED else PALETTE[k % len(PALETTE)]
                text.stylize(style, geo.hex_pos[j], geo.hex_pos[j] + 2)
                text.stylize(style, geo.chr_pos[0][j], geo.chr_pos[0][j] + 1)
        here = range(origin + lo, origin + min(lo + cols, len(data)))
        pending = [(at, label) for at, label in marks if at in here]
        for k, s in enumerate(spans):
            if s.start in here and s.kind != RESERVED:
                while pending and pending[0][0] <= s.start:
                    text.append(" ")
                    text.append(escape(pending.pop(0)[1]), style="bold")
                text.append(" ")
                text.append(escape(s.name), style=PALETTE[k % len(PALETTE)])
        for _at, label in pending:
            text.append(" ")
            text.append(escape(label), style="bold")
        lines.append(text)
    return lines


def shown(lines: Sequence[Text]) -> str:
    """What a colour terminal is sent."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=400,
                      soft_wrap=True)
    for line in lines:
        console.print(line)
    return out.getvalue()


@st.composite
def unit_spans(draw: st.DrawFn) -> tuple[bytes, int, list[Span], list[tuple[int, str]]]:
    n = draw(st.integers(0, 200))
    origin = draw(st.sampled_from([0, 3, 16, 0xFFF0]))
    data = draw(st.binary(min_size=n, max_size=n))
    pos = st.integers(origin - 20, origin + n + 20)
    spans = []
    for k in range(draw(st.integers(0, 8))):
        a, b = sorted((draw(pos), draw(pos)))
        spans.append(Span(f"f{k}", a, b, 0, kind=draw(st.sampled_from(["", RESERVED]))))
    marks = [(draw(pos), f"[M{j}]") for j in range(draw(st.integers(0, 3)))]
    return data, origin, spans, marks


@settings(max_examples=150, deadline=None)
@given(case=unit_spans(), block=st.sampled_from([16, 48, 1 << 20]))
def test_the_stream_draws_what_the_whole_unit_rendering_drew(
        case: tuple[bytes, int, list[Span], list[tuple[int, str]]], block: int) -> None:
    data, origin, spans, marks = case
    want = reference(data, spans, origin=origin, marks=marks)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ann, "BLOCK", block)
        got = annotate(memoryview(data), spans, origin=origin, marks=marks)
    assert [t.plain for t in got] == [t.plain for t in want]
    assert shown(got) == shown(want)


@pytest.mark.parametrize("system", ["truecolor", "256", "standard"])
@pytest.mark.parametrize("codepage", ["cp037", "latin-1"])
def test_a_coloured_block_is_what_rich_prints_line_by_line(system: str, codepage: str) -> None:
    """``Block.colored`` (escape sequences placed by numpy) against rich printing each of
    ``Block.lines()``: the same bytes, characters above X'7F' included."""
    data = bytes(range(256)) * 8
    for style_at in (0, 5):  # a span's colour, and "dim" (a reserved field)
        spans = [Span("a", 0, 8, 0, kind=RESERVED if style_at else ""), Span("b", 8, len(data), 0)]
        if style_at:
            spans = [Span("a", 0, 8, 0), Span("r", 8, len(data), 0, kind=RESERVED)]
        blocks = [i for i in annotated(data, spans, codepage=codepage) if isinstance(i, Block)]
        assert blocks and all(b.style for b in blocks)
        for b in blocks:
            out = io.StringIO()
            console = Console(file=out, force_terminal=True, color_system=system,  # type: ignore[arg-type]
                              width=400, soft_wrap=True)
            for line in b.lines():
                console.print(line)
            want = out.getvalue().encode("utf-8")
            assert b"".join(b.colored(console)) == want
            assert b"".join(b.colored(console, rows=3)) == want  # pieces of 3 lines
    plain = Console(file=io.StringIO(), color_system=None)
    assert b"".join(blocks[0].colored(plain)) == blocks[0].text


def _units(path: Path) -> list[tuple[object, bytes]]:
    units = list(decode_blob(path.parent.name, path.read_bytes()))
    assert units
    return units  # type: ignore[return-value]


FILES = sorted(p for d in ("mq", "csq1logp") for p in (TESTDATA / d).glob("*.bin"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_test_data_is_drawn_as_before(path: Path) -> None:
    units = _units(path)
    for unit, data in units:
        marks = [(el.offset, f"[{el.type}]") for el in ann._nested(unit.elements, 0)]  # type: ignore[attr-defined]
        want = reference(data, list(unit.spans()), origin=unit.offset,  # type: ignore[attr-defined]
                         codepage=str(unit.attrs.get("codepage", "cp037")), marks=marks)  # type: ignore[attr-defined]
        assert shown(annotate_unit(unit, data)) == shown(want)  # type: ignore[arg-type]


def test_a_large_span_comes_as_blocks_a_piece_at_a_time() -> None:
    """16 MiB inside one span: lines where something starts are Texts, the rest Blocks of
    at most ``BLOCK`` bytes' lines, made when asked for (the first comes before the rest
    is drawn)."""
    size = 16 << 20
    data = memoryview(bytes(size))
    spans = [Span("header", 0, 40, 0), Span("payload", 40, size, 0)]
    items = annotated(data, spans)
    first = [next(items) for _ in range(4)]  # header starts; in it; payload starts; in it
    assert [type(i) for i in first] == [Text, Block, Text, Block]
    assert first[0].plain.endswith(" header")  # type: ignore[union-attr]
    assert first[2].plain.endswith(" payload")  # type: ignore[union-attr]
    assert first[1].style == PALETTE[0] and first[1].text.count(b"\n") == 1  # type: ignore[union-attr]
    lines = 3
    for item in [first[3], *items]:
        assert isinstance(item, Block) and item.style == PALETTE[1]
        assert len(item.text) <= (ann.BLOCK // 16) * len(item.geo.template)
        lines += item.text.count(b"\n")
    assert lines == size // 16


def test_annotate_of_a_large_payload_in_bounded_memory(tmp_path: Path) -> None:
    """``decode mq --annotate`` of a 64 MiB message: every line printed, peak RSS small
    (the whole-unit rendering kept an owner per byte: 512 MiB of list for 64 MiB)."""
    from mqtool.formats.mq.build import build_chain

    head = build_chain([{"type": "MQDLH", "fields": {"reason": 2051}}], payload_format="MQSTR")
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(64 << 20)
    p = peak("decode", "mq", "--annotate", "--color", "never", path, stdout=True)
    assert p.status == 0, p.stderr
    assert p.mib < 128, p.mib
    lines = p.stdout.splitlines()
    assert lines[-1].startswith(f"{(64 << 20) - 16:07X} 00000000 00000000 00000000 00000000")
    assert len(lines) > (64 << 20) // 16
    c = peak("decode", "mq", "--annotate", "--color", "always", path, stdout=True)
    assert c.status == 0 and c.mib < 128, (c.status, c.mib, c.stderr)
    last = c.stdout.splitlines()[-1]
    assert "\x1b[" in last and re.sub("\x1b\\[[0-9;]*m", "", last) == lines[-1]
