"""--offset / --length as xxd -s / -l: the bytes of a window are the bytes xxd prints."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mqtool.errors import InputError
from mqtool.io import window

DATA = bytes(range(256)) * 3


@pytest.mark.parametrize(("offset", "length"), [
    ("0", "16"), ("0x40", "0x20"), ("100", None), ("-0x30", "8"), ("-5", None), ("767", "10"),
    ("768", None),
])
def test_windows_match_xxd(tmp_path: Path, offset: str, length: str | None) -> None:
    xxd = shutil.which("xxd")
    assert xxd is not None, "xxd (vim-common) is a test dependency"
    p = tmp_path / "data.bin"
    p.write_bytes(DATA)
    args = [xxd, "-p", "-s", offset, *(["-l", length] if length else []), str(p)]
    out = subprocess.run(args, capture_output=True, check=True, text=True).stdout
    expected = bytes.fromhex("".join(out.split()))
    got, start = window.cut(DATA, offset, length)
    assert got == expected
    assert start == window.resolve(len(DATA), offset, length).start


def test_numbers() -> None:
    assert [window.parse_number(t) for t in ("1024", "0x400", "X'400'", "-0x10", "1_000")] == [
        1024, 1024, 1024, -16, 1000]
    with pytest.raises(InputError, match="--offset 'ten': not a number"):
        window.parse_number("ten")


def test_bad_windows_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="past the end of the input \\(10 bytes\\)"):
        window.resolve(10, "11")
    with pytest.raises(InputError, match="has only 10 bytes"):
        window.resolve(10, "-11")
    with pytest.raises(InputError, match="needs a file, not stdin"):
        window.resolve(None, "-1")
    with pytest.raises(InputError, match="must not be negative"):
        window.resolve(10, "0", "-1")
