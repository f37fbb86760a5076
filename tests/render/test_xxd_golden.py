"""--style xxd and --style canonical against the real xxd and hexdump -C on random data."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import mq

XXD = shutil.which("xxd")
HEXDUMP = shutil.which("hexdump")


def _data(seed: int) -> bytes:
    rnd = random.Random(seed)
    parts = [rnd.randbytes(rnd.randrange(0, 70)), bytes(rnd.choice([0, 16, 40, 64, 100])),
             b"A" * rnd.randrange(0, 50), rnd.randbytes(rnd.randrange(0, 40)),
             bytes(rnd.choice([0, 32, 48]))]
    return b"".join(parts)


def _files(tmp_path: Path) -> list[Path]:
    out = []
    for seed in range(6):
        p = tmp_path / f"r{seed}.bin"
        p.write_bytes(_data(seed))
        out.append(p)
    (tmp_path / "empty.bin").write_bytes(b"")
    (tmp_path / "zeros.bin").write_bytes(bytes(160))
    return [*out, tmp_path / "empty.bin", tmp_path / "zeros.bin"]


XXD_OPTIONS = ["", "-a", "-p", "-i", "-b", "-e", "-u", "-c 0", "-c 8", "-c 7 -g 3", "-g 0",
               "-g 1 -c 24", "-e -g 8", "-e -g 2 -c 10", "-b -c 4 -g 2", "-a -c 8", "-p -c 7",
               "-p -c 0", "-i -c 5 -u", "-s 5 -l 33", "-a -e", "-b -a"]


@pytest.mark.skipif(XXD is None, reason="xxd not installed (.ci/run installs it)")
@pytest.mark.parametrize("opts", XXD_OPTIONS)
def test_style_xxd_is_byte_identical_to_xxd(tmp_path: Path, opts: str) -> None:
    for f in _files(tmp_path):
        want = subprocess.run([XXD, *opts.split(), f.name], cwd=tmp_path, capture_output=True,
                              check=True).stdout
        import os

        old = os.getcwd()
        os.chdir(tmp_path)
        try:
            r = mq("dump", "--style", "xxd", *opts.split(), f.name)
        finally:
            os.chdir(old)
        assert r.status == 0, r.stderr
        assert r.stdout == want, (opts, f.name)


@pytest.mark.skipif(XXD is None, reason="xxd not installed (.ci/run installs it)")
@pytest.mark.parametrize("opts", ["", "-c 8", "-g 4", "-a"])
def test_xxd_reverse_of_our_output_is_the_data(tmp_path: Path, opts: str) -> None:
    for f in _files(tmp_path):
        text = mq("dump", "--style", "xxd", *opts.split(), f).stdout
        back = subprocess.run([XXD, "-r", *(["-c", opts.split()[1]] if "-c" in opts else [])],
                              input=text, capture_output=True, check=True).stdout
        data = f.read_bytes()
        # xxd -r stops at the last byte it was given; -a may drop trailing zero lines it
        # marks with '*' only when more lines follow
        assert back == data or (opts == "-a" and data.startswith(back)
                                and not data[len(back):].strip(b"\x00"))
        assert mq("dump", "-r", "-", input=text).stdout == back


@pytest.mark.skipif(HEXDUMP is None, reason="hexdump not installed (.ci/run installs it)")
@pytest.mark.parametrize("opts", ["", "-v"])
def test_style_canonical_is_byte_identical_to_hexdump_c(tmp_path: Path, opts: str) -> None:
    for f in _files(tmp_path):
        want = subprocess.run([HEXDUMP, "-C", *opts.split(), str(f)], capture_output=True,
                              check=True).stdout
        r = mq("dump", "--style", "canonical", *(["-v"] if opts else []), f)
        assert r.stdout == want, f.name
        assert mq("dump", "-r", "-", input=want).stdout == f.read_bytes()


def test_xxd_options_need_the_xxd_style(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    f.write_bytes(b"abc")
    r = mq("dump", "--style", "canonical", "-p", f)
    assert r.status == 1 and "xxd options" in r.stderr
    r = mq("dump", "--style", "xxd", "-e", "-g", "3", f)
    assert r.status == 1 and "power of 2" in r.stderr


@pytest.mark.skipif(XXD is None, reason="xxd not installed (.ci/run installs it)")
@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=200) | st.builds(lambda n, t: bytes(n) + t, st.integers(0, 120),
                                                 st.binary(max_size=40)),
       mode=st.sampled_from(["", "-p", "-i", "-b", "-e", "-a"]),
       cols=st.sampled_from([None, 0, 1, 4, 7, 16, 33]), group=st.sampled_from([None, 0, 1, 2, 4, 8]),
       upper=st.booleans())
def test_random_options_match_xxd(data: bytes, mode: str, cols: int | None, group: int | None,
                                  upper: bool) -> None:
    opts = [*mode.split(), *(["-c", str(cols)] if cols is not None else []),
            *(["-g", str(group)] if group is not None else []), *(["-u"] if upper else [])]
    want = subprocess.run([XXD, *opts], input=data, capture_output=True)
    r = mq("dump", "--style", "xxd", *opts, "-", input=data)
    if want.returncode != 0:  # xxd refuses (-e with a group that is no power of 2)
        assert r.status == 1
        return
    assert r.status == 0 and r.stdout == want.stdout, opts
