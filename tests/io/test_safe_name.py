"""safe_name: names from the input never leave the output directory nor fool a terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqtool.errors import EnvError, ExitStatus
from mqtool.io.outputs import OutputDir, safe_name


@pytest.mark.parametrize(("name", "expected"), [
    ("d:\\mytext.txt", "mytext.txt"),  # CONTRACTS.md's example
    ("../../etc/passwd", "passwd"),
    ("\\\\server\\share\\x.txt", "x.txt"),
    ("C:evil.txt", "evil.txt"),
    ("a\x00/../b", "b"),
    ("CON", "F"), ("con.txt", "F"), ("COM1.log", "F"), ("NUL ", "F"), ("..", "F"), ("", "F"),
    ("report\x85v2.txt", "report_v2.txt"),  # C1 control: EBCDIC NL (X'15') decoded
    ("photo\u202egpj.exe", "photo_gpj.exe"),  # right-to-left override: shows as "exe.jpg"
    ("a\u2066b\u2069.txt", "a_b_.txt"),
    ("line\u2028sep", "line_sep"),
    ("Grüße.txt", "Grüße.txt"),  # ordinary non-ASCII letters stay
    # Windows drops blanks before the dot: "con .txt" opens the console device
    ("con .txt", "F"), ("CON  .tar.gz", "F"), ("lpt1 .log", "F"), ("aux. .txt", "F"),
    ("nul\u200b.txt", "F"),  # a zero-width space does not hide a device name
    ("console.txt", "console.txt"), ("con_x.txt", "con_x.txt"),
    # invisible characters are removed, not replaced
    ("re\u200eport.txt", "report.txt"), ("re\u200fport.txt", "report.txt"),
    ("re\u061cport.txt", "report.txt"), ("re\u200bport.txt", "report.txt"),
    ("\ufeffreport.txt", "report.txt"), ("a\u2060b\u00ad.txt", "ab.txt"),
    ("\u200b\u200e", "F"),  # nothing visible left
    ("name. . .", "name"),  # Windows drops trailing dots and blanks
])
def test_safe_name(name: str, expected: str) -> None:
    assert safe_name(name, "F") == expected


def test_a_planted_symlink_is_an_environment_error(tmp_path: Path) -> None:
    out = OutputDir(tmp_path / "out")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "evil").symlink_to(tmp_path / "elsewhere.txt")
    with pytest.raises(EnvError, match="refusing to write outside") as e:
        out.path("evil")
    assert e.value.status == ExitStatus.ENVIRONMENT
    assert not (tmp_path / "elsewhere.txt").exists()


def test_output_dir_is_made_when_first_used(tmp_path: Path) -> None:
    out = OutputDir(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()  # a run that fails before writing leaves nothing
    with out.create("x.bin") as f:
        f.write(b"x")
    assert (tmp_path / "a" / "b" / "x.bin").read_bytes() == b"x"
    (tmp_path / "file").write_text("")
    with pytest.raises(EnvError, match="is not a directory"):
        OutputDir(tmp_path / "file" / "out")


def test_output_dir_files_appear_whole(tmp_path: Path) -> None:
    out = OutputDir(tmp_path / "out")
    with pytest.raises(RuntimeError), out.create("a.bin") as f:
        f.write(b"half")
        raise RuntimeError("mid-write")
    assert list((tmp_path / "out").iterdir()) == []
    with out.create("a.bin") as f:
        f.write(b"whole")
    assert (tmp_path / "out" / "a.bin").read_bytes() == b"whole"
