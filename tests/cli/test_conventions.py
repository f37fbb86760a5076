"""One rule per convention, checked on every command of ``mqtool.cli``'s tables.

docs/conventions.md (README links it): directory arguments; binary output never to a
terminal; builders refuse everything wrong at once; ``--json`` is the JSON flag; ``-`` is
stdin; ``--tz local``; unknown code pages list the valid ones; builders' help speaks of
building; an output extension that names no format is refused. Each table below classifies
every command, so a new command must be placed before the suite passes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool import registry
from mqtool.cli import BUILD, cli
from mqtool.cli._common import CodepageParam, CorrelIdParam, Env
from mqtool.errors import ExitStatus, InputError, MqtoolError
from tests.cli.test_exit_contract import ARGV, COMMANDS, GOOD, good  # noqa: F401 (fixture)
from tests.helpers import ROOT, TESTDATA, mq, seed_bytes

BUILDERS = [f"build-request {b}" for b in BUILD]


def _command(name: str) -> click.Command:
    cmd: Any = cli
    for part in name.split():
        cmd = cmd.get_command(click.Context(cmd), part)
    return cmd


def _options(name: str) -> dict[str, click.Parameter]:
    return {o: p for p in _command(name).params for o in p.opts}


def _argv(command: str, f: Path | str, o: Path | str) -> list[str]:
    return [a.format(f=f, o=o) for a in ARGV[command]]


def test_every_command_is_classified() -> None:
    tables = [DIRECTORY_READERS | set(DIRECTORY_REFUSERS) | NO_FILE_ARGUMENT,
              set(BINARY_WRITERS) | TEXT_ONLY, JSON_PRINTERS | NO_JSON]
    for table in tables:
        assert table == set(COMMANDS), set(COMMANDS) ^ table


# ------------------------------------------------------------------ directory arguments

# read a directory as a queue dump, one message per file (dump files of any kind)
DIRECTORY_READERS = {c for c in COMMANDS if c.startswith("decode ")} | {
    "reassemble attachment", "reassemble-attachment", "messages", "view"}
# decoders of formats that are not SAS attachment messages: they say so, message by message
NOT_THEIRS = {"decode urb", "decode redolog", "decode matqmsg", "decode csq1logp"}
# everything else that takes a file: "FILE: is a directory", exit 1
# layouts and man read no file; extract and spark-extract take a directory as the files in
# it (bulk inputs: files, directories, globs, URIs), tested in tests/formats/*/ and tests/spark
NO_FILE_ARGUMENT = {c for c in COMMANDS
                    if c in ("layouts", "man") or c.startswith(("spark-extract", "extract"))}
# stats reads a directory as decode auto does, and prints counts, not units: tests/cli/test_stats.py
NO_FILE_ARGUMENT.add("stats")
# changes apply takes typed change tables or the directories extract urb --typed wrote them to
NO_FILE_ARGUMENT.add("changes apply")
DIRECTORY_REFUSERS = sorted(c for c in COMMANDS if c not in DIRECTORY_READERS | NO_FILE_ARGUMENT)


@pytest.mark.parametrize("command", DIRECTORY_REFUSERS)
def test_a_directory_is_refused_in_one_line(command: str, tmp_path: Path) -> None:
    d = tmp_path / "adir"
    d.mkdir()
    shutil.copy(TESTDATA / "sas" / "mytext-zos.qmsg", d)
    r = mq(*_argv(command, d, tmp_path / "out"))
    assert r.status == ExitStatus.USAGE, r.stderr
    assert r.stderr == f"mqtool: {d}: is a directory\n"
    assert r.stdout == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]


READERS_RUN = sorted(DIRECTORY_READERS - {"view"})  # view: interactive (tests/view)


@pytest.mark.parametrize("command", READERS_RUN)
def test_a_directory_is_read_as_a_queue_dump(command: str, tmp_path: Path) -> None:
    d = tmp_path / "adir"
    d.mkdir()
    shutil.copy(TESTDATA / "sas" / "mytext-zos.qmsg", d)
    r = mq(*_argv(command, d, tmp_path / "out"))
    # the seven SAS messages of the dump; urb (redolog, ...) decodes them and says they are not
    assert r.status == (ExitStatus.DECODE if command in NOT_THEIRS else ExitStatus.OK), r.stderr
    if command in NOT_THEIRS:
        assert f"{command.split()[1]}: message 1 (" in r.stderr and "mytext-zos.qmsg" in r.stderr
    if command == "messages":  # the dump's six messages, converted into -o
        assert r.stderr == f"mqtool: 6 message(s) written to {tmp_path / 'out'}\n"
    elif not command.startswith("reassemble"):  # each unit says which message it came from
        assert f"message 1 ({d / 'mytext-zos.qmsg'} line ".encode() in r.stdout
        assert f"message 6 ({d / 'mytext-zos.qmsg'} line ".encode() in r.stdout
        assert b"message 7 (" not in r.stdout


# a file in the directory that is no dump is one more message: a body without an MQMD
BODY_STATUS = {**dict.fromkeys(NOT_THEIRS, ExitStatus.DECODE),
               "decode mq": ExitStatus.DECODE, "decode sas-attachment": ExitStatus.DECODE,
               "decode auto": ExitStatus.OK,  # a problem: no codec recognises the body
               "messages": ExitStatus.OK, "reassemble attachment": ExitStatus.OK,  # an orphan
               "reassemble-attachment": ExitStatus.OK}


def _dump_dir_with(tmp_path: Path, name: str, data: bytes) -> Path:
    """A directory holding the SAS dump and one more file."""
    d = tmp_path / "adir"
    d.mkdir()
    shutil.copy(TESTDATA / "sas" / "mytext-zos.qmsg", d)
    (d / name).write_bytes(data)
    return d


@pytest.mark.parametrize("command", READERS_RUN)
def test_a_file_in_the_directory_that_is_no_dump_is_a_message_body(command: str,
                                                                   tmp_path: Path) -> None:
    d = _dump_dir_with(tmp_path, "notes.txt", b"not a dump\n")
    r = mq(*_argv(command, d, tmp_path / "out"))
    assert r.status == BODY_STATUS[command], r.stderr
    assert "not a message dump" not in r.stderr
    if command == "messages":  # the dump's six messages and the body, converted into -o
        assert r.stderr == f"mqtool: 7 message(s) written to {tmp_path / 'out'}\n"
    elif command.startswith("reassemble"):
        assert "1 message without MsgType, CorrelId in the dump" in r.stderr
    else:  # the body is labelled with its file, whatever the decoder made of it
        said = r.stdout.decode() + r.stderr
        assert f"message 7 ({d / 'notes.txt'}): a body without MQMD" in said, said


@pytest.mark.parametrize("command", READERS_RUN)
def test_an_empty_file_in_the_directory_is_said_and_exit_2(command: str,
                                                          tmp_path: Path) -> None:
    d = _dump_dir_with(tmp_path, "empty.bin", b"")
    r = mq(*_argv(command, d, tmp_path / "out"))
    assert r.status == ExitStatus.DECODE, r.stderr
    assert f"mqtool: {d / 'empty.bin'}: empty file; skipped\n" in r.stderr


@pytest.mark.parametrize("command", READERS_RUN)
def test_an_empty_directory_is_said_in_one_line(command: str, tmp_path: Path) -> None:
    d = tmp_path / "adir"
    d.mkdir()
    r = mq(*_argv(command, d, tmp_path / "out"))
    assert r.status == ExitStatus.USAGE
    assert r.stderr == f"mqtool: {d}: empty directory, no dump files in it\n"
    assert r.stdout == b""


# ------------------------------------------------------------------ binary output

# command -> argv writing binary to stdout (no -o); {f} is a good input
BINARY_WRITERS = {
    "dump": ["dump", "-r", str(TESTDATA / "urb" / "status.request.dump")],
    "build-request urb": ["build-request", "urb", "stat", "--snam", "SUB1"],
    "build-request matqmsg": ["build-request", "matqmsg", "--type", "all"],
    "build-request mq": ["build-request", "mq", "--dlh", "reason=2051", "--text", "hi"],
}
# print text (listings, JSON, dump text, dmpmqmsg text) or write only into -o
TEXT_ONLY = set(COMMANDS) - set(BINARY_WRITERS)


class _Tty(io.BytesIO):
    def isatty(self) -> bool:
        return True


def _on_terminal(argv: list[str]) -> tuple[int | None, Exception | None, bytes]:
    env = Env(stdout=_Tty(), stderr=io.StringIO(), color_mode="never")
    try:
        status = cli.main(args=argv, obj=env, standalone_mode=False, prog_name="mqtool")
    except Exception as e:  # noqa: BLE001 (the refusal is what is checked)
        return None, e, env.stdout.getvalue()  # type: ignore[attr-defined]
    return status, None, env.stdout.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", sorted(BINARY_WRITERS))
def test_binary_to_a_terminal_is_refused_in_one_line(command: str) -> None:
    argv = BINARY_WRITERS[command]
    has_dump = "--dump" in _options(command)
    status, error, out = _on_terminal(argv)
    assert out == b"" and status is None
    assert isinstance(error, InputError) and not isinstance(error, click.ClickException)
    how = "use -o FILE, a pipe, or --dump for a hex dump" if has_dump else "use -o FILE or a pipe"
    assert str(error) == f"refusing to write binary data to a terminal: {how}"
    assert error.status == ExitStatus.USAGE
    piped = mq(*argv)  # to a pipe: the bytes
    assert piped.status == 0 and piped.stdout and b"\n0000 " not in piped.stdout[:6]


def test_every_builder_that_writes_binary_has_dump() -> None:
    for command in BINARY_WRITERS:
        if command.startswith("build-request"):
            assert "--dump" in _options(command), command


@pytest.mark.parametrize("command", sorted(c for c in BINARY_WRITERS if c != "dump"))
def test_dump_on_a_terminal_is_the_dump_of_the_bytes(command: str) -> None:
    from mqtool.render.hexdump import dump_bytes

    argv = BINARY_WRITERS[command]
    data = mq(*argv).stdout
    status, error, out = _on_terminal([*argv, "--dump"])
    assert error is None and status == 0
    text = out.decode()
    assert text.startswith("0000 ")
    first = dump_bytes(data[:16]).splitlines()[0]
    assert text.splitlines()[0][:len("0000 ") + 35] == first[:len("0000 ") + 35]


# ------------------------------------------------------------------ refusals all at once

# each builder given several bad fields: every one is reported, nothing written, exit 1
REFUSALS = {
    "build-request urb": (["build-request", "urb", "stat", "--snam", "S" * 17, "--dnam", "D" * 11,
                           "--fnr", "70000"],
                          ["urbisnam", "urbidnam", "urbifnr"]),
    "build-request sas-attachment": (["build-request", "sas-attachment", "--from", "{req}"],
                                     ["bogus: unknown field", "attachments[1].type",
                                      "attachments[2]: a file attachment needs path or data"]),
    "build-request matqmsg": (["build-request", "matqmsg", "--type", "keyed", "--key-bytes", "8",
                               "--text-bytes", "16", "--key-size", "4", "--key-hex", "C1C2C3C4C5"],
                              ["key_relationship", "the key has 5 bytes, the queue's key size is 4"]),
    "build-request mq": (["build-request", "mq", "--dlh", "bogus=1", "--xqh", "nope=2", "--rfh2",
                          "usr.A:zz=1", "--mde", "x", "--text", "hi"],
                         ["MQDLH has no field 'bogus'", "MQXQH has no field 'nope'", "dt 'zz'",
                          "'x' is not name=value"]),
}


def test_every_builder_has_a_refusal_case() -> None:
    assert set(REFUSALS) == set(BUILDERS)


@pytest.mark.parametrize("command", sorted(REFUSALS))
def test_builders_refuse_everything_at_once(command: str, tmp_path: Path) -> None:
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"message": "m", "bogus": 1, "attachments": [
        {"type": "weird", "path": str(TESTDATA / "sas" / "mytext.txt")}, {"type": "binary"}]}))
    argv, said = REFUSALS[command]
    r = mq(*[a.format(req=req) for a in argv], "-o", tmp_path / "out")
    assert r.status == ExitStatus.USAGE, r.stderr
    for s in said:
        assert s in r.stderr, (s, r.stderr)
    assert "Usage:" not in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


# values a builder cannot use at all (before its rules): every one said, each on its line
VALUE_REFUSALS = {
    "matqmsg --from": (["build-request", "matqmsg", "--from", "{req}"],
                       '{"selection_type": "bogus", "text_bytes": "x", "mode": "fast", '
                       '"key_relationship": "~"}',
                       ["matqmsg: text_bytes: must be an integer, not str 'x'",
                        "matqmsg: selection_type: 'bogus' is not all, first, last or keyed",
                        "matqmsg: key_relationship: '~' is not one of >",
                        "matqmsg: mode: 'fast' is not blocked or concurrent"]),
    "matqmsg --from elements": (["build-request", "matqmsg", "--from", "{req}"],
                                '{"elements": [{"type": "SELECTION", "fields": '
                                '{"selection_type": 5, "key_bytes": "a"}}]}',
                                ["elements[0].fields.selection_type: must be text, not int 5",
                                 "elements[0].fields.key_bytes: must be an integer, not str 'a'"]),
    "mq options": (["build-request", "mq", "--dlh", "reason=x,destqname=" + "Q" * 49,
                    "--xqh", "remoteqname=" + "R" * 49, "--text", "hi"], "",
                   ["--dlh: mq: reason: value 'x' does not fit",
                    "--dlh: mq: destqname: value '" + "Q" * 49, "the field holds 48",
                    "--xqh: mq: remoteqname: value '" + "R" * 49]),
}


@pytest.mark.parametrize("case", sorted(VALUE_REFUSALS))
def test_builders_refuse_every_unusable_value_at_once(case: str, tmp_path: Path) -> None:
    argv, request, said = VALUE_REFUSALS[case]
    req = tmp_path / "req.json"
    req.write_text(request + "\n")
    r = mq(*[a.format(req=req) for a in argv], "-o", tmp_path / "out")
    assert r.status == ExitStatus.USAGE, r.stderr
    for s in said:
        assert s in r.stderr, (s, r.stderr)
    assert len(r.stderr.splitlines()) == len([s for s in said if not s.startswith("the ")])
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ --json

# print JSON lines with --json (a flag); extract chooses among formats with --to
JSON_PRINTERS = {c for c in COMMANDS if c.startswith("decode ")} | {
    "identify", "messages", "reassemble attachment", "reassemble-attachment", "layouts", "scan",
    "stats", "verify"}
NO_JSON = set(COMMANDS) - JSON_PRINTERS


def test_json_is_the_json_flag_everywhere() -> None:
    for command in COMMANDS:
        opts = _options(command)
        if command in JSON_PRINTERS:
            p = opts.get("--json")
            assert p is not None and (p.is_flag or p.flag_value == "json"), command  # type: ignore[attr-defined]
        else:
            assert "--json" not in opts, command
        assert not [o for o in opts if o.startswith("--json") and o != "--json"], command
    for command in COMMANDS:  # extract chooses among formats with --to
        if command.startswith("extract") and "--to" in _options(command):
            assert "jsonl" in _options(command)["--to"].type.choices  # type: ignore[attr-defined]


JSON_RUNS = {  # a good input for each printer; every stdout line is a JSON object
    "decode urb": ["decode", "urb", "--json", "--hex", str(TESTDATA / "urb" / "status.request.dump")],
    "decode sas-attachment": ["decode", "sas-attachment", "--json",
                              str(TESTDATA / "sas" / "mytext-zos.qmsg")],
    "decode csq1logp": ["decode", "csq1logp", "--json", "--hex",
                        str(TESTDATA / "csq1logp" / "hello-2seg.dump")],
    "decode redolog": ["decode", "redolog", "--json", "--hex", str(TESTDATA / "osb" / "sample1.header.dump")],
    "decode matqmsg": ["decode", "matqmsg", "--json", "--hex",
                       str(TESTDATA / "matqmsg" / "keyed-eq.selection.synthetic.dump")],
    "decode mq": ["decode", "mq", "--json", str(TESTDATA / "mq" / "dlq.dmpmqmsg")],
    "decode auto": ["decode", "auto", "--json", str(TESTDATA / "sas" / "mytext-zos.qmsg")],
    "identify": ["identify", "--json", str(TESTDATA / "mq" / "dlh-tm.le.ebcdic.bin")],
    "messages": ["messages", "--json", str(TESTDATA / "sas" / "mytext-zos.qmsg")],
    "reassemble attachment": ["reassemble", "attachment", "--json", "--list",
                              str(TESTDATA / "sas" / "mytext-zos.qmsg")],
    "reassemble-attachment": ["reassemble-attachment", "--json", "--list",
                              str(TESTDATA / "sas" / "mytext-zos.qmsg")],
    "layouts": ["layouts", "urb", "--json"],
    "scan": ["scan", "--json", str(TESTDATA / "mq" / "dlh-tm.le.ebcdic.bin")],
    "stats": ["stats", "--json", "--by", "mqdlh.reason", str(TESTDATA / "mq" / "dlq.dmpmqmsg")],
    "verify": ["verify", "--json", "{manifest}"],  # made by scan --carve below
}


@pytest.mark.parametrize("command", sorted(JSON_PRINTERS))
def test_json_output_is_json(command: str, tmp_path: Path) -> None:
    manifest = tmp_path / "carved" / "manifest.json"
    if command == "verify":
        assert mq("scan", TESTDATA / "mq" / "dlh-tm.le.ebcdic.bin", "--carve", manifest.parent
                  ).status == 0
    r = mq(*[a.format(manifest=manifest) for a in JSON_RUNS[command]])
    assert r.status == 0, r.stderr
    lines = r.text.splitlines()
    if command == "layouts":  # one document
        assert isinstance(json.loads(r.text), (dict, list))
        return
    assert lines and all(isinstance(json.loads(x), dict) for x in lines)


# ------------------------------------------------------------------ - for stdin

# file inputs that do not take '-': view's stdin is the keyboard; spark reads on executors
NO_STDIN = {("view", "file"): "interactive",
            ("spark-extract csq1logp", "inputs"): "executors read files",
            ("spark-extract urb", "inputs"): "executors read files",
            ("verify", "manifest"): "the outputs it names lie beside it",
            ("extract urb", "fdts"): "stdin is the URB input's",
            ("spark-extract urb", "fdts"): "the option of extract urb, whose stdin is the URB input",
            ("changes apply", "inputs"): "Parquet tables are read by seeking"}


def test_every_input_file_takes_dash() -> None:
    for command in COMMANDS:
        for p in _command(command).params:
            if not isinstance(p.type, click.Path) or p.name in ("output", "outdir", "summary_path"):
                continue
            assert p.type.allow_dash or (command, p.name) in NO_STDIN, (command, p.name)


STDIN_RUNS = {  # {f} read from stdin as '-'
    "dump": (["dump", "-"], "urb"),
    "decode urb": (["decode", "urb", "-"], "urb"),
    "decode csq1logp": (["decode", "csq1logp", "-"], "csq1logp"),
    "decode redolog": (["decode", "redolog", "-"], "redolog"),
    "decode matqmsg": (["decode", "matqmsg", "-"], "matqmsg"),
    "decode sas-attachment": (["decode", "sas-attachment", "-"], "sas"),
    "decode mq": (["decode", "mq", "-"], "mq"),
    "decode auto": (["decode", "auto", "-"], "urb"),
    "identify": (["identify", "-"], "urb"),
    "messages": (["messages", "-"], "sas"),
    "reassemble attachment": (["reassemble", "attachment", "-", "--list"], "sas"),
    "build-request urb": (["build-request", "urb", "--from", "-", "--dump"], "urb.json"),
    "build-request matqmsg": (["build-request", "matqmsg", "--from", "-", "--dump"], "matqmsg.json"),
    "build-request mq": (["build-request", "mq", "--from", "-", "--dump"], "mq.json"),
    "build-request sas-attachment": (["build-request", "sas-attachment", "--message-file", "-",
                                      "--correlid", "00" * 16], "urb"),
    "extract": (["extract", "-", "--to", "jsonl"], "csq1logp"),
    "scan": (["scan", "-"], "urb"),
    "stats": (["stats", "--by", "format", "-"], "urb"),
}


@pytest.mark.parametrize("command", sorted(STDIN_RUNS))
def test_dash_reads_stdin(command: str, good: dict[str, Path]) -> None:  # noqa: F811
    argv, name = STDIN_RUNS[command]
    data = good[name].read_bytes()
    from_stdin = mq(*argv, input=data)
    assert from_stdin.status == 0, from_stdin.stderr
    if command.startswith("build-request sas"):  # the message bytes, as is, in the set
        assert data[:16].hex().upper() in from_stdin.text.replace("\nX ", "")
        return
    from_file = mq(*[str(good[name]) if a == "-" else a for a in argv])
    name_said = from_stdin.stdout.replace(b"(stdin line", b"(- line")  # a dump's messages
    assert name_said == from_file.stdout.replace(str(good[name]).encode(), b"-")


# ------------------------------------------------------------------ --tz local


def test_tz_is_on_every_decoder_and_takes_local() -> None:
    with_tz = {c for c in COMMANDS if "--tz" in _options(c)}
    assert {c for c in COMMANDS if c.startswith("decode ")} <= with_tz
    for command in with_tz:
        assert "local" in (_options(command)["--tz"].help or ""), command


@pytest.mark.parametrize("zone,shown", [("UTC", "2004-06-22 10:22:34.789927 UTC"),
                                        ("Asia/Kolkata", "2004-06-22 15:52:34.789927 IST"),
                                        ("America/New_York", "2004-06-22 06:22:34.789927 EDT")])
def test_tz_local_is_the_machines_zone(zone: str, shown: str) -> None:
    # urbhtime X'BB680AF2C1C27F60' is 10:22:34.789927 UTC; +5:30 in India, -4:00 (DST) in NY
    p = subprocess.run([sys.executable, "-c", "from mqtool.cli import main; main()", "decode",
                        "urb", "--hex", "--tz", "local",
                        str(TESTDATA / "urb" / "close-destination.reply.dump")],
                       capture_output=True, cwd=ROOT, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "TZ": zone})
    assert p.returncode == 0, p.stderr
    assert f"urbhtime = {shown}" in p.stdout.decode()


def test_an_unknown_zone_names_the_choices() -> None:
    r = mq("decode", "urb", "--hex", "--tz", "Mars/Olympus", TESTDATA / "urb" / "status.request.dump")
    assert r.status == ExitStatus.USAGE and "e.g. UTC, local, Europe/Berlin" in r.stderr


# ------------------------------------------------------------------ code pages, help texts


def test_an_unknown_codepage_lists_the_valid_ones() -> None:
    for command in COMMANDS:
        if "--codepage" not in _options(command) or command in ("spark-extract", "view"):
            continue
        argv = {"build-request urb": ["build-request", "urb", "stat", "--snam", "S"],
                "build-request matqmsg": ["build-request", "matqmsg", "--type", "all", "--dump"],
                "build-request sas-attachment": ["build-request", "sas-attachment", "--message",
                                                 "m"]}.get(command, ARGV[command])
        argv = [a.format(f=TESTDATA / "urb" / "status.request.dump", o="/nonexistent/o")
                for a in argv]
        r = mq(*argv, "--codepage", "nope")
        assert r.status == ExitStatus.USAGE, (command, r.stderr)
        assert "037" in r.stderr and "Traceback" not in r.stderr, (command, r.stderr)


DECODER_WORDS = ("detected from", "decoded", "as read", "the header says", "in the input")


@pytest.mark.parametrize("command", BUILDERS)
def test_builder_help_speaks_of_building(command: str) -> None:
    cmd = _command(command)
    assert (cmd.help or "").startswith("Build"), command
    for p in cmd.params:
        text = (getattr(p, "help", None) or "").lower()
        text = text.replace("'decode", "")  # naming the decoder whose output --from takes
        assert not [w for w in DECODER_WORDS if w in text], (command, p.opts, text)


# ------------------------------------------------------------------ output extensions


def test_an_output_extension_that_names_no_format_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    f.write_bytes(seed_bytes("csq1logp/hello-2seg.dump"))
    r = mq("extract", f, "-o", tmp_path / "x.txt")
    assert r.status == ExitStatus.USAGE and "x.txt" in r.stderr
    assert not (tmp_path / "x.txt").exists()


def test_mqtool_errors_are_one_line_without_usage_block() -> None:
    """The refusals of this file are MqtoolErrors, shown by run() as one 'mqtool:' line."""
    assert issubclass(InputError, MqtoolError) and not issubclass(InputError, click.ClickException)


# ------------------------------------------------------------------ property: refusals


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False),
                    st.text(max_size=12), st.lists(st.integers(), max_size=2))


@settings(max_examples=120, deadline=None)
@given(fields=st.dictionaries(st.sampled_from(["selection_type", "key_relationship", "key_bytes",
                                               "text_bytes", "mode", "key", "key_hex", "other"]),
                              _VALUES, max_size=6),
       nested=st.booleans())
def test_matqmsg_request_values_are_refused_in_lines_never_a_crash(
        fields: dict[str, Any], nested: bool, tmp_path_factory: pytest.TempPathFactory) -> None:
    tmp_path = tmp_path_factory.mktemp("example")  # one folder per example
    obj = {"elements": [{"type": "SELECTION", "fields": fields}]} if nested else fields
    req = tmp_path / "req.json"
    req.write_text(json.dumps(obj) + "\n")
    r = mq("build-request", "matqmsg", "--from", req, "--dump")
    assert r.status in (ExitStatus.OK, ExitStatus.USAGE), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    if r.status:
        assert r.stdout == b""
        assert all(x.startswith("mqtool: ") or x.startswith("  ") or x.startswith("Usage:")
                   or x.startswith("Try ") or x.startswith("Error: ") or not x
                   for x in r.stderr.splitlines()), r.stderr


@settings(max_examples=100, deadline=None)
@given(dlh=st.dictionaries(st.sampled_from(["reason", "destqname", "format", "putappltype", "bogus"]),
                           st.one_of(st.integers(-2**40, 2**40),
                                     st.text(st.characters(blacklist_characters=",="), max_size=60)),
                           max_size=4))
def test_mq_option_values_are_refused_in_lines_never_a_crash(dlh: dict[str, Any]) -> None:
    text = ",".join(f"{k}={v}" for k, v in dlh.items()) or "reason=1"
    r = mq("build-request", "mq", "--dlh", text, "--xqh", "remoteqname=Q", "--text", "x", "--dump")
    assert r.status in (ExitStatus.OK, ExitStatus.USAGE), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


# ------------------------------------------------------------------ control characters


@pytest.mark.parametrize("command", ["decode urb", "identify", "dump", "messages"])
def test_control_characters_of_the_input_are_never_written_to_stderr(command: str,
                                                                    tmp_path: Path) -> None:
    """A name from the input (here a file name with an ANSI clear-screen and a record
    separator) is shown escaped: the terminal is not driven by what it reads."""
    name = str(tmp_path / "a\x1b[2J\x1eb")
    r = mq(*_argv(command, name, tmp_path / "out"))
    assert r.status == ExitStatus.USAGE, r.stderr
    assert "\x1b" not in r.stderr and "\x1e" not in r.stderr
    assert "a\\x1b[2J\\x1eb" in r.stderr and len(r.stderr.splitlines()) == 1


# ------------------------------------------------------------------ one meaning per option name


def _uses() -> dict[str, list[tuple[str, click.Option]]]:
    """Every option name of every command (``reassemble-attachment`` is ``reassemble
    attachment`` under another name), with the command and the option."""
    out: dict[str, list[tuple[str, click.Option]]] = {}
    for command in COMMANDS:
        if command == "reassemble-attachment":
            continue
        for p in _command(command).params:
            if isinstance(p, click.Option):
                for name in (*p.opts, *p.secondary_opts):
                    out.setdefault(name, []).append((command, p))
    return out


def _default(p: click.Option) -> object:
    """The default an option was given (None when none was: click's UNSET)."""
    return None if p.default is getattr(click.core, "UNSET", None) else p.default


def _flag(p: click.Option) -> bool:
    return p.is_flag and not p.multiple and _default(p) in (False, None) and not p.secondary_opts


def _choice(p: click.Option, allowed: set[str], default: object) -> bool:
    return isinstance(p.type, click.Choice) and set(p.type.choices) <= allowed \
        and _default(p) == default


def _byte_order(p: click.Option) -> bool:
    """Decoders: auto (the input says it, the default), big, little; builders: big or
    little, default what the request or the sender profile says (None)."""
    choices = set(p.type.choices) if isinstance(p.type, click.Choice) else set()
    return (choices == {"auto", "big", "little"} and _default(p) == "auto") or \
        (choices == {"big", "little"} and _default(p) is None)


def _codepage(p: click.Option) -> bool:
    """One type (the same lookup, the same refusal); 037 where nothing else says, else the
    input's or the request's (None)."""
    return isinstance(p.type, CodepageParam) and _default(p) in (None, "037")


def _int(p: click.Option) -> bool:
    return isinstance(p.type, click.types.IntParamType) and not p.multiple


def _text(p: click.Option) -> bool:
    return isinstance(p.type, click.types.StringParamType) and not p.is_flag


def _path(p: click.Option) -> bool:
    return isinstance(p.type, click.Path) and not p.multiple


def _output(p: click.Option) -> bool:
    return _path(p) and p.opts[:2] == ["-o", "--output"]


DUMP_KINDS = set(registry.queue_dumps())
# docs/conventions.md: each option name, what it means, and the rule every use of it follows
MEANINGS: dict[str, tuple[str, Any]] = {
    "-o": ("where the command writes: a file, or a directory where the output is several files",
           _output),
    "--output": ("the same as -o", _output),
    "--force": ("overwrite existing output", _flag),
    "--json": ("JSON lines on stdout", lambda p: p.is_flag),
    "--hex": ("the input is hex dump text", _flag),
    "--raw": ("with --json: <field>_hex of character fields", _flag),
    "--annotate": ("annotated hex dump", _flag),
    "--strict": ("exit 2 on problems too", _flag),
    "--dump": ("a hex dump of what was built instead of its bytes", _flag),
    "--tz": ("time zone of listed times", lambda p: p.callback is not None),
    "--color": ("colour", lambda p: _choice(p, {"auto", "always", "never"}, "auto")),
    "--from": ("a request file (JSON, YAML, decode --json output; - is stdin)",
               lambda p: _path(p) and p.type.allow_dash),  # type: ignore[attr-defined]
    "--summary": ("the run's summary as JSON to FILE (- is stdout)",
                  lambda p: _path(p) and p.type.allow_dash),  # type: ignore[attr-defined]
    "--codepage": ("a single-byte EBCDIC or ASCII code page of character fields", _codepage),
    "--encoding": ("the MQMD Encoding (MQENC: 273, 546, 785)", _int),
    "--ccsid": ("the MQMD CodedCharSetId", _int),
    "--format": ("an MQ Format name (MQMD Format: MQSTR, MQDEAD, ...)", _text),
    "--byte-order": ("byte order of binary fields", _byte_order),
    "--mode": ("what bad input does: PERMISSIVE, DROPMALFORMED, FAILFAST (Spark's parse modes)",
               lambda p: _choice(p, {"PERMISSIVE", "DROPMALFORMED", "FAILFAST"}, "PERMISSIVE")),
    "--part": ("what the bytes are, auto: recognised",
               lambda p: isinstance(p.type, click.Choice) and _default(p) == "auto"),
    "--input-format": ("the queue-dump producer of the input, auto: recognised",
                       lambda p: _choice(p, {"auto", "message", *DUMP_KINDS}, "auto")
                       and set(p.type.choices) >= DUMP_KINDS),  # type: ignore[attr-defined]
    "--to": ("the format -o writes",
             lambda p: isinstance(p.type, click.Choice)
             and _default(p) in (None, *p.type.choices)),
    "--framing": ("CSQ1LOGP record framing",
                  lambda p: _choice(p, {"auto", "rdw", "bdw", "none"}, "auto")),
    "--leap-seconds": ("STCK times N seconds earlier",
                       lambda p: isinstance(p.type, click.IntRange) and _default(p) == 0),
    "--key-bytes": ("MATQMSG K: key bytes per message", _int),
    "--text-bytes": ("MATQMSG T: text bytes per message", _int),
    "--key-size": ("the queue's key size", lambda p: isinstance(p.type, click.IntRange)),
    "--nul": ("SAS strings end in a NUL", lambda p: p.is_flag and _default(p) is None),
    "--no-nul": ("SAS strings end in no NUL", lambda p: p.is_flag and _default(p) is None),
    "--long": ("size of the SAS sender's C long", lambda p: _choice(p, {"4", "8"}, None)),
    "--float": ("format of SAS numerics", lambda p: isinstance(p.type, click.Choice)),
    "--correlid": ("an MQMD CorrelId in hex", lambda p: isinstance(p.type, CorrelIdParam)),
    "--typed": ("typed URB change tables too", lambda p: p.is_flag),
    "--format-buffer": ("a file's record layout as an Adabas format buffer",
                        lambda p: p.multiple and p.metavar == "DBID:FNR=BUFFER"),
    "--fdt": ("an Adabas FDT as JSON", lambda p: p.multiple and isinstance(p.type, click.Path)),
    "--conf": ("a Spark configuration K=V", lambda p: p.multiple),
    "--master": ("the Spark master", lambda p: _default(p) == "local[*]"),
    "--remote": ("a Spark Connect server instead of --master (SPARK_REMOTE)",
                 lambda p: p.envvar == "SPARK_REMOTE" and p.metavar == "sc://HOST:PORT"),
    "--verbose": ("the JVM's notes and Spark's log through", _flag),
    "--queue": ("filter: queue name glob", lambda p: p.multiple),
    "--verb": ("filter: csverb", lambda p: p.multiple),
    "--urid": ("filter: unit of work", lambda p: p.multiple),
    "--qmgr": ("filter: queue manager", lambda p: p.multiple),
    "--status": ("filter: state of the unit of work (C, B, I)", lambda p: p.multiple),
    "--since": ("filter: records or messages at or after TIME", _text),
    "--until": ("filter: records or messages before TIME", _text),
    "--messages": ("one row per logical message", _flag),
    "--max-segment": ("largest data slice of one record", lambda p: isinstance(p.type, click.IntRange)),
    "--split-size": ("bytes per split", lambda p: p.callback is not None),
    "--port": ("the TCP port of IBM MQ traffic in pcap / pcapng captures (repeatable)",
               lambda p: p.multiple and isinstance(p.type, click.IntRange)
               and p.type.min == 1 and p.type.max == 65535),  # type: ignore[attr-defined]
    "--offset": ("the window of the input starts here (xxd -s)",
                 lambda p: _text(p) and p.metavar == "N"),
    "--length": ("the window of the input is this long (xxd -l)",
                 lambda p: _text(p) and p.metavar == "N"),
    "--where": ("only units or rows whose fields satisfy EXPR",
                lambda p: _text(p) and p.metavar == "EXPR"),
    "--fields": ("print these fields as tab-separated columns",
                 lambda p: _text(p) and p.metavar == "A,B,..."),
    "--header": ("with --fields: the column names first", _flag),
    "--decode-as": ("decode with this format's codec; auto: recognised",
                    lambda p: _text(p) and _default(p) == "auto"),
}
# the spellings that had two meanings, and what each meaning is called now
RETIRED = {"--output-dir", "--output-format", "--selection-file", "--text-file"}
ONE_MEANING_NOW = {  # name -> the only commands that have it
    "--encoding": {"decode mq", "build-request mq"},
    "--mode": {"extract csq1logp", "extract urb", "spark-extract csq1logp", "spark-extract urb"},
    "--text": {"build-request mq"},
    "--selection": {"build-request urb"},
    "--status": {"extract csq1logp", "spark-extract csq1logp"},
    "-a": {"dump"},
}


def test_every_shared_option_name_has_one_meaning() -> None:
    """An option name that several commands have is in the table, and every use of it
    follows the table's rule: the same kind of value, the same validation, the same
    default rule."""
    shared = {name: uses for name, uses in _uses().items()
              if len({c for c, _ in uses}) > 1 and name not in ("-h", "--help")}
    assert set(shared) <= set(MEANINGS), set(shared) - set(MEANINGS)
    wrong = [(name, command) for name, uses in _uses().items() if name in MEANINGS
             for command, p in uses if not MEANINGS[name][1](p)]
    assert wrong == []


def test_the_names_that_meant_two_things_mean_one() -> None:
    uses = _uses()
    assert not RETIRED & set(uses)
    for name, commands in ONE_MEANING_NOW.items():
        assert {c for c, _ in uses[name]} == commands, name


def test_the_conventions_table_lists_every_shared_option() -> None:
    text = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    table = text[text.index("| option | what it means |"):]
    table = table.split("\n\n")[0].strip()
    names = {n.strip("` ") for row in table.splitlines()[2:] for n in row.split("|")[1].split(",")}
    shared = {name for name, uses in _uses().items() if len({c for c, _ in uses}) > 1}
    assert shared - {"-h", "--help"} <= names, shared - names


def test_codepage_is_refused_the_same_way_everywhere() -> None:
    for command, p in _uses()["--codepage"]:
        with pytest.raises(click.BadParameter) as e:
            p.type.convert("utf-8", p, None)
        assert "not single-byte" in str(e.value) and "037" in str(e.value), command
        assert p.type.convert("IBM-1047", p, None) == "cp1047", command
