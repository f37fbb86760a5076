"""mqtool dump: options, both directions, bad input, terminals and pipes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, mq, seed_bytes

REPLY = "testdata/urb/close-destination.reply.dump"


@pytest.fixture
def reply_bin(tmp_path: Path) -> Path:
    p = tmp_path / "reply.bin"
    p.write_bytes(seed_bytes("urb/close-destination.reply.dump"))
    return p


def test_dump_document_style(reply_bin: Path) -> None:
    r = mq("dump", reply_bin)
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[0] == "0000 E4D9C2C8 00000040 F0F10001 000000C0 *URBH... 01......*"
    assert lines[4] == "0040 E4D9C2E2 00000080 E3D6D2C5 D5F0F0F1 *URBS....TOKEN001*"
    assert len(lines) == 12


def test_reverse_gives_exactly_the_message(in_root: None) -> None:
    r = mq("dump", "-r", REPLY)
    assert r.status == 0 and len(r.stdout) == 192 and r.stdout[:4] == b"\xe4\xd9\xc2\xc8"


def test_reverse_from_stdin_then_dump_again(in_root: None) -> None:
    text = (TESTDATA / "urb" / "status.request.dump").read_text()
    back = mq("dump", "-r", "-", input=text)
    again = mq("dump", "-", input=back.stdout)
    assert mq("dump", "-r", "-", input=again.stdout).stdout == back.stdout


def test_seek_length_cols_group(reply_bin: Path) -> None:
    r = mq("dump", reply_bin, "-s", "0x40", "-l", "8", "--style", "xxd", "-g", "4", "-u")
    assert r.text == "00000040: E4D9C2E2 00000080                    ........\n"
    r = mq("dump", reply_bin, "-s", "-16", "-c", "8")
    assert r.text.splitlines()[0].startswith("00B0 00000000 00000000")


def test_base_prints_storage_addresses(tmp_path: Path) -> None:
    p = tmp_path / "parm.bin"
    p.write_bytes(seed_bytes("osb/sample1.parmlist.dump"))
    r = mq("dump", p, "--base", "0x7A2A8")
    assert r.text.splitlines()[0] == "0007A2A8                   46E48C20 00000176 *        .U......*"
    assert mq("dump", p, "--base", "X'0007A2A8'").text == r.text


def test_codepage_ascii_and_dual(reply_bin: Path) -> None:
    assert mq("dump", reply_bin, "--codepage", "ascii").text.splitlines()[0].endswith(
        "*.......@........*")
    assert mq("dump", reply_bin, "--codepage", "1047").status == 0
    bad = mq("dump", reply_bin, "--codepage", "cp99999")
    assert bad.status == ExitStatus.USAGE and "unknown code page" in bad.stderr


def test_no_squeeze(tmp_path: Path) -> None:
    p = tmp_path / "z.bin"
    p.write_bytes(bytes(64))
    assert "identical line(s) suppressed" in mq("dump", p).text
    assert len(mq("dump", p, "-v").text.splitlines()) == 4


def test_no_colour_when_piped_colour_when_asked(reply_bin: Path) -> None:
    assert b"\x1b[" not in mq("dump", reply_bin).stdout
    coloured = mq("dump", reply_bin, "--color", "always").stdout
    assert b"\x1b[" in coloured
    assert b"\x1b[" not in mq("dump", reply_bin, "--color", "never").stdout


def test_output_file_and_no_overwrite(in_root: None, tmp_path: Path) -> None:
    out = tmp_path / "msg.bin"
    assert mq("dump", "-r", REPLY, "-o", out).status == 0
    assert out.read_bytes()[:4] == b"\xe4\xd9\xc2\xc8"
    again = mq("dump", "-r", REPLY, "-o", out)
    assert again.status == ExitStatus.USAGE and "exists" in again.stderr
    assert mq("dump", "-r", REPLY, "-o", out, "--force").status == 0


def test_missing_file_is_one_line_error() -> None:
    r = mq("dump", "no/such/file.bin")
    assert r.status == ExitStatus.USAGE
    assert r.stderr == "mqtool: no/such/file.bin: no such file\n"


def test_reverse_of_prose_names_line_and_column(tmp_path: Path) -> None:
    p = tmp_path / "prose.txt"
    p.write_text("Hello,\nthis is not a dump.\n")
    r = mq("dump", "-r", p)
    assert r.status == ExitStatus.DECODE
    assert r.stderr.startswith("mqtool: dump text: line 1, column 1: no dump line found")
    assert "Traceback" not in r.stderr


def test_reverse_of_bad_word(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_text("0000 E4D9C2C8 00000040\n0010 0000ZZ01\n0020 00000000\n")
    r = mq("dump", "-r", p)
    assert r.status == 2
    assert "line 2, column 6: '0000ZZ01' is not a hex word" in r.stderr


def test_usage_errors_exit_1() -> None:
    assert mq("dump", "--bogus").status == ExitStatus.USAGE
    assert mq("dump", "-s", "twelve", "x").status == ExitStatus.USAGE


class _Tty:
    """A binary stream that says it is a terminal."""

    def __init__(self) -> None:
        import io

        self.buf = io.BytesIO()

    def write(self, data: bytes) -> int:
        return self.buf.write(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_binary_is_never_written_to_a_terminal() -> None:
    from mqtool.cli._common import Env, write_binary
    from mqtool.errors import InputError

    env = Env(stdout=_Tty())  # type: ignore[arg-type]
    with pytest.raises(InputError, match="refusing to write binary data to a terminal"):
        write_binary(env, b"\x00\x01", None)
    assert env.stdout.buf.getvalue() == b""  # type: ignore[attr-defined]


def test_colour_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.cli._common import Env

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert Env(stdout=_Tty()).color  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not Env(stdout=_Tty()).color  # type: ignore[arg-type]
    assert Env(stdout=_Tty(), color_mode="always").color  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    assert not Env(stdout=_Tty(), color_mode="never").color  # type: ignore[arg-type]
