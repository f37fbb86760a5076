"""dump -r: amqsbcg data lines, plain hex of any length, X'..' literals, xxd offsets, cut
lines, refused plain hexdump; streaming; fuzzing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError, UndumpError
from mqtool.io.undump import detect, iter_undump, undump
from mqtool.render.hexdump import dump_bytes
from tests.formats.mq.producers import Msg, amqsbcg_listing
from tests.helpers import ROOT, mq

TEXT = "héllo wörld – ünïcode text crossing the 16-byte line ends €€€".encode()


@pytest.mark.parametrize("version,utf8", [(9, True), (9, False), (7, False)])
def test_amqsbcg_data_lines_both_layouts_and_overrun(version: int, utf8: bool) -> None:
    body = TEXT + bytes(range(40))
    listing = amqsbcg_listing([Msg(body)], version=version, utf8_locale=utf8).encode("latin-1")
    text = listing.decode("utf-8", "replace")
    assert detect(text) == "amqsbcg"
    assert undump(text) == body
    # only the data lines, pasted alone
    lines = "\n".join(ln for ln in text.splitlines() if ln[:8].strip() and ln[8:9] == ":")
    assert undump(lines + "\n") == body


def test_mq7_line_with_dlh_characters_is_not_hex() -> None:
    line = "00000000:  444C 4820 0000 0001 0000 0000 0000 0000 'DLH ............'\n"
    assert undump(line) == bytes.fromhex("444C48200000000100000000") + bytes(4)


@pytest.mark.parametrize("text,data", [
    ("E4D9C2C8\n", "E4D9C2C8"),  # one word, shorter than 8 bytes
    ("E4D9C2C8 00000040\n", "E4D9C2C800000040"),  # not an offset and a word
    ("e4\n", "E4"),
    ("48656c6c6f2c20776f726c64\n0a\n", "48656C6C6F2C20776F726C640A"),
    ("X'E4D9C2C8'\n", "E4D9C2C8"),
    ("X'E4D9 C2C8' X'00'\nX''\n", "E4D9C2C800"),
])
def test_plain_hex_of_any_length_and_literals(text: str, data: str) -> None:
    assert undump(text) == bytes.fromhex(data)


@pytest.mark.parametrize("text,line,column,words", [
    ("0123456789ABCDEF0\n", 1, 1, "odd number of hex digits (17)"),
    ("0011\n223\n", 2, 1, "odd number of hex digits (3)"),
    ("X'ABC'\n", 1, 1, "odd number of hex digits (3)"),
    ("X'AB' junk\n", 1, 7, "'junk' is not an X'...' literal"),
    ("00000000: 0001 0203 0405 0607 0809 0a0b 0c0d 0e0f  ................\n0", 2, 1,
     "it is cut"),
    ("00000000: 0001 0203 0405 0607 0809 0a0b 0c0d 0e0f  ................\n00000010: 41", 2, 1,
     "it is cut"),
    ("00000000: 0001 02", 1, 1, "it is cut"),
    ("0000000 0100 0302\n0000004\n", 1, 1, "use 'hexdump -C'"),
])
def test_bad_text_is_an_error_with_line_and_column(text: str, line: int, column: int,
                                                   words: str) -> None:
    with pytest.raises(UndumpError) as e:
        undump(text)
    assert (e.value.line, e.value.column) == (line, column), str(e.value)
    assert words in str(e.value)


def test_xxd_offsets_are_honoured_gaps_zero_filled() -> None:
    text = "00000000: 4142  AB\n00000010: 4344  CD\n00000004: 45  E\n"
    with pytest.raises(UndumpError, match="goes back"):
        undump(text)
    assert undump("00000000: 4142  AB\n00000010: 4344  CD\n") == b"AB" + bytes(14) + b"CD"
    assert undump("00000020: 4142  AB\n") == b"AB"  # xxd -r -s: the first offset is the start


def test_plain_hexdump_is_refused_with_the_hint(tmp_path: Path) -> None:
    p = tmp_path / "h.txt"
    p.write_text("0000000 6568 6c6c 006f\n0000005\n")
    r = mq("dump", "-r", p)
    assert r.status == 2 and "hexdump -C" in r.stderr and "Traceback" not in r.stderr


def test_dump_r_streams_partial_output_then_reports_the_cut(tmp_path: Path) -> None:
    text = "00000000: 0001 0203 0405 0607 0809 0a0b 0c0d 0e0f  ................\n0"
    r = mq("dump", "-r", "-", input=text)
    assert r.status == 2 and r.stdout == bytes(range(16))
    assert "line 2" in r.stderr and "cut" in r.stderr
    out = tmp_path / "o.bin"
    r = mq("dump", "-r", "-", "-o", out, input=text)
    assert r.status == 2 and not out.exists()  # no half-written file
    assert list(tmp_path.iterdir()) == []


def test_line_styles_read_a_large_text_in_bounded_memory(tmp_path: Path) -> None:
    """40 MB of xxd text: peak RSS stays far below the text size."""
    src = tmp_path / "big.bin"
    src.write_bytes(bytes(range(256)) * (10 << 20 >> 8))
    text = tmp_path / "big.xxd"
    with text.open("wb") as f:
        f.write(mq("dump", "--style", "xxd", src).stdout)
    # VmHWM: the peak of this process image (ru_maxrss would include pytest's, before exec)
    code = ("import sys;from mqtool.cli import run;"
            f"rc=run(['dump','-r',{str(text)!r},'-o',{str(tmp_path / 'back.bin')!r}]);"
            "print(next(ln.split()[1] for ln in open('/proc/self/status') "
            "if ln.startswith('VmHWM')));sys.exit(rc)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
    assert (tmp_path / "back.bin").read_bytes() == src.read_bytes()
    assert text.stat().st_size > 40 << 20
    assert int(res.stdout.strip()) < 64 << 10  # KiB: the 44 MB text would not fit


_DATA = st.binary(max_size=300)


@settings(max_examples=120, deadline=None)
@given(data=_DATA, style=st.sampled_from(["document", "xxd", "canonical"]),
       cols=st.sampled_from([8, 16, 32]))
def test_every_dump_style_reads_back(data: bytes, style: str, cols: int) -> None:
    if style == "document":
        cols = 16  # the documents' style infers its width from the offsets
    text = dump_bytes(data, style=style, cols=cols, squeeze=style != "xxd")
    if data:
        assert undump(text) == data


@settings(max_examples=150, deadline=None)
@given(data=_DATA, cut=st.integers(0, 2000), flips=st.lists(
    st.tuples(st.integers(0, 2000), st.sampled_from(list("0Gz: \n'*|X"))), max_size=4),
    style=st.sampled_from(["document", "xxd", "canonical", "plain"]))
def test_damaged_text_raises_only_undump_errors(data: bytes, cut: int,
                                                flips: list[tuple[int, str]], style: str) -> None:
    text = (data.hex() + "\n") if style == "plain" else dump_bytes(data, style=style)
    chars = list(text[:cut])
    for at, ch in flips:
        if at < len(chars):
            chars[at] = ch
    try:
        undump("".join(chars))
    except UndumpError as e:
        assert e.line >= 1 and e.column >= 1
    except MqtoolError:
        pass
    assert list(iter_undump(["E4"], "plain")) == [b"\xe4"]


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=400), base=st.one_of(st.none(), st.integers(0, 1 << 31)),
       squeeze=st.booleans(), cols=st.sampled_from([16, 32]))
def test_document_lines_streamed_equal_the_whole_text_reader(data: bytes, base: int | None,
                                                             squeeze: bool, cols: int) -> None:
    from mqtool.io.undump import NotPlainError, iter_document

    if not data:
        return
    text = dump_bytes(data, base=base, squeeze=squeeze, cols=cols)
    got = b""
    try:
        for chunk in iter_document(text.splitlines()):
            got += chunk
    except NotPlainError:
        assert data.startswith(got)  # what was streamed is right
        return
    assert got == data
    if cols == 16:  # the whole-text reader infers 16 bytes a line from a single line
        assert undump(text) == data


def test_document_style_file_is_streamed(tmp_path: Path) -> None:
    src = tmp_path / "d.bin"
    src.write_bytes(bytes(range(256)) * 4096)
    text = tmp_path / "d.txt"
    text.write_bytes(mq("dump", src).stdout)
    out = tmp_path / "back.bin"
    assert mq("dump", "-r", text, "-o", out).status == 0
    assert out.read_bytes() == src.read_bytes()
    # lines run together (the documents): read whole, same bytes
    joined = tmp_path / "j.txt"
    joined.write_text(text.read_text().replace("*\n0010 ", "* 0010 ", 1))
    assert mq("dump", "-r", joined).stdout == src.read_bytes()
