"""What a first day with mqtool met, made alike in every command (issue 25): "did you mean",
dump text recognised by every decoder, one message for a missing input, --json with
--annotate refused, each error said once, --strict on every decoder, the manual pages
reachable, no message that repeats the program's name."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool import api, registry
from mqtool.cli import DECODE
from mqtool.errors import ExitStatus
from mqtool.io.undump import is_dump_text
from tests.cli.test_exit_contract import ARGV, COMMANDS
from tests.helpers import ROOT, TESTDATA, mq, seed_bytes

DECODERS = sorted(DECODE)  # every `decode NAME`, auto included

# ------------------------------------------------------------------ did you mean


@pytest.mark.parametrize(("argv", "said"), [
    (["decod"], "No such command 'decod'. Did you mean 'decode'?"),
    (["identfy", "x"], "Did you mean 'identify'?"),
    (["decode", "urbb", "x"], "No such command 'urbb'. Did you mean 'urb'?"),
    (["decode", "URB", "x"], "Did you mean 'urb'?"),
    (["decode", "sas", "x"], "Did you mean 'sas-attachment'?"),  # an alias: its command
    (["decode", "mqmd", "x"], "Did you mean 'mq'?"),
    (["build-request", "matqmgs"], "Did you mean 'matqmsg'?"),
])
def test_a_misspelt_command_or_format_gets_the_close_names(argv: list[str], said: str) -> None:
    r = mq(*argv)
    assert r.status == ExitStatus.USAGE and said in r.stderr, r.stderr


def test_nothing_close_is_not_guessed() -> None:
    r = mq("frobnicate")
    assert r.status == ExitStatus.USAGE and "No such command 'frobnicate'." in r.stderr
    assert "Did you mean" not in r.stderr


def test_a_file_where_a_format_is_expected_gets_the_command_that_reads_it(in_root: None) -> None:
    f = "testdata/urb/status.reply.dump"
    r = mq("decode", f)
    assert r.status == ExitStatus.USAGE
    assert f"{f} is a file: did you mean 'mqtool decode auto {f}'?" in r.stderr
    assert mq("decode", "auto", f).status == ExitStatus.OK  # and the suggestion works
    r = mq("decode", f, "--json")  # what came after it is kept
    assert f"did you mean 'mqtool decode auto {f} --json'?" in r.stderr
    assert "did you mean 'mqtool decode auto -'?" in mq("decode", "-", input=b"").stderr
    r = mq("reassemble", "testdata/sas/mytext-zos.qmsg")  # one command in the group: it
    assert "did you mean 'mqtool reassemble attachment testdata/sas/mytext-zos.qmsg'?" in r.stderr
    r = mq("build-request", f)  # no automatic builder: the formats to choose from
    assert f"{f} is a file: name the format first (urb, " in r.stderr


@pytest.mark.parametrize("argv", [["layouts", "urbb"], ["view", "--decode-as", "urbb", "x"]])
def test_an_unknown_format_name_gets_the_close_ones_from_the_registry(argv: list[str]) -> None:
    r = mq(*argv)
    assert r.status == ExitStatus.USAGE
    assert f"unknown format 'urbb'; did you mean 'urb'? known: {', '.join(registry.names())}" \
        in r.stderr


# ------------------------------------------------------------------ dump text, every decoder

DUMP_TEXT = {  # a seed of each format, transcribed as dump text
    "urb": "urb/status.request.dump", "csq1logp": "csq1logp/hello-2seg.dump",
    "sas-attachment": "sas/seed-zos.header.dump", "redolog": "osb/sample1.header.dump",
    "matqmsg": "matqmsg/keyed-eq.selection.synthetic.dump", "auto": "urb/inst-color.data.dump",
}


def _dump_text_of(fmt: str, tmp: Path) -> Path:
    if fmt in DUMP_TEXT:
        return TESTDATA / DUMP_TEXT[fmt]
    f = tmp / f"{fmt}.dump"  # MQ has no seed dump: the dump mqtool prints of a vector
    f.write_text(api.dump((TESTDATA / "mq" / "dlh-tm.be.ebcdic.bin").read_bytes()) + "\n")
    return f


def test_every_decoder_has_a_dump_text_case() -> None:
    assert set(DECODERS) <= {*DUMP_TEXT, "mq"}


@pytest.mark.parametrize("fmt", DECODERS)
def test_every_decoder_reads_dump_text_as_decode_auto_does(fmt: str, tmp_path: Path) -> None:
    text = _dump_text_of(fmt, tmp_path)
    binary = tmp_path / "unit.bin"
    binary.write_bytes(api.undump(text.read_text(encoding="utf-8")))
    recognised, forced, raw = (mq("decode", fmt, *a) for a in ([text], ["--hex", text], [binary]))
    assert recognised.status == forced.status == raw.status == ExitStatus.OK, recognised.stderr
    skip = 1 if fmt == "auto" else 0  # decode auto's heading says whether it read dump text
    listings = [r.text.splitlines()[skip:] for r in (recognised, forced, raw)]
    assert listings[0] == listings[1] == listings[2]  # --hex forces what is recognised anyway
    assert registry.text_detections(text.read_bytes())  # decode auto's own reading agrees


def _binaries() -> list[Path]:
    return sorted(p for p in TESTDATA.rglob("*")
                  if p.is_file() and (p.suffix in (".bin", ".qmsg") or p.name.endswith(".dmpmqmsg")))


def test_no_binary_seed_is_taken_for_dump_text() -> None:
    files = _binaries()
    assert len(files) > 10
    for p in files:
        assert not is_dump_text(p.read_bytes()[:65536]), p
    for p in TESTDATA.rglob("*.dump"):  # and every transcribed unit, read back
        data = api.undump(p.read_text(encoding="utf-8"))
        assert not is_dump_text(data), p


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600), st.integers(0, 599),
       st.sampled_from([0x00, 0x01, 0x07, 0x0C, 0x1B, 0x7F, 0x85, 0x9F, 0xC1, 0xFF]))
def test_bytes_with_a_control_character_or_not_utf8_are_never_dump_text(
        data: bytes, at: int, byte: int) -> None:
    """A binary unit carries bytes no dump text does (a control character in the UTF-8
    sense, or bytes that are not UTF-8): it is read as binary, never as a dump."""
    text = api.dump(data).encode()  # valid dump text of the bytes
    assert is_dump_text(text) == bool(data)
    at %= len(text) + 1
    assert not is_dump_text(text[:at] + bytes([byte]) + text[at:])


def test_extract_urb_reads_dump_text_with_the_same_detector(tmp_path: Path) -> None:
    out = tmp_path / "tables"
    r = mq("extract", "urb", TESTDATA / "urb" / "inst-color.data.dump", "-o", out, "--to", "jsonl")
    assert r.status == ExitStatus.OK, r.stderr
    records = (out / "records.jsonl").read_text().splitlines()
    assert len(records) == 3  # URBTRCNT 3: the three records of the seed message


# ------------------------------------------------------------------ input of another format


@pytest.mark.parametrize("fmt", sorted(n for n in registry.names() if n != "sas-attachment"))
def test_input_of_another_format_is_refused_naming_it(fmt: str, tmp_path: Path) -> None:
    """Every decoder names what identify takes input of another format for (exit 2);
    sas-attachment says it in its own error, with the first bytes listed."""
    other = "redolog" if fmt != "redolog" else "urb"
    data = seed_bytes("osb/sample1.header.dump" if other == "redolog" else "urb/status.reply.dump")
    f = tmp_path / "other.bin"
    f.write_bytes(data)
    r = mq("decode", fmt, f)
    best = registry.best_codec(registry.identify(data))
    assert best is not None and best.format == other
    assert r.status == ExitStatus.DECODE and r.stdout == b""
    assert r.stderr.startswith(f"mqtool: {fmt}: {f}: these {len(data)} bytes are not {fmt}")
    assert f"identify says: {other} ({best.confidence:.2f}) {best.reason}" in r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_sas_attachment_names_what_identify_takes_it_for(tmp_path: Path) -> None:
    f = tmp_path / "other.bin"
    f.write_bytes(seed_bytes("osb/sample1.header.dump"))
    r = mq("decode", "sas-attachment", f)
    assert r.status == ExitStatus.DECODE and "identify takes it for redolog (0.95" in r.stderr


# ------------------------------------------------------------------ a missing input

READS_NO_FILE = {"layouts", "man"}


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - READS_NO_FILE))
def test_a_missing_input_is_one_line_and_status_1_in_every_command(command: str,
                                                                    tmp_path: Path) -> None:
    gone = tmp_path / "nosuch.bin"
    r = mq(*[a.format(f=gone, o=tmp_path / "out") for a in ARGV[command]])
    assert (r.status, r.stderr, r.stdout) == (ExitStatus.USAGE, f"mqtool: {gone}: no such file\n",
                                              b""), command
    assert list(tmp_path.iterdir()) == []  # no output begun


# ------------------------------------------------------------------ decoders alike


@pytest.mark.parametrize("fmt", DECODERS)
def test_json_with_annotate_is_refused_before_the_input_is_read(fmt: str) -> None:
    r = mq("decode", fmt, "--json", "--annotate", "/nonexistent/input.bin")
    assert r.status == ExitStatus.USAGE and r.stdout == b""
    assert "Error: --json and --annotate are two ways to print: give one" in r.stderr


TRUNCATED = {  # a unit of each format cut short, the error the decoder gives for it
    "urb": ("urb/status.request.dump", 20, "URBH truncated"),
    "csq1logp": ("csq1logp/hello-2seg.dump", 300, "truncated-record"),
    "matqmsg": ("matqmsg/keyed-eq.receiver.synthetic.dump", 40, "input ends inside message 1"),
    "redolog": ("osb/sample6.intent.dump", 30, "are neither a parameter list"),
    "sas-attachment": ("sas/seed-zos.header.dump", 100, "not an attachment header"),
    "auto": ("urb/status.request.dump", 20, "URBH truncated"),
    "mq": ("", 100, "MQDLH truncated"),
}


@pytest.mark.parametrize("fmt", DECODERS)
def test_an_error_is_said_once_on_stderr_and_the_partial_listing_kept(fmt: str,
                                                                      tmp_path: Path) -> None:
    seed, cut, said = TRUNCATED[fmt]
    data = seed_bytes(seed) if seed else (TESTDATA / "mq" / "dlh-tm.be.ebcdic.bin").read_bytes()
    f = tmp_path / "cut.bin"
    f.write_bytes(data[:cut])
    r = mq("decode", fmt, f)
    assert r.status == ExitStatus.DECODE
    errors = [ln for ln in r.stderr.splitlines() if said in ln]
    assert len(errors) == 1 and errors[0].startswith("mqtool: "), r.stderr
    assert not [ln for ln in r.text.splitlines() if ln.startswith("error")], r.text


def _with_bad_commit_status(tmp: Path) -> Path:
    data = bytearray(seed_bytes("csq1logp/mqput-rdw.dump"))
    span = next(s for s in api.decode("csq1logp", bytes(data))[0].spans() if s.name == "cscmitstatus")
    data[span.start:span.end] = "Z".encode("cp037")  # not C, B or I
    (tmp / "c.bin").write_bytes(data)
    return tmp / "c.bin"


PROBLEMS = {  # an input of each format with a problem (not an error), and the problem
    "urb": (["{seed}urb/prior-transaction.request.dump"], "urbirt 'TRAM' is not a request type"),
    "matqmsg": (["{seed}matqmsg/t65552.selection.synthetic.dump"], "text_bytes 65552 exceeds"),
    "redolog": (["{seed}osb/sample6.intent.dump"], "trailer (2 bytes) not present"),
    "mq": (["--format", "MQTRIG", "--encoding", "273", "--ccsid", "500",
            str(TESTDATA / "mq" / "dlh-tm.be.ebcdic.bin")], "which Format 'MQTRIG' announced"),
    "sas-attachment": (["--part", "file-info", "{zeros}"], "4 bytes after the 8-byte file-info"),
    "csq1logp": (["{commit}"], "unknown value at cscmitstatus"),
    "auto": (["{seed}urb/prior-transaction.request.dump"], "urbirt 'TRAM' is not a request type"),
}


@pytest.mark.parametrize("fmt", DECODERS)
def test_strict_on_every_decoder_says_the_problems_and_exits_2(fmt: str, tmp_path: Path) -> None:
    (tmp_path / "zeros.bin").write_bytes(bytes(12))
    args, said = PROBLEMS[fmt]
    files = {"seed": str(TESTDATA) + "/", "zeros": str(tmp_path / "zeros.bin"),
             "commit": str(_with_bad_commit_status(tmp_path))}
    argv = ["decode", fmt, *(a.format(**files) for a in args)]
    plain, strict = mq(*argv), mq(*argv, "--strict")
    assert plain.status == ExitStatus.OK and plain.stderr == ""
    assert said in plain.text  # the listing shows the problem either way
    assert strict.status == ExitStatus.DECODE and strict.stdout == plain.stdout
    line = next(ln for ln in strict.stderr.splitlines() if said in ln)
    assert line.startswith("mqtool: ") and re.search(r": problem( \(--strict\))?: ", line)


def test_every_decoder_has_one_strict_with_one_meaning() -> None:
    from tests.cli.test_conventions import _options

    helps = {_options(f"decode {d}")["--strict"].help for d in DECODERS}  # type: ignore[attr-defined]
    assert helps == {"Problems count as errors: each is said on stderr, and the exit status is 2."}


# ------------------------------------------------------------------ man pages


def test_man_prints_the_page_of_a_command_wherever_mqtool_is_installed() -> None:
    r = mq("man", "decode", "urb")
    assert r.status == ExitStatus.OK
    lines = r.text.splitlines()
    assert lines[lines.index("NAME") + 1].split()[0] == "mqtool-decode-urb"
    for option in ("--leap-seconds", "--strict", "EXIT STATUS"):
        assert option in r.text
    assert mq("man", "decode-urb").stdout == r.stdout  # the page's name works too
    assert mq("man", "mqtool").stdout == mq("man").stdout


def test_man_roff_is_the_generated_page() -> None:
    for words, page in ((["decode", "urb"], "mqtool-decode-urb.1"), ([], "mqtool.1")):
        r = mq("man", *words, "--roff")
        assert r.text == (ROOT / "man" / page).read_text(encoding="utf-8")


def test_man_without_man_lays_the_page_out_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "man" else real(name))
    r = mq("man", "decode", "redolog")
    assert r.status == ExitStatus.OK
    lines = r.text.splitlines()
    assert lines[0].startswith("MQTOOL-DECODE-REDOLOG(1)") and lines[0].endswith("(1)")
    assert "NAME" in lines and "OPTIONS" in lines and "EXIT STATUS" in lines
    assert "       mqtool decode redolog [OPTIONS] [FILE|-]" in lines
    assert "       --part [auto|parmlist|header|intent|usrextpl|parmset]" in lines
    assert not [ln for ln in lines if "\\-" in ln or ln.startswith(".")]  # no roff left
    description = lines[lines.index("DESCRIPTION") + 1:lines.index("OPTIONS")]
    assert description and max(len(ln) for ln in description) <= 78  # wrapped as man wraps


def test_man_finds_the_page_generated_when_no_file_has_it(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    from mqtool.cli import manpage

    monkeypatch.setattr(manpage, "__file__", str(tmp_path / "mqtool" / "cli" / "manpage.py"))
    text, where = manpage.find_page("mqtool-decode-urb")
    assert where is None and text == manpage.pages()["mqtool-decode-urb.1"]


def test_an_unknown_page_gets_the_close_names() -> None:
    r = mq("man", "decode", "urbb")
    assert r.status == ExitStatus.USAGE
    assert r.stderr.startswith("mqtool: no manual page for 'decode urbb'; did you mean 'decode urb'")


def test_every_command_has_a_page_man_can_show() -> None:
    from mqtool.cli.manpage import page_names

    assert sorted(f"{n}.1" for n in page_names()) == sorted(p.name for p in (ROOT / "man").glob("*.1"))


# ------------------------------------------------------------------ messages


def _said_texts(node: ast.AST, constants: dict[str, str]) -> list[str]:
    """The leading text of each message an error is raised or said with."""
    out = []
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        name = getattr(call.func, "id", None) or getattr(call.func, "attr", "")
        if not (name.endswith("Error") or name in ("error", "_error", "fail", "UsageError")):
            continue
        for arg in call.args[:1]:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.append(arg.value)
            elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
                out.append(str(arg.values[0].value))
            elif isinstance(arg, ast.Name) and arg.id in constants:
                out.append(constants[arg.id])
    return out


def test_no_message_repeats_the_program_name() -> None:
    """mqtool prefixes every message with ``mqtool: ``; a message that starts with the
    program's name again reads ``mqtool: mqtool view needs ...``."""
    said: list[tuple[str, str]] = []
    for path in (ROOT / "mqtool").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}
        said += [(str(path.relative_to(ROOT)), t) for t in _said_texts(tree, constants)]
    assert len(said) > 100
    assert [s for s in said if s[1].lower().startswith(("mqtool ", "mqtool:"))] == []
    r = mq("view", TESTDATA / "urb" / "status.reply.dump")  # not a terminal here
    assert r.status == ExitStatus.USAGE and "Error: view is interactive" in r.stderr
