"""A body cut anywhere: a header the data ends inside is one partial element over the bytes
that are there, the payload after it is empty, nothing overlaps. The header elements and the
payload tile ``[0, cut)``; ``decode mq`` exits 2 with its JSON whole; ``build-request mq``
refuses the partial header by its path. Every cut point of two vectors (one with MQRFH2
folders, one with an MQXQH and its MsgDesc), a hypothesis sample of the others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from mqtool.formats.mq.decode import decode
from mqtool.model import tree_faults
from tests.helpers import TESTDATA, mq

MQ = TESTDATA / "mq"
MANIFEST: dict[str, Any] = json.loads((MQ / "vectors.json").read_text())
BINS = sorted(MQ.glob("*.bin"))
EVERY_CUT = ("dlh-rfh2-mqstr.le.ebcdic.bin", "xqh-mqstr.be.ascii.bin")


def _headers_end(name: str) -> int:
    """Where the vector's header chain ends (its manifest's payload offset; a body of
    one MQTMC2 and nothing after it is all header)."""
    return int(MANIFEST[name]["payload_offset"]) if name in MANIFEST else len(
        (MQ / name).read_bytes())


def _check_tiling(body: bytes, cut: int, mqmd: dict[str, Any] | None, end: int) -> None:
    unit = next(decode(body[:cut], mqmd))
    assert tree_faults(unit.elements) == [], (cut, tree_faults(unit.elements))
    doc = json.loads(b"".join(unit.json_chunks()))
    at = 0
    for h in doc["elements"]:
        assert h["offset"] == at, (cut, h["type"], h["offset"], at)
        at += h["length"]
    payload = doc["payload"]
    assert (payload["offset"], payload["offset"] + payload["length"]) == (at, cut), cut
    if cut < end and doc["elements"]:  # inside the headers: the last is partial, ends at cut
        last = doc["elements"][-1]
        assert last["partial"] is True and last["offset"] + last["length"] == cut, cut
        assert payload["length"] == 0 and unit.errors, cut
        assert 0 <= unit.errors[0].offset <= cut and unit.errors[0].path
    elif cut < end:  # no MQMD and not one byte: nothing to say
        assert cut == 0 or unit.errors, cut
    else:
        assert not any(h.get("partial") for h in doc["elements"]), cut


@pytest.mark.parametrize("name", EVERY_CUT)
def test_every_cut_point_tiles(name: str) -> None:
    body = (MQ / name).read_bytes()
    end = _headers_end(name)
    for mqmd in (MANIFEST[name]["mqmd"], None):
        for cut in range(len(body) + 1):
            _check_tiling(body, cut, mqmd, end if mqmd or cut else 0)


def _cli_cut(tmp: Path, name: str, cut: int) -> None:
    """``decode mq --json`` of the cut body: exit 2, one JSON line, the headers tiling it;
    ``build-request mq`` refuses the partial header at ``headers[i].partial``."""
    path = tmp / "cut.bin"
    path.write_bytes((MQ / name).read_bytes()[:cut])
    out = mq("decode", "mq", "--json", path)
    assert out.status == ExitStatus.DECODE, (cut, out.stderr)
    doc = json.loads(out.stdout)
    partial = [i for i, h in enumerate(doc["elements"]) if h.get("partial")]
    assert partial == [len(doc["elements"]) - 1], (cut, doc["elements"])
    assert doc["payload"]["offset"] == cut and doc["payload"]["length"] == 0
    built = mq("build-request", "mq", "--from", "-", input=out.stdout)
    assert built.status == ExitStatus.USAGE and not built.stdout, (cut, built.stderr)
    assert built.stderr.startswith(f"mqtool: mq: headers[{partial[0]}].partial: the "), \
        built.stderr
    assert "a cut header is not rebuilt" in built.stderr


CUTS = [(p.name, c) for p in BINS for c in (1, _headers_end(p.name) - 1)
        if 0 < c < _headers_end(p.name)]


@pytest.mark.parametrize(("name", "cut"), CUTS, ids=lambda v: str(v))
def test_a_cut_header_through_the_cli(tmp_path: Path, name: str, cut: int) -> None:
    _cli_cut(tmp_path, name, cut)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([p.name for p in BINS]), st.data())
def test_any_vector_cut_anywhere(tmp_path_factory: pytest.TempPathFactory, name: str,
                                 data: st.DataObject) -> None:
    body = (MQ / name).read_bytes()
    end = _headers_end(name)
    cut = data.draw(st.integers(0, len(body)), label="cut")
    mqmd = MANIFEST.get(name, {}).get("mqmd")
    _check_tiling(body, cut, mqmd, end)
    _check_tiling(body, cut, None, end if cut else 0)
    if 0 < cut < end:
        _cli_cut(tmp_path_factory.mktemp("cut"), name, cut)


def test_the_listing_says_partial(tmp_path: Path) -> None:
    path = tmp_path / "cut.bin"
    path.write_bytes((MQ / "dlh-rfh2-mqstr.le.ascii.bin").read_bytes()[:100])
    out = mq("decode", "mq", path)
    assert out.status == ExitStatus.DECODE
    assert "MQDLH element at offset X'0000' (partial: 100 of 172 bytes, the data ends inside " \
           "it)" in out.text
    assert "payload MQDEAD at offset X'0064', 0 bytes" in out.text
    assert "mqdlh.destqmgrname, offset X'003C' (60)" in out.stderr
    annotated = mq("decode", "mq", "--annotate", path)
    assert annotated.status == ExitStatus.DECODE
    # the 40 bytes of DestQMgrName there (60..100) are shown as the header's data
    assert "0060 20202020" in annotated.text


def test_view_shows_the_partial_header_over_the_bytes_there() -> None:
    from mqtool.view.fields import DATA, ELEMENT, build_tree, innermost

    body = (MQ / "xqh-mqstr.be.ascii.bin").read_bytes()[:300]  # MQXQH 0..428, MsgDesc 104..
    (unit,) = decode(body)
    root = build_tree(unit)
    (xqh,) = [n for n in root.children if n.kind == ELEMENT]
    assert (xqh.start, xqh.end) == (0, 300) and "(partial: 300 of 428 bytes" in xqh.name
    (md,) = [n for n in xqh.children if n.kind == ELEMENT]
    assert (md.start, md.end) == (104, 300) and "(partial: 196 of 324 bytes" in md.name
    assert not [n for n in xqh.walk() if n.kind == DATA]  # every byte there is a field
    node = innermost(root, 299)
    assert node is not None and node.path == "mqxqh.msgdesc.replytoqmgr"
    shown = [(p.path, p.offset) for n in root.walk() for p in n.problems]
    assert shown == [("mqxqh.msgdesc.useridentifier", 300)]  # where the data ends
