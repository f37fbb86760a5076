"""Test helpers: run mqtool in-process, read the seed vectors, check console transcripts."""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mqtool.cli import run
from mqtool.io.undump import undump

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"


@dataclass
class Result:
    status: int
    stdout: bytes
    stderr: str

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8")


def mq(*args: object, input: bytes | str | None = None, env: dict[str, str] | None = None) -> Result:
    """Run ``mqtool ARGS`` in-process; stdout as bytes, stderr as text, the exit status."""
    runner = CliRunner()
    with runner.isolation(input=input, env=env) as (out, err, _mixed):
        status = run([str(a) for a in args])
        sys.stdout.flush()
        sys.stderr.flush()
        return Result(status, out.getvalue(), err.getvalue().decode("utf-8", "replace"))


def load_testdata_script(relpath: str) -> Any:
    """A generator script of testdata/ (``mq/generate.py``), loaded as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(Path(relpath).stem, TESTDATA / relpath)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def seed_text(relpath: str) -> str:
    return (TESTDATA / relpath).read_text(encoding="utf-8")


def seed_bytes(relpath: str) -> bytes:
    """The bytes of a transcribed seed dump (read with mqtool's own undump)."""
    return undump(seed_text(relpath))


# --------------------------------------------------------------------------- transcripts


@dataclass
class Step:
    command: str
    expected: list[str]
    line: int


def parse_transcript(text: str, start_line: int = 1) -> list[Step]:
    """``$ mqtool ...`` lines followed by their expected output."""
    steps: list[Step] = []
    for n, line in enumerate(text.splitlines(), start_line):
        if line.startswith("$ "):
            steps.append(Step(line[2:], [], n))
        elif steps:
            steps[-1].expected.append(line)
    return steps


def run_step(step: Step) -> tuple[int, list[str]]:
    """Run a pipeline of mqtool commands (``a | b``); returns status and output lines."""
    data: bytes | None = None
    status = 0
    for part in step.command.split(" | "):
        argv = shlex.split(part)
        assert argv[0] == "mqtool", f"transcripts run mqtool only: {step.command}"
        res = mq(*argv[1:], input=data)
        status, data = res.status, res.stdout
    text = (data or b"").decode("utf-8")
    return status, text.splitlines()


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line-by-line equality; a line ``...`` stands for any number of lines."""
    pattern = "\n".join(".*?" if ln.strip() == "..." else re.escape(ln.rstrip())
                        for ln in expected)
    return re.fullmatch(pattern, "\n".join(a.rstrip() for a in actual), re.S) is not None
