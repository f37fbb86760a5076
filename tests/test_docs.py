"""Documentation stays true: man pages match the click definitions, every transcript in
README.md and man/examples is re-run, command tables match the commands' help."""

from __future__ import annotations

import re
import subprocess
import sys

import click
import pytest

from mqtool.cli import BUILD, DECODE, REASSEMBLE, TOP, cli
from mqtool.cli.manpage import pages
from tests.helpers import ROOT, matches, parse_transcript, run_step

MAN = ROOT / "man"


def test_man_pages_are_generated_from_the_current_commands() -> None:
    expected = pages(MAN / "examples")
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in MAN.glob("*.1")}
    assert sorted(on_disk) == sorted(expected), "run: python -m mqtool.cli.manpage man"
    for name, text in expected.items():
        assert on_disk[name] == text, f"{name} is stale: run python -m mqtool.cli.manpage man"


def test_every_help_option_is_in_its_man_page() -> None:
    for name, text in pages(MAN / "examples").items():
        page = text.replace("\\-", "-")
        path = name.removesuffix(".1").split("-")[1:]
        ctx = cli.make_context("mqtool", [], resilient_parsing=True)
        cmd: click.Command = cli
        for part in _command_path(path):
            cmd = cmd.get_command(ctx, part)  # type: ignore[attr-defined]
            ctx = cmd.make_context(part, [], parent=ctx, resilient_parsing=True)
        for opt in cmd.get_params(ctx):
            for flag in getattr(opt, "opts", []):
                if flag.startswith("-"):
                    assert flag in page, f"{flag} missing from {name}"


def _command_path(parts: list[str]) -> list[str]:
    """Page name parts -> command names (names may contain dashes: build-request)."""
    names, i = [], 0
    known = set(TOP) | set(DECODE) | set(BUILD) | set(REASSEMBLE)
    while i < len(parts):
        for j in range(len(parts), i, -1):
            cand = "-".join(parts[i:j])
            if cand in known:
                names.append(cand)
                i = j
                break
        else:
            raise AssertionError(f"no command for {parts}")
    return names


@pytest.mark.parametrize("table", [TOP, DECODE, BUILD, REASSEMBLE],
                         ids=["top", "decode", "build", "reassemble"])
def test_command_tables_match_the_commands_short_help(table: dict) -> None:
    from mqtool.cli import LazyGroup

    group = LazyGroup(name="t", table=table)
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None
        if not isinstance(table[name][0], dict):
            canonical = _alias_of(name, table[name][0])
            if canonical is not None:  # an alias is the same command object, its help says so
                assert table[name][1].startswith("Same as"), name
                assert cmd is canonical, name
                continue
            assert cmd.get_short_help_str(limit=200) == table[name][1], name


def _alias_of(name: str, target: str) -> click.Command | None:
    """The command a TOP entry is an alias of (another table lists the same target)."""
    from mqtool.cli import LazyGroup

    for sub in (DECODE, BUILD, REASSEMBLE):
        for other, (t, _) in sub.items():
            if t == target and other != name:
                return LazyGroup(name="t", table=sub).get_command(click.Context(cli), other)
    return None


def _transcripts() -> list[tuple[str, int, object]]:
    found = []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for m in re.finditer(r"```console\n(.*?)```", readme, re.S):
        start = readme[:m.start()].count("\n") + 2
        found += [("README.md", s.line, s) for s in parse_transcript(m.group(1), start)]
    for p in sorted((MAN / "examples").glob("*.txt")):
        found += [(f"man/examples/{p.name}", s.line, s) for s in parse_transcript(p.read_text())]
    return found


@pytest.mark.parametrize(("where", "line", "step"), _transcripts(),
                         ids=lambda v: v if isinstance(v, str | int) else "")
def test_transcripts_show_real_output(in_root: None, where: str, line: int, step: object) -> None:
    _status, actual = run_step(step)  # type: ignore[arg-type]
    expected = step.expected  # type: ignore[attr-defined]
    assert matches(expected, actual), (
        f"{where}:{line}: $ {step.command}\n--- expected\n" + "\n".join(expected)  # type: ignore[attr-defined]
        + "\n--- actual\n" + "\n".join(actual))


def test_help_imports_no_heavy_modules() -> None:
    code = ("import sys; from mqtool.cli import run; run(['--help']); "
            "heavy = [m for m in ('numpy', 'pandas', 'pyspark', 'pyarrow', 'construct', 'rich') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "[]"
