"""``mqtool view``: the interactive explorer (Textual, the ``view`` extra)."""

from __future__ import annotations

import sys

import click

from mqtool.cli import INTERNAL_ERROR
from mqtool.cli._common import codepage_option, hex_option, port_option, window, window_options
from mqtool.errors import EnvError, ExitStatus

INSTALL = "view needs Textual: pip install 'mqtool[view]'"  # said after "mqtool: "


@click.command(short_help="Explore units interactively: unit list, field tree, linked hex.")
@click.argument("file", metavar="FILE", type=click.Path())
@hex_option
@click.option("--decode-as", "fmt", default="auto", show_default=True, metavar="FORMAT",
              help="Decode with this format's codec (urb, csq1logp, sas-attachment, redolog, "
                   "matqmsg, mq) instead of recognising the format.")
@click.option("--framing", type=click.Choice(["auto", "rdw", "bdw", "none"]), default="auto",
              show_default=True, help="CSQ1LOGP record framing.")
@codepage_option("Code page of CSQ1LOGP character fields.", "037")
@port_option
@window_options
def view(file: str, hex_text: bool, fmt: str, framing: str, codepage: str) -> int:
    """Explore FILE in the terminal: the list of its units (messages of a queue dump,
    records of a CSQ1LOGP extract, the units of a message), the field tree of the unit
    shown (dotted paths, values, meanings, problems marked) and its annotated hex (the
    colours of --annotate, the character column in the unit's code page).

    Selecting a field highlights its bytes; moving the hex cursor selects the innermost
    field covering the byte; choosing a problem jumps to its offset. Large extracts open
    at once: records are framed in the background and decoded only when shown.

    \b
    Keys:
      /      search a field path, value or meaning, or bytes as X'C1C2'
      g      go to an offset (592, 0x250, X'0250')
      n, p   next, previous unit
      e      export the selection (NAME.json: the subtree as JSON;
             any other name: its bytes as dump text)
      ?      help
      q      quit (exit status 0)

    Needs a terminal (exit status 1 in a pipeline) and the view extra: pip install
    'mqtool[view]' (exit status 4 without it).
    """
    try:
        import textual  # noqa: F401
    except ImportError:
        raise EnvError(INSTALL) from None
    from mqtool.view.app import ViewApp
    from mqtool.view.sources import open_source

    source = open_source(file, hex_text=hex_text, fmt=fmt, framing=framing, codepage=codepage,
                         window=window())
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        close = getattr(source, "close", None)
        if close is not None:
            close()
        raise click.UsageError("view is interactive: run it in a terminal (for a pipeline use "
                               "decode --json or decode --annotate)")
    app = ViewApp(source)
    try:
        result = app.run()
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
    if app.return_code:  # the app stopped on an exception Textual reported: a bug
        return INTERNAL_ERROR
    return int(result or ExitStatus.OK)
