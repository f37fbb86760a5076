"""The one output-safety rule: text that came from the input never reaches a terminal as
markup or as control sequences.

Every character that is not printable (Python's ``str.isprintable``: the Unicode
categories Cc, Cf, Cs, Co, Cn, Zl, Zp and the spaces other than U+0020) is shown the way
Python's ``repr`` shows it: ``\\t``, ``\\n``, ``\\r``, ``\\xNN`` below U+0100 (C0 and C1
controls, ESC, DEL, NUL), ``\\uNNNN`` (bidi overrides and isolates U+202A-U+202E,
U+2066-U+2069, zero-width and other format characters, line and paragraph separators),
``\\UNNNNNNNN`` beyond the BMP (tag characters). So an ANSI colour (CSI), an OSC 8
hyperlink, an OSC 0/2 window title, a bidi override that makes ``txt.exe`` read as
``exe.txt`` and a NUL all print as visible text (the Unicode Standard, chapter 23
"Special Areas and Format Characters"; ECMA-48 for C0, C1 and the control sequences).

Rich is only ever given ``rich.text.Text`` objects made here (``text``) or a console made
here (``console``: markup, emoji codes and highlighting off), so ``[red]``, ``[/b]``,
``[link=...]`` or ``:smile:`` in a name is printed as it is written. JSON keeps its own
escapes (``json_text``: the same characters as ``\\uNNNN``, still valid JSON).
"""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _spell(ch: str) -> str:
    """How one non-printable character is shown (as ``repr`` shows it)."""
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape(text: str) -> str:
    """``text`` with every character that is not printable shown as ``\\xNN`` /
    ``\\uNNNN`` / ``\\t`` ...: one line, nothing a terminal acts on."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _spell(ch) for ch in text)


def escape_lines(text: str) -> str:
    """``escape`` for each line of a block of lines; the line ends stay line ends."""
    if text.isprintable():
        return text
    return "\n".join(escape(line) for line in text.split("\n"))


def error_lines(message: str, prog: str = "mqtool") -> str:
    """A message for stderr: ``prog: FIRST LINE``, then any further lines of it as they are
    (a list under its heading), each escaped; ends with a line end."""
    first, *more = message.split("\n")
    return "".join([f"{prog}: {escape(first)}\n", *(escape(line) + "\n" for line in more)])


def text(value: object, style: str | None = None) -> Text:
    """A ``rich.text.Text`` of ``value`` (never read as markup), escaped."""
    from rich.text import Text

    return Text(escape(str(value)), style=style or "")


def console(file: IO[str], *, color: bool | None = None, width: int | None = None,
            soft_wrap: bool = False) -> Console:
    """A Rich console that never interprets markup, emoji codes or highlighting in what it
    prints (``color``: None lets Rich decide from the file, True forces it, False never)."""
    from rich.console import Console

    return Console(file=file, markup=False, emoji=False, highlight=False,
                   force_terminal=color, no_color=color is False,
                   width=width, soft_wrap=soft_wrap)


# --------------------------------------------------------------------------- JSON


def _json_spell(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_JSON_LAYOUT = frozenset(" \n\t\r")  # structure json.dumps may write raw (indent); inside a
# string it escapes them itself


def json_safe(encoded: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every character that is not
    printable inside its strings written ``\\uNNNN``: the same data, nothing a terminal acts
    on."""
    if encoded.isprintable():
        return encoded
    return "".join(ch if ch.isprintable() or ch in _JSON_LAYOUT else _json_spell(ch)
                   for ch in encoded)


def json_text(obj: Any, *, indent: int | None = None) -> str:
    """``obj`` as JSON (UTF-8 text, compact unless ``indent``), safe for a terminal."""
    separators = None if indent else (",", ":")
    return json_safe(json.dumps(obj, ensure_ascii=False, indent=indent, separators=separators))


def json_bytes_safe(encoded: bytes) -> bytes:
    """``json_safe`` for UTF-8 JSON bytes (orjson's output); plain ASCII passes untouched."""
    if encoded.isascii() and b"\x7f" not in encoded:
        return encoded
    text_ = encoded.decode("utf-8", "surrogatepass")
    if text_.isprintable():
        return encoded
    return json_safe(text_).encode("utf-8")
