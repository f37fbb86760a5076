"""Folders of raw message bodies and PCF recognition: a directory of bodies is decoded file
by file, each unit labelled with its file and decoded as that file alone is; PCF messages
(testdata/mq, packed with struct by its generator) are recognised with and without an
MQMD in front, by ``identify``, ``decode auto`` and ``decode mq``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, load_testdata_script, mq, seed_bytes

URB_BODIES = ["close-destination.reply", "inst-color.data", "inst-employee.init", "status.request"]
# rfh1.le.ascii.bin starts as an RFHUtil save file does ("RFH "): read as that dump, not a body
MQ_BODIES = sorted(p for p in (TESTDATA / "mq").glob("*.bin") if not p.name.startswith("rfh1"))
EVENT = TESTDATA / "mq" / "event.le.ascii.bin"
LABEL_KEYS = ("message", "source", "msgtype", "correlid", "role")


def _json(*args: object) -> tuple[int, list[dict[str, Any]]]:
    r = mq(*args, "--json")
    return r.status, [json.loads(line) for line in r.text.splitlines()]


def _unlabelled(unit: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in unit.items() if k not in LABEL_KEYS}


@pytest.fixture
def urb_dir(tmp_path: Path) -> Path:
    d = tmp_path / "bodies"
    d.mkdir()
    for name in URB_BODIES:
        (d / f"{name}.bin").write_bytes(seed_bytes(f"urb/{name}.dump"))
    return d


def test_a_folder_of_urb_bodies_is_decoded_file_by_file(urb_dir: Path) -> None:
    status, units = _json("decode", "urb", urb_dir)
    assert status == 0
    files = sorted(urb_dir.iterdir(), key=lambda p: p.name)
    assert [u["source"] for u in units] == [str(f) for f in files]
    assert [u["message"] for u in units] == list(range(1, len(files) + 1))
    for unit, f in zip(units, files, strict=True):
        _s, (alone,) = _json("decode", "urb", f)
        assert _unlabelled(unit) == alone
    listing = mq("decode", "urb", urb_dir).text
    assert f"message 1 ({files[0]}): a body without MQMD" in listing


def test_decode_auto_reads_the_folder_too(urb_dir: Path) -> None:
    status, units = _json("decode", "auto", urb_dir)
    assert status == 0 and {u["format"] for u in units} == {"urb"}
    assert [u["source"] for u in units] == sorted(str(p) for p in urb_dir.iterdir())


def test_a_folder_of_mq_bodies_decode_mq_and_decode_auto(tmp_path: Path) -> None:
    d = tmp_path / "mq"
    d.mkdir()
    for f in MQ_BODIES:
        shutil.copy(f, d)
    for command in ("mq", "auto"):
        status, units = _json("decode", command, d)
        assert status == 0
        heads = [u for u in units if u["format"] == "mq" and "payload_offset" not in u]
        assert [u["source"] for u in heads] == [str(d / f.name) for f in MQ_BODIES]
        for unit, f in zip(heads, MQ_BODIES, strict=True):
            _s, alone = _json("decode", "mq", f)
            assert _unlabelled(unit) == alone[0], f.name
    events = [u for u in _json("decode", "auto", d)[1] if "pcf" in u]
    assert [(u["source"], u["pcf"]["header"]["reason"]) for u in events] == [
        (str(d / "event.be.ascii.bin"), 2085), (str(d / "event.le.ascii.bin"), 2085)]


def test_identify_and_decode_auto_recognise_a_pcf_body() -> None:
    r = mq("identify", EVENT)
    assert r.status == 0
    assert r.text == (f"{EVENT}: mq (0.90) PCF MQCFT_EVENT MQCMD_Q_MGR_EVENT (little-endian), 10 "
                      "parameters, 292 bytes, reason 2085 MQRC_UNKNOWN_OBJECT_NAME\n")
    status, (unit,) = _json("decode", "auto", EVENT)
    assert status == 0 and unit["context"]["format"] == "MQEVENT"
    names = [p["parameter"] for p in unit["pcf"]["parameters"]]
    assert names[:3] == [2015, 2016, 1022]  # MQCA_Q_MGR_NAME, MQCA_Q_NAME, MQIACF_OPEN_OPTIONS
    assert _json("decode", "mq", EVENT)[1] == [unit]


def test_a_pcf_message_behind_an_mqmd(tmp_path: Path) -> None:
    g = load_testdata_script("mq/generate.py")
    v = g.Variant(False, False)
    f = tmp_path / "event.mqmd"
    f.write_bytes(g.mqmd1(v, "MQEVENT", v.enc, v.ccsid) + EVENT.read_bytes())
    r = mq("identify", f)
    assert r.text.startswith(f"{f}: mqmd-binary (0.90) MQMD version 1 (Format MQEVENT) and PCF "
                             "MQCFT_EVENT MQCMD_Q_MGR_EVENT (little-endian)")
    status, (unit,) = _json("decode", "auto", f)
    assert status == 0 and unit["msgtype"] == 8 and unit["pcf"]["header"]["reason"] == 2085


def test_a_broken_parameter_chain_is_no_pcf_message(tmp_path: Path) -> None:
    data = bytearray(EVENT.read_bytes())
    data[36 + 4] = 0xF0  # the first parameter's StrucLength: far past the end of the message
    f = tmp_path / "broken.bin"
    f.write_bytes(bytes(data))
    r = mq("identify", f)
    assert r.status == ExitStatus.DECODE and "unknown (0.00)" in r.text


def test_mqtool_records_beside_bodies_are_not_messages(urb_dir: Path) -> None:
    (urb_dir / "manifest.json").write_text('{"hits": []}\n')
    (urb_dir / "_summary.json").write_text("{}\n")
    status, units = _json("decode", "urb", urb_dir)
    assert status == 0 and len(units) == len(URB_BODIES)


@pytest.mark.parametrize(("fmt", "bodies"), [
    ("redolog", ["osb/sample1.header.dump", "osb/sample3.header.dump", "osb/sample6.intent.dump"]),
    ("matqmsg", ["matqmsg/keyed-eq.receiver.synthetic.dump",
                 "matqmsg/all-blocked.selection.synthetic.dump"]),
    ("csq1logp", ["csq1logp/hello-2seg.dump", "csq1logp/mqput-rdw.dump"]),
])  # (decode sas-attachment reads a folder's messages in the roles their header gives them)
def test_every_decoder_reads_a_folder_of_its_bodies(fmt: str, bodies: list[str],
                                                    tmp_path: Path) -> None:
    d = tmp_path / "bodies"
    d.mkdir()
    for k, name in enumerate(bodies, 1):
        (d / f"{k:02d}.bin").write_bytes(seed_bytes(name))
    status, units = _json("decode", fmt, d)
    assert status == 0
    alone = [_json("decode", fmt, f)[1] for f in sorted(d.iterdir())]
    by_file = {str(f): a for f, a in zip(sorted(d.iterdir()), alone, strict=True)}
    assert [u["source"] for u in units] == [s for s, a in by_file.items() for _u in a]
    assert [_unlabelled(u) for u in units] == [u for a in alone for u in a]


def test_a_body_another_decoder_refuses_is_an_error_unit_the_rest_decoded(tmp_path: Path) -> None:
    d = tmp_path / "bodies"
    d.mkdir()
    (d / "1.bin").write_bytes(seed_bytes("matqmsg/keyed-eq.receiver.synthetic.dump"))
    shutil.copy(EVENT, d / "2.bin")
    r = mq("decode", "matqmsg", d)
    assert r.status == ExitStatus.DECODE
    assert f"mqtool: matqmsg: message 2 ({d / '2.bin'}): " in r.stderr
    assert "identify says: mq (0.90) PCF MQCFT_EVENT" in r.stderr
    assert f"message 1 ({d / '1.bin'}): a body without MQMD" in r.text
