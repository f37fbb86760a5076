"""Every registered decoder (``mqtool.registry.CODECS``) on damaged input: the library
raises only ``MqtoolError`` subclasses, every problem names an offset inside the input, the
detector never raises, and the units render (listing, JSON); the command line never exits
70 and locates every error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mqtool import registry
from mqtool.errors import MqtoolError
from mqtool.render.listing import unit_lines
from tests.fuzz.strategies import check_cli, damaged, run_fuzz, seeds, write_temp
from tests.helpers import mq

SEEDS = {
    "urb": ("urb/*.dump", "urb/synthetic/*.dump"),
    "sas-attachment": ("sas/seed-zos.header.dump", "sas/class-zos.*.dump", "sas/class-win.obs.dump"),
    "csq1logp": ("csq1logp/*.dump",),
    "redolog": ("osb/*.dump", "osb/synthetic/*.dump", "osb/combined/*.dump"),
    "matqmsg": ("matqmsg/*.dump",),
    "mq": ("mq/*.bin",),
}
# decode options worth fuzzing besides the defaults
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "urb": [{}, {"urbi_data": "isn"}, {"byte_order": "little"}],
    "sas-attachment": [{}, {"part": "records"}, {"part": "header"}],
    "csq1logp": [{}, {"framing": "rdw"}, {"framing": "none"}],
    "redolog": [{}, {"part": "intent"}, {"part": "usrextpl"}, {"part": "parmset"}, {"synthetic": True}],
    "matqmsg": [{}, {"part": "receiver"}, {"part": "selection", "key_size": 8},
                {"part": "receiver", "key_bytes": 16, "text_bytes": 32}],
    "mq": [{}, {"mqmd": {"format": "MQDEAD", "encoding": 273, "codedcharsetid": 500}},
           {"mqmd": {"format": "MQHRF2", "encoding": 546, "codedcharsetid": 819}}],
}
PENDING: dict[str, Any] = {}  # codec -> xfail mark, for a codec another helper is fixing


def _params() -> list[Any]:
    return [pytest.param(name, marks=PENDING[name]) if name in PENDING else name
            for name in registry.names()]


def test_every_codec_has_seeds() -> None:
    assert set(SEEDS) == set(registry.names()) == set(OPTIONS)


def check_units(name: str, data: bytes, options: dict[str, Any]) -> None:
    codec = registry.codec(name)
    try:
        units = list(codec.decode(data, **options))
    except MqtoolError as e:
        offset = getattr(e, "offset", 0)
        assert 0 <= offset <= max(len(data), 0) or offset == 0, f"{e} ({len(data)} bytes)"
        return
    for unit in units:
        for p in unit.problems + unit.errors:
            assert isinstance(p.offset, int) and 0 <= p.offset <= len(data), \
                f"{name}: problem outside the input ({len(data)} bytes): {p.describe()}"
        list(unit_lines(unit))
        json.dumps(unit.to_json(True), ensure_ascii=False)


@pytest.mark.parametrize("name", _params())
def test_decoder_raises_only_mqtool_errors(name: str, fuzz_examples: int) -> None:
    pool = seeds(*SEEDS[name])
    from hypothesis import strategies as st

    run_fuzz(fuzz_examples, lambda data, options: check_units(name, data, options),
             damaged(pool), st.sampled_from(OPTIONS[name]))


@pytest.mark.parametrize("name", registry.names())
def test_detector_never_raises(name: str, fuzz_examples: int) -> None:
    detect = registry.codec(name).detect
    pool = [b for names in SEEDS.values() for b in seeds(*names)]

    def prop(data: bytes) -> None:
        d = detect(data)
        assert d is None or (d.format == name and 0 <= d.confidence <= 1)

    run_fuzz(fuzz_examples, prop, damaged(pool))


CLI = {  # the decode command of each codec, with the options fuzzed
    "urb": ["decode", "urb"],
    "sas-attachment": ["decode", "sas-attachment"],
    "csq1logp": ["decode", "csq1logp"],
    "redolog": ["decode", "redolog"],
    "matqmsg": ["decode", "matqmsg"],
    "mq": ["decode", "mq"],
}


@pytest.mark.parametrize("name", _params())
def test_decode_command_never_crashes(name: str, fuzz_examples: int) -> None:
    pool = seeds(*SEEDS[name])
    from hypothesis import strategies as st

    def prop(data: bytes, json_out: bool) -> None:
        f = write_temp(data)
        try:
            argv = [*CLI[name], str(f), *(["--json"] if json_out else [])]
            check_cli(mq(*argv), argv)
        finally:
            f.unlink()

    run_fuzz(max(fuzz_examples // 2, 5), prop, damaged(pool), st.booleans())


def test_decode_auto_and_identify_never_crash(fuzz_examples: int) -> None:
    pool = [b for names in SEEDS.values() for b in seeds(*names)]

    def prop(data: bytes) -> None:
        f = write_temp(data)
        try:
            for argv in (["decode", "auto", str(f)], ["identify", str(f)]):
                check_cli(mq(*argv), argv)
        finally:
            f.unlink()

    run_fuzz(max(fuzz_examples // 2, 5), prop, damaged(pool))
