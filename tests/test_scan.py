"""scan: structures embedded in random bytes at offsets chosen here are found exactly there,
with the lengths of the bytes embedded, once each, whatever the window size; nested
structures are one hit with their chain; hostile inputs cost work linear in their size;
carved files hash as hashlib says and decode as what the scan said they are."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool import scan
from mqtool.errors import MqtoolError
from mqtool.formats.osb.build import build_entry
from mqtool.io.carving import Work
from mqtool.io.undump import undump
from mqtool.registry import best_codec, identify
from tests.helpers import TESTDATA

URB = undump((TESTDATA / "urb/close-destination.reply.dump").read_text())
CSQ = undump((TESTDATA / "csq1logp/mqput-rdw.dump").read_text())
SAS = undump((TESTDATA / "sas/seed-zos.header.dump").read_text())
INTENT = undump((TESTDATA / "osb/sample6.intent.dump").read_text())
OSB = build_entry(None, INTENT)  # a redolog header (the sample's values) and a seed intent list
DLH = (TESTDATA / "mq/dlh-rfh2-mqstr.be.ebcdic.bin").read_bytes()
XQH = (TESTDATA / "mq/xqh-mqstr.le.ascii.bin").read_bytes()
EVENT = (TESTDATA / "mq/event.le.ascii.bin").read_bytes()
XXD = (TESTDATA / "dump/range-hello.xxd").read_bytes()


def _generator():  # the independent MQ vector generator (struct, not mqtool)
    spec = importlib.util.spec_from_file_location("mq_generate", TESTDATA / "mq/generate.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _generator()


def image(parts: list[bytes], seed: int = 7, gap: int = 1500) -> tuple[bytes, list[int]]:
    """``parts`` between random gaps (each gap starts with a NUL, so a character payload
    ends there); the offsets where each part was put."""
    rng = random.Random(seed)
    out, where = bytearray(), []
    for p in parts:
        out += b"\x00" + bytes(rng.randrange(256) for _ in range(gap + rng.randrange(64)))
        where.append(len(out))
        out += p
    out += b"\x00" + bytes(rng.randrange(256) for _ in range(333))
    return bytes(out), where


def hits(data: bytes, **kw) -> list[scan.Found]:
    return list(scan.scan(data, **kw))


EXPECTED = [  # part, format, length: what the scan must report for each
    (URB, "urb", len(URB)),
    (DLH, "mq", len(DLH)),
    (XQH, "mq", len(XQH)),
    (EVENT, "mq", len(EVENT)),
    (CSQ, "csq1logp", len(CSQ)),
    (SAS, "sas-attachment", len(SAS)),
    (OSB, "redolog", len(OSB)),
    (XXD, "dump", len(XXD)),
]


@pytest.mark.parametrize("chunk", [scan.CHUNK, 4096, 1000])
def test_every_structure_at_its_offset(chunk: int) -> None:
    data, where = image([p for p, _f, _n in EXPECTED])
    got = hits(data, chunk=chunk, max_length=8192)
    assert [(h.offset, h.format, h.length) for h in got] == [
        (at, fmt, n) for at, (_p, fmt, n) in zip(where, EXPECTED, strict=True)]
    kinds = [h.kind for h in got]
    assert kinds[:4] == ["URB message", "MQDLH", "MQXQH", "PCF message"]
    assert got[1].chain == ("MQDLH", "MQRFH2", "MQSTR")
    assert "2051 MQRC_PUT_INHIBITED" in got[1].summary
    assert "MQCMD_Q_MGR_EVENT" in got[3].summary
    assert all(not h.errors for h in got)


def test_hits_across_window_boundaries_are_found_once() -> None:
    data, where = image([URB] * 12, seed=3, gap=150)
    for chunk in (97, 256, 4096):
        got = hits(data, chunk=chunk, max_length=1024)
        assert [h.offset for h in got] == where


def test_a_urb_in_an_rfh2_in_an_xqh_is_one_hit_with_its_chain() -> None:
    v = GEN.Variant(True, False)
    rfh = GEN.rfh2(v, ["<usr><k>1</k></usr>"], "", v.enc, v.ccsid)
    msg = GEN.xqh(v) + GEN.mqmd1(v, "MQHRF2", v.enc, v.ccsid) + rfh + URB
    data, where = image([msg], seed=11)
    (hit,) = hits(data)
    assert (hit.offset, hit.length) == (where[0], len(msg))
    assert hit.chain == ("MQXQH", "MQRFH2", "urb")  # the MQMD is nested in its MQXQH
    assert "URB message" in hit.summary


def test_an_mqmd_prefixed_urb_is_one_hit() -> None:
    v = GEN.Variant(False, False)
    mqmd = GEN.mqmd1(v, "", v.enc, v.ccsid)
    data, where = image([mqmd + URB], seed=5)
    (hit,) = hits(data)
    assert (hit.offset, hit.length, hit.format) == (where[0], len(mqmd) + len(URB), "mqmd-binary")
    assert hit.chain == ("MQMD", "urb")


def test_the_window_keeps_offsets_absolute() -> None:
    data, where = image([URB, URB, URB], seed=9)
    got = hits(data, offset=where[1] - 10, length=len(URB) + 20)
    assert [h.offset for h in got] == [where[1]]
    got = hits(data, offset=hex(where[1]))
    assert [h.offset for h in got] == where[1:]
    got = hits(data, offset=-(len(data) - where[2]))
    assert [h.offset for h in got] == [where[2]]


def test_formats_and_confidence_select() -> None:
    data, _where = image([URB, EVENT], seed=2)
    assert [h.format for h in hits(data, formats=["urb"])] == ["urb"]
    assert hits(data, min_confidence=0.99) == []
    with pytest.raises(MqtoolError, match="unknown format 'nope'"):
        hits(data, formats=["nope"])


def test_an_eyecatcher_alone_is_no_hit() -> None:
    eyes = b"".join(s for c in scan.carvers() for s in c.signatures)
    data = (eyes + bytes(37)) * 20
    assert hits(data) == []


# --------------------------------------------------------------------------- hostile input


def _hostile(n: int) -> list[bytes]:
    urb_prefix = next(iter(scan.carvers(["urb"])[0].signatures))
    big = (10**9).to_bytes(4, "big")
    return [
        b"URBH" * (n // 4),  # every 4-byte window an eyecatcher
        b"DLH \x00\x00\x00\x01" * (n // 8),  # StrucId and a plausible Version, over and over
        (urb_prefix + big) * (n // 20),  # URBH prefixes whose URBHLENT is absurd
        (urb_prefix + (200).to_bytes(4, "big")) * (n // 20),  # plausible lengths, garbage
        b"MD  \x00\x00\x00\x02" * (n // 8),
        b"\x00\x00\x00\x24\x00\x00\x00\x01" * (n // 8),  # MQCFH StrucLength + Version
        b"00000000: 00\n" * (n // 13),  # dump text lines that never read back
    ]


@pytest.mark.parametrize("kind", range(7))
def test_hostile_images_cost_linear_work(kind: int) -> None:
    per_byte = []
    for n in (20_000, 80_000):
        data = _hostile(n)[kind]
        w = Work()
        found = hits(data, work=w, chunk=8192, max_length=4096)
        assert all(0 <= h.offset < len(data) for h in found)
        assert w.candidates <= len(data)
        assert w.confirms <= 2 * len(data)
        per_byte.append(w.decoded / len(data))
    # what decoders were handed grows with the input, not faster (a constant per byte)
    assert per_byte[1] <= per_byte[0] * 1.25 + 0.5


# --------------------------------------------------------------------------- carving


def test_carved_files_hash_and_decode_as_reported(tmp_path: Path) -> None:
    data, where = image([p for p, _f, _n in EXPECTED], seed=13)
    src = tmp_path / "image.bin"
    src.write_bytes(data)
    found = list(scan.scan(str(src)))
    out = tmp_path / "carved"
    written = scan.carve(str(src), str(out), found)
    manifest = json.loads((out / scan.MANIFEST).read_text())
    assert [h["offset"] for h in manifest["hits"]] == where
    for entry, at, (part, fmt, _n) in zip(manifest["hits"], where, EXPECTED, strict=True):
        blob = (out / entry["file"]).read_bytes()
        assert blob == part == data[at:at + len(part)]
        assert entry["sha256"] == hashlib.sha256(part).hexdigest()
        assert entry["size"] == len(part)
        if fmt != "dump":  # a PCF message too: the mq codec's detector reads PCF bodies
            best = best_codec(identify(blob, text_kinds=False))
            assert best is not None and best.format == fmt, entry["file"]
        else:
            assert identify(blob)[0].options.get("hex") is True
    assert [c.file for c in written] == [h["file"] for h in manifest["hits"]]
    assert sorted(p.name for p in out.iterdir()) == sorted([*(c.file for c in written),
                                                            scan.MANIFEST])


def test_carving_refuses_to_overwrite(tmp_path: Path) -> None:
    src = tmp_path / "image.bin"
    src.write_bytes(image([URB])[0])
    scan.carve(str(src), str(tmp_path / "out"), scan.scan(str(src)))
    with pytest.raises(MqtoolError, match="exists"):
        scan.carve(str(src), str(tmp_path / "out"), scan.scan(str(src)))
    scan.carve(str(src), str(tmp_path / "out"), scan.scan(str(src)), force=True)


def test_file_names_come_from_order_offset_and_format_only() -> None:
    hit = scan.Found(0x400, 10, "../../etc/passwd", "x", 1.0, "", extension="/sh")
    assert scan.file_name(3, hit) == "000003-0000000400-etc-passwd.sh"


# --------------------------------------------------------------------------- fuzz

PIECES = st.sampled_from([URB, DLH, EVENT, CSQ, SAS, OSB, URB[:70], DLH[:200], EVENT[:50],
                          b"URBH", b"DLH ", b"MD  ", b"REDODATA".decode().encode("cp037")])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(PIECES, st.binary(max_size=300)), max_size=12),
       st.sampled_from([64, 500, 4096]))
def test_fuzz_scan_never_fails_and_hits_do_not_overlap(parts: list[bytes], chunk: int) -> None:
    data = b"".join(parts)
    try:
        got = hits(data, chunk=chunk, max_length=2048)
    except MqtoolError:
        return
    ends = 0
    for h in got:
        assert ends <= h.offset and h.length > 0 and h.offset + h.length <= len(data)
        assert 0 <= h.confidence <= 1 and "\n" not in h.summary
        ends = h.offset + h.length


def test_matqmsg_templates_on_16_byte_boundaries() -> None:
    recv = undump((TESTDATA / "matqmsg/keyed-eq.receiver.synthetic.dump").read_text())
    sel = undump((TESTDATA / "matqmsg/all-blocked.selection.synthetic.dump").read_text())
    bad = undump((TESTDATA / "matqmsg/t65552.selection.synthetic.dump").read_text())
    rng = random.Random(21)
    data = bytearray(rng.randrange(256) for _ in range(4096))
    data[1024:1024 + len(recv)] = recv
    data[2048:2048 + len(sel)] = sel
    data[3072:3072 + len(bad)] = bad  # text_bytes 65552: over the machine's maximum
    data[3000:3000 + len(sel)] = sel  # not on a 16-byte boundary: the machine would refuse it
    got = hits(bytes(data), formats=["matqmsg"])
    assert [(h.offset, h.length, h.kind) for h in got] == [
        (1024, len(recv), "MATQMSG receiver template"),
        (2048, len(sel), "MATQMSG selection template")]


def test_carving_with_custody_then_verify(tmp_path: Path) -> None:
    from mqtool.io.custody import Custody, verify

    data, _where = image([URB, DLH], seed=17)
    src = tmp_path / "image.bin"
    src.write_bytes(data)
    record = Custody.start([str(src)], argv=["mqtool", "scan", str(src), "--carve", "out"])
    written = scan.carve(str(src), str(tmp_path / "out"), scan.scan(str(src)), custody=record)
    manifest = tmp_path / "out" / scan.MANIFEST
    doc = json.loads(manifest.read_text())
    assert doc["custody"]["inputs"][0]["sha256"] == hashlib.sha256(data).hexdigest()
    assert [o["path"] for o in doc["custody"]["outputs"]] == [c.file for c in written]
    assert verify(str(manifest)).status == "verified"
    carved = tmp_path / "out" / written[0].file
    carved.write_bytes(carved.read_bytes()[:-1] + b"\xff")
    v = verify(str(manifest))
    assert v.status == "changed"
    assert [(c.role, c.status) for c in v.checks] == [("input", "ok"), ("output", "sha256"),
                                                     ("output", "ok")]
