"""Damaged inputs: opening either fails with an MqtoolError naming the problem, or every unit
loads, its tree covers its spans, each byte's innermost node covers it, and the hex renders."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.view.export import as_json
from mqtool.view.fields import FIELD, build_tree, innermost
from mqtool.view.hexlines import HexModel
from mqtool.view.sources import open_source
from tests.view.conftest import CSQ_2SEG, SAS_QMSG, URB_DATA, URB_PROBLEM

SEEDS = [URB_DATA.read_bytes(), URB_PROBLEM.read_bytes(), CSQ_2SEG.read_bytes(), SAS_QMSG.read_bytes()]


def _binary(seed: bytes) -> bytes:
    from mqtool.io.undump import undump

    try:
        return undump(seed.decode("utf-8"))
    except (MqtoolError, UnicodeDecodeError):
        return seed


BINARIES = [_binary(s) for s in SEEDS]


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS + BINARIES)))
    for _ in range(draw(st.integers(0, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        data[at] = draw(st.integers(0, 255))
    cut = draw(st.integers(0, len(data)))
    return bytes(data[:cut] if draw(st.booleans()) else data)


def check_source(path: str, **args: object) -> None:
    try:
        src = open_source(path, **args)  # type: ignore[arg-type]
    except MqtoolError as e:
        assert str(e)
        return
    while not src.done:
        src.advance(1)
    assert len(src) >= 1
    for i in range(min(len(src), 20)):
        assert isinstance(src.row(i).info, str)
        loaded = src.load(i)
        unit = loaded.unit
        root = build_tree(unit)
        fields = {n.path for n in root.walk() if n.kind == FIELD}
        assert fields == {s.path for s in unit.spans()}
        for off in range(loaded.origin, loaded.origin + len(loaded.data), 7):
            node = innermost(root, off)
            assert node is None or node.covers(off)
        model = HexModel(loaded.data, loaded.origin, list(unit.spans()), loaded.codepage)
        for row in range(model.lines):
            model.line(row, (root.start, root.end), loaded.origin)
        as_json(root, unit, loaded.data, loaded.origin)
        for p in [*unit.errors, *unit.problems]:
            assert p.reason


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(), st.booleans())
def test_damaged_inputs_open_or_fail_cleanly(data: bytes, hex_text: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "input"
        path.write_bytes(data)
        check_source(str(path), hex_text=hex_text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(), st.sampled_from(["urb", "csq1logp", "sas-attachment", "redolog", "matqmsg"]))
def test_damaged_inputs_with_a_forced_codec(data: bytes, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "input"
        path.write_bytes(data)
        check_source(str(path), fmt=fmt)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=64), st.integers(0, 4000), st.booleans())
def test_a_damaged_extract_frames_and_decodes(noise: bytes, at: int, cut: bool) -> None:
    from mqtool.testing import csq1logp_gen

    data = csq1logp_gen.framed(csq1logp_gen.records(csq1logp_gen.Spec(count=12, avg_data=100)))
    at = min(at, len(data))
    broken = data[:at] + noise + (b"" if cut else data[at:])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "extract.rdw"
        path.write_bytes(broken)
        check_source(str(path), fmt="csq1logp")
