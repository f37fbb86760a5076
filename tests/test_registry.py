"""Every registered codec (the tests iterate ``registry.names()``) follows the protocol and
survives hostile input: random bytes and mutated seed vectors give Decoded units (with
errors where decoding stopped) or a clean MqtoolError — never another exception — and
whatever comes out renders as a listing, annotated hex and JSON."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool import registry
from mqtool.errors import InputError, MqtoolError, UndumpError
from mqtool.io.undump import undump
from mqtool.model import Decoded
from mqtool.render.annotate import annotate_unit
from mqtool.render.listing import unit_lines
from tests.helpers import TESTDATA

CODECS = registry.names()


@lru_cache(maxsize=1)
def corpus() -> tuple[bytes, ...]:
    """The bytes of every dump vector in testdata/ (all formats: mutations start from real shapes)."""
    out = []
    for p in sorted(TESTDATA.rglob("*.dump")):
        try:
            data = undump(p.read_text(encoding="utf-8"))
        except UndumpError:
            continue
        if data:
            out.append(data)
    return tuple(out)


def check_clean(name: str, data: bytes, **options: object) -> None:
    """Decode ``data`` with codec ``name``: only Decoded units or MqtoolError may come out,
    and every unit must render (listing, annotation, JSON) with offsets inside the input."""
    mod = registry.codec(name)
    try:
        units = list(mod.decode(data, **options))
    except MqtoolError as e:
        assert str(e), "an error must say what went wrong"
        return
    for unit in units:
        assert isinstance(unit, Decoded) and unit.format == name
        assert 0 <= unit.offset <= len(data) and unit.offset + unit.length <= len(data)
        for p in unit.errors + unit.problems:
            assert 0 <= p.offset <= len(data), (p, len(data))
            assert p.reason
        json.dumps(unit.to_json(raw=True), ensure_ascii=False)
        list(unit_lines(unit))
        annotate_unit(unit, data[unit.offset:unit.offset + unit.length])


def mutate(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    buf = bytearray(data)
    for kind, pos, value in ops:
        if not buf:
            buf.append(value)
            continue
        i = pos % len(buf)
        if kind == 0:
            buf[i] = value  # overwrite a byte
        elif kind == 1:
            buf[i] ^= 1 << (value % 8)  # flip a bit
        elif kind == 2:
            del buf[i:]  # truncate
        elif kind == 3:
            buf.insert(i, value)  # insert a byte
        else:
            del buf[i]  # drop a byte
    return bytes(buf)


OPS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 1 << 16), st.integers(0, 255)),
               min_size=1, max_size=6)
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_every_format_package_has_one_codec_in_the_list() -> None:
    from mqtool import formats

    packages = sorted(p.name for p in Path(formats.__file__).parent.iterdir()
                      if (p / "codec.py").is_file())
    modules = sorted(c.decode.ref.split(".")[2] for c in registry.CODECS)  # type: ignore[attr-defined]
    assert modules == packages and len(set(CODECS)) == len(CODECS) == len(packages)


def test_every_function_a_codec_names_exists() -> None:
    from mqtool.codec import Later

    for c in registry.CODECS:
        for f in (c.decode, c.detect, c.build, c.stream, c.message_decoder, c.sniff_dump,
                  c.dump_reader, c.fast_json, c.fast_listing):
            if isinstance(f, Later):
                assert callable(f.resolve()), f


def test_names_and_aliases_resolve_to_their_codec() -> None:
    for c in registry.CODECS:
        for name in (*c.names, c.name.upper()):
            assert registry.codec(name) is c
    with pytest.raises(InputError, match="unknown format 'nope'; known: urb, csq1logp, "
                                         "sas-attachment, redolog, matqmsg, mq"):
        registry.codec("nope")


@pytest.mark.parametrize("name", CODECS)
def test_codec_protocol(name: str) -> None:
    mod = registry.codec(name)
    assert name == mod.name and mod.title.endswith(".")
    assert callable(mod.decode) and callable(mod.detect)
    assert (mod.build is None) or callable(mod.build)
    for blob in (b"", b"\x00", bytes(64), b"\xff" * 64):
        d = mod.detect(blob)
        assert d is None or (isinstance(d, registry.Detection) and d.format == name
                             and 0.0 <= d.confidence <= 1.0 and d.reason)


@pytest.mark.parametrize("name", CODECS)
@SETTINGS
@given(data=st.binary(max_size=2048))
def test_random_bytes_give_only_clean_errors(name: str, data: bytes) -> None:
    check_clean(name, data)


@pytest.mark.parametrize("name", CODECS)
@SETTINGS
@given(pick=st.integers(0, 10_000), ops=OPS)
def test_mutated_vectors_give_only_clean_errors(name: str, pick: int, ops: list) -> None:
    seeds = corpus()
    data = mutate(seeds[pick % len(seeds)], ops)
    check_clean(name, data)
    d = registry.codec(name).detect(data)
    if d is not None:  # the options the codec's own detector proposes must be safe too
        assert d.format == name and 0.0 <= d.confidence <= 1.0
        check_clean(name, data, **d.options)


def test_codec_specific_options_on_hostile_input() -> None:
    """Options beyond the defaults go through the same checks (found by a longer fuzz run)."""
    for data in (*corpus(), b"\x00\x01" + bytes(20), b"\x88" + bytes(40)):
        if "matqmsg" in CODECS:
            for opts in ({"codepage": "binary"}, {"part": "receiver", "key_bytes": 16, "text_bytes": 32},
                         {"part": "selection", "key_size": 8}):
                check_clean("matqmsg", data, **opts)
        if "redolog" in CODECS:
            for opts in ({"part": p} for p in ("parmlist", "header", "intent", "usrextpl", "parmset")):
                check_clean("redolog", data, **opts)
            check_clean("redolog", data, synthetic=True)


@pytest.mark.parametrize("name", CODECS)
def test_every_vector_decodes_cleanly_with_each_codec(name: str) -> None:
    for data in corpus():
        check_clean(name, data)


@SETTINGS
@given(data=st.binary(max_size=1024))
def test_identify_never_raises(data: bytes) -> None:
    for d in registry.identify(data):
        assert 0.0 <= d.confidence <= 1.0 and d.reason
        assert "detector failed" not in d.reason


def test_identify_reads_dump_text_and_says_so() -> None:
    text = (TESTDATA / "osb" / "sample1.header.dump").read_bytes()
    best = registry.identify(text)[0]
    assert (best.format, best.confidence) == ("redolog", 0.95)
    assert best.options == {"part": "header", "hex": True}
    assert best.reason.startswith("hex dump text (document style, 48 bytes): redolog header")


def test_identify_reports_a_failing_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(data: bytes) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(registry, "CODECS", tuple(
        replace(c, detect=broken) if c.name == "matqmsg" else c for c in registry.CODECS))
    found = registry.identify(b"\x10" + bytes(15))
    failed = [d for d in found if d.format == "matqmsg"]
    assert failed and failed[0].confidence == 0.0 and "RuntimeError: boom" in failed[0].reason


def test_queue_dump_sniffer_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "sniff_dump", lambda data: "dmpmqmsg")
    [d] = registry.text_detections(b"A QUEUE DUMP\n")
    assert (d.format, d.confidence, d.reason) == ("dmpmqmsg", 0.9, "IBM MQ dmpmqmsg queue dump")
    monkeypatch.setattr(registry, "sniff_dump", lambda data: None)
    assert registry.text_detections(b"A QUEUE DUMP\n") == []

    def broken(data: bytes) -> str:
        raise ValueError("bad")

    monkeypatch.setattr(registry, "sniff_dump", broken)
    text = (TESTDATA / "osb" / "sample1.header.dump").read_bytes()
    failed, *rest = registry.text_detections(text)
    assert (failed.confidence, failed.reason) == (0.0, "queue dump sniffer failed: ValueError: bad")
    assert rest[0].format == "redolog"  # dump text is still identified


def test_every_queue_dump_producer_is_named_in_words() -> None:
    """The producers come from ``formats.mq.dumps.producers`` (the reader's list too): an
    RFHUtil save file is identified as one, not with a fallback name."""
    from mqtool.formats.mq.dumps.read import FORMATS
    from tests.formats.mq.producers import Msg, rfhutil_file

    assert tuple(registry.queue_dumps()) == FORMATS
    data = rfhutil_file([Msg(b"first body", {"msgtype": 8}), Msg(b"second", {"msgtype": 1})])
    [best, *_] = registry.identify(data)
    assert (best.format, best.confidence, best.reason) == ("rfhutil", 0.9, "RFHUtil save file")
    assert best.options == {"queue_dump": "rfhutil"}


def test_msgtype_names_its_codec() -> None:
    """SAS Application Messaging: MsgType 100000 (attachment header) and 100001
    (subordinate message) are SAS attachment bodies; MQMT_DATAGRAM (8) names no codec."""
    assert registry.msgtype_codec(100000) is registry.msgtype_codec(100001) is registry.codec("sas")
    assert registry.msgtype_codec(8) is None and registry.msgtype_codec(None) is None
