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


def same_values(obj: Any, el: Element) -> int:
    """Assert every field mqtool decoded in ``el`` has the same value in the Kaitai object;
    returns how many fields were compared."""
    n = 0
    for s in el.spans:
        if s.kind == RESERVED or not hasattr(obj, ksy_id(s.name)):
            continue
        got = getattr(obj, ksy_id(s.name))
        if hasattr(got, ksy_id(s.name)):  # a one-field member record (csbora)
            got = getattr(got, ksy_id(s.name))
        got = _plain(got)
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


def test_csq1logp_record_and_the_199_200_rule(parsers: dict[str, Any]) -> None:
    data = seed_bytes("csq1logp/mqput-rdw.dump")
    (unit,) = api.decode("csq1logp", data)
    (rec,) = parsers["csq1logp"].Csq1logp(_stream(data)).records
    rdw, logd = unit.elements[0], unit.elements[1]
    assert same_values(rec.rdw, rdw) == 2
    assert same_values(rec.csq4logd, logd) == 23  # 22 fixed fields + csbora
    assert rec.csq4logd.csbora is not None and rec.csq4logd.csbora.csbora == ""
    assert rec.csq4logd.csvardata == "HELLO WORLD".encode("cp037")


def test_sas_header_and_its_attachments(parsers: dict[str, Any]) -> None:
    data = seed_bytes("sas/seed-zos.header.dump")
    (unit,) = api.decode("sas-attachment", data)
    header = parsers["sas-attachment"].SasAttachment(False, _stream(data)).header
    assert same_values(header, unit.elements[0]) == 5
    (att,) = header.attachments
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
    assert header.num_attachments == 1 and header.attachments[0].type.value == 3


def test_redolog_header(parsers: dict[str, Any]) -> None:
    data = seed_bytes("osb/sample1.header.dump")
    (unit,) = api.decode("redolog", data)
    rl = parsers["redolog"].Redolog.Rlhdr(_stream(data))
    assert same_values(rl, unit.elements[0]) == 13
    assert (rl.rl_len, rl.rl_intent_len, rl.rl_eye) == (422, 374, "REDODATA")


def test_matqmsg_receiver_with_k_and_t(parsers: dict[str, Any]) -> None:
    sel = seed_bytes("matqmsg/keyed-eq.selection.synthetic.dump")
    (sunit,) = api.decode("matqmsg", sel)
    k, t = sunit.elements[0].value("key_bytes"), sunit.elements[0].value("text_bytes")
    data = seed_bytes("matqmsg/keyed-eq.receiver.synthetic.dump")
    (unit,) = api.decode("matqmsg", data, part="receiver", key_bytes=k, text_bytes=t)
    parsed = parsers["matqmsg"].Matqmsg(k, t, _stream(data))
    assert same_values(parsed.receiver, unit.elements[0]) == 6
    entries = unit.elements[0].children  # the entries nest in the RECEIVER
    assert len(parsed.messages) == len(entries) >= 1
    for m, el in zip(parsed.messages, entries, strict=True):
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
