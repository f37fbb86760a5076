"""Chain of custody: digests against hashlib computed here, sizes and times against os.stat,
and verify's verdict on each way a file can change."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mqtool import __version__
from mqtool.errors import ExitStatus, InputError
from mqtool.io import custody
from mqtool.io.custody import Custody, verify


def _write(p: Path, data: bytes, mtime: int = 1_700_000_000) -> Path:
    p.write_bytes(data)
    os.utime(p, ns=(mtime * 10**9 + 123_456_789, mtime * 10**9 + 123_456_789))
    return p


def _manifest(tmp: Path, record: Custody) -> Path:
    m = tmp / "manifest.json"
    m.write_text(json.dumps({"hits": [], "custody": record.to_json()}))
    return m


def test_inputs_are_recorded_with_their_digest_size_and_time(tmp_path: Path) -> None:
    data = os.urandom(3 * custody.CHUNK + 17)  # more than one piece
    p = _write(tmp_path / "image.bin", data)
    rec = Custody.start([str(p)], argv=["mqtool", "scan", str(p)])
    (r,) = rec.inputs
    assert r.sha256 == hashlib.sha256(data).hexdigest()
    assert r.size == len(data) == os.stat(p).st_size
    assert r.mtime == "2023-11-14T22:13:20.123456Z"  # 1 700 000 000 s after the epoch, UTC
    assert r.resolved == str(p.resolve())
    rec.add_output("000001.urb", 3, hashlib.sha256(b"abc").hexdigest())
    d = rec.finish().to_json()
    assert d["version"] == __version__ and d["command"] == ["mqtool", "scan", str(p)]
    for key in ("started", "finished"):
        stamp = datetime.strptime(d[key], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        assert abs((datetime.now(UTC) - stamp).total_seconds()) < 600
    assert Custody.from_json(json.loads(json.dumps(d))).to_json() == d


def test_stdin_is_recorded_by_its_bytes() -> None:
    rec = Custody.start(["-"], argv=["mqtool"], stdin=b"hello")
    assert rec.inputs[0].to_json() == {"path": "-", "size": 5,
                                       "sha256": hashlib.sha256(b"hello").hexdigest()}


def test_verify_reports_what_changed(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.bin", b"A" * 100)
    b = _write(tmp_path / "b.bin", b"B" * 100)
    c = _write(tmp_path / "c.bin", b"C" * 100)
    d = _write(tmp_path / "d.bin", b"D" * 100)
    out = _write(tmp_path / "000001.urb", b"carved")
    rec = Custody.start([str(a), str(b), str(c), str(d)], argv=["mqtool"])
    rec.add_output("000001.urb", 6, hashlib.sha256(b"carved").hexdigest())
    m = _manifest(tmp_path, rec.finish())
    v = verify(str(m))
    assert (v.status, v.exit_status) == ("verified", ExitStatus.OK)
    os.utime(a, ns=(1_800_000_000 * 10**9, 1_800_000_000 * 10**9))  # touched only
    first = verify(str(m)).checks[0]
    assert (first.path, first.status) == (str(a), "mtime")
    assert verify(str(m)).status == "touched"
    _write(b, b"B" * 99 + b"b")  # same size and time, other content
    _write(c, b"C" * 101)
    d.unlink()
    _write(out, b"carveD")
    v = verify(str(m))
    assert [c_.status for c_ in v.checks] == ["mtime", "sha256", "size", "missing", "sha256"]
    assert (v.status, v.exit_status) == ("changed", ExitStatus.DECODE)
    assert "recorded " + hashlib.sha256(b"B" * 100).hexdigest() in v.checks[1].detail
    assert v.checks[2].line() == f"SIZE       input  {c}: 101 bytes, recorded 100"


def test_a_manifest_without_a_record_is_refused(tmp_path: Path) -> None:
    m = tmp_path / "manifest.json"
    m.write_text('{"hits": []}')
    with pytest.raises(InputError, match="no custody record"):
        verify(str(m))
    m.write_text("{not json")
    with pytest.raises(InputError, match="not JSON"):
        verify(str(m))
    with pytest.raises(InputError, match=r"(?i)no such file"):
        verify(str(tmp_path / "absent.json"))
