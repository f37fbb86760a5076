"""URB decoding of a mapped input (``io.inputs.Input.view``): the decoder reads the view in
place and keeps a record image as a slice of it; an image longer than a listing shows is
listed by its first 65,536 bytes and written whole, in pieces, by ``--json``. One URB
message holding a 1 GiB image stays small (issue 22: memory bounded whatever the input's
size; before: 2.1 GB for ``decode urb``, ``decode auto`` and ``--annotate``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mqtool.formats.mq.decode import LISTED
from mqtool.formats.urb.compose import build_message, data_message
from mqtool.formats.urb.decode import LargeUrb, decode
from mqtool.formats.urb.layout import URBHLENT_AT, layouts
from mqtool.io.undump import undump
from mqtool.render.listing import unit_lines
from tests.helpers import TESTDATA
from tests.rss import peak

GIB = 1 << 30
EYE = "URBD".encode("cp037")
OPTIONS: list[dict[str, Any]] = [{}, {"urbi_data": "isn"}, {"codepage": "500", "byte_order": "little"}]


def _message(image: bytes) -> bytes:
    return build_message(data_message({"urbtsnam": "BIG"}, [({}, [("A", image)])], {}))


def _parts(size: int) -> tuple[bytes, bytes, int]:
    """The bytes before the image of a data message (URBH, URBT, URBR, URBD's fixed part)
    ``size`` bytes long in all, its URBE, and the image's length: URBHLENT, URBDLEN and
    URBDLEND (big-endian, IBM's order) say the larger image."""
    small = _message(b"\xc1" * 8)
    urbd = small.index(EYE)
    at = urbd + layouts().URBD.fixed_size
    head, tail = bytearray(small[:at]), small[at + 8:]
    image = size - len(head) - len(tail)
    for where, value in ((URBHLENT_AT, size),
                         (urbd + layouts().URBD.offset_of("urbdlen"), size - urbd - len(tail)),
                         (urbd + layouts().URBD.offset_of("urbdlend"), image)):
        head[where:where + 4] = value.to_bytes(4, "big")
    return bytes(head), tail, image


def test_a_view_decodes_as_its_bytes_do() -> None:
    """Every vector, read from a ``memoryview`` and from bytes: the same JSON and listing."""
    for path in sorted((TESTDATA / "urb").glob("**/*.dump")):
        data = undump(path.read_text(encoding="latin-1"))
        for options in OPTIONS:
            a, b = list(decode(data, **options)), list(decode(memoryview(data), **options))
            assert [u.to_json(True) for u in a] == [u.to_json(True) for u in b], path
            assert [list(unit_lines(u)) for u in a] == [list(unit_lines(u)) for u in b], path


def test_a_damaged_view_decodes_as_its_bytes_do() -> None:
    """Every 4-byte word of a data message replaced by an unknown eyecatcher ('URBX' in
    EBCDIC), or by a huge length, and every cut: the same units from a view as from bytes."""
    data = undump((TESTDATA / "urb" / "inst-color.data.dump").read_text(encoding="latin-1"))
    damaged = [data[:at] + word + data[at + 4:] for at in range(0, len(data) - 3, 4)
               for word in (b"\xe4\xd9\xc2\xe7", b"\x7f\xff\xff\xff")]
    for d in damaged + [data[:n] for n in range(1, len(data), 7)]:
        a, b = list(decode(d)), list(decode(memoryview(d)))
        assert [u.to_json(True) for u in a] == [u.to_json(True) for u in b]
        assert [list(unit_lines(u)) for u in a] == [list(unit_lines(u)) for u in b]


def test_a_large_image_is_listed_by_its_first_bytes_and_written_whole() -> None:
    image = bytes(range(256)) * 1000  # 256,000 bytes
    (unit,) = decode(memoryview(_message(image)))
    assert isinstance(unit, LargeUrb)
    (urbd,) = [el for el in unit.elements if el.type == "URBD"]
    assert urbd.data == image[:LISTED]
    head = f"urbddata (the first {LISTED:,} bytes shown, {len(image):,} bytes in all) ({LISTED} bytes):"
    assert f"  {head}" in list(unit_lines(unit))
    whole = unit.to_json()
    elements = whole["elements"]
    assert isinstance(elements, list)
    (d,) = [e for e in elements if e["type"] == "URBD"]
    assert d["data"] == image.hex().upper()
    streamed = b"".join(unit.json_chunks())
    assert streamed == json.dumps(whole, ensure_ascii=False, separators=(",", ":")).encode()


def test_a_small_image_is_no_large_unit() -> None:
    (unit,) = decode(_message(b"\xc1" * LISTED))
    assert not isinstance(unit, LargeUrb)
    assert [el.data for el in unit.elements if el.type == "URBD"] == [b"\xc1" * LISTED]


@pytest.fixture(scope="module")
def gib_urb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, int]:
    """One URB data message of 1 GiB whose URBD image is a hole in the file (sparse: no
    disk used, the image reads as zeros); the image's offset and length."""
    head, tail, image = _parts(GIB)
    path = tmp_path_factory.mktemp("gib") / "one.urb"
    with open(path, "wb") as f:
        f.write(head)
        f.seek(GIB - len(tail))
        f.write(tail)
    return path, len(head), image


def test_decode_of_a_gib_urb_message_is_exact_in_bounded_memory(gib_urb: tuple[Path, int, int]) -> None:
    """VmHWM (the pages the process touched; the mapping takes 1 GiB of address space, by
    design) of the listing, ``decode auto``, ``--json`` (every image byte in hex, 2 GiB,
    written piece by piece) and ``--annotate`` (every line). Before: 2,116 MB."""
    path, at, image = gib_urb
    assert (at, image) == (0x120, GIB - 0x120 - 32)  # URBH 64, URBT 128, URBR 64, URBD 32; URBE 32
    p = peak("decode", "urb", path, "--color", "never", stdout=True)
    assert p.status == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[:6] == ["URBH element at offset X'0000'", '  urbheye  = "URBH"', "  urbhlen  = 64",
                         '  urbhvers = "01"', "  urbhbord = X'0001'", f"  urbhlent = {GIB}"]
    assert "URBD element at offset X'0100'" in lines
    assert f"  urbdlen  = {GIB - 0x100 - 32}" in lines and f"  urbdlend = {image}" in lines
    assert f"  urbddata (the first 65,536 bytes shown, {image:,} bytes in all) (65536 bytes):" in lines
    assert f"URBE element at offset X'{GIB - 32:04X}'" in lines
    assert p.mib < 128, p.mib
    for args in (("decode", "auto", path), ("decode", "urb", "--json", path),
                 ("decode", "auto", "--json", path), ("decode", "urb", "--annotate", path)):
        p = peak(*args)
        assert p.status == 0, (args, p.stderr)
        assert p.mib < 128, (args, p.mib)


def test_the_json_and_listing_of_a_large_image_from_a_file(tmp_path: Path) -> None:
    """Through the command (a file larger than its head is mapped): ``--json`` gives every
    image byte, the listing its first 65,536."""
    image = bytes(range(256)) * 1000
    path = tmp_path / "m.urb"
    path.write_bytes(_message(image))
    for cmd in (("decode", "urb", "--json"), ("decode", "auto", "--json")):
        p = peak(*cmd, path, stdout=True)
        assert p.status == 0, p.stderr
        (d,) = [e for e in json.loads(p.stdout)["elements"] if e["type"] == "URBD"]
        assert d["data"] == image.hex().upper() and d["fields"]["urbdlend"] == len(image)
    p = peak("decode", "urb", path, stdout=True)
    assert f"  urbddata (the first 65,536 bytes shown, {len(image):,} bytes in all) (65536 bytes):" \
        in p.stdout.splitlines()
