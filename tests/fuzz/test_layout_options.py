"""The error contract for the layouts of ``extract urb --typed``: any ``--format-buffer``
value and any ``--fdt`` file gives typed tables (status 0, or 2 with the values that did not
decode as errors rows) or one ``mqtool:`` line naming the option or file and where in it,
before anything is written -- never a traceback, never status 70."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from mqtool.testing import urb_gen
from tests.fuzz.strategies import run_fuzz
from tests.helpers import mq

ENTRIES = st.sampled_from(["AA", "AA,8", "AA,8,A", "AB,0,A", "AC,5.2,P", "AD,4,U", "AE,1,B", "AF,4,F",
                           "AI,4,G", "AO,12,W", "AP1-3,3,A", "APC", "AQ1-N", "BB1(1-3),2,P", "3X",
                           "'lit'", "AH,8,U,DATE", "AA,99999,A", "AA,-1", "(AA=1)", "AA,8,Q", "",
                           ",", ".", "A", "1-", "\x00", "\u202e", "AA1-0", "ZZ,2,B"])
BUFFERS = st.one_of(st.lists(ENTRIES, max_size=7).map(",".join), st.text(max_size=30))
OPTIONS = st.one_of(st.tuples(st.sampled_from(["10006:9=", "10006:9='", "0:9=", "70000:1=", "1:2:3=",
                                               "10006:9", ""]), BUFFERS).map("".join),
                    st.text(max_size=20))
FIELD = st.fixed_dictionaries({}, optional={
    "name": st.sampled_from(["AA", "AB", "AC", "A", "1A", "AAA", "", None, 7]),
    "level": st.sampled_from([1, 2, 3, 0, 8, "1", None]),
    "length": st.sampled_from([8, 0, 5, -1, 40000, None, "8"]),
    "format": st.sampled_from(["A", "P", "U", "B", "Q", None, 1]),
    "options": st.sampled_from([[], ["MU"], ["PE"], "MU", [1]]),
    "occurrences": st.sampled_from([None, 2, -1, 70000]),
    "decimals": st.sampled_from([0, 2, -1, "x"]),
    "long_name": st.sampled_from(["PERSONNEL-ID", "", "\x1b[2J", None, 3])})
FDTS = st.one_of(st.fixed_dictionaries({"fields": st.lists(FIELD, max_size=4)},
                                       optional={"dbid": st.sampled_from([10006, 0, "x"]),
                                                 "fnr": st.sampled_from([9, 70000])}).map(json.dumps),
                 st.text(max_size=40))


def _contract(r: object, out: Path) -> None:
    err = r.stderr  # type: ignore[attr-defined]
    status = r.status  # type: ignore[attr-defined]
    assert "Traceback" not in err and "internal error" not in err, err
    assert status in (ExitStatus.OK, ExitStatus.USAGE, ExitStatus.DECODE), err
    assert "\x1b" not in err
    lines = err.splitlines()
    if status and not out.exists():  # refused before anything was written: one line
        assert len(lines) == 1 and lines[0].startswith("mqtool: "), err
    if status == ExitStatus.DECODE and out.exists():  # values that did not decode: said, written
        assert lines and lines[-1].startswith("mqtool: urb: ") and "offset" in lines[-1], err


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    fields = urb_gen.employees()[:5]
    path = tmp_path_factory.mktemp("layouts") / "s.urb"
    path.write_bytes(urb_gen.stream(fields, urb_gen.changes(3, seed=2), gfft=False).data)
    return path


def test_fuzz_format_buffer_option(stream: Path, tmp_path_factory: pytest.TempPathFactory,
                                   fuzz_examples: int) -> None:
    def prop(option: str) -> None:
        out = tmp_path_factory.mktemp("fb") / "out"
        _contract(mq("extract", "urb", "--typed", stream, "-o", out, "--format-buffer", option), out)

    run_fuzz(fuzz_examples, prop, OPTIONS)


def test_fuzz_fdt_file(stream: Path, tmp_path_factory: pytest.TempPathFactory, fuzz_examples: int) -> None:
    def prop(text: str) -> None:
        d = tmp_path_factory.mktemp("fdt")
        (d / "fdt.json").write_text(text, encoding="utf-8")
        out = d / "out"
        _contract(mq("extract", "urb", "--typed", stream, "-o", out, "--fdt", d / "fdt.json",
                     "--format-buffer", "10006:9=AA,AB,AC."), out)

    run_fuzz(fuzz_examples, prop, FDTS)
