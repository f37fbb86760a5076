"""What every subcommand shares: the environment, common options, output and exit statuses.

A command parses its options, calls one library function, hands the result to
``emit_units`` (decoders) or writes it, and returns an ``ExitStatus``.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import IO, Any

import click

from mqtool.errors import (
    DecodeError,
    EmptyInputError,
    ExitStatus,
    InputError,
    NoMessagesError,
    WrongFormatError,
)
from mqtool.model import Decoded


@dataclass
class Env:
    """The process environment a command runs in; tests build their own."""

    stdout: IO[bytes] = field(default_factory=lambda: sys.stdout.buffer)
    stderr: IO[str] = field(default_factory=lambda: sys.stderr)
    color_mode: str = "auto"

    @property
    def stdout_isatty(self) -> bool:
        return _isatty(self.stdout)

    @property
    def stderr_isatty(self) -> bool:
        return _isatty(self.stderr)

    @property
    def color(self) -> bool:
        """Colour only on a terminal, unless asked; ``NO_COLOR`` honoured for ``auto``."""
        if self.color_mode == "always":
            return True
        if self.color_mode == "never" or os.environ.get("NO_COLOR"):
            return False
        return self.stdout_isatty

    def write(self, text: str) -> None:
        self.stdout.write(text.encode("utf-8"))

    def line(self, text: str = "") -> None:
        self.write(text + "\n")

    def console(self):  # type: ignore[no-untyped-def]
        """A rich console on stdout that colours only when ``color`` says so."""
        from rich.console import Console

        class _Console(Console):
            def on_broken_pipe(self) -> None:  # rich exits 1 here; mqtool ends quietly (run)
                raise BrokenPipeError(32, "Broken pipe")

        return _Console(file=_TextOut(self.stdout), force_terminal=self.color,
                       no_color=not self.color, highlight=False, soft_wrap=True,
                       width=400 if not self.stdout_isatty else None)

    def error(self, message: str) -> None:
        self.stderr.write(f"mqtool: {message}\n")
        self.stderr.flush()

    def refuse_binary_to_terminal(self) -> None:
        refuse_binary_to_terminal(self)


class _TextOut:
    """Text view of a binary stream that never closes it (rich writes str)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return _isatty(self.raw)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def refuse_binary_to_terminal(env: Env) -> None:
    """The one rule for binary output: never to a terminal. One line, exit status 1, saying
    how to get it (``--dump`` named only where the running command has it)."""
    if not env.stdout_isatty:
        return
    ctx = click.get_current_context(silent=True)
    has_dump = ctx is not None and any("--dump" in getattr(p, "opts", ()) for p in ctx.command.params)
    how = "use -o FILE, a pipe, or --dump for a hex dump" if has_dump else "use -o FILE or a pipe"
    raise InputError(f"refusing to write binary data to a terminal: {how}")


def refuse_directory(file: str) -> None:
    """The one rule for directories given to a command that does not read queue dumps:
    ``FILE: is a directory`` (exit status 1), as ``io.inputs`` says it for every input."""
    if file != "-" and Path(file).is_dir():
        raise InputError(f"{file}: is a directory")


class DumpProblemsError(DecodeError):
    """Some files or messages of a queue dump could not be read (each said on stderr first);
    the rest was decoded: exit status 2."""

    def __init__(self, source: str, count: int) -> None:
        super().__init__("queue-dump", "", 0, f"{source}: {count} file(s) or message(s) of this "
                                             "dump could not be read (listed above)")

    def describe(self) -> str:
        return f"{self.format}: {self.reason}"


def report_dump(env: Env, dump: Any, source: str) -> int:
    """After reading a queue dump: each unreadable file or message on stderr (one line, the
    first 50); returns how many. No message at all is ``NoMessagesError`` (exit 2)."""
    bad = list(dump.errors)
    for p in bad[:50]:
        env.error(f"{p.path}: {p.reason}")
    if len(bad) > 50:
        env.error(f"{source}: ... and {len(bad) - 50} more problems")
    if dump.count == 0:
        raise NoMessagesError(source, dump.format)
    return len(bad)


def get_env() -> Env:
    ctx = click.get_current_context()
    env = ctx.find_object(Env)
    return env if env is not None else Env()


# --------------------------------------------------------------------------- options


def input_argument(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.argument("file", default="-", metavar="[FILE|-]", type=click.Path(allow_dash=True))(f)


def hex_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--hex", "hex_text", is_flag=True,
                        help="Input is hex dump text (document style, xxd, hexdump -C), "
                             "not binary.")(f)


def json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "json_out", is_flag=True,
                        help="JSON lines: one object per decoded unit.")(f)


def raw_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--raw", is_flag=True,
                        help="With --json: add <field>_hex with the raw bytes of character fields.")(f)


def annotate_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--annotate", is_flag=True,
                        help="Hex dump with each field's bytes coloured and labelled.")(f)


def _tz(ctx: click.Context, param: click.Parameter, value: str | None) -> tzinfo | None:
    if value in (None, "", "UTC", "utc", "Z"):
        return None
    if value.lower() == "local":
        return _local_zone()
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise click.BadParameter(f"unknown time zone {value!r} (e.g. UTC, local, Europe/Berlin)") from None


def _local_zone() -> tzinfo | None:
    """The machine's zone with its rules (summer time of the date shown, not of today's):
    ``TZ``, else ``/etc/localtime``, else today's offset."""
    from datetime import datetime
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    name = os.environ.get("TZ", "").lstrip(":")
    try:
        if name:
            return ZoneInfo(name)
        with open("/etc/localtime", "rb") as f:
            return ZoneInfo.from_file(f, key="localtime")
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return datetime.now().astimezone().tzinfo


def tz_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--tz", "tz", default=None, metavar="ZONE", callback=_tz,
                        help="Time zone for timestamps in listings: a zone name, or local for the "
                             "machine's (default UTC; JSON is always UTC).")(f)


def color_option(f: Callable[..., Any]) -> Callable[..., Any]:
    def set_color(ctx: click.Context, param: click.Parameter, value: str) -> str:
        env = ctx.ensure_object(Env)
        env.color_mode = value
        return value

    return click.option("--color", type=click.Choice(["auto", "always", "never"]),
                        default="auto", show_default=True, expose_value=False,
                        callback=set_color, is_eager=True,
                        help="Colour output (only on a terminal with auto; NO_COLOR honoured).")(f)


class CodepageParam(click.ParamType):
    """``--codepage``: a single-byte EBCDIC or ASCII-family page, resolved to its codec
    name; anything else (utf-8, hex, rot13) is a usage error listing the pages mqtool reads."""

    name = "codepage"

    def __init__(self, *extra: str) -> None:
        self.extra = tuple(e.lower() for e in extra)  # values a command gives its own meaning

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from mqtool.codepages import single_byte_codec

        if str(value).lower() in self.extra:
            return str(value).lower()
        try:
            return single_byte_codec(str(value))
        except LookupError as e:
            self.fail(str(e), param, ctx)


CODEPAGE = CodepageParam()


def decoder_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options every ``decode`` subcommand has, in one place."""
    for opt in (color_option, tz_option, annotate_option, raw_option, json_option, hex_option,
                input_argument):
        f = opt(f)
    return f


def command_format() -> str:
    """The format the running command works on (``decode urb`` -> ``urb``), for messages."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or ctx.info_name is None:
        return "input"
    return ctx.info_name if ctx.parent is not None and ctx.parent.parent is not None else "input"


def read_unit_input(file: str, hex_text: bool, data: bytes | None = None) -> bytes:
    """The bytes to decode: binary, or the bytes of dump text with ``--hex``.

    Binary input that is really dump text gets a hint instead of a confusing decode error.
    ``data`` is stdin already read (by ``read_sources``).
    """
    from mqtool.io.inputs import read_input

    if data is None:
        if file == "-" and _isatty(sys.stdin):
            raise InputError("no input: give a FILE or pipe data into stdin")
        data = read_input(file, hex_text)
    elif hex_text:
        from mqtool.io.undump import undump

        data = undump(data.decode("utf-8", "replace"))
    if not data:
        raise EmptyInputError(command_format(), file)
    if not hex_text and _is_dump_text(data):
        raise InputError(f"{file}: this is hex dump text; add --hex to read it as a dump")
    return data


def refuse_other_format(fmt: str, data: bytes, source: str, hint: str = "") -> None:
    """Raise ``WrongFormatError`` (exit 2) when ``fmt``'s own detector does not recognise
    ``data``, saying what ``identify`` thinks it is. For a decoder's automatic mode: an
    explicit choice (``--part``) decodes whatever it is given."""
    from mqtool import registry

    detect = getattr(registry.codec(fmt), "detect", None)
    mine = detect(data) if detect is not None else None
    if mine is not None and mine.confidence > 0:
        return
    others = [d for d in registry.identify(data) if d.format != fmt and d.confidence > 0]
    who = (f"{others[0].format} ({others[0].confidence:.2f}) {others[0].reason}" if others
           else "unknown (no codec recognises these bytes)")
    raise WrongFormatError(fmt, 0, f"{source}: these {len(data)} bytes are not {fmt}{hint}", who)


@dataclass
class Source:
    """One unit of input to decode: the whole input, or one message of a queue dump."""

    data: bytes
    message: Any = None  # io.queue_dump.Message when the input is a queue dump


def open_queue_dump(file: str, input_format: str | None = None) -> tuple[Any, bytes | None]:
    """``(QueueDump, None)`` when FILE (or stdin) is a queue dump — dmpmqmsg, amqsbcg,
    MQMD-prefixed binary, a directory of them —, else ``(None, stdin bytes if read)``."""
    from mqtool.formats.mq.dumps.read import QueueDump, sniff

    if input_format not in (None, "auto"):
        return QueueDump(file, input_format), None
    if file == "-":
        if _isatty(sys.stdin):
            raise InputError("no input: give a FILE or pipe data into stdin")
        data = sys.stdin.buffer.read()
        kind = sniff(data)
        return (QueueDump("-", kind, stream=io.BytesIO(data)), None) if kind else (None, data)
    p = Path(file)
    if p.is_dir():
        return QueueDump(file), None
    from mqtool.io.inputs import open_regular

    with open_regular(p) as f:  # missing, FIFO, device: refused here
        kind = sniff(f.read(65536))
    return (QueueDump(file, kind), None) if kind else (None, None)


def read_sources(file: str, hex_text: bool) -> Iterator[Source]:
    """The input as decoders see it: each message body of a queue dump, or one blob."""
    if not hex_text:
        dump, data = open_queue_dump(file)
        if dump is not None:
            for msg in dump:
                yield Source(msg.body, msg)
            bad = report_dump(get_env(), dump, file)
            if bad:
                raise DumpProblemsError(file, bad)
            return
        yield Source(read_unit_input(file, hex_text, data))
        return
    yield Source(read_unit_input(file, hex_text))


def _is_dump_text(data: bytes) -> bool:
    from mqtool.io.undump import looks_like_dump

    try:
        text = data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return False
    if any(ord(c) < 0x20 and c not in "\t\r\n" for c in text):
        return False
    return looks_like_dump(text)


# --------------------------------------------------------------------------- output


def emit_units(env: Env, units: Iterable[tuple[Decoded, bytes]], *, json_out: bool = False,
               raw: bool = False, annotate: bool = False, tz: tzinfo | None = None,
               strict_problems: bool = False) -> ExitStatus:
    """Print decoded units (listing, annotated hex, or JSON lines), then their errors.

    ``units`` yields each unit with its own bytes. Returns DECODE when any unit has errors
    (its partial output was printed first), or when ``strict_problems`` and any problem.
    """
    from mqtool.render.listing import unit_lines

    status = ExitStatus.OK
    console = env.console() if annotate and not json_out else None
    first = True
    for unit, data in units:
        if json_out:
            env.line(json.dumps(unit.to_json(raw), ensure_ascii=False, separators=(",", ":")))
        else:
            if not first:
                env.line()
            if console is not None:
                from mqtool.render.annotate import annotate_unit

                if unit.title:
                    console.print(unit.title)
                for text in annotate_unit(unit, data):
                    console.print(text)
                for p in unit.problems:
                    console.print(f"problem: {p.describe()}")
            else:
                for text in unit_lines(unit, tz):
                    env.line(text)
        first = False
        where = (f"message {unit.attrs['message']} ({unit.attrs.get('source', '')}): "
                 if "message" in unit.attrs else "")
        for p in unit.errors:
            env.error(f"{unit.format}: {where}{p.describe()}")
        if unit.errors or (strict_problems and unit.problems):
            status = ExitStatus.DECODE
    env.stdout.flush()
    return status


def build_output_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``-o/--output``, ``--dump`` and ``--force``: where a builder writes, the same in every
    builder."""
    for opt in (click.option("--force", is_flag=True, help="Overwrite an existing output file."),
                click.option("--dump", "as_dump", is_flag=True,
                             help="Print a hex dump of what was built instead of the bytes."),
                click.option("-o", "--output", metavar="FILE", type=click.Path(),
                             help="Write what was built to FILE (default: stdout, never a "
                                  "terminal).")):
        f = opt(f)
    return f


def write_built(env: Env, data: bytes | list[tuple[bytes, str]], output: str | None,
                force: bool, as_dump: bool, codepage: str = "cp037") -> int:
    """What a builder built: its bytes to ``-o FILE`` or a pipe, or (``as_dump``) their hex
    dump as text; ``data`` may be several pieces, each dumped in its own code page."""
    pieces = [(data, codepage)] if isinstance(data, bytes) else data
    if not as_dump:
        write_binary(env, b"".join(b for b, _ in pieces), output, force)
        return ExitStatus.OK
    from mqtool.render.hexdump import dump_bytes

    text = "\n".join(dump_bytes(b, codepage=cp) for b, cp in pieces)
    if output and output != "-":
        from mqtool.io.outputs import write_file

        write_file(output, text.encode("utf-8"), force)
    else:
        env.write(text)
        env.stdout.flush()
    return ExitStatus.OK


def write_binary(env: Env, data: bytes, output: str | None, force: bool = False) -> None:
    """Binary result to ``-o FILE`` or stdout (never a terminal)."""
    from mqtool.io.outputs import write_file

    if output and output != "-":
        write_file(output, data, force)
        return
    env.refuse_binary_to_terminal()
    env.stdout.write(data)
    env.stdout.flush()
