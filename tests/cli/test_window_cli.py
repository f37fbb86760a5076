"""``--offset`` / ``--length`` on every decoder, ``identify``, ``view`` and ``dump``, against
xxd's ``-s`` / ``-l``: each command given the window of a larger file says what it says of
the bytes ``xxd -s OFFSET -l LENGTH -p`` prints (written to a file of their own), with
every offset it reports moved by OFFSET -- absolute in the larger file."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, mq, seed_bytes

BEFORE, AFTER = 0x123, 77  # random bytes around the structure


def _xxd(path: Path, offset: str, length: str | None) -> bytes:
    xxd = shutil.which("xxd")
    assert xxd is not None, "xxd (vim-common) is a test dependency"
    args = [xxd, "-p", "-s", offset, *(["-l", length] if length is not None else []), str(path)]
    out = subprocess.run(args, capture_output=True, check=True, text=True).stdout
    return bytes.fromhex("".join(out.split()))


def _embedded(tmp_path: Path, blob: bytes) -> Path:
    rng = random.Random(len(blob))
    p = tmp_path / "image.bin"
    p.write_bytes(rng.randbytes(BEFORE) + blob + rng.randbytes(AFTER))
    return p


STRUCTURES = {  # decoder -> a structure it reads
    "urb": seed_bytes("urb/close-destination.reply.dump"),
    "mq": (TESTDATA / "mq" / "dlh-rfh2-mqstr.be.ascii.bin").read_bytes(),
    "csq1logp": seed_bytes("csq1logp/hello-2seg.dump"),
    "redolog": seed_bytes("osb/sample3.header.dump"),
    "matqmsg": seed_bytes("matqmsg/keyed-eq.receiver.synthetic.dump"),
    "sas-attachment": seed_bytes("sas/seed-zos.header.dump"),
    "auto": (TESTDATA / "mq" / "event.le.ascii.bin").read_bytes(),
}


def _shifted(unit: dict[str, Any], delta: int) -> dict[str, Any]:
    """A unit's JSON with every offset ``model.shift_unit`` moves moved by ``delta`` (nested
    elements' too)."""
    out = dict(unit, offset=unit["offset"] + delta)
    for key in ("elements", "errors", "problems", "children"):
        if isinstance(unit.get(key), list):
            out[key] = [_shifted(x, delta) if "offset" in x else x for x in unit[key]]
    return out


def _units(*args: object) -> tuple[int, list[dict[str, Any]]]:
    r = mq(*args)
    return r.status, [json.loads(line) for line in r.text.splitlines()]


@pytest.mark.parametrize("fmt", sorted(STRUCTURES))
@pytest.mark.parametrize("how", ["exact", "hex", "to-the-end"])
def test_every_decoder_reads_the_window_xxd_shows(fmt: str, how: str, tmp_path: Path) -> None:
    blob = STRUCTURES[fmt]
    image = _embedded(tmp_path, blob)
    offset, length = {"exact": (str(BEFORE), str(len(blob))),
                      "hex": (hex(BEFORE), hex(len(blob))),
                      "to-the-end": (f"-{len(blob) + AFTER}", str(len(blob)))}[how]
    window = tmp_path / "window.bin"
    window.write_bytes(_xxd(image, offset, length))
    assert window.read_bytes() == blob
    status_alone, alone = _units("decode", fmt, "--json", window)
    status, got = _units("decode", fmt, "--json", "--offset", offset, "--length", length, image)
    assert alone and status == status_alone
    assert got == [_shifted(u, BEFORE) for u in alone]


def test_the_listing_and_the_annotated_dump_say_absolute_offsets(tmp_path: Path) -> None:
    blob = STRUCTURES["urb"]
    image = _embedded(tmp_path, blob)
    r = mq("decode", "urb", "--offset", BEFORE, "--length", len(blob), image)
    assert r.status == 0 and r.text.splitlines()[0] == f"URBH element at offset X'{BEFORE:04X}'"
    a = mq("decode", "urb", "--annotate", "--offset", BEFORE, "--length", len(blob), image)
    first = a.text.splitlines()[0]
    assert first.startswith(f"{BEFORE:04X} {blob[:4].hex().upper()} ")


def test_an_error_names_the_absolute_offset(tmp_path: Path) -> None:
    blob = STRUCTURES["urb"]
    image = _embedded(tmp_path, blob)
    r = mq("decode", "urb", "--offset", BEFORE, "--length", 70, image)  # cut inside URBS
    assert r.status == ExitStatus.DECODE
    alone = tmp_path / "cut.bin"
    alone.write_bytes(_xxd(image, str(BEFORE), "70"))
    a = mq("decode", "urb", alone)
    at = int(a.stderr.rsplit("(", 1)[1].rstrip(")\n"))
    assert r.stderr.rstrip().endswith(f"offset X'{at + BEFORE:04X}' ({at + BEFORE})")


def test_hex_dump_text_windows_its_bytes(tmp_path: Path) -> None:
    text = TESTDATA / "urb" / "inst-color.data.dump"
    r = mq("decode", "urb", "--hex", "--offset", "0x40", "--length", 8, "--json", text)
    assert r.status == ExitStatus.DECODE  # 8 bytes of the URBT: no URBH there
    assert json.loads(r.text)["offset"] == 0x40


@pytest.mark.parametrize(("offset", "length"), [("0x123", "0x40"), ("-0x50", None), ("0", "16")])
def test_identify_judges_the_window(offset: str, length: str | None, tmp_path: Path) -> None:
    image = _embedded(tmp_path, STRUCTURES["urb"])
    window = tmp_path / "w.bin"
    window.write_bytes(_xxd(image, offset, length))
    argv = ["--offset", offset, *(["--length", length] if length else [])]
    got = mq("identify", "--json", *argv, image)
    alone = mq("identify", "--json", window)
    assert got.status == alone.status
    g, a = json.loads(got.text), json.loads(alone.text)
    assert (g["format"], g["confidence"], g["reason"]) == (a["format"], a["confidence"], a["reason"])


@pytest.mark.parametrize("args", [["-s", "0x10", "-l", "0x33"], ["--offset", "-100"],
                                  ["--offset", "291", "--length", "7"], ["-s", "0"]])
def test_dump_is_xxd(args: list[str], tmp_path: Path) -> None:
    image = _embedded(tmp_path, STRUCTURES["urb"])
    xxd_args = [a.replace("--offset", "-s").replace("--length", "-l") for a in args]
    want = subprocess.run(["xxd", *xxd_args, str(image)], capture_output=True, check=True).stdout
    assert mq("dump", "--style", "xxd", *args, image).stdout == want


def test_view_opens_the_window_with_absolute_offsets(tmp_path: Path) -> None:
    from mqtool.io.window import WindowRequest
    from mqtool.view.sources import open_source

    blob = STRUCTURES["urb"]
    image = _embedded(tmp_path, blob)
    source = open_source(str(image), window=WindowRequest(hex(BEFORE), str(len(blob))))
    loaded = source.load(0)
    assert (loaded.unit.offset, loaded.unit.length) == (BEFORE, len(blob))
    assert loaded.data == _xxd(image, hex(BEFORE), str(len(blob)))
    assert [el.offset for el in loaded.unit.elements] == [BEFORE, BEFORE + 64]


@pytest.mark.parametrize(("args", "said"), [
    (["--offset", "ten"], "--offset 'ten': not a number (decimal, 0x.. or X'..', optionally negative)"),
    (["--offset", "0x1000"], "--offset '0x1000': past the end of the input (528 bytes)"),
    (["--offset", "-529"], "--offset '-529': the input has only 528 bytes"),
    (["--length", "-4"], "--length '-4': must not be negative"),
])
@pytest.mark.parametrize("command", ["decode urb", "decode auto", "decode csq1logp", "identify",
                                     "dump", "decode sas-attachment"])
def test_bad_windows_are_one_line_status_1(command: str, args: list[str], said: str,
                                           tmp_path: Path) -> None:
    image = _embedded(tmp_path, STRUCTURES["csq1logp"][:160])
    r = mq(*command.split(), *args, image)
    assert r.status == ExitStatus.USAGE, r.stderr
    assert r.stderr == f"mqtool: {said}\n" and r.stdout == b""


def test_a_negative_offset_needs_a_file() -> None:
    r = mq("decode", "urb", "--offset", "-4", "-", input=b"URBH")
    assert r.status == ExitStatus.USAGE
    assert r.stderr == "mqtool: --offset '-4': a negative offset needs a file, not stdin\n"


def test_stdin_windows_skip_the_bytes_before(tmp_path: Path) -> None:
    blob = STRUCTURES["urb"]
    image = _embedded(tmp_path, blob)
    got = mq("decode", "urb", "--json", "--offset", BEFORE, "--length", len(blob), "-",
             input=image.read_bytes())
    from_file = mq("decode", "urb", "--json", "--offset", BEFORE, "--length", len(blob), image)
    assert got.status == 0 and got.stdout == from_file.stdout
