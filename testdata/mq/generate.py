"""Generate the MQ header-chain test vectors in this directory (see SOURCES.md).

Independent of mqtool on purpose: every structure is packed here with ``struct`` from the
public field lists (IBM MQ cmqc.h as documented, the Wireshark MQ dissector, pymqi's
CMQC constants), so the vectors check mqtool's declarations rather than repeat them.

    python testdata/mq/generate.py      # rewrites *.bin, dlq.dmpmqmsg and vectors.json
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# MQENC_*: integers normal 1 / reversed 2, decimal 0x10 / 0x20, float IEEE 0x100 / 0x200, S390 0x300
ENC_BE, ENC_LE, ENC_ZOS = 0x111, 0x222, 0x311


class Variant:
    def __init__(self, big: bool, ebcdic: bool) -> None:
        self.e = ">" if big else "<"
        self.cp = "cp500" if ebcdic else "latin-1"
        self.ccsid = 500 if ebcdic else 819
        self.enc = ENC_ZOS if big and ebcdic else ENC_BE if big else ENC_LE

    def c(self, text: str, n: int) -> bytes:
        data = text.encode(self.cp)
        assert len(data) <= n
        return data + " ".encode(self.cp) * (n - len(data))

    def i(self, *values: int) -> bytes:
        return struct.pack(f"{self.e}{len(values)}l", *values)


def dlh(v: Variant, reason: int, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQDLH: StrucId, Version, Reason, DestQName 48, DestQMgrName 48, Encoding, CCSID,
    Format 8, PutApplType, PutApplName 28, PutDate 8, PutTime 8 = 172 bytes."""
    return (v.c("DLH ", 4) + v.i(1, reason) + v.c("PAYROLL.IN", 48) + v.c("QM1", 48)
            + v.i(enc, ccsid) + v.c(fmt, 8) + v.i(28) + v.c("payroll-loader", 28)
            + v.c("20261123", 8) + v.c("18001234", 8))


def rfh2(v: Variant, folders: list[str], fmt: str, enc: int, ccsid: int) -> bytes:
    """MQRFH2: 36 fixed bytes (StrucId, Version 2, StrucLength, Encoding, CCSID, Format 8,
    Flags, NameValueCCSID 1208), then NameValueLength + NameValueData (UTF-8, padded with
    blanks to a multiple of 4) per folder."""
    data = b""
    for f in folders:
        raw = f.encode("utf-8")
        raw += b" " * (-len(raw) % 4)
        data += v.i(len(raw)) + raw
    fixed = v.c("RFH ", 4) + v.i(2, 36 + len(data), enc, ccsid) + v.c(fmt, 8) + v.i(0, 1208)
    return fixed + data


def rfh1(v: Variant, nvs: str, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQRFH version 1: 32 fixed bytes, then the NameValueString (padded to 4)."""
    raw = nvs.encode(v.cp)
    raw += " ".encode(v.cp) * (-len(raw) % 4)
    return v.c("RFH ", 4) + v.i(1, 32 + len(raw), enc, ccsid) + v.c(fmt, 8) + v.i(0) + raw


def tm(v: Variant) -> bytes:
    """MQTM: StrucId, Version, QName 48, ProcessName 48, TriggerData 64, ApplType, ApplId 256,
    EnvData 128, UserData 128 = 684 bytes."""
    return (v.c("TM  ", 4) + v.i(1) + v.c("APP.INITQ", 48) + v.c("APP.PROCESS", 48)
            + v.c("trigger-data", 64) + v.i(6) + v.c("/opt/app/bin/start", 256)
            + v.c("", 128) + v.c("user-data", 128))


def tmc2(v: Variant) -> bytes:
    """MQTMC2: all characters, version '   2', ApplType as 4 characters, QMgrName 48 = 732."""
    return (v.c("TMC ", 4) + v.c("   2", 4) + v.c("APP.INITQ", 48) + v.c("APP.PROCESS", 48)
            + v.c("", 64) + v.c("   6", 4) + v.c("/opt/app/bin/start", 256) + v.c("", 128)
            + v.c("", 128) + v.c("QM1", 48))


def mqmd1(v: Variant, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQMD version 1 (324 bytes) as an MQXQH carries it."""
    return (v.c("MD  ", 4) + v.i(1, 0, 8, -1, 0, enc, ccsid) + v.c(fmt, 8) + v.i(0, 1)
            + bytes(range(24)) + bytes(24) + v.i(0) + v.c("", 48) + v.c("", 48)
            + v.c("mqm", 12) + bytes(32) + v.c("", 32) + v.i(6) + v.c("sender", 28)
            + v.c("20261123", 8) + v.c("18001234", 8) + v.c("", 4))


def xqh(v: Variant) -> bytes:
    """MQXQH: StrucId, Version, RemoteQName 48, RemoteQMgrName 48 (104), then MsgDesc."""
    return v.c("XQH ", 4) + v.i(1) + v.c("PAYROLL.IN", 48) + v.c("QM2", 48)


def chained(v: Variant, eye: str, version: int, length: int, fmt: str, enc: int,
            ccsid: int, flags: int = 0) -> bytes:
    return v.c(eye, 4) + v.i(version, length, enc, ccsid) + v.c(fmt, 8) + v.i(flags)


def cih(v: Variant, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQCIH version 2 (180 bytes)."""
    return (chained(v, "CIH ", 2, 180, fmt, enc, ccsid)
            + v.i(0, 0, 0, 0x111, -2, 1, -1, 0, 0, 0, 0) + bytes(8) + v.c("PUT ", 4)
            + v.c("", 4) + v.c("", 8) + v.c("", 8) + v.c("MQSTR", 8) + v.c("", 4)
            + v.c("", 4) + v.c("PAYR", 4) + v.c("", 4) + v.c("", 4) + v.c("", 4)
            + v.c("", 4) + v.c("", 4) + v.c("", 8) + v.c("", 8) + v.i(0, 0, 0, 0))


def iih(v: Variant, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQIIH (84 bytes)."""
    return (chained(v, "IIH ", 1, 84, fmt, enc, ccsid) + v.c("LTERM1", 8) + v.c("MFSMAP", 8)
            + v.c("MQIMSVS", 8) + v.c("", 8) + bytes(16) + v.c("", 1) + v.c("0", 1)
            + v.c("C", 1) + v.c("", 1))


def mde(v: Variant, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQMDE (72 bytes)."""
    return chained(v, "MDE ", 2, 72, fmt, enc, ccsid) + bytes(range(1, 25)) + v.i(3, 0, 8, -1)


def wih(v: Variant, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQWIH (120 bytes)."""
    return (chained(v, "WIH ", 1, 120, fmt, enc, ccsid) + v.c("PAYROLL.SERVICE", 32)
            + v.c("STEP1", 8) + bytes(16) + v.c("", 32))


def rmh(v: Variant, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQRMH (108 bytes) + DestName at offset 108 (16 bytes)."""
    dest = v.c("/data/in.bin", 16)
    return (chained(v, "RMH ", 1, 108 + len(dest), fmt, enc, ccsid, flags=1) + v.c("FILE", 8)
            + bytes(24) + v.i(0, 0, 0, 0, 0, 0, 12, 108, 4096, 0, 0) + dest)


def dh(v: Variant, fmt: str, enc: int, ccsid: int) -> bytes:
    """MQDH (48) + 2 MQOR (96 each) + 2 MQPMR with MsgId and Feedback (28 each)."""
    ors = v.c("Q.A", 48) + v.c("QM1", 48) + v.c("Q.B", 48) + v.c("QM2", 48)
    pmrs = bytes([1] * 24) + v.i(0) + bytes([2] * 24) + v.i(0)
    head = (chained(v, "DH  ", 1, 48 + len(ors) + len(pmrs), fmt, enc, ccsid)
            + v.i(0x09, 2, 48, 48 + len(ors)))
    return head + ors + pmrs


def pcf_event(v: Variant) -> bytes:
    """A queue-manager event (MQCFH 36 bytes: Type 7 MQCFT_EVENT, Command 44
    MQCMD_Q_MGR_EVENT, Reason 2085 MQRC_UNKNOWN_OBJECT_NAME) with one parameter of each
    kind: MQCFST (20 + string padded to 4), MQCFIN (16), MQCFIL (16 + 4 per value), MQCFSL
    (24 + strings), MQCFBS (16 + bytes), MQCFIN64 (24), MQCFIL64 (16 + 8 per value), MQCFGR
    (16, its members follow it), MQCFIF (20)."""
    def st(pid: int, text: str) -> bytes:
        raw = text.encode(v.cp)
        pad = raw + " ".encode(v.cp) * (-len(raw) % 4)
        return v.i(4, 20 + len(pad), pid, 0, len(raw)) + pad

    e = v.e
    params = [
        st(2015, "QM1"),                                      # MQCA_Q_MGR_NAME
        st(2016, "NO.SUCH.Q"),                                # MQCA_Q_NAME
        v.i(3, 16, 1022, 16),                                 # MQIACF_OPEN_OPTIONS
        v.i(5, 24, 1002, 2, 1, 2),                            # MQIACF_Q_ATTRS [1, 2]
        v.i(6, 24 + 8, 3011, 0, 2, 4) + v.c("AB", 4) + v.c("CD", 4),  # MQCACF_Q_NAMES
        v.i(9, 16 + 4, 7001, 3) + b"\x01\x02\x03\x00",        # MQBACF_EVENT_ACCOUNTING_TOKEN
        v.i(23, 24, 1022, 0) + struct.pack(f"{e}q", 1 << 40),   # MQCFIN64
        v.i(25, 16 + 16, 1002, 2) + struct.pack(f"{e}2q", -1, 7),  # MQCFIL64
        v.i(20, 16, 8001, 1),                                 # MQCFGR MQGACF_COMMAND_CONTEXT
        v.i(3, 16, 1, 28),                                    # its member: MQIA_APPL_TYPE 28
        v.i(13, 20, 3, 4, 5),                                 # MQCFIF depth > 5
    ]
    return v.i(7, 36, 1, 44, 1, 1, 2, 2085, len(params) - 1) + b"".join(params)


FOLDERS = [
    "<mcd><Msd>jms_text</Msd></mcd>",
    "<jms><Dst>queue:///PAYROLL.IN</Dst><Pri>4</Pri><Dlv>2</Dlv></jms>",
    '<usr><Batch dt="i4">7</Batch><Big dt="i8">4294967296</Big><Small dt="i1">-3</Small>'
    '<Mid dt="i2">300</Mid><Rate dt="r8">0.25</Rate><Ratio dt="r4">1.5</Ratio>'
    '<Ok dt="boolean">1</Ok><Key dt="bin.hex">0A0B</Key><Name dt="string">Lea</Name>'
    "<Grp><Inner>x</Inner></Grp><Gone xsi:nil='true'/></usr>",
]
PROPERTIES = {"mcd.Msd": "jms_text", "jms.Dst": "queue:///PAYROLL.IN", "jms.Pri": "4",
              "jms.Dlv": "2", "usr.Batch": 7, "usr.Big": 4294967296, "usr.Small": -3,
              "usr.Mid": 300, "usr.Rate": 0.25, "usr.Ratio": 1.5, "usr.Ok": True,
              "usr.Key": "0A0B", "usr.Name": "Lea", "usr.Grp.Inner": "x", "usr.Gone": None}
TEXT = "salary run 2026-11 rejected"


def vectors() -> dict[str, tuple[bytes, dict]]:
    out: dict[str, tuple[bytes, dict]] = {}
    for big in (True, False):
        for ebcdic in (False, True):
            v = Variant(big, ebcdic)
            tag = f"{'be' if big else 'le'}.{'ebcdic' if ebcdic else 'ascii'}"
            payload = TEXT.encode(v.cp)
            body = (dlh(v, 2051, "MQHRF2", v.enc, v.ccsid)
                    + rfh2(v, FOLDERS, "MQSTR", v.enc, v.ccsid) + payload)
            out[f"dlh-rfh2-mqstr.{tag}.bin"] = (body, {
                "mqmd": {"format": "MQDEAD", "encoding": v.enc, "codedcharsetid": v.ccsid},
                "chain": ["MQDLH", "MQRFH2"], "payload_offset": len(body) - len(payload),
                "payload_format": "MQSTR", "text": TEXT, "reason": [2051, "MQRC_PUT_INHIBITED"],
                "properties": PROPERTIES,
                "fields": {"MQDLH": {"reason": 2051, "destqname": "PAYROLL.IN",
                                     "destqmgrname": "QM1", "format": "MQHRF2",
                                     "putappltype": 28, "putapplname": "payroll-loader",
                                     "putdate": "20261123", "puttime": "18001234"},
                           "MQRFH2": {"version": 2, "namevalueccsid": 1208, "format": "MQSTR"}}})
            body = dlh(v, 265, "MQTRIG", v.enc, v.ccsid) + tm(v)
            out[f"dlh-tm.{tag}.bin"] = (body, {
                "mqmd": {"format": "MQDEAD", "encoding": v.enc, "codedcharsetid": v.ccsid},
                "chain": ["MQDLH", "MQTM"], "payload_offset": len(body), "payload_format": "",
                "reason": [265, "MQFB_APPL_CANNOT_BE_STARTED"],
                "fields": {"MQTM": {"qname": "APP.INITQ", "processname": "APP.PROCESS",
                                    "appltype": 6, "applid": "/opt/app/bin/start",
                                    "userdata": "user-data"}}})
            payload = TEXT.encode(v.cp)
            body = xqh(v) + mqmd1(v, "MQSTR", v.enc, v.ccsid) + payload
            out[f"xqh-mqstr.{tag}.bin"] = (body, {
                "mqmd": {"format": "MQXMIT", "encoding": v.enc, "codedcharsetid": v.ccsid},
                "chain": ["MQXQH", "MQMD"], "payload_offset": 428, "payload_format": "MQSTR",
                "text": TEXT, "fields": {"MQXQH": {"remoteqname": "PAYROLL.IN",
                                                   "remoteqmgrname": "QM2"},
                                         "MQMD": {"msgtype": 8, "putapplname": "sender",
                                                  "useridentifier": "mqm"}}})
    v = Variant(True, True)
    rest = TEXT.encode(v.cp)
    body = (cih(v, "MQIMS", v.enc, v.ccsid) + iih(v, "MQHMDE", v.enc, v.ccsid)
            + mde(v, "MQHWIH", v.enc, v.ccsid) + wih(v, "MQHREF", v.enc, v.ccsid)
            + rmh(v, "MQHDIST", v.enc, v.ccsid) + dh(v, "MQSTR", v.enc, v.ccsid) + rest)
    out["bridge-chain.be.ebcdic.bin"] = (body, {
        "mqmd": {"format": "MQCICS", "encoding": v.enc, "codedcharsetid": v.ccsid},
        "chain": ["MQCIH", "MQIIH", "MQMDE", "MQWIH", "MQRMH", "MQDH", "MQOR", "MQOR",
                  "MQPMR", "MQPMR"],
        "payload_offset": len(body) - len(rest), "payload_format": "MQSTR", "text": TEXT,
        "fields": {"MQCIH": {"version": 2, "struclength": 180, "function": "PUT",
                             "transactionid": "PAYR", "uowcontrol": 273, "linktype": 1},
                   "MQIIH": {"ltermoverride": "LTERM1", "mfsmapname": "MFSMAP",
                             "commitmode": "0", "securityscope": "C"},
                   "MQMDE": {"msgseqnumber": 3, "msgflags": 8, "originallength": -1},
                   "MQWIH": {"servicename": "PAYROLL.SERVICE", "servicestep": "STEP1"},
                   "MQRMH": {"objecttype": "FILE", "destnamelength": 12,
                             "destnameoffset": 108, "datalogicallength": 4096},
                   "MQDH": {"putmsgrecfields": 9, "recspresent": 2, "objectrecoffset": 48,
                            "putmsgrecoffset": 240}}})
    for big in (True, False):
        v = Variant(big, False)
        body = pcf_event(v)
        out[f"event.{'be' if big else 'le'}.ascii.bin"] = (body, {
            "mqmd": {"format": "MQEVENT", "encoding": v.enc, "codedcharsetid": 819},
            "chain": [], "payload_offset": 0, "payload_format": "MQEVENT",
            "pcf": {"command": "MQCMD_Q_MGR_EVENT", "reason": 2085, "parameters": [
                ["MQCA_Q_MGR_NAME", "QM1"], ["MQCA_Q_NAME", "NO.SUCH.Q"],
                ["MQIACF_OPEN_OPTIONS", 16], ["MQIACF_Q_ATTRS", [1, 2]],
                ["MQCACF_Q_NAMES", ["AB", "CD"]], ["MQBACF_EVENT_ACCOUNTING_TOKEN", "010203"],
                ["MQIACF_OPEN_OPTIONS", 1 << 40], ["MQIACF_Q_ATTRS", [-1, 7]],
                ["MQGACF_COMMAND_CONTEXT", [["MQIA_APPL_TYPE", 28]]],
                ["MQIA_CURRENT_Q_DEPTH", 5]]}})
    v = Variant(False, False)
    body = rfh1(v, 'OPT_APP_GRP payroll OPT_MSG "two words"', "MQSTR", v.enc, v.ccsid) + b"x"
    out["rfh1.le.ascii.bin"] = (body, {
        "mqmd": {"format": "MQHRF", "encoding": v.enc, "codedcharsetid": v.ccsid},
        "chain": ["MQRFH"], "payload_offset": len(body) - 1, "payload_format": "MQSTR",
        "properties": {"rfh.OPT_APP_GRP": "payroll", "rfh.OPT_MSG": "two words"}})
    body = tmc2(Variant(True, False))
    out["tmc2.ascii.bin"] = (body, {"mqmd": None, "chain": ["MQTMC2"], "payload_offset": 732,
                                    "payload_format": "",
                                    "fields": {"MQTMC2": {"qmgrname": "QM1", "appltype": "   6"}}})
    return out


def dmpmqmsg(messages: list[tuple[dict, bytes]]) -> bytes:
    """dmpmqmsg text: A lines for the MQMD fields given, X lines of 32 bytes."""
    codes = {"msgtype": "MST", "encoding": "ENC", "codedcharsetid": "CCS", "format": "FMT",
             "correlid": "COI", "putapplname": "PAN"}
    lines = ["* Dumped by testdata/mq/generate.py in dmpmqmsg file format", "* Qmgr  = QM1",
             "* Queue = SYSTEM.DEAD.LETTER.QUEUE", ""]
    for md, body in messages:
        for name, code in codes.items():
            if name in md:
                value = md[name]
                lines.append(f"A {code} {value.hex().upper() if isinstance(value, bytes) else value}")
        for k in range(0, len(body), 32):
            lines.append("X " + body[k:k + 32].hex().upper())
    return ("\r\n".join(lines) + "\r\n").encode("latin-1")


def main() -> int:
    manifest = {}
    for name, (body, expect) in vectors().items():
        (HERE / name).write_bytes(body)
        manifest[name] = {"length": len(body), **expect}
    v = Variant(False, False)
    msgs = []
    for n, reason in enumerate((2053, 2035), 1):
        body = dlh(v, reason, "MQSTR", ENC_LE, 819) + f"order {n}".encode()
        msgs.append(({"msgtype": 8, "encoding": ENC_LE, "codedcharsetid": 819,
                      "format": "MQDEAD", "putapplname": "amqzlaa0"}, body))
    (HERE / "dlq.dmpmqmsg").write_bytes(dmpmqmsg(msgs))
    (HERE / "vectors.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
