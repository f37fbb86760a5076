"""An input a decoder takes whole is mapped, not read (``io.inputs.Input.view``): a regular
file through ``mmap``, stdin spooled to an unnamed temporary file and that mapped. The
view holds the input's bytes exactly, outlives the open file, and a decoder that reads
only headers touches only their pages: ``decode mq`` of a 1 GiB message stays small
(issue 22: memory bounded whatever the input's size)."""

from __future__ import annotations

import mmap
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool import api
from mqtool.errors import EmptyInputError, InputError, MqtoolError
from mqtool.formats.mq.build import build_chain
from mqtool.io import inputs
from tests.io.test_inputs import _Stdin
from tests.rss import peak


def test_a_file_is_mapped_and_the_view_outlives_it(tmp_path: Path) -> None:
    data = os.urandom(3 * inputs.HEAD + 17)
    (tmp_path / "x.bin").write_bytes(data)
    with inputs.open_input(str(tmp_path / "x.bin")) as inp:
        view = inp.view()
    assert isinstance(view.obj, mmap.mmap) and view.readonly
    assert view == data and bytes(view[5:9]) == data[5:9]  # read after the file was closed


def test_a_small_file_is_its_head_and_an_empty_one_an_empty_view(tmp_path: Path) -> None:
    (tmp_path / "small").write_bytes(b"abc")
    (tmp_path / "empty").write_bytes(b"")
    assert inputs.read_view(str(tmp_path / "small")) == b"abc"
    assert inputs.read_view(str(tmp_path / "empty")) == b""
    with pytest.raises(InputError, match="is a directory"):
        inputs.read_view(str(tmp_path))
    with pytest.raises(InputError, match="no such file"):
        inputs.read_view(str(tmp_path / "gone"))


@pytest.mark.parametrize("size", [0, 1, inputs.HEAD, inputs.HEAD + 1, inputs.HEAD + inputs.CHUNK + 3])
def test_stdin_is_spooled_then_mapped(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    data = (bytes(range(251)) * (size // 251 + 1))[:size]
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    view = inputs.read_view("-")
    assert view == data
    assert isinstance(view.obj, mmap.mmap) == (size > inputs.HEAD)  # a head-sized input is its head


def test_as_bytes_copies_a_mapped_input_and_gives_its_pages_back(tmp_path: Path) -> None:
    data = os.urandom(1 << 20)
    (tmp_path / "x").write_bytes(data)
    view = inputs.read_view(str(tmp_path / "x"))
    copy = inputs.as_bytes(view)
    assert type(copy) is bytes and copy == data
    assert view == data  # the view still reads the file after its pages were given back
    assert inputs.as_bytes(data) is data


def test_a_source_is_the_view_and_its_bytes_when_asked(tmp_path: Path) -> None:
    body = build_chain([{"type": "MQDLH"}], b"payload", payload_format="MQSTR")
    (tmp_path / "m.bin").write_bytes(body)
    (src,) = api.sources(str(tmp_path / "m.bin"), fmt="mq")
    assert isinstance(src.view, memoryview) and src.view == body
    assert type(src.data) is bytes and src.data == body


# --------------------------------------------------------------------------- error contract

MESSAGE = build_chain([{"type": "MQXQH", "fields": {"remoteqname": "Q1"}},
                       {"type": "MQDLH", "fields": {"reason": 2051}}],
                      b"text of the payload\n" * 5000, payload_format="MQSTR")


@st.composite
def odd_inputs(draw: st.DrawFn) -> bytes:
    """A message cut anywhere, with bytes flipped, or random bytes, or nothing."""
    kind = draw(st.sampled_from(["cut", "flipped", "random", "empty"]))
    if kind == "empty":
        return b""
    if kind == "random":
        return draw(st.binary(max_size=2000))
    data = bytearray(MESSAGE[:draw(st.integers(1, len(MESSAGE)))])
    if kind == "flipped":
        for at in draw(st.lists(st.integers(0, len(data) - 1), max_size=6)):
            data[at] ^= draw(st.integers(1, 255))
    return bytes(data)


def _decoded(units: object) -> list[object]:
    return list(units)  # type: ignore[call-overload]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=odd_inputs(), through_stdin=st.booleans())
def test_odd_inputs_keep_the_error_contract(tmp_path_factory: pytest.TempPathFactory,
                                            monkeypatch: pytest.MonkeyPatch, data: bytes,
                                            through_stdin: bool) -> None:
    """Mapped or spooled, an input reads back exactly, and decoding it either gives units
    or raises an mqtool error (exit status 1 or 2, never a traceback); empty input is
    ``EmptyInputError`` in every path."""
    path = tmp_path_factory.mktemp("odd") / "in.bin"
    path.write_bytes(data)
    name = "-" if through_stdin else str(path)

    def fresh() -> None:
        if through_stdin:
            monkeypatch.setattr(sys, "stdin", _Stdin(data))

    fresh()
    assert inputs.read_view(name) == data
    for run in (lambda: _decoded(api.decode_file("mq", name)),
                lambda: _decoded(api.decode_auto(name).units),
                lambda: [api.decode("mq", s.view) for s in api.sources(name, fmt="mq")]):
        fresh()
        try:
            run()
        except EmptyInputError:
            assert not data
        except MqtoolError as e:
            assert e.status in (1, 2) and data
        else:
            assert data


# --------------------------------------------------------------------------- memory

GIB = 1 << 30


@pytest.fixture(scope="module")
def gib_message(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """One MQ message of 1 GiB: an MQXQH (its MsgDesc an MQMD) and an MQSTR payload,
    sparse (the payload's bytes are a hole in the file: no disk used)."""
    head = build_chain([{"type": "MQXQH", "fields": {"remoteqname": "BIG.QUEUE"}}],
                       payload_format="MQSTR")
    path = tmp_path_factory.mktemp("gib") / "one.bin"
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(GIB)
    return path, len(head)


def test_decode_of_a_gib_message_touches_its_headers_only(gib_message: tuple[Path, int]) -> None:
    """VmHWM, not RLIMIT_AS (the mapping takes 1 GiB of address space, by design): the
    pages the process touched. Before the input was mapped: 1,059 MB."""
    path, _ = gib_message
    for args in (("decode", "mq", path), ("decode", "auto", path)):
        p = peak(*args)
        assert p.status == 0, p.stderr
        assert p.mib < 96, (args, p)


@pytest.mark.parametrize("through", ["file", "stdin"])
def test_the_listing_of_a_gib_message_is_exact_in_bounded_memory(
        gib_message: tuple[Path, int], through: str) -> None:
    """The values read through the mapping, from a file and from stdin (spooled to a
    temporary file, then mapped); the peak RSS of the command (VmHWM) either way."""
    path, at = gib_message
    p = peak("decode", "mq", "-" if through == "stdin" else path, "--color", "never",
             stdin=str(path) if through == "stdin" else None, stdout=True)
    assert p.status == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == (f"MQ message ({GIB} bytes): MQXQH; payload MQSTR at offset "
                        f"X'{at:04X}', {GIB - at} bytes")
    assert '  remoteqname    = "BIG.QUEUE"' in lines
    assert f"the first 65,536 bytes shown, {GIB - at:,} bytes in all" in p.stdout
    assert p.mib < 96, p.mib


def test_the_json_of_a_large_message_gives_the_pages_it_read_back(tmp_path: Path) -> None:
    """``--json --raw`` of a 256 MiB message writes every payload byte (as hex) piece by
    piece; the mapped pages each piece read are given back (before: the whole input's
    pages stayed, 1,074 MB at 1 GiB)."""
    head = build_chain([{"type": "MQDLH"}], payload_format="MQSTR")
    path = tmp_path / "m.bin"
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(256 << 20)
    p = peak("decode", "mq", "--json", "--raw", path)
    assert p.status == 0, p.stderr
    assert p.mib < 96, p.mib
