"""``mqtool man [COMMAND]...``: the manual page of mqtool or of one of its commands, wherever
mqtool was installed from (``pip install -e .`` installs no man pages, so ``man mqtool``
may know none)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import click

from mqtool.cli._common import Env, get_env
from mqtool.errors import ExitStatus, InputError


@click.command(short_help="Show the manual page of mqtool or of a command.")
@click.argument("command", nargs=-1, metavar="[COMMAND]...")
@click.option("--roff", is_flag=True,
              help="Print the page's roff source (to install it: mqtool man decode urb --roff "
                   "> mqtool-decode-urb.1).")
def man(command: tuple[str, ...], roff: bool) -> int:
    """Show the manual page of mqtool (no COMMAND) or of a command (mqtool man decode
    urb; mqtool man decode-urb), the page 'man mqtool-decode-urb' shows where the man
    pages are installed.

    The page is the one a wheel install put in <prefix>/share/man/man1, else the one in
    the checkout an editable install runs from, else generated from the commands
    themselves. On a terminal it is shown by 'man -l' (its pager); elsewhere it is
    printed as text (laid out by man where it is installed, by mqtool otherwise).
    """
    from mqtool.cli.manpage import find_page

    env = get_env()
    name = _page_name(command)
    text, path = find_page(name)
    if roff:
        env.write(text)
        return ExitStatus.OK
    return _show(env, text, path)


def _page_name(command: tuple[str, ...]) -> str:
    """``("decode", "urb")`` or ``("decode-urb",)`` -> ``mqtool-decode-urb``; a name no page
    has is refused with the close ones."""
    import difflib

    from mqtool.cli.manpage import page_names

    words = [w for c in command for w in c.split()]
    if words[:1] == ["mqtool"]:
        words = words[1:]
    name = "-".join(["mqtool", *words])
    known = page_names()
    if name in known:
        return name
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {' or '.join(repr(' '.join(c.split('-')[1:]) or 'mqtool') for c in close)}?" \
        if close else "; mqtool man lists the commands"
    raise InputError(f"no manual page for {' '.join(words)!r}{hint}")


def _show(env: Env, text: str, path: Path | None) -> int:
    """``man -l`` on the page (its pager on a terminal, plain text in a pipe), or the
    page laid out by ``manpage.plain`` where there is no ``man``."""
    from mqtool.cli.manpage import plain

    man_cmd = shutil.which("man")
    if man_cmd is None:
        env.write(plain(text))
        env.stdout.flush()
        return ExitStatus.OK
    with tempfile.TemporaryDirectory(prefix="mqtool-man-") as tmp:
        page = str(path) if path is not None else os.path.join(tmp, "page.1")
        if path is None:
            Path(page).write_text(text, encoding="utf-8")
        if env.stdout_isatty:
            env.stdout.flush()
            return subprocess.run([man_cmd, "-l", page], check=False).returncode
        done = subprocess.run([man_cmd, "-l", page], capture_output=True, check=False,
                              env={**os.environ, "MANWIDTH": os.environ.get("MANWIDTH", "80")})
    if done.returncode:
        env.write(plain(text))  # a man that cannot lay out a file out of its manpath
    else:
        env.stdout.write(done.stdout)
    env.stdout.flush()
    return ExitStatus.OK
