"""The library API gives what the commands give: the CLI is a shell over these functions."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool import api
from tests.helpers import TESTDATA, mq, seed_bytes


def test_decode_identify_dump_undump() -> None:
    data = seed_bytes("urb/status.reply.dump")
    (unit,) = api.decode("urb", data)
    assert unit.format == "urb" and unit.length == len(data) == unit.elements[0].fields["urbhlent"]
    assert api.identify(data)[0].format == "urb"
    assert api.undump(api.dump(data)) == data


def test_extract_rows_equal_the_command(tmp_path: Path) -> None:
    src = tmp_path / "two.bin"
    src.write_bytes(seed_bytes("csq1logp/hello-2seg.dump"))
    out = io.BytesIO()
    summary = api.extract([str(src)], out, fmt="jsonl")
    rows = [json.loads(x) for x in out.getvalue().splitlines()]
    cli = [json.loads(x) for x in mq("extract", src).stdout.splitlines()]
    assert rows == cli and len(rows) == 2 and summary.to_json()["records"] == 2


def test_messages_and_reassembly() -> None:
    dump = str(TESTDATA / "sas" / "mytext-zos.qmsg")
    msgs = list(api.messages(dump))
    assert [m.msgtype for m in msgs] == [100000] + [100001] * 5
    report = api.reassemble_attachments(dump)  # no outdir: check and list only
    assert report.status == 0 and len(report.headers) == 1
    assert [a.entry.qualifier2 for a in report.headers[0].attachments] == ["d:\\mytext.txt"]


def test_a_large_file_is_decoded_piece_by_piece_as_a_whole_read_decodes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """decode auto on a file over STREAM_FROM streams with the codec the head names
    (Codec.stream); the units are those of the whole file decoded at once."""
    from mqtool.testing.csq1logp_gen import Spec, write

    big = tmp_path / "big.rdw"
    write(str(big), Spec(count=300), "rdw", target_bytes=200_000)
    whole = [(u.to_json(), b) for u, b in api.decode_units("csq1logp", big.read_bytes())]
    monkeypatch.setattr(api, "STREAM_FROM", 100_000)
    decoding = api.decode_auto(str(big))
    assert decoding.heading.startswith("format csq1logp (0.95): ")
    assert [(u.to_json(), b) for u, b in decoding.units] == whole
    assert [(u.to_json(), b) for u, b in api.decode_file("csq1logp", str(big))] == whole
    assert len(whole) > 100


def test_sources_of_a_queue_dump_are_its_labelled_messages() -> None:
    said: list[str] = []
    got = list(api.sources(str(TESTDATA / "sas" / "mytext-zos.qmsg"), say=said.append))
    assert len(got) == 6 and said == []
    unit = got[0].label(api.decode("sas-attachment", got[0].data)[0])
    assert unit.attrs["message"] == 1 and unit.title.startswith("message 1 (")


_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)


@settings(max_examples=80, deadline=None)
@given(kind=st.sampled_from(["reply", "data"]), status=st.one_of(st.none(), _TEXT),
       rsp=st.one_of(st.none(), _TEXT, st.integers(-5, 1 << 40).map(str)),
       images=st.lists(st.tuples(st.one_of(st.integers(-3, 1 << 33).map(str), _TEXT), _TEXT),
                       max_size=3),
       snam=st.lists(_TEXT, max_size=2), charset=st.sampled_from([None, "ascii", "ebcdic"]))
def test_server_messages_refuse_in_mqtool_errors_and_decode_as_built(
        kind: str, status: str | None, rsp: str | None, images: list[tuple[str, str]],
        snam: list[str], charset: str | None) -> None:
    """build-request urb reply/data (formats.urb.server): anything given is built or
    refused with an MqtoolError naming the option; what is built decodes cleanly, with the
    images given."""
    from mqtool.errors import MqtoolError

    try:
        built = api.build_urb(kind, per_urbi={"snam": snam}, status=status, rsp=rsp,
                              images=[f"{i}={t}" for i, t in images], encoding=charset)
    except MqtoolError as e:
        assert str(e)
        return
    [(data, cp)] = built.pieces
    [unit] = api.decode("urb", data)
    assert not unit.errors, unit.errors
    if kind == "data":
        got = [el.data for el in unit.elements if el.type == "URBD"]
        # the images of one ISN are one record's: compared as a whole, not in order
        assert sorted(g.rstrip(b"\0") for g in got) == sorted(t.encode(cp).rstrip(b"\0")
                                                          for _, t in images)
