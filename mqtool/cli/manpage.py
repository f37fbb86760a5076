"""Man pages generated from the click definitions, so they cannot drift from ``--help``.

``python -m mqtool.cli.manpage man/`` writes ``mqtool.1`` and one page per (sub)command
(``mqtool-decode-urb.1``). ``man/examples/<page>.txt`` transcripts (``$ mqtool ...`` lines
followed by their output, checked by the test suite) become the EXAMPLES section.

``mqtool man [COMMAND]`` finds a page where an install put it (``find_page``: a wheel's
``share/man/man1``, the checkout an editable install runs from) or generates it, and
shows it through ``man -l``, or as plain text (``plain``) where there is no ``man``.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import click

from mqtool import __version__

EXIT_STATUS = [
    ("0", "done (also when the reader of a stdout pipe closed it early)"),
    ("1", "usage error: bad options, bad request values, missing input file"),
    ("2", "input could not be fully decoded (the partial result was printed), or nothing to "
          "decode: empty input, a queue dump with no messages, input of another format"),
    ("3", "result incomplete: an attachment missing messages, segments missing"),
    ("4", "environment problem: Java missing for Spark, output not writable (missing "
          "directory, permission, a symlink planted in the output directory)"),
    ("70", "internal error (a bug); MQTOOL_DEBUG=1 shows the traceback"),
]


def esc(text: str) -> str:
    """Escape text for roff: backslashes, hyphens, and lines starting with . or '."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + ln if ln.startswith((".", "'")) else ln for ln in text.splitlines())


def _paragraphs(help_text: str) -> list[str]:
    """click help text -> roff paragraphs; ``\\b`` blocks stay preformatted."""
    out: list[str] = []
    for block in help_text.strip().split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].strip() == "\b":
            out.append(".PP\n.nf\n" + esc("\n".join(lines[1:])) + "\n.fi")
        else:
            out.append(".PP\n" + esc(" ".join(ln.strip() for ln in lines)))
    return out


Found = list[tuple[list[str], click.Command, click.Context]]


def _walk(cmd: click.Command, path: list[str], ctx: click.Context) -> Found:
    found = [(path, cmd, ctx)]
    if isinstance(cmd, click.Group):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or name == "reassemble-attachment":
                continue
            subctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
            found += _walk(sub, [*path, name], subctx)
    return found


def page_name(path: list[str]) -> str:
    return "-".join(["mqtool", *path])


def see_also(path: list[str], every: list[list[str]]) -> list[str]:
    """Pages a reader of ``path`` may want next: the main page lists every page; a
    command's page lists mqtool(1), its group's page, its subcommands and its siblings."""
    if not path:
        return [page_name(p) for p in every if p]
    related: list[list[str]] = [[]] + [path[:i] for i in range(1, len(path))]
    related += [p for p in every if p != path and (p[:-1] == path or p[:-1] == path[:-1])]
    seen: list[str] = []
    for p in related:
        if page_name(p) not in seen:
            seen.append(page_name(p))
    return seen


def render(path: list[str], cmd: click.Command, ctx: click.Context, examples: str | None,
           subcommands: list[tuple[str, str]], also: list[str] | None = None) -> str:
    name = page_name(path)
    title = " ".join(["mqtool", *path])
    short = (cmd.get_short_help_str(limit=200) if path
             else "forensic toolkit for mainframe and midrange messaging data")
    usage = " ".join(cmd.collect_usage_pieces(ctx))
    parts = [
        f'.TH {name.upper()} 1 "" "mqtool {__version__}" "mqtool manual"',
        ".SH NAME",
        f"{esc(name)} \\- {esc(short.rstrip('.'))}",
        ".SH SYNOPSIS",
        f".B {esc(title)}\n{esc(usage)}",
        ".SH DESCRIPTION",
        *_paragraphs(cmd.help or short),
    ]
    if subcommands:
        parts.append(".SH COMMANDS")
        for sub, text in subcommands:
            parts.append(f".TP\n.B {esc(sub)}\n{esc(text)}")
    opts = [p for p in cmd.get_params(ctx) if isinstance(p, click.Option)]
    if opts:
        parts.append(".SH OPTIONS")
        for p in opts:
            record = p.get_help_record(ctx)
            if record is None:
                continue
            names, text = record
            parts.append(f".TP\n.B {esc(names)}\n{esc(text)}")
    if examples:
        parts.append(".SH EXAMPLES\n.nf\n" + esc(examples.rstrip("\n")) + "\n.fi")
    parts.append(".SH EXIT STATUS")
    for code, text in EXIT_STATUS:
        parts.append(f".TP\n.B {code}\n{esc(text)}")
    refs = also if also is not None else [page_name([])]
    parts.append(".SH SEE ALSO\n" + ",\n".join(f".BR \\%{esc(r)} (1)" for r in refs))
    return "\n".join(parts) + "\n"


def pages(examples_dir: Path | None = None) -> dict[str, str]:
    """Page file name -> roff text, for the whole command tree."""
    from mqtool.cli import cli

    root = cli.make_context("mqtool", [], resilient_parsing=True)
    result = {}
    found = _walk(cli, [], root)
    every = [path for path, _, _ in found]
    for path, cmd, ctx in found:
        name = page_name(path)
        ex = None
        if examples_dir is not None and (examples_dir / f"{name}.txt").is_file():
            ex = (examples_dir / f"{name}.txt").read_text(encoding="utf-8")
        subs: list[tuple[str, str]] = []
        if isinstance(cmd, click.Group):
            for sub in cmd.list_commands(ctx):
                c = cmd.get_command(ctx, sub)
                if c is not None:
                    subs.append((sub, c.get_short_help_str(limit=200)))
        result[f"{name}.1"] = render(path, cmd, ctx, ex, subs, see_also(path, every))
    return result


def page_names() -> list[str]:
    """The name of every page (``mqtool``, ``mqtool-decode-urb``, ...)."""
    from mqtool.cli import cli

    return [page_name(path) for path, _, _ in _walk(cli, [], cli.make_context(
        "mqtool", [], resilient_parsing=True))]


def find_page(name: str) -> tuple[str, Path | None]:
    """The roff text of page ``name`` (``mqtool-decode-urb``) and the file it is in: the
    page a wheel install put in ``<prefix>/share/man/man1``, else the checkout's ``man/``
    (an editable install: ``pip install -e .`` installs no data files), else the page
    generated from the commands (file None; EXAMPLES from the checkout's transcripts when
    there are any). ``KeyError`` for a name no command has."""
    checkout = Path(__file__).resolve().parents[2] / "man"
    for where in (Path(sys.prefix) / "share" / "man" / "man1", checkout):
        f = where / f"{name}.1"
        if f.is_file():
            return f.read_text(encoding="utf-8"), f
    examples = checkout / "examples"
    return pages(examples if examples.is_dir() else None)[f"{name}.1"], None


def _unescape(text: str) -> str:
    r"""roff text as it reads: ``\-`` a hyphen, ``\e`` a backslash, ``\&`` and ``\%``
    nothing, ``name (1)`` of ``.BR`` as ``name(1)``."""
    text = re.sub(r" \((\d)\)", r"(\1)", text)
    return text.replace("\\-", "-").replace("\\&", "").replace("\\%", "").replace("\\e", "\\")


class _Plain:
    """``plain``'s layout: paragraphs wrapped and indented as man indents them."""

    BODY, TAGGED = 7, 14

    def __init__(self, width: int) -> None:
        self.width = width
        self.out: list[str] = []
        self.para: list[str] = []
        self.indent, self.want_tag, self.pre = self.BODY, False, False

    def flush(self) -> None:
        if self.para:
            pad = " " * self.indent
            self.out += textwrap.wrap(" ".join(self.para), self.width,
                                      initial_indent=pad, subsequent_indent=pad,
                                      break_on_hyphens=False)
            self.para = []

    def gap(self) -> None:
        if self.out and self.out[-1] and not self.out[-1][:1].isalpha():  # not after a heading
            self.out.append("")

    def line(self, line: str) -> None:
        request, _, rest = line.partition(" ") if line.startswith(".") else ("", "", line)
        if self.pre and request != ".fi":
            self.out.append(" " * self.BODY + _unescape(line))
        elif request == ".TH":
            title, middle = f"{rest.split()[0]}(1)", "mqtool manual"
            gap = max(self.width - 2 * len(title) - len(middle), 2)
            self.out += [title + " " * (gap // 2) + middle + " " * (gap - gap // 2) + title, ""]
        elif request == ".SH":
            self.flush()
            self.out += ["", _unescape(rest)] if len(self.out) > 2 else [_unescape(rest)]
            self.indent = self.BODY
        elif request in (".PP", ".TP", ".nf", ".fi"):
            self.flush()
            if request != ".fi":
                self.gap()
            self.indent = self.BODY if request == ".PP" else self.indent
            self.want_tag, self.pre = request == ".TP", request == ".nf"
        elif request == ".B" and self.want_tag:
            self.out.append(" " * self.BODY + _unescape(rest))
            self.indent, self.want_tag = self.TAGGED, False
        else:
            self.para.append(_unescape(rest if request in (".B", ".BR") else line))


def plain(roff: str, width: int = 78) -> str:
    """A page as plain text, for a machine without ``man``: the requests ``render``
    writes (.TH .SH .PP .TP .B .BR .nf .fi) laid out as man lays them out."""
    layout = _Plain(width)
    for line in roff.splitlines():
        layout.line(line)
    layout.flush()
    return "\n".join(ln.rstrip() for ln in layout.out).strip("\n") + "\n"


def write(outdir: Path) -> list[Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages(outdir / "examples").items():
        p = outdir / name
        p.write_text(text, encoding="utf-8")
        written.append(p)
    return written


if __name__ == "__main__":
    for p in write(Path(sys.argv[1] if len(sys.argv) > 1 else "man")):
        print(p)
