"""Dump text read back (``dump -r``, ``--hex``, ``identify``, ``decode auto``) whatever its
shape: empty, a FIFO, offsets that jump far, one long line, mqtool's own output with any
options (issue 22, fuzz root causes 3, 4, 13, 14, 19)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mqtool.io.undump import undump
from tests.helpers import mq
from tests.rss import peak

DATA = {
    "mixed": bytes(range(64)) + bytes(80) + b"URBH" * 10,
    "zeros": bytes(300),
    "random": bytes((i * 7919 + 13) % 251 for i in range(5000)) + bytes(4000) + b"\x01" * 77,
}
OPTIONS = [[], ["-c", "8"], ["-c", "4"], ["-c", "12"], ["-c", "24"], ["-c", "32"], ["-c", "64"],
           ["--base", "0x1006"], ["--base", "0x1006", "-c", "8"], ["--base", "0x1003", "-v"],
           ["--dual"], ["-v"], ["-g", "1"], ["-g", "2"], ["-g", "8"], ["-s", "5"]]


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_own_dump_output_reads_back_everywhere(data: str, options: list[str],
                                               tmp_path: Path) -> None:
    """Every document-style dump mqtool prints reads back to its bytes with dump -r (a
    file and stdin), --hex and identify: partial first lines (--base, -s), squeezed lines
    and widths other than 16 (root cause 13)."""
    src = tmp_path / "in.bin"
    src.write_bytes(DATA[data])
    expected = DATA[data][5:] if options[:1] == ["-s"] else DATA[data]
    text = tmp_path / "in.txt"
    text.write_bytes(mq("dump", *options, src).stdout)
    assert mq("dump", "-r", text).stdout == expected
    assert mq("dump", "-r", "-", input=text.read_bytes()).stdout == expected
    assert undump(text.read_text()) == expected  # what --hex, identify and decode auto read
    r = mq("identify", text)
    assert f"hex dump text (document style, {len(expected)} bytes)" in r.text


def test_empty_input_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    for args in (["dump", "-r", tmp_path / "empty"], ["dump", "-r", "-"]):
        r = mq(*args, input=b"")
        assert r.status == 2 and r.stdout == b"", r.stderr
        assert "empty input" in r.stderr and len(r.stderr.splitlines()) == 1


def test_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = mq("dump", "-r", fifo)  # would block forever if opened
    assert r.status == 1 and r.stderr == f"mqtool: {fifo}: is a FIFO: mqtool reads regular files " \
                                         "only (pipe the data into stdin and give '-')\n"


XXD_JUMP = "00000000: 4142 4344  ABCD\n40000000: 4546  EF\n"  # 108-byte texts: 1 GiB apart


def test_offsets_that_jump_far_cost_no_memory(tmp_path: Path) -> None:
    """An xxd text whose offsets jump 1 GiB: refused in one line where the bytes are read
    into memory (--hex, decode auto, identify), written as a hole by dump -r -o (root cause
    3: 1.08 GB before)."""
    text = tmp_path / "jump.xxd"
    text.write_text(XXD_JUMP)
    for args in (["decode", "urb", "--hex", text], ["decode", "auto", text], ["identify", text]):
        p = peak(*args)
        assert p.status == 2 and p.mib < 100, (args, p)
        assert len(p.stderr.splitlines()) <= 1 and "Traceback" not in p.stderr
    assert "line 2, column 1: this line stands for 1,073,741,820 bytes" in \
        mq("decode", "urb", "--hex", text).stderr
    out = tmp_path / "jump.bin"
    p = peak("dump", "-r", text, "-o", out)
    assert p.status == 0 and p.mib < 100, p
    assert out.stat().st_size == 0x40000002
    with out.open("rb") as f:
        assert f.read(4) == b"ABCD"
        f.seek(0x40000000 - 2)
        assert f.read() == b"\0\0EF"
    assert out.stat().st_blocks * 512 < 1 << 20  # a hole, where the file system has them


def test_repeats_that_stand_for_much_are_refused_in_memory() -> None:
    text = "0000 00000000 00000000 00000000 00000000 *................*\n" \
           "99999999 identical line(s) suppressed\n"
    r = mq("decode", "urb", "--hex", "-", input=text)
    assert r.status == 2 and "line 2" in r.stderr and "1,599,999,984 bytes" in r.stderr


@pytest.mark.parametrize("words", [False, True], ids=["one-word", "words"])
def test_plain_hex_on_one_long_line_streams(words: bool, tmp_path: Path) -> None:
    """48 MiB of plain hex on one line (one word, or 8-digit words): dump -r reads it a
    piece at a time (root cause 19: 200 MiB -> 646 MB before, about 3x the text)."""
    data = os.urandom(24 << 20) if not words else os.urandom(21 << 20)
    text = tmp_path / "one.hex"
    hexed = data.hex()
    if words:
        hexed = " ".join(hexed[i:i + 8] for i in range(0, len(hexed), 8))
    text.write_text(hexed + "\n")
    out = tmp_path / "one.bin"
    p = peak("dump", "-r", text, "-o", out)
    assert p.status == 0, p.stderr
    assert out.read_bytes() == data
    assert p.mib < 80, p  # the text alone is 48 MiB or more


def test_plain_hex_errors_name_line_and_column(tmp_path: Path) -> None:
    r = mq("dump", "-r", "-", input="C1C2C3C4\nC5C6C\n")
    assert r.status == 2 and r.stdout == bytes.fromhex("C1C2C3C4")
    assert r.stderr == "mqtool: dump text: line 2, column 1: 'C5C6C' has an odd number of hex " \
                       "digits (5)\n"
    r = mq("dump", "-r", "-", input="X'C1C2' X'C3\n")
    assert r.status == 2 and "line 1, column 9: an X'...' literal with no closing quote" in r.stderr
