"""The error contract for the forensic options, through the command line: any value of
``--offset``, ``--length``, ``--where``, ``--fields``, ``--by``, ``--formats`` and
``--min-confidence`` gives a result (status 0, or 2 when the input was not fully decoded)
or one ``mqtool:`` line with status 1 (a bad option value, docs/exit-status.md) -- never a
traceback, never status 70."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from tests.fuzz.strategies import check_cli, run_fuzz
from tests.helpers import TESTDATA, mq

IMAGE = TESTDATA / "scan" / "image.bin"
DLQ = TESTDATA / "mq" / "dlq.dmpmqmsg"
WORDS = st.sampled_from(["mqdlh.reason", "kind", "offset", "csverb", "urbh.urbhlent", "==",
                         "!=", "<", ">=", "and", "or", "not", "in", "{", "}", "(", ")", ",",
                         "contains", "matches", '"MQDLH"', "'a'", "2053", "0x10", "-1",
                         "MQRC_Q_FULL", "!", "&&", "||", "~", "[", "x[1].y", "\\", '"', "1e3",
                         "\x00", "\x1b[2J", "\u202e"])
NUMBERS = st.one_of(st.integers(-2**70, 2**70).map(str), st.integers(-2**40, 2**40).map(hex),
                    st.text(max_size=12), st.sampled_from(["X'10'", "x'zz'", "0x", "-0", "+5",
                                                           "1_0", "", " 7 "]))
EXPRESSIONS = st.one_of(st.lists(WORDS, max_size=9).map(" ".join), st.text(max_size=30))
NAMES = st.one_of(st.lists(st.sampled_from(["offset", "kind", "mqdlh.reason", "a b", "", "x[2]",
                                            "csverb", "\t", "é"]), max_size=4).map(",".join),
                  st.text(max_size=20))


def _contract(argv: list[object], decoding: bool = True) -> None:
    r = mq(*argv)
    if decoding:  # status 2: every error line names an offset or a line
        check_cli(r, [str(a) for a in argv])
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert r.status in (ExitStatus.OK, ExitStatus.USAGE, ExitStatus.DECODE), r.stderr
    if r.status == ExitStatus.USAGE or (not decoding and r.status):
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("mqtool: "), r.stderr
        assert "\x1b" not in r.stderr


WINDOWED = [["decode", "urb"], ["decode", "auto"], ["decode", "csq1logp"], ["identify"],
            ["dump"], ["scan"]]


@pytest.mark.parametrize("command", WINDOWED, ids=" ".join)
def test_fuzz_offset_and_length(command: list[str], fuzz_examples: int) -> None:
    def prop(offset: str, length: str | None) -> None:
        extra = ["--length", length] if length is not None else []
        _contract([*command, f"--offset={offset}", *extra, IMAGE])

    run_fuzz(fuzz_examples, prop, NUMBERS, st.none() | NUMBERS)


SELECTING = [["decode", "mq", DLQ], ["messages", DLQ], ["scan", IMAGE],
             ["decode", "csq1logp", "--hex", TESTDATA / "csq1logp" / "hello-2seg.dump"]]


@pytest.mark.parametrize("command", SELECTING, ids=lambda c: str(c[0]))
def test_fuzz_where_and_fields(command: list[object], fuzz_examples: int) -> None:
    def prop(where: str, fields: str | None, header: bool) -> None:
        extra = [f"--fields={fields}"] if fields is not None else []
        _contract([*command, f"--where={where}", *extra, *(["--header"] if header else [])])

    run_fuzz(fuzz_examples, prop, EXPRESSIONS, st.none() | NAMES, st.booleans())


def test_fuzz_stats_by_and_where(fuzz_examples: int) -> None:
    def prop(by: str, where: str | None) -> None:
        extra = [f"--where={where}"] if where is not None else []
        _contract(["stats", f"--by={by}", *extra, DLQ])

    run_fuzz(fuzz_examples, prop, NAMES, st.none() | EXPRESSIONS)


def test_fuzz_scan_formats_and_confidence(fuzz_examples: int) -> None:
    formats = st.one_of(st.lists(st.sampled_from(["urb", "mq", "dump", "nope", "", "MQ"]),
                                 max_size=3).map(",".join), st.text(max_size=10))
    confidence = st.one_of(st.floats(allow_nan=True).map(str), NUMBERS)

    def prop(names: str, x: str) -> None:
        _contract(["scan", IMAGE, f"--formats={names}", f"--min-confidence={x}"])

    run_fuzz(fuzz_examples, prop, formats, confidence)


def test_fuzz_extract_where_and_fields(fuzz_examples: int,
                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    from tests.helpers import seed_bytes

    log = tmp_path_factory.mktemp("log") / "log.bin"
    log.write_bytes(seed_bytes("csq1logp/hello-2seg.dump"))

    def prop(where: str, fields: str | None) -> None:
        extra = [f"--fields={fields}"] if fields is not None else []
        _contract(["extract", log, f"--where={where}", *extra])

    run_fuzz(max(fuzz_examples // 2, 5), prop, EXPRESSIONS, st.none() | NAMES)


def test_fuzz_verify_manifests(fuzz_examples: int,
                               tmp_path_factory: pytest.TempPathFactory) -> None:
    from tests.fuzz.strategies import json_values

    def prop(doc: object) -> None:
        import json

        p = tmp_path_factory.mktemp("manifest") / "manifest.json"
        p.write_text(json.dumps({"custody": doc}))
        _contract(["verify", p], decoding=False)  # a manifest that is not: one line, 2

    inputs = st.fixed_dictionaries({"inputs": st.lists(st.dictionaries(
        st.sampled_from(["path", "size", "sha256", "mtime", "resolved"]), json_values(), max_size=5),
        max_size=3)})
    run_fuzz(fuzz_examples, prop, st.one_of(inputs, json_values()))

