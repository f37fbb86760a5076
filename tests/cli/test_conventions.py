"""One rule per convention, checked on every command of ``mqtool.cli``'s tables.

README "Conventions every command follows": directory arguments; binary output never to a
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

from mqtool.cli import BUILD, cli
from mqtool.cli._common import Env
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
DIRECTORY_READERS = {"decode urb", "decode sas-attachment", "decode mq", "decode auto",
                     "reassemble attachment", "reassemble-attachment", "messages", "view"}
# everything else that takes a file: "FILE: is a directory", exit 1
# layouts reads no file; extract and spark-extract take a directory as the files in it
# (bulk inputs: files, directories, globs, URIs), tested in tests/formats/*/ and tests/spark
NO_FILE_ARGUMENT = {c for c in COMMANDS if c == "layouts" or c.startswith(("spark-extract", "extract"))}
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
    # the seven SAS messages of the dump; urb decodes them and says they are not URB
    assert r.status == (ExitStatus.DECODE if command == "decode urb" else ExitStatus.OK), r.stderr
    if command == "decode urb":
        assert "urb: message 1 (" in r.stderr and "mytext-zos.qmsg" in r.stderr
    if command == "messages":  # the dump's six messages, converted into -o
        assert r.stderr == f"mqtool: 6 message(s) written to {tmp_path / 'out'}\n"
    elif not command.startswith("reassemble"):  # each unit says which message it came from
        assert f"message 1 ({d / 'mytext-zos.qmsg'} line ".encode() in r.stdout
        assert f"message 6 ({d / 'mytext-zos.qmsg'} line ".encode() in r.stdout
        assert b"message 7 (" not in r.stdout


@pytest.mark.parametrize("command", READERS_RUN)
def test_a_file_in_the_directory_that_is_no_dump_is_said_and_exit_2(command: str,
                                                                   tmp_path: Path) -> None:
    d = tmp_path / "adir"
    d.mkdir()
    shutil.copy(TESTDATA / "sas" / "mytext-zos.qmsg", d)
    (d / "notes.txt").write_text("not a dump\n")
    r = mq(*_argv(command, d, tmp_path / "out"))
    assert r.status == ExitStatus.DECODE, r.stderr
    assert f"mqtool: {d / 'notes.txt'}: not a message dump; skipped\n" in r.stderr


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
    "identify", "messages", "reassemble attachment", "reassemble-attachment", "layouts"}
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
}


@pytest.mark.parametrize("command", sorted(JSON_PRINTERS))
def test_json_output_is_json(command: str) -> None:
    r = mq(*JSON_RUNS[command])
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
            ("spark-extract urb", "inputs"): "executors read files"}


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
