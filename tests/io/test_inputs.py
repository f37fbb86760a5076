"""What an input is, decided once (``io.inputs``): a file, a directory or stdin with its
head kept, so that stdin is read once; stdin spooled for readers that seek; the units a
decoder gets, queue dumps read through the reader it is given."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mqtool.errors import EmptyInputError, InputError
from mqtool.io import inputs
from mqtool.io.undump import is_dump_text, undump, unit_bytes
from mqtool.model import Decoded
from tests.helpers import TESTDATA


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


def test_stdin_is_read_once_and_its_head_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    data = bytes(range(256)) * 1000
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    inp = inputs.open_input("-", head=100)
    assert inp.is_stdin and inp.head == data[:100] and inp.size is None
    assert inp.stream().read() == data  # the head, then the rest: every byte once


def test_a_file_is_looked_at_and_read_from_its_start(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    f.write_bytes(b"A" * 70000)
    with inputs.open_input(str(f)) as inp:
        assert inp.size == 70000 and len(inp.head) == inputs.HEAD and not inp.whole
        assert inp.read() == b"A" * 70000


def test_a_directory_is_said_once(tmp_path: Path) -> None:
    inp = inputs.open_input(str(tmp_path))
    assert inp.is_dir
    with pytest.raises(InputError, match=f"^{tmp_path}: is a directory$"):
        inp.read()


def test_a_terminal_is_no_input(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(_Stdin):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Tty(b""))
    with pytest.raises(InputError, match="no input: give a FILE or pipe data into stdin"):
        inputs.open_input("-")


def test_spooled_stdin_is_a_file_with_the_same_bytes(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(b"spooled bytes"))
    other = tmp_path / "other.bin"
    with inputs.spooled([str(other), "-"]) as spool:
        assert spool.paths[0] == str(other)
        assert Path(spool.paths[1]).read_bytes() == b"spooled bytes"
        assert spool.names == {spool.paths[1]: "-"}
        copy = spool.paths[1]
    assert not Path(copy).exists()  # removed afterwards
    with pytest.raises(InputError, match="read once"), inputs.spooled(["-", "-"]):
        pass


def test_dump_text_is_told_from_binary() -> None:
    text = (TESTDATA / "urb" / "status.request.dump").read_bytes()
    assert is_dump_text(text) and not is_dump_text(undump(text.decode()))
    assert unit_bytes(text, True, "x", "urb") == undump(text.decode())
    assert unit_bytes(text, False, "x", "urb") == undump(text.decode())  # recognised
    binary = undump(text.decode())
    assert unit_bytes(binary, False, "x", "urb") == binary
    with pytest.raises(EmptyInputError):
        unit_bytes(b"", False, "x", "urb")


@dataclass
class _Msg:
    body: bytes
    mqmd: dict[str, Any] = field(default_factory=dict)

    def label(self, unit: Decoded, role: str = "") -> Decoded:
        unit.title = f"labelled {self.body!r}"
        return unit


class _Dumps:
    """A queue-dump reader that knows one kind: files starting with ``DUMP``."""

    def kind(self, head: bytes) -> str | None:
        return "fake" if head.startswith(b"DUMP") else None

    def messages(self, inp: inputs.Input, kind: str) -> Iterator[_Msg]:
        if kind == "directory":
            yield from (_Msg(p.read_bytes()) for p in sorted(Path(inp.path).iterdir()))
            return
        yield from (_Msg(part) for part in inp.read().split(b"|")[1:])


def test_sources_are_dump_messages_or_one_blob(tmp_path: Path) -> None:
    dump = tmp_path / "d.bin"
    dump.write_bytes(b"DUMP|one|two")
    got = list(inputs.sources(str(dump), False, "urb", _Dumps()))
    assert [s.data for s in got] == [b"one", b"two"]
    assert got[0].label(Decoded("urb", 0, 3)).title == "labelled b'one'"
    blob = tmp_path / "b.bin"
    blob.write_bytes(b"\x00blob")
    [one] = inputs.sources(str(blob), False, "urb", _Dumps())
    assert one.data == b"\x00blob" and one.message is None
    assert one.label(Decoded("urb", 0, 5)).title == ""
    d = tmp_path / "dir"
    d.mkdir()
    (d / "1").write_bytes(b"first")
    assert [s.data for s in inputs.sources(str(d), False, "urb", _Dumps())] == [b"first"]
    with pytest.raises(InputError, match="is a directory"):
        list(inputs.sources(str(d), True, "urb", _Dumps()))  # dump text is no directory
