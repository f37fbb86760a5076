"""USREXTPL read in bounded memory whatever the input's size (issue 22, fuzz root cause 11:
64 KiB made a layout of 16,384 fields, cached: 512 MB)."""

from __future__ import annotations

from pathlib import Path

from mqtool import api
from mqtool.formats.osb.layout import POINTER_LEN, USREXTPL_MAX
from tests.rss import peak


def test_a_large_input_reads_the_first_pointers_and_says_so(tmp_path: Path) -> None:
    data = bytes(range(256)) * 256  # 64 KiB: 16,384 fullwords
    [unit] = api.decode("redolog", data, part="usrextpl")
    spans = unit.elements[0].spans
    assert len(spans) == USREXTPL_MAX
    assert spans[1].path.endswith("exit_1@") and spans[1].value == 0x04050607
    assert [(p.offset, p.reason.split(":")[0]) for p in unit.errors] == \
        [(USREXTPL_MAX * POINTER_LEN, "16384 fullwords")]
    src = tmp_path / "usrextpl.bin"
    src.write_bytes(data)
    p = peak("decode", "redolog", "--part", "usrextpl", src)
    assert p.status == 2 and p.mib < 100, p
    assert p.stderr.startswith("mqtool: redolog: 16384 fullwords: more than the 64 pointers")


def test_a_field_map_reads_as_many_as_it_names() -> None:
    names = [f"p{i}@" for i in range(100)]
    [unit] = api.decode("redolog", bytes(400), part="usrextpl", names=names)
    assert len(unit.elements[0].spans) == 100 and not unit.errors
    [unit] = api.decode("redolog", bytes(800), part="usrextpl", names=names)
    assert len(unit.elements[0].spans) == 100
    assert unit.errors[0].offset == 400 and unit.errors[0].reason.startswith("200 fullwords")
