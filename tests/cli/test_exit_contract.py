"""The exit-status contract, checked on every command of ``mqtool.cli``'s tables.

Empty input, random bytes, an output that cannot be written and a closed stdout pipe:
never exit 70, never a traceback; each case has one status, the same in every command
(README "Exit status"). A failed run leaves no output file.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mqtool.cli import BUILD, DECODE, REASSEMBLE, TOP
from mqtool.errors import EnvError, ExitStatus
from mqtool.io.outputs import TEMP_SUFFIX, AtomicFile, AtomicPath, OutputExistsError, atomic_output
from mqtool.testing import urb_gen
from tests.helpers import ROOT, TESTDATA, mq, seed_bytes


def _leaves() -> list[str]:
    """Every runnable command, as it is typed: ``decode urb``, ``dump``, ..."""
    out = []
    for name, (target, _help) in TOP.items():
        if callable(target):  # a table made from the registry when first asked for
            target = target()
        if isinstance(target, dict):
            out += [f"{name} {sub}" for sub in target]
        else:
            out.append(name)
    return out


COMMANDS = _leaves()

# how each command takes an input file {f}; {o} is an output path when it writes one
ARGV = {
    "decode urb": ["decode", "urb", "{f}"],
    "decode sas-attachment": ["decode", "sas-attachment", "{f}"],
    "decode csq1logp": ["decode", "csq1logp", "{f}"],
    "decode redolog": ["decode", "redolog", "{f}"],
    "decode matqmsg": ["decode", "matqmsg", "{f}"],
    "decode auto": ["decode", "auto", "{f}"],
    "build-request urb": ["build-request", "urb", "--from", "{f}", "-o", "{o}"],
    "build-request sas-attachment": ["build-request", "sas-attachment", "--from", "{f}", "-o", "{o}"],
    "build-request matqmsg": ["build-request", "matqmsg", "--from", "{f}", "-o", "{o}"],
    "reassemble attachment": ["reassemble", "attachment", "{f}", "-o", "{o}"],
    "reassemble-attachment": ["reassemble-attachment", "{f}", "-o", "{o}"],
    "dump": ["dump", "{f}", "-o", "{o}"],
    "extract csq1logp": ["extract", "csq1logp", "{f}", "-o", "{o}.jsonl"],
    "extract urb": ["extract", "urb", "{f}", "-o", "{o}"],
    "extract mq-stats": ["extract", "mq-stats", "{f}", "-o", "{o}.csv"],
    "spark-extract csq1logp": ["spark-extract", "csq1logp", "{f}", "-o", "{o}"],
    "spark-extract urb": ["spark-extract", "urb", "{f}", "-o", "{o}"],
    "identify": ["identify", "{f}"],
    "decode mq": ["decode", "mq", "{f}"],
    "build-request mq": ["build-request", "mq", "--from", "{f}", "-o", "{o}"],
    "messages": ["messages", "{f}", "-o", "{o}"],
    "layouts": ["layouts", "urb", "--markdown", "-o", "{o}"],  # reads no input file
    "view": ["view", "{f}"],  # interactive: outside a terminal it says so (usage, 1)
    "scan": ["scan", "{f}", "--carve", "{o}"],
    "stats": ["stats", "--by", "format", "{f}"],
    "verify": ["verify", "{f}"],
    "man": ["man", "decode", "urb"],  # reads no input file
    "changes apply": ["changes", "apply", "{f}", "-o", "{o}"],
}
BUILDERS = {f"build-request {b}" for b in BUILD}
# the status each case gives, decided once (README "Exit status"): nothing decoded is 2;
# a builder's request file is an option, so a bad one is a usage error (1)
EMPTY = {c: ExitStatus.USAGE if c in BUILDERS else ExitStatus.DECODE for c in COMMANDS}
EMPTY["dump"] = ExitStatus.OK  # a hex dump of nothing is nothing, as with xxd
EMPTY["layouts"] = EMPTY["man"] = ExitStatus.OK  # take no input file: they run as always
RANDOM = dict(EMPTY)
RANDOM["view"] = ExitStatus.USAGE  # not a terminal here

# spark-extract runs its job in the shared Spark session (tests/conftest.py), so these
# need Java and pyspark. Empty input is refused before the JVM starts (both formats).
SPARK_RUNS = {"spark-extract csq1logp", "spark-extract urb"}
SPARK_EMPTY: set[str] = set()


def _marked(commands: list[str], spark: set[str]) -> list[object]:
    return [pytest.param(c, marks=pytest.mark.spark) if c in spark else c for c in commands]


@pytest.fixture(autouse=True)
def _shared_spark(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("spark") is not None:
        request.getfixturevalue("cli_uses_shared_spark")


def test_every_command_is_covered() -> None:
    assert set(COMMANDS) == set(ARGV), "add the new command to ARGV (and its expected statuses)"
    assert {f"decode {d}" for d in DECODE} | {f"reassemble {r}" for r in REASSEMBLE} <= set(ARGV)


def _argv(command: str, f: Path | str, o: Path | str) -> list[str]:
    return [a.format(f=f, o=o) for a in ARGV[command]]


def _no_crash(r) -> None:  # type: ignore[no-untyped-def]
    assert r.status != 70, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr


@pytest.mark.parametrize("command", _marked(COMMANDS, SPARK_EMPTY))
def test_empty_input(command: str, tmp_path: Path) -> None:
    f = tmp_path / "empty.bin"
    f.write_bytes(b"")
    r = mq(*_argv(command, f, tmp_path / "out"))
    _no_crash(r)
    assert r.status == EMPTY[command], r.stderr
    if r.status:  # said in words: on stderr, or in identify's own answer line
        assert "empty" in (r.stderr + r.stdout.decode()), r.stderr


# a queue dump that holds only comments: nothing to decode (2), like empty input; identify
# recognises it for what it is (a dmpmqmsg dump), dump prints its bytes
COMMENTS = {**EMPTY, "identify": ExitStatus.OK, "view": ExitStatus.USAGE}
COMMENTS_ONLY = "* Dumped by dmpmqmsg\n* Qmgr  = QM1\n* Queue = Q1\n\n"


@pytest.mark.parametrize("command", _marked(COMMANDS, SPARK_RUNS))
def test_a_dump_of_comments_only(command: str, tmp_path: Path) -> None:
    f = tmp_path / "comments.qmsg"
    f.write_text(COMMENTS_ONLY)
    r = mq(*_argv(command, f, tmp_path / "out"))
    _no_crash(r)
    assert r.status == COMMENTS[command], r.stderr
    if r.status == ExitStatus.DECODE:
        assert r.stderr.startswith("mqtool: "), r.stderr


@pytest.mark.parametrize("text", ["", "\n  \n", COMMENTS_ONLY])
def test_dump_r_of_nothing_is_status_2(text: str, tmp_path: Path) -> None:
    """``dump -r`` reads dump text back: none there is nothing decoded (2), as in every
    decoder; ``dump`` of an empty file is an empty dump (0), as with xxd."""
    f = tmp_path / "in.txt"
    f.write_text(text)
    r = mq("dump", "-r", f, "-o", tmp_path / "out.bin")
    assert r.status == ExitStatus.DECODE, r.stderr
    assert len(r.stderr.splitlines()) == 1 and not (tmp_path / "out.bin").exists()
    if not text.strip():
        assert r.stderr == f"mqtool: dump: {f}: empty input: nothing to decode, offset X'0000' (0)\n"


@pytest.mark.parametrize("command", _marked(COMMANDS, SPARK_RUNS))
def test_random_bytes(command: str, tmp_path: Path) -> None:
    f = tmp_path / "random.bin"
    f.write_bytes(random.Random(12).randbytes(4096))
    r = mq(*_argv(command, f, tmp_path / "out"))
    _no_crash(r)
    assert r.status == RANDOM[command], r.stderr
    if r.status and not command.startswith(("extract", "spark-extract")):
        assert not list(tmp_path.glob("out*")), "a failed run leaves no output"
    # extract (PERMISSIVE) writes what it could not decode as error rows: a labelled result


# ------------------------------------------------------------------ good inputs per command


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A valid input for each command (so it gets as far as writing its output)."""
    d = tmp_path_factory.mktemp("good")
    files = {
        "urb": seed_bytes("urb/status.request.dump"),
        "csq1logp": seed_bytes("csq1logp/hello-2seg.dump"),
        "redolog": seed_bytes("osb/sample1.header.dump"),
        "matqmsg": seed_bytes("matqmsg/keyed-eq.selection.synthetic.dump"),
    }
    out = {}
    for name, data in files.items():
        (d / f"{name}.bin").write_bytes(data)
        out[name] = d / f"{name}.bin"
    out["sas"] = TESTDATA / "sas" / "mytext-zos.qmsg"
    out["mq"] = TESTDATA / "mq" / "dlq.dmpmqmsg"
    (d / "mq.json").write_text(mq("decode", "mq", "--json", "--raw", TESTDATA / "mq" / "dlh-tm.le.ebcdic.bin")
                               .stdout.decode())
    out["mq.json"] = d / "mq.json"
    out["dumptext"] = TESTDATA / "urb" / "status.request.dump"
    (d / "urb.json").write_text('{"type": "stat", "snam": "SUB1"}\n')
    out["urb.json"] = d / "urb.json"
    (d / "sas.json").write_text('{"message": "m", "attachments": [{"type": "binary", "path": "%s"}]}\n'
                                % (TESTDATA / "sas" / "mytext.txt"))
    out["sas.json"] = d / "sas.json"
    (d / "matqmsg.json").write_text('{"selection_type": "all", "key_bytes": 0, "text_bytes": 16}\n')
    out["matqmsg.json"] = d / "matqmsg.json"
    assert mq("scan", out["urb"], "--carve", d / "carved").status == 0
    (d / "typed.urb").write_bytes(urb_gen.stream(urb_gen.employees(), urb_gen.changes(3)).data)
    assert mq("extract", "urb", "--typed", d / "typed.urb", "-o", d / "typed").status == 0
    out["changes"] = d / "typed" / "changes_10006_9.parquet"
    out["manifest"] = d / "carved" / "manifest.json"
    return out


GOOD = {
    "decode urb": "urb", "decode sas-attachment": "sas", "decode csq1logp": "csq1logp",
    "decode redolog": "redolog", "decode matqmsg": "matqmsg", "decode auto": "urb",
    "build-request urb": "urb.json", "build-request sas-attachment": "sas.json",
    "build-request matqmsg": "matqmsg.json", "reassemble attachment": "sas",
    "reassemble-attachment": "sas", "dump": "urb", "extract csq1logp": "csq1logp",
    "extract urb": "urb", "extract mq-stats": "mq", "spark-extract csq1logp": "csq1logp",
    "spark-extract urb": "urb",
    "identify": "urb", "decode mq": "mq", "build-request mq": "mq.json", "messages": "sas",
    "layouts": "urb", "view": "urb", "scan": "urb", "stats": "urb", "verify": "manifest",
    "man": "urb", "changes apply": "changes",
}
WRITERS = [c for c in COMMANDS if "{o}" in " ".join(ARGV[c])]


def test_every_command_has_a_good_input() -> None:
    assert set(GOOD) == set(COMMANDS)


@pytest.mark.parametrize("command", WRITERS)
def test_unwritable_output_is_exit_4_in_one_line(command: str, good: dict[str, Path],
                                                 tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    r = mq(*_argv(command, good[GOOD[command]], blocker / "out"))
    _no_crash(r)
    assert r.status == ExitStatus.ENVIRONMENT, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert str(blocker) in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


@pytest.mark.parametrize("command", _marked(WRITERS, SPARK_RUNS))
def test_good_input_writes_its_output(command: str, good: dict[str, Path], tmp_path: Path) -> None:
    r = mq(*_argv(command, good[GOOD[command]], tmp_path / "out"))
    assert r.status == 0, r.stderr
    written = list(tmp_path.glob("out*"))
    assert written, "the output exists"
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(TEMP_SUFFIX)], "no temp left"


# ------------------------------------------------------------------ closed pipe

PIPED = {c: [a for a in ARGV[c] if a not in ("-o", "{o}", "{o}.jsonl")] for c in COMMANDS}
PIPED["build-request urb"] = ["build-request", "urb", "--from", "{f}"]
PIPED["build-request sas-attachment"] = ["build-request", "sas-attachment", "--from", "{f}"]
PIPED["build-request matqmsg"] = ["build-request", "matqmsg", "--from", "{f}", "--dump"]
PIPED["reassemble attachment"] = ["reassemble", "attachment", "{f}", "--list"]
PIPED["reassemble-attachment"] = ["reassemble-attachment", "{f}", "--list"]
PIPED["extract csq1logp"] = ["extract", "csq1logp", "{f}", "--to", "jsonl"]
PIPED.pop("extract urb")  # writes a directory of tables, never stdout
PIPED["extract mq-stats"] = ["extract", "mq-stats", "{f}", "--to", "csv"]
PIPED["build-request mq"] = ["build-request", "mq", "--from", "{f}", "--dump"]
PIPED["layouts"] = ["layouts", "urb"]
PIPED.pop("spark-extract csq1logp")  # writes a directory, never stdout
PIPED.pop("spark-extract urb")
PIPED.pop("view")  # interactive, refuses a pipe
PIPED.pop("changes apply")  # writes a directory of state tables
PIPED["scan"] = ["scan", "{f}"]


@pytest.mark.parametrize("command", sorted(PIPED))
def test_closed_stdout_pipe_ends_quietly(command: str, good: dict[str, Path]) -> None:
    """As ``xxd file | head`` when head has gone: no message, no traceback, not 70."""
    argv = [a.format(f=good[GOOD[command]]) for a in PIPED[command]]
    r_fd, w_fd = os.pipe()
    os.close(r_fd)  # the reader is gone before the first write
    try:
        p = subprocess.run([sys.executable, "-c", "from mqtool.cli import main; main()", *argv],
                           stdout=w_fd, stderr=subprocess.PIPE, cwd=ROOT, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(w_fd)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 0, err
    assert err == "", err


# ------------------------------------------------------------------ atomic output files


def test_atomic_file_appears_only_when_closed(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    with atomic_output(str(target)) as f:
        f.write(b"abc")
        assert not target.exists()
        assert [p.name.endswith(TEMP_SUFFIX) for p in tmp_path.iterdir()] == [True]
    assert target.read_bytes() == b"abc"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    with pytest.raises(ZeroDivisionError), atomic_output(str(target)) as f:
        f.write(b"half")
        _ = 1 / 0
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(KeyError), AtomicPath(target) as tmp:
        tmp.write_bytes(b"half")
        raise KeyError("x")
    assert list(tmp_path.iterdir()) == []


def test_existing_output_kept_without_force_replaced_with_it(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with pytest.raises(OutputExistsError):
        AtomicFile(target)
    f = AtomicFile(target, force=True)
    f.write(b"new")
    assert target.read_bytes() == b"old"  # until closed
    f.close()
    assert target.read_bytes() == b"new"
    late = AtomicFile(tmp_path / "late.bin")
    (tmp_path / "late.bin").write_bytes(b"someone else")
    with pytest.raises(OutputExistsError):
        late.close()  # the name was taken meanwhile: never overwritten without force
    assert (tmp_path / "late.bin").read_bytes() == b"someone else"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["late.bin", "out.bin"]


def test_output_permissions_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        with atomic_output(str(tmp_path / "o.bin")) as f:
            f.write(b"x")
    finally:
        os.umask(old)
    assert (tmp_path / "o.bin").stat().st_mode & 0o777 == 0o640


def test_unwritable_places_are_env_errors(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    with pytest.raises(EnvError, match="cannot write"):
        atomic_output(str(tmp_path / "f" / "x"))
    (tmp_path / "d").mkdir()
    with pytest.raises(EnvError, match="is a directory"):
        atomic_output(str(tmp_path / "d"), force=True)


def test_dump_r_failure_leaves_no_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("hello, world\n")
    r = mq("dump", "-r", bad, "-o", tmp_path / "out.bin")
    assert r.status == ExitStatus.DECODE and "line 1" in r.stderr
    assert not (tmp_path / "out.bin").exists()


# ------------------------------------------------------------------ special files

# spark reads on executors; layouts and man read no input file
FIFO_COMMANDS = [c for c in COMMANDS if not c.startswith("spark-extract") and c not in ("layouts", "man")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("command", FIFO_COMMANDS)
def test_a_fifo_is_refused_not_opened(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    argv = _argv(command, fifo, tmp_path / "out")
    if command.startswith("reassemble"):
        argv = [a for a in argv if a not in ("-o", str(tmp_path / "out"))] + ["--list"]
    p = subprocess.run([sys.executable, "-c", "from mqtool.cli import main; main()", *argv],
                       capture_output=True, cwd=ROOT, timeout=120,  # a hang guard, not a time limit
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    err = p.stderr.decode("utf-8", "replace")
    # extract reads many files: an unreadable one is an error row naming it (exit 2), the
    # others go on; every other command refuses the file (usage, 1)
    assert p.returncode == (ExitStatus.DECODE if command == "extract csq1logp" else ExitStatus.USAGE), err
    assert f"{fifo}: is a FIFO" in err or "not a regular file" in err, err


# ------------------------------------------------------------------ --codepage

CODEPAGE_COMMANDS = {  # how each command with --codepage runs on a good input
    "decode urb": ["decode", "urb", "{urb}"],
    "decode sas-attachment": ["decode", "sas-attachment", "{sas}"],
    "decode csq1logp": ["decode", "csq1logp", "{csq1logp}"],
    "decode redolog": ["decode", "redolog", "{redolog}"],
    "decode matqmsg": ["decode", "matqmsg", "{matqmsg}"],
    "build-request urb": ["build-request", "urb", "stat", "--snam", "S1"],
    "build-request sas-attachment": ["build-request", "sas-attachment", "--from", "{sas_json}"],
    "build-request matqmsg": ["build-request", "matqmsg", "--type", "all", "--dump"],
    "reassemble attachment": ["reassemble", "attachment", "{sas}", "--list"],
    "dump": ["dump", "{urb}"],
    "extract csq1logp": ["extract", "csq1logp", "{csq1logp}", "--to", "jsonl"],
    "view": ["view", "{csq1logp}"],
}
NOT_PAGES = ["utf-8", "utf-16-be", "hex", "rot13", "undefined", "idna", "cp037\x00", "-1", "1208"]


def test_every_codepage_option_is_covered() -> None:
    from click import Group

    from mqtool.cli import cli

    found = set()

    def walk(cmd, path: list[str]) -> None:  # type: ignore[no-untyped-def]
        if isinstance(cmd, Group):
            for name in cmd.list_commands(None):  # type: ignore[arg-type]
                if name != "reassemble-attachment":
                    walk(cmd.get_command(None, name), [*path, name])  # type: ignore[arg-type]
        elif any("--codepage" in p.opts for p in cmd.params):
            found.add(" ".join(path))

    walk(cli, [])
    assert {c for c in found if not c.startswith("spark-extract")} == set(CODEPAGE_COMMANDS)


@pytest.mark.parametrize("command", sorted(CODEPAGE_COMMANDS))
def test_codepage_takes_single_byte_pages_only(command: str, good: dict[str, Path]) -> None:
    argv = [a.format(**{k.replace(".", "_"): str(v) for k, v in good.items()})
            for a in CODEPAGE_COMMANDS[command]]
    for bad in NOT_PAGES:
        r = mq(*argv, "--codepage", bad)
        assert r.status == ExitStatus.USAGE, (bad, r.stderr)
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    r = mq(*argv, "--codepage", "utf-8")
    # urb says why its own way (ASCII is latin-1); CSQ1LOGP takes EBCDIC pages only and says so
    if command not in ("build-request urb", "decode csq1logp", "extract csq1logp"):
        assert "single-byte EBCDIC pages (037" in r.stderr and "ASCII-family pages" in r.stderr, r.stderr
    ok = mq(*argv, "--codepage", "500")
    if command == "view":  # the page is taken; then it wants a terminal, which a test is not
        assert ok.status == ExitStatus.USAGE and "run it in a terminal" in ok.stderr, ok.stderr
        return
    assert ok.status in (0, 2), ok.stderr  # a page mqtool reads is taken (2: the data disagrees)


def test_codepage_names() -> None:
    from mqtool.codepages import char_table, codec_name, is_ebcdic, single_byte_codec
    from mqtool.errors import CodepageError

    assert [single_byte_codec(n) for n in ("037", "IBM-1047", "1140", "ascii", "1252", "iso8859-15")] \
        == ["cp037", "cp1047", "cp1140", "latin-1", "cp1252", "iso8859-15"]
    for name in NOT_PAGES:
        with pytest.raises(CodepageError):
            single_byte_codec(name)
    assert codec_name("utf-8") == "utf-8" and not is_ebcdic("utf-8")  # a header's CCSID 1208
    for name in ("hex", "rot13", "cp037\x00", "undefined"):
        with pytest.raises(CodepageError):
            codec_name(name)
    table = char_table("utf-16-be")  # F4: a multi-byte page gives a dotted table, no crash
    assert len(table) == 256 and set(table) == {ord(".")}
    utf8 = char_table("utf-8")
    assert len(utf8) == 256 and utf8[0x41] == ord("A") and utf8[0xC3] == ord(".")


def test_dump_refuses_a_multi_byte_character_column() -> None:
    r = mq("dump", "--codepage", "utf-16-be", TESTDATA / "sas" / "mytext.txt")
    assert r.status == ExitStatus.USAGE and "is not single-byte" in r.stderr
