"""SAS attachments read off a dead-letter queue (MQDLH) or sent through JMS (MQRFH2):
reassembly steps over the MQ headers and records each message's dead-letter reason."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers import TESTDATA, mq

DUMP = TESTDATA / "sas" / "mytext-zos.qmsg"
ORIGINAL = (TESTDATA / "sas" / "mytext.txt").read_bytes()


def wrapped(tmp_path: Path, *chain: str) -> Path:
    out = tmp_path / "wrapped.qmsg"
    r = mq("build-request", "mq", *chain, "--wrap", DUMP, "-o", out)
    assert r.status == 0, r.stderr
    return out


def manifest_of(out: Path) -> dict:
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return json.loads((folder / "manifest.json").read_text())


@pytest.mark.parametrize("chain, reason", [
    (("--dlh", "reason=2051,destqname=SAS.IN"), {"reason": 2051, "name": "MQRC_PUT_INHIBITED"}),
    (("--dlh", "reason=2053,destqname=SAS.IN", "--rfh2", "usr.Batch=7"),
     {"reason": 2053, "name": "MQRC_Q_FULL"}),
    (("--rfh2", "jms.Dst=queue:///SAS.IN"), None),
])
def test_headers_are_stepped_over(tmp_path: Path, chain: tuple[str, ...], reason: dict | None) -> None:
    dump = wrapped(tmp_path, *chain)
    assert b"A FMT MQDEAD" in dump.read_bytes() if reason else b"A FMT MQHRF2" in dump.read_bytes()
    r = mq("reassemble", "attachment", dump, "-o", tmp_path / "out")
    assert r.status == 0, r.stderr
    (folder,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    assert (folder / "mytext.txt").read_bytes() == ORIGINAL
    m = manifest_of(tmp_path / "out")
    assert len(m["messages"]) == 6
    assert [e.get("dead_letter_reason") for e in m["messages"]] == [reason] * 6
    if reason is not None:
        assert r.stdout.decode().rstrip().endswith(
            f"6 dead-lettered with reason {reason['reason']} {reason['name']}")
    plain = tmp_path / "plain"
    assert mq("reassemble", "attachment", DUMP, "-o", plain).status == 0
    assert "dead_letter_reason" not in json.dumps(manifest_of(plain))


def test_a_chain_that_cannot_be_walked_is_reported_and_the_body_read_as_is(tmp_path: Path) -> None:
    """The MQMD of message 1 says MQDEAD, but the body is the SAS header itself: the chain
    stops at once; reassembly reads the body as it is and says why in a warning."""
    text = DUMP.read_text(encoding="latin-1")
    dump = tmp_path / "bad.qmsg"
    dump.write_text(re.sub(r"A FMT[^\r\n]*", "A FMT MQDEAD", text, count=1), encoding="latin-1")
    r = mq("reassemble", "attachment", dump, "-o", tmp_path / "out")
    assert r.status == 0, r.stderr
    (folder,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    assert (folder / "mytext.txt").read_bytes() == ORIGINAL
    assert ("warning: dump message 1: MQ header chain: mqdlh.strucid at offset 0: StrucId "
            "'\\x11\\x11\\x11\\x11' (X'11111111') is not 'DLH '") in r.stderr
