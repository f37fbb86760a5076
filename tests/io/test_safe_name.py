"""safe_name: names from the input never leave the output directory nor fool a terminal."""

from __future__ import annotations

import pytest

from mqtool.io.outputs import safe_name


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
])
def test_safe_name(name: str, expected: str) -> None:
    assert safe_name(name, "F") == expected
