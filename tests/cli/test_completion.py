"""Shell completion: every file argument and option completes file names (click path types),
in bash, zsh and fish, through the console script's own completion protocol."""

from __future__ import annotations

import os
import subprocess
import sys

import click
import pytest

from mqtool.cli import cli
from tests.helpers import ROOT

FILE_WORDS = ("FILE", "DIR", "OUT", "INPUT", "DUMP")


def _commands() -> list[tuple[str, click.Command]]:
    found = []

    def walk(cmd: click.Command, path: list[str], ctx: click.Context) -> None:
        found.append((" ".join(path), cmd))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None
                walk(sub, [*path, name], sub.make_context(name, [], parent=ctx, resilient_parsing=True))

    walk(cli, ["mqtool"], cli.make_context("mqtool", [], resilient_parsing=True))
    return found


def _file_params() -> list[tuple[str, click.Parameter]]:
    out = []
    for path, cmd in _commands():
        for p in cmd.params:
            metavar = (p.metavar or "").upper()
            if any(w in metavar for w in FILE_WORDS) and "KIND:" not in metavar:
                out.append((f"{path} {p.name}", p))
    return out


def test_every_file_parameter_is_a_path() -> None:
    params = _file_params()
    names = {n for n, _ in params}
    assert {"mqtool decode urb file", "mqtool extract csq1logp files",
            "mqtool extract csq1logp output", "mqtool extract urb inputs",
            "mqtool reassemble attachment dump", "mqtool build-request urb from_file",
            "mqtool spark-extract csq1logp inputs", "mqtool layouts output"} <= names
    wrong = [n for n, p in params if not isinstance(p.type, click.Path)]
    assert not wrong, f"file parameters without click.Path: {wrong}"


def test_input_paths_still_take_stdin_and_directories() -> None:
    """Completion only: a path type must not start refusing '-' or a directory."""
    for name, p in _file_params():
        t = p.type
        assert isinstance(t, click.Path)
        assert not t.exists, name
        if "[FILE|-]" in (p.metavar or "") or "FILE|-" in (p.metavar or ""):
            assert t.allow_dash, name
        assert t.dir_okay, name


def _complete(shell: str, words: str, cword: int | str) -> list[str]:
    env = {**os.environ, "_MQTOOL_COMPLETE": f"{shell}_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(cword), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "mqtool"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize(("words", "cword", "expected"), [
    ("mqtool decode urb testdata/urb/inst", 3, ["file,testdata/urb/inst"]),
    ("mqtool extract -o out", 3, ["file,out"]),
    ("mqtool reassemble attachment testdata/sas/my", 3, ["file,testdata/sas/my"]),
    ("mqtool layouts -o docs/k", 3, ["dir,docs/k"]),
])
def test_bash_completes_file_names(words: str, cword: int, expected: list[str]) -> None:
    assert _complete("bash", words, cword) == expected


def test_bash_completes_commands_and_options() -> None:
    assert "plain,layouts" in _complete("bash", "mqtool lay", 1)
    assert "plain,--markdown" in _complete("bash", "mqtool layouts --mar", 2)


def test_zsh_and_fish_complete_file_names() -> None:
    assert _complete("zsh", "mqtool identify test", 2) == ["file", "test", "_"]
    # fish passes the word being completed; click 8.4 answers "file", "WORD", "_" on three
    # lines, click 8.5 "file,WORD" on one: the same answer, a file completion of WORD
    fish = _complete("fish", "mqtool dump testdata/dump/ra", "testdata/dump/ra")
    assert fish in (["file", "testdata/dump/ra", "_"], ["file,testdata/dump/ra"])
