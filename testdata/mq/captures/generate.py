"""Generate the files the "Network captures" and "Event messages" pages read (see
../SOURCES.md): ``payments.pcapng`` and ``tls.pcap`` here, ``../events.qmsg`` beside.

The captures come from mqtool's own test writer (``mqtool.testing.mq_capture``: the MQ
framing and the pcap / pcapng files written with ``struct``) and are checked against
tshark by the tests; the PCF messages are packed by ``mqtool.testing.pcf_gen`` with the
constants of IBM's files in ``../ibm``.

    python testdata/mq/captures/generate.py
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def files() -> dict[Path, bytes]:
    """Every generated file and its bytes."""
    sys.path.insert(0, str(ROOT))
    from mqtool.formats.mq.dumps.message import Message
    from mqtool.formats.mq.dumps.read import QueueDump
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg
    from mqtool.testing import mq_capture, pcf_gen
    from tests.formats.mq import ibm_constants

    sas = [(m.mqmd, m.body) for m in QueueDump(str(ROOT / "testdata/sas/mytext-win.qmsg"))]
    out = {HERE / "payments.pcapng": mq_capture.walkthrough(sas).data,
           HERE / "tls.pcap": mq_capture.tls_channel()}
    events = io.BytesIO()
    write_dmpmqmsg([Message(k, body, md) for k, (md, body) in
                    enumerate(pcf_gen.doc_messages(ibm_constants.by_name()), 1)], events,
                   queue="SYSTEM.ADMIN.EVENTS", qmgr="QM1")
    out[HERE.parent / "events.qmsg"] = events.getvalue()
    return out


if __name__ == "__main__":
    for path, data in files().items():
        path.write_bytes(data)
        print(f"{path.relative_to(ROOT)}: {len(data)} bytes")
