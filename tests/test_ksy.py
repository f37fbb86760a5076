"""The generated ``.ksy`` specs compile with the Kaitai Struct compiler, and the parsers it
generates read the seed vectors to the same values mqtool decodes.

Needs Node.js and the ``kaitaistruct`` Python runtime (``mqtool[test]``). The compiler is the
npm package ``kaitai-struct-compiler``: one ``node`` already finds (``NODE_PATH``), else the
pinned version in a cache folder, installed there with ``npm`` on first use
(``$XDG_CACHE_HOME/mqtool-tests``, else ``~/.cache/mqtool-tests``). Skipped, saying why,
when that cannot be done; under ``CI=true`` the skip is a failure (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from mqtool import api, catalog
from mqtool.formats.mq.mqmd import build_mqmd
from mqtool.model import RESERVED, Element
from mqtool.render.layouts import ksy_id
from mqtool.tod import Tod
from tests.helpers import ROOT, seed_bytes

# one node process compiles every spec (stdin: {"name": spec, ...}); the compiler loads once
COMPILE_JS = """
const compiler = require("kaitai-struct-compiler");
const fs = require("fs");
const specs = JSON.parse(fs.readFileSync(0, "utf8"));
(async () => {
  for (const [spec_name, spec] of Object.entries(specs)) {
    try {
      const files = await compiler.compile("python", spec, null, false);
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(process.argv[1] + "/" + name, text);
    } catch (e) { console.error(spec_name + ".ksy does not compile: " + String(e)); process.exitCode = 1; }
  }
})();
"""


KSC = "kaitai-struct-compiler"
KSC_VERSION = "0.11.0"  # the compiler of the kaitaistruct 0.11 runtime's API


def _cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mqtool-tests" / f"{KSC}-{KSC_VERSION}"


def _finds_compiler(env: dict[str, str]) -> bool:
    probe = subprocess.run(["node", "-e", f"require.resolve('{KSC}')"], env=env,
                           capture_output=True, text=True, timeout=60)
    return probe.returncode == 0


def _npm_install(target: Path) -> str:
    """Install the pinned compiler into ``target`` (a temporary folder renamed into place,
    so a concurrent run sees all of it or nothing); the reason when it fails."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(work),
                               f"{KSC}@{KSC_VERSION}"], capture_output=True, text=True, timeout=600)
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            return f"npm install {KSC}@{KSC_VERSION} failed: {last}"
        with contextlib.suppress(OSError):  # another run installed it meanwhile
            os.replace(work, target)
        return ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compiler_env() -> tuple[dict[str, str], str]:
    """The environment in which ``node`` finds the compiler, and "" -- or the reason it
    cannot be had."""
    if shutil.which("node") is None:
        return {}, "node is not installed (Node.js 18+; .ci/run installs it)"
    if importlib.util.find_spec("kaitaistruct") is None:
        return {}, "the Python package kaitaistruct is not installed (pip install -e '.[test]')"
    env = dict(os.environ)
    if _finds_compiler(env):
        return env, ""
    modules = _cache() / "node_modules"
    env["NODE_PATH"] = os.pathsep.join(filter(None, [str(modules), env.get("NODE_PATH")]))
    if not (modules / KSC).is_dir():
        if shutil.which("npm") is None:
            return {}, f"{KSC} is not installed and there is no npm to install it"
        why = _npm_install(_cache())
        if why:
            return {}, why
    if not _finds_compiler(env):
        return {}, f"node does not find {KSC} in {modules}"
    return env, ""


@pytest.fixture(scope="module")
def parsers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    env, missing = compiler_env()
    if missing:
        pytest.skip(f"Kaitai compiler unavailable: {missing}")
    out = tmp_path_factory.mktemp("ksy")
    modules = {}
    specs = json.dumps({name: yaml.safe_load(catalog.ksy(name)) for name in catalog.FORMATS})
    done = subprocess.run(["node", "-e", COMPILE_JS, str(out)], input=specs, text=True,
                          capture_output=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(out))
    try:
        for name in catalog.FORMATS:
            modules[name] = importlib.import_module(ksy_id(name))
    finally:
        sys.path.remove(str(out))
    return modules


def _stream(data: bytes) -> Any:
    from kaitaistruct import KaitaiStream

    return KaitaiStream(io.BytesIO(data))


def _plain(v: Any) -> Any:
    return v.value if hasattr(v, "value") and not isinstance(v, int | str | bytes) else v


def same_values(obj: Any, el: Element, only: tuple[str, ...] = ()) -> int:
    """Assert every field mqtool decoded in ``el`` (``only`` these, when given) has the same
    value in the Kaitai object; returns how many fields were compared."""
    n = 0
    for s in el.spans:
        if s.kind == RESERVED or not hasattr(obj, ksy_id(s.name)) or (only and s.name not in only):
            continue
        got = _plain(getattr(obj, ksy_id(s.name)))
        want = s.value.raw if isinstance(s.value, Tod) else s.value
        assert got == want, (el.type, s.name, got, want)
        n += 1
    return n


def test_urb_message_chain(parsers: dict[str, Any]) -> None:
    data = seed_bytes("urb/inst-color.data.dump")
    (unit,) = api.decode("urb", data)
    parsed = parsers["urb"].Urb(False, _stream(data))
    (msg,) = parsed.messages
    assert same_values(msg.urbh, unit.elements[0]) == 10
    items = msg.elements.items
    assert [i.eye for i in items] == [el.type for el in unit.elements[1:]] == [
        "URBT", "URBR", "URBD", "URBR", "URBD", "URBR", "URBD", "URBE"]
    compared = 0
    for item, el in zip(items, unit.elements[1:], strict=True):
        assert item.len == el.length
        compared += same_values(item.body, el)
    assert compared > 60
    assert items[2].body.urbddata == unit.elements[3].data  # the record image


def test_urb_format_table_with_its_urbgs(parsers: dict[str, Any]) -> None:
    """A URBF and its URBGs (nested under it by mqtool, ``repeat-expr: urbfcntg`` of
    ``urbfleng`` bytes in the .ksy), and a status with data: the same values both ways."""
    from mqtool.formats.urb.compose import Message, Part, build_message

    urbgs = [Part("URBG", {"urbgidx": k, "urbgfid": f, "urbgflen": n, "urbgfnam": long})
             for k, (f, n, long) in enumerate([("AA", 8, "PERSONNEL-ID"), ("AE", 20, "NAME")])]
    data = build_message(Message(elements=[
        Part("URBF", {"urbfgfid": "EMPLTEL", "urbfdbid": 10006, "urbffnr": 9, "urbffnam": "EMPLOYEES"},
             path="urbf[0]", items=urbgs),
        Part("URBS", {"urbsst": "INIT"}, b"\x01\x02\x03\x04", path="urbs[0]")]))
    (unit,) = api.decode("urb", data)
    assert not unit.errors and not unit.problems
    (msg,) = parsers["urb"].Urb(False, _stream(data)).messages
    f_item, s_item = msg.elements.items
    urbf, urbs = unit.elements[1:]
    assert same_values(f_item.body, urbf) == 14  # all but the eyecatcher and length (the head)
    assert len(f_item.body.urbg) == len(urbf.children) == 2
    for g, el in zip(f_item.body.urbg, urbf.children, strict=True):
        assert same_values(g, el) == 17  # every field but the two reserved ones
    assert same_values(s_item.body, urbs) == 20 and s_item.body.urbsdata == urbs.data == b"\x01\x02\x03\x04"


def _csq1logp_records(parsed: Any, data: bytes) -> list[tuple[Any, Element, Element]]:
    """Each Kaitai record with mqtool's RDW and CSQ4LOGD elements of the same record."""
    units = api.decode("csq1logp", data)
    assert not any(u.errors for u in units)
    els = [el for u in units for el in u.elements]
    pairs = list(zip(els[0::2], els[1::2], strict=True))
    assert [(r.type, d.type) for r, d in pairs] == [("RDW", "CSQ4LOGD")] * len(pairs)
    return [(rec, r, d) for rec, (r, d) in zip(parsed.records, pairs, strict=True)]


@pytest.mark.parametrize("seed", ["csq1logp/mqput-rdw.dump", "csq1logp/hello-2seg.dump"])
def test_csq1logp_records_and_the_199_200_rule(parsers: dict[str, Any], seed: str) -> None:
    """Every record of the seeds: the fixed part, csbora (nested by mqtool, present by the
    hook's declared condition in the .ksy) and csvardata read the same both ways."""
    data = seed_bytes(seed)
    parsed = parsers["csq1logp"].Csq1logp(_stream(data))
    for rec, rdw, logd in _csq1logp_records(parsed, data):
        assert same_values(rec.rdw, rdw) == 2
        assert same_values(rec.csq4logd, logd) == 22  # the fixed part's fields
        (bora,) = logd.children  # the variable part: csbora, then csvardata, nested
        assert same_values(rec.csq4logd.csbora, bora) == 1
        assert rec.csq4logd.csvardata == bora.data
    one = seed_bytes("csq1logp/mqput-rdw.dump")
    (rec, _, logd), = _csq1logp_records(parsers["csq1logp"].Csq1logp(_stream(one)), one)
    assert rec.csq4logd.csbora.csbora == "" and logd.children[0].data == "HELLO WORLD".encode("cp037")


def test_csq1logp_record_without_csbora(parsers: dict[str, Any]) -> None:
    """A record of 199 + ldatalen bytes after its RDW carries no csbora byte: the .ksy's
    condition (declared with the format's hook) leaves it out as mqtool does."""
    from datetime import datetime

    from mqtool.formats.csq1logp.build import build_record

    data = build_record({"csrecorddate": datetime(2024, 3, 15, 13, 45), "csverb": "MQPUT"},
                        b"\xC1\xC2\xC3", bora=False)
    (rec, rdw, logd), = _csq1logp_records(parsers["csq1logp"].Csq1logp(_stream(data)), data)
    assert rdw.value("length") == 4 + 199 + 3 and not logd.children
    assert getattr(rec.csq4logd, "csbora", None) is None  # Kaitai leaves an absent member unset
    assert same_values(rec.csq4logd, logd) == 22
    assert rec.csq4logd.csvardata == logd.data == b"\xC1\xC2\xC3"


def test_sas_header_and_its_attachments(parsers: dict[str, Any]) -> None:
    data = seed_bytes("sas/seed-zos.header.dump")
    (unit,) = api.decode("sas-attachment", data)
    header = parsers["sas-attachment"].SasAttachment(False, _stream(data)).header
    assert same_values(header, unit.elements[0]) == 5
    (att,) = header.attachment
    assert same_values(att, unit.elements[0].children[0]) == 10  # entries nest in the HEADER
    assert (att.qualifier2, att.type.name) == ("d:\\mytext.txt", "external_binary_file")


def test_sas_little_endian_header(parsers: dict[str, Any]) -> None:
    """The Windows sender's header (little-endian): the is_le parameter reads its integers."""
    from mqtool.formats.mq.dumps.read import read_messages

    msgs = list(read_messages(str(ROOT / "testdata/sas/mytext-win.qmsg")))
    body = msgs[0].body
    (unit,) = api.decode("sas-attachment", body)
    header = parsers["sas-attachment"].SasAttachment(True, _stream(body)).header
    ints = [s for s in unit.elements[0].spans if s.kind == "int"]
    assert [getattr(header, s.name) for s in ints] == [s.value for s in ints]
    assert header.num_attachments == 1 and header.attachment[0].type.value == 3


def test_redolog_header(parsers: dict[str, Any]) -> None:
    """A header alone (the seed: a header as the exit is passed it): its fields."""
    data = seed_bytes("osb/sample1.header.dump")
    (unit,) = api.decode("redolog", data)
    rl = parsers["redolog"].Redolog.Rlhdr(_stream(data + bytes(374)))  # its intents: any bytes
    assert same_values(rl, unit.elements[0]) == 13
    assert (rl.rl_len, rl.rl_intent_len, rl.rl_eye) == (422, 374, "REDODATA")


@pytest.mark.parametrize("intent", ["osb/synthetic/format1.synthetic.dump",
                                    "osb/sample6.intent.dump",
                                    "osb/synthetic/clrtab.synthetic.dump"])
def test_redolog_entries_and_their_intent_lists(parsers: dict[str, Any], intent: str) -> None:
    """Entries back to back, each a header and its intent list (the seed's), built by
    mqtool: the .ksy reads the headers, the list's format (switch on its first halfword)
    and a format-1 list's update segments (length-prefixed items) as mqtool does."""
    from mqtool.formats.osb.build import build_entry

    body = seed_bytes(intent)
    (ref,) = api.decode("redolog", body)  # the intent list alone
    data = build_entry({"rl_seq": 1}, body) + build_entry({"rl_seq": 2}, body)
    units = api.decode("redolog", data)
    entries = parsers["redolog"].Redolog(_stream(data)).rlhdrs
    assert len(entries) == len(units) == 2
    for entry, unit in zip(entries, units, strict=True):
        head = unit.elements[0]
        assert same_values(entry, head) == 13
        assert entry.rl_intent_len == len(entry.intents.intent._io.to_byte_array()) == len(body)
        lst = head.children[0]  # the intent list, nested under its header
        assert lst.type == ref.elements[0].type in ("R1HDR", "R2HDR")
        assert type(entry.intents.intent).__name__ == lst.type.capitalize()
        assert same_values(entry.intents.intent, lst) == {"R1HDR": 4, "R2HDR": 5}[lst.type]
        segments = getattr(entry.intents.intent, "r1seg", [])
        kids = [c for c in lst.children if c.type == "R1SEG"]
        assert len(segments) == len(kids) == (2 if lst.type == "R1HDR" else 0)
        for seg, el in zip(segments, kids, strict=True):
            assert seg.r1_seglen == el.value("r1_seglen") == len(seg.body) == el.length - 2


def test_matqmsg_receiver_with_k_and_t(parsers: dict[str, Any]) -> None:
    sel = seed_bytes("matqmsg/keyed-eq.selection.synthetic.dump")
    (sunit,) = api.decode("matqmsg", sel)
    k, t = sunit.elements[0].value("key_bytes"), sunit.elements[0].value("text_bytes")
    data = seed_bytes("matqmsg/keyed-eq.receiver.synthetic.dump")
    (unit,) = api.decode("matqmsg", data, part="receiver", key_bytes=k, text_bytes=t)
    parsed = parsers["matqmsg"].Matqmsg(k, t, _stream(data))
    assert same_values(parsed.receiver, unit.elements[0]) == 6
    entries = unit.elements[0].children  # the entries nest in the RECEIVER, as in the .ksy
    assert len(parsed.receiver.messages) == len(entries) >= 1
    for m, el in zip(parsed.receiver.messages, entries, strict=True):
        assert m.enqueue_time == el.value("enqueue_time").raw
        assert m.message_length == el.value("message_length")
        assert m.key.rstrip("\x00").rstrip(" ") == el.value("key")


@pytest.mark.parametrize("big", [True, False], ids=["big-endian", "little-endian"])
def test_mqmd(parsers: dict[str, Any], big: bool) -> None:
    values = {"msgtype": 100001, "encoding": 785, "codedcharsetid": 500, "format": "MQSTR",
              "correlid": bytes(range(24)), "putapplname": "mqtool", "msgseqnumber": 3}
    data = build_mqmd(values, big=big)
    md = parsers["mq"].Mq(not big, _stream(data)).mqmd
    assert (md.strucid, md.version, md.msgtype, md.encoding, md.codedcharsetid) == (
        "MD  ", 2, 100001, 785, 500)
    assert (md.format, md.correlid, md.putapplname, md.msgseqnumber) == (
        "MQSTR", bytes(range(24)), "mqtool", 3)


MQ_VECTORS = ["dlh-rfh2-mqstr.be.ascii.bin", "dlh-rfh2-mqstr.le.ascii.bin", "dlh-tm.be.ascii.bin",
              "dlh-tm.le.ascii.bin", "xqh-mqstr.be.ascii.bin", "xqh-mqstr.le.ascii.bin",
              "rfh1.le.ascii.bin", "tmc2.ascii.bin"]


@pytest.mark.parametrize("name", MQ_VECTORS)
def test_mq_headers_of_the_testdata_vectors(parsers: dict[str, Any], name: str) -> None:
    """Every MQ header mqtool decodes in the vectors (packed by their generator from IBM's
    field lists, ASCII variants: the .ksy's text is ASCII) reads the same with the .ksy's
    type of that header, in the byte order mqtool found; what trails the fixed part is the
    bytes the header's StrucLength leaves."""
    from types import SimpleNamespace

    data = (ROOT / "testdata" / "mq" / name).read_bytes()
    (unit,) = api.decode("mq", data)
    headers = [el for el in unit.elements if hasattr(parsers["mq"].Mq, el.type.capitalize())]
    assert headers, [el.type for el in unit.elements]
    for el in headers:
        le = ".le." in name or (".be." not in name and data[4:8] == b"\x01\x00\x00\x00")
        cls = getattr(parsers["mq"].Mq, el.type.capitalize())
        parsed = cls(_stream(data[el.offset:el.offset + el.length]), None,
                     SimpleNamespace(is_le=le), le)  # a nested type: the byte order given
        doc = catalog.format_doc("mq").record(el.type)
        fixed = doc.layout.names  # the fixed part; what trails it is compared as bytes
        want = len([s for s in el.spans if s.kind != RESERVED and s.name in fixed])
        assert same_values(parsed, el, fixed) == want > 3, (name, el.type)
        if doc.data:
            start = el.offset + (doc.layout.size or 0)
            assert getattr(parsed, ksy_id(doc.data)) == data[start:el.offset + el.length]
