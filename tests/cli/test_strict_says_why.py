"""``--strict`` never exits 2 silently: the problems that made the status are said on stderr,
one line each with the field path and offset (issue 22, fuzz root cause 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import TESTDATA, mq


def _dlh_wrong_encoding(tmp_path: Path) -> Path:
    data = bytearray((TESTDATA / "mq/dlh-rfh2-mqstr.be.ascii.bin").read_bytes())
    assert int.from_bytes(data[108:112], "big") == 273  # MQDLH Encoding (of the MQRFH2)
    data[108:112] = (546).to_bytes(4, "big")  # says little-endian: a problem, read anyway
    out = tmp_path / "dlh.bin"
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("command", [["decode", "mq"], ["decode", "auto"]], ids=" ".join)
def test_strict_says_the_problems(command: list[str], tmp_path: Path) -> None:
    src = _dlh_wrong_encoding(tmp_path)
    plain = mq(*command, src)
    assert plain.status == 0 and plain.stderr == ""
    r = mq(*command, "--strict", src)
    assert r.status == 2 and r.stdout == plain.stdout
    assert r.stderr == ("mqtool: mq: problem (--strict): Encoding 546 says little-endian integers "
                        "but Version reads 33554432; read big-endian at mqrfh2.version, offset "
                        "X'00B0' (176)\n")


@pytest.mark.parametrize(("fmt", "rel"), [("redolog", "osb/sample6.intent.dump"),
                                          ("matqmsg", "matqmsg/k20.selection.synthetic.dump")])
def test_strict_in_the_other_decoders(fmt: str, rel: str) -> None:
    r = mq("decode", fmt, "--hex", "--strict", TESTDATA / rel)
    assert r.status == 2 and r.stderr.startswith(f"mqtool: {fmt}: problem (--strict): ")
    assert "offset X'" in r.stderr and len(r.stderr.splitlines()) == 1
