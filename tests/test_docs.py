"""Documentation stays true: man pages match the click definitions, every transcript in
README.md and man/examples is re-run, command tables match the commands' help."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from mqtool.cli import BUILD, CHANGES, DECODE, EXTRACT, REASSEMBLE, TOP, cli, run
from mqtool.cli.manpage import pages
from tests.helpers import ROOT, Step, matches, parse_transcript, run_step

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
    known = set(TOP) | set(DECODE) | set(BUILD) | set(REASSEMBLE) | set(EXTRACT) | set(CHANGES)
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
def test_command_tables_match_the_commands_short_help(table: dict[str, Any]) -> None:
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


# --------------------------------------------------------------------------- transcripts

# Pages written by hand: the README, CONTRIBUTING.md and every page under docs/ except the
# generated ones (`mqtool layouts --markdown` / `--ksy` write docs/formats and docs/ksy).
GENERATED = ("docs/formats/", "docs/ksy/")
SPARK_MARK = "<!-- spark -->"  # on the line before a ```console block that needs Spark and Java
STATUS = "; echo $?"  # a command ending so prints its exit status as the last line


def doc_pages() -> list[Path]:
    """Every hand-written Markdown page, README first."""
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    pages += sorted(p for p in (ROOT / "docs").rglob("*.md")
                    if not p.relative_to(ROOT).as_posix().startswith(GENERATED))
    return [p for p in pages if p.exists()]


def _blocks(text: str) -> list[tuple[int, str, bool]]:
    """The ```console blocks of a page: first line number, body, whether Spark is needed."""
    found = []
    for m in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((text[:m.start()].count("\n") + 2, m.group(1), before.strip() == SPARK_MARK))
    return found


def _transcripts() -> list[Any]:
    found: list[Any] = []
    for page in doc_pages():
        where = page.relative_to(ROOT).as_posix()
        for start, body, spark in _blocks(page.read_text(encoding="utf-8")):
            marks = [pytest.mark.spark] if spark else []
            found += [pytest.param(where, s.line, s, spark, marks=marks, id=f"{where}:{s.line}")
                      for s in parse_transcript(body, start)]
    return found


def _man_examples() -> list[tuple[str, int, Step]]:
    found: list[tuple[str, int, Step]] = []
    for p in sorted((MAN / "examples").glob("*.txt")):
        found += [(f"man/examples/{p.name}", s.line, s) for s in parse_transcript(p.read_text())]
    return found


def as_a_terminal_shows(command: str) -> list[str]:
    """Run a pipeline of mqtool commands (``a | b``, optionally ending in ``; echo $?``)
    in-process and return what a terminal shows: every stage's stderr, the last stage's
    stdout, interleaved as written (both streams line-buffered, as on a terminal)."""
    echo_status = command.endswith(STATUS)
    command = command.removesuffix(STATUS)
    data: bytes | None = None
    shown: list[str] = []
    status = 0
    parts = command.split(" | ")
    for i, part in enumerate(parts):
        argv = shlex.split(part)
        assert argv[0] == "mqtool", f"transcripts run mqtool only: {command}"
        with CliRunner().isolation(input=data) as (out, err, mixed):
            sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
            sys.stderr.reconfigure(line_buffering=True)  # type: ignore[union-attr]
            status = run(argv[1:])
            sys.stdout.flush()
            sys.stderr.flush()
            data = out.getvalue()
            last = i == len(parts) - 1
            shown += (mixed if last else err).getvalue().decode("utf-8", "replace").splitlines()
    return shown + ([str(status)] if echo_status else [])


def in_a_shell(command: str) -> list[str]:
    """Run the command line with bash in a process of its own (Spark blocks: the JVM they
    start and stop must not be the test session's), stdout and stderr unbuffered into one
    pipe as a terminal shows them."""
    import os

    for part in command.removesuffix(STATUS).split(" | "):
        assert shlex.split(part)[0] == "mqtool", f"transcripts run mqtool only: {command}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=900)
    return done.stdout.splitlines()


# the flag is not called ``spark``: a parameter of that name would read as the Spark fixture
# (tests/conftest.py marks every test using it ``spark``) and leave the fast loop every block
@pytest.mark.parametrize(("where", "line", "step", "in_shell"), _transcripts())
def test_console_blocks_show_what_a_terminal_shows(in_root: None, where: str, line: int,
                                                   step: Step, in_shell: bool) -> None:
    actual = in_a_shell(step.command) if in_shell else as_a_terminal_shows(step.command)
    assert matches(step.expected, actual), (
        f"{where}:{line}: $ {step.command}\n--- expected\n" + "\n".join(step.expected)
        + "\n--- actual\n" + "\n".join(actual))


@pytest.mark.parametrize(("where", "line", "step"), _man_examples(),
                         ids=lambda v: v if isinstance(v, str | int) else "")
def test_man_examples_show_real_output(in_root: None, where: str, line: int, step: Step) -> None:
    _status, actual = run_step(step)
    assert matches(step.expected, actual), (
        f"{where}:{line}: $ {step.command}\n--- expected\n" + "\n".join(step.expected)
        + "\n--- actual\n" + "\n".join(actual))


def test_every_console_block_runs_a_command() -> None:
    """A console block in README.md or docs/ without a ``$ mqtool`` line would be shown and
    never checked."""
    pages = doc_pages()
    assert any(p.parent.name == "docs" for p in pages), "docs/*.md are read"
    for page in pages:
        text = page.read_text(encoding="utf-8")
        blocks = _blocks(text)
        assert len(blocks) == len(re.findall(r"^```console$", text, re.M)), page
        for start, body, _spark in blocks:
            assert parse_transcript(body, start), f"{page.name}:{start}: a console block with no $ line"


def test_help_imports_no_heavy_modules() -> None:
    code = ("import sys; from mqtool.cli import run; run(['--help']); "
            "heavy = [m for m in ('numpy', 'pandas', 'pyspark', 'pyarrow', 'construct', 'rich') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "[]"


# --------------------------------------------------------------------------- README stands alone


README = ROOT / "README.md"


def _outside_fences(text: str) -> list[tuple[int, str]]:
    lines, fenced = [], False
    for i, ln in enumerate(text.splitlines()):
        if ln.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((i, ln))
    return lines


PAGES = doc_pages()
PAGE_IDS = [p.relative_to(ROOT).as_posix() for p in PAGES]


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_tables_render(page: Path) -> None:
    """Every table line of a page is a row of a rendered table (a row after a paragraph
    would print as text with literal pipes)."""
    from markdown_it import MarkdownIt

    text = page.read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    in_table: set[int] = set()
    for t in tokens:
        if t.type == "table_open" and t.map:
            in_table.update(range(*t.map))
    pipes = [i for i, ln in _outside_fences(text) if ln.startswith("|")]
    stray = [i + 1 for i in pipes if i not in in_table]
    assert not stray, f"{page.name} lines {stray} are not part of a table"


SOURCES = sorted((ROOT / "testdata").glob("*/SOURCES.md"))


@pytest.mark.parametrize("page", PAGES + SOURCES,
                         ids=PAGE_IDS + [p.relative_to(ROOT).as_posix() for p in SOURCES])
def test_pages_refer_to_nothing_outside_the_repository(page: Path) -> None:
    """No page cites documents the repository does not hold (the vectors' provenance cites
    the original documents); every relative link (from the page's own folder) names a file
    or folder that exists, and so does every repository path a provenance note names."""
    text = page.read_text(encoding="utf-8")
    machine = "/" + "work" + "/"  # a development machine's checkout path (spelt apart here)
    for word in ("specs/", "seeds/", "seed 0", "spec section", "spec §", "(seed", machine):
        assert word not in text, word
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not target.startswith(("http://", "https://", "#")):
            assert (page.parent / target.split("#")[0]).exists(), f"{page.name} links to missing {target}"
    if page.name == "SOURCES.md":
        for path in re.findall(r"`((?:mqtool|tests|testdata|bench)/[^`*{ ]+)`", text):
            assert (ROOT / path).exists(), f"{page.relative_to(ROOT)} names missing {path}"


def test_the_readme_is_read_in_ten_minutes() -> None:
    """At most 250 lines, and it leads to the contributors' pages."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert "(CONTRIBUTING.md)" in text and "(ARCHITECTURE.md)" in text


def test_every_page_is_reachable_from_the_readme() -> None:
    """Following links from the README (through CONTRIBUTING.md and the pages of docs/)
    reaches every hand-written page."""
    seen, todo = set(), [README.resolve()]
    while todo:
        page = todo.pop()
        if page in seen or page.suffix != ".md" or not page.is_file():
            continue
        seen.add(page)
        for target in re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8")):
            if not target.startswith(("http://", "https://")):
                todo.append((page.parent / target).resolve())
    missing = sorted(p.relative_to(ROOT).as_posix() for p in PAGES if p.resolve() not in seen)
    assert not missing, f"no link leads from README.md to {missing}"


def test_readme_first_command_installs_the_core_and_the_test_command_everything() -> None:
    text = README.read_text(encoding="utf-8")
    main = text.split("<!-- main-command -->\n```sh\n", 1)[1].split("\n", 1)[0]
    test = text.split("<!-- test-command -->\n```sh\n", 1)[1].split("\n", 1)[0]
    assert "pip install -e . &&" in main and "[" not in main.split("mqtool decode")[0]
    assert "pip install -e '.[all]'" in test and "python -m pytest" in test
    # lint and types before the tests (issue 19: ruff and mypy --strict clean, run by CI)
    assert test.index("ruff check mqtool tests bench") < test.index("mypy &&") < test.index(
        "python -m pytest")


def test_readme_gives_completion_for_bash_zsh_and_fish() -> None:
    text = README.read_text(encoding="utf-8")
    for shell in ("bash", "zsh", "fish"):
        assert f"_MQTOOL_COMPLETE={shell}_source mqtool" in text, shell


# --------------------------------------------------------------------------- man pages


def test_see_also_is_complete_on_every_page() -> None:
    """The main page names every page; a command's page names mqtool(1), its group's page,
    its subcommands and its siblings; every name is a page that exists."""
    generated = pages(MAN / "examples")
    names = {n.removesuffix(".1") for n in generated}
    refs = {}
    for file, text in generated.items():
        section = text.split(".SH SEE ALSO\n", 1)[1]
        refs[file.removesuffix(".1")] = re.findall(r"^\.BR \\%(\S+) \(1\)", section, re.M)
    for page, found in refs.items():
        found = [r.replace("\\-", "-") for r in found]
        assert set(found) <= names and page not in found, page
        if page == "mqtool":
            assert sorted(found) == sorted(names - {"mqtool"})
        else:
            assert found[0] == "mqtool", page
    assert "mqtool-decode" in [r.replace("\\-", "-") for r in refs["mqtool-decode-urb"]]
    assert "mqtool-decode-csq1logp" in [r.replace("\\-", "-") for r in refs["mqtool-decode-urb"]]
    assert "mqtool-decode-urb" in [r.replace("\\-", "-") for r in refs["mqtool-decode"]]


def test_wheel_installs_the_man_pages(tmp_path: Path) -> None:
    """``pip wheel`` of a copy of the project holds every page under share/man/man1, so
    ``man mqtool`` works in the virtual environment it is installed into."""
    import shutil
    import zipfile

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "mqtool", src / "mqtool",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "man", src / "man")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                           str(tmp_path / "dist"), str(src)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "dist").glob("mqtool-*.whl")
    listed = zipfile.ZipFile(wheel).namelist()
    in_wheel = sorted(n.rsplit("/", 1)[1] for n in listed if "/data/share/man/man1/" in n)
    assert in_wheel == sorted(p.name for p in MAN.glob("*.1"))
    assert "mqtool.1" in in_wheel and "mqtool-extract.1" in in_wheel
