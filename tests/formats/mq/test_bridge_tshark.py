"""IMS LLZZ segments after an MQIIH, checked against Wireshark's MQ dissector: a capture of
an MQPUT carrying the message is written and read back by tshark (``mq.ims.*``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mqtool.formats.mq import decode as codec
from mqtool.testing.mq_capture import Conversation, Endpoints, capture, ip_frames, tcp_packets
from tests.formats.mq import tshark_mq
from tests.formats.mq.test_bridge_data import MQENC_BIG, MQENC_LITTLE, llzz, mqiih

CASES = {
    "big-endian": (True, mqiih() + llzz(b"PAYROLL1 EMP=00042") + llzz(b"MORE DATA")),
    "little-endian": (False, mqiih(enc=MQENC_LITTLE, order="<") + llzz(b"TRANLE ORDER=7", "<")),
    "short code": (True, mqiih() + llzz(b"PAY SALARY RUN")),
}


def _tshark_ims(path: Path) -> list[str]:
    out = subprocess.run([tshark_mq.need_tshark(), "-r", str(path), "-Y", "mq.ims.ll", "-T",
                          "fields", "-E", "separator=\t", "-e", "mq.ims.ll", "-e", "mq.ims.zz",
                          "-e", "mq.ims.trx", "-e", "mq.ims.data"],
                         capture_output=True, text=True, check=True).stdout
    [line] = out.splitlines()
    return line.split("\t")


@pytest.mark.parametrize("case", sorted(CASES))
def test_first_segment_equals_tshark(tmp_path: Path, case: str) -> None:
    big, body = CASES[case]
    enc = MQENC_BIG if big else MQENC_LITTLE
    conv = Conversation(big=big)
    conv.mqopen("IMS.BRIDGE", 1)
    conv.mqput(1, "IMS.BRIDGE", body, format="MQIMS", encoding=enc)
    path = tmp_path / "ims.pcap"
    path.write_bytes(capture(ip_frames(tcp_packets(conv), Endpoints())))
    ll, zz, trx, data = _tshark_ims(path)

    unit = codec.unit_of(body, {"format": "MQIMS", "encoding": enc, "codedcharsetid": 819})
    first = next(e for e in unit.elements if e.type == "payload").children[0]
    assert (first.value("ll"), int.from_bytes(first.value_as("zz", bytes), "big" if big else "little")) == (
        int(ll), int(zz))
    # Wireshark shows the first 8 bytes as the transaction; IMS ends the code at a blank
    assert first.value("trancode") == trx.split(" ")[0]
    assert first.data is not None and first.data[8:].hex() == data
