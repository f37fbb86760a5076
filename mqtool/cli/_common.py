"""What every subcommand shares: the environment, common options, output and exit statuses.

A command parses its options, calls one library function, hands the result to
``emit_units`` (decoders) or writes it, and returns an ``ExitStatus``.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import IO, TYPE_CHECKING, Any

import click

from mqtool.errors import ExitStatus, InputError
from mqtool.model import Decoded, shift_unit

if TYPE_CHECKING:
    from rich.console import Console

    from mqtool.api import Selection
    from mqtool.io.inputs import Source
    from mqtool.io.window import WindowRequest


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
        """Lines of text on stdout, each escaped (``render.terminal``)."""
        from mqtool.render.terminal import escape_lines

        self.stdout.write(escape_lines(text).encode("utf-8"))

    def line(self, text: str = "") -> None:
        self.write(text + "\n")

    def cells_line(self, text: str) -> None:
        """A ``--fields`` line on stdout: its cells escaped already (``query.cell``), the
        tabs between them kept."""
        self.stdout.write((text + "\n").encode("utf-8"))

    def json_line(self, obj: Any) -> None:
        """One JSON line on stdout (``render.terminal.json_text``)."""
        from mqtool.render.terminal import json_text

        self.stdout.write(json_text(obj).encode("utf-8") + b"\n")

    def console(self) -> Console:
        """A rich console on stdout that colours only when ``color`` says so and never reads
        markup (``render.terminal.console``)."""
        from mqtool.render.terminal import console

        c = console(_TextOut(self.stdout), color=self.color, soft_wrap=True,  # type: ignore[arg-type]
                    width=400 if not self.stdout_isatty else None)

        def on_broken_pipe() -> None:  # rich exits 1 here; mqtool ends quietly (run)
            raise BrokenPipeError(32, "Broken pipe")

        c.on_broken_pipe = on_broken_pipe  # type: ignore[method-assign]
        return c

    def console_err(self) -> Console:
        """A rich console on stderr (summaries and progress bars for a person watching)."""
        from mqtool.render.terminal import console

        return console(self.stderr)

    def error(self, message: str) -> None:
        """``mqtool: MESSAGE`` on stderr, escaped (``render.terminal.error_lines``)."""
        from mqtool.render.terminal import error_lines

        self.stderr.write(error_lines(message))
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


def command_line() -> list[str]:
    """The command line of this run, as typed: ``mqtool`` and its arguments (for custody
    records)."""
    from mqtool.cli import ARGV

    return ["mqtool", *ARGV]


def get_env() -> Env:
    ctx = click.get_current_context()
    env = ctx.find_object(Env)
    return env if env is not None else Env()


# --------------------------------------------------------------------------- options


def input_argument(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.argument("file", default="-", metavar="[FILE|-]", type=click.Path(allow_dash=True))(f)


def hex_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--hex", "hex_text", is_flag=True,
                        help="Input is hex dump text (document style, xxd, hexdump -C), not "
                             "binary; dump text is recognised without it, --hex forces it.")(f)


def json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "json_out", is_flag=True,
                        help="JSON lines: one object per decoded unit.")(f)


def raw_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--raw", is_flag=True,
                        help="With --json: add <field>_hex with the raw bytes of character fields.")(f)


def annotate_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--annotate", is_flag=True,
                        help="Hex dump with each field's bytes coloured and labelled (not with "
                             "--json).")(f)


def strict_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--strict", is_flag=True,
                        help="Problems count as errors: each is said on stderr, and the exit "
                             "status is 2.")(f)


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


def port_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--port N`` (repeatable) of every command that reads queue dumps: the TCP ports of
    IBM MQ traffic in the pcap / pcapng captures it reads (``api.mq_ports``, held while the
    command runs)."""

    def enter(ctx: click.Context, param: click.Parameter, value: tuple[int, ...]) -> None:
        if value:
            from mqtool import api

            ctx.with_resource(api.mq_ports(value))

    return click.option("--port", "ports", type=click.IntRange(1, 65535), multiple=True,
                        metavar="PORT", expose_value=False, callback=enter,
                        help="In pcap / pcapng captures: IBM MQ traffic is on this TCP port "
                             "(repeatable; default 1414). Connections on other ports are read "
                             "too when their data starts with a TSH.")(f)


class CodepageParam(click.ParamType):  # type: ignore[type-arg]
    """``--codepage``: a single-byte EBCDIC or ASCII-family page, resolved to its codec
    name; anything else (utf-8, hex, rot13) is a usage error listing the pages mqtool reads.
    ``extra``: words a command gives a meaning of its own (``binary``); ``ebcdic``: the
    format is EBCDIC only."""

    name = "codepage"

    def __init__(self, *extra: str, ebcdic: bool = False) -> None:
        self.extra = tuple(e.lower() for e in extra)
        self.ebcdic = ebcdic

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from mqtool.codepages import is_ebcdic, single_byte_codec

        if str(value).lower() in self.extra:
            return str(value).lower()
        try:
            codec = single_byte_codec(str(value))
        except LookupError as e:
            self.fail(str(e).strip("'\""), param, ctx)
        if self.ebcdic and not is_ebcdic(codec):
            self.fail(f"{value!r} is not an EBCDIC code page (the format writes EBCDIC)", param,
                      ctx)
        return codec


class CorrelIdParam(click.ParamType):  # type: ignore[type-arg]
    """``--correlid HEX``: an MQMD CorrelId in hex, up to its 24 bytes (48 digits; ``X'..'``
    as the documents write it); what a command does with it (a prefix to match, the G to
    build) is its own rule."""

    name = "correlid"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        import re

        text = str(value).strip()
        if text.upper().startswith("X'") and text.endswith("'"):
            text = text[2:-1]
        if not re.fullmatch(r"[0-9A-Fa-f]{1,48}", text):
            self.fail(f"{value!r} is not a CorrelId in hex (up to 48 digits)", param, ctx)
        return text


CORRELID = CorrelIdParam()


def codepage_option(help_text: str, default: str | None = None, *extra: str,
                    ebcdic: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--codepage CP`` of every command: one type, one rule (``CodepageParam``); the
    default is 037 where nothing else says (shown), or None where the input or the
    request says it (the help says how)."""
    return click.option("--codepage", metavar="CP", default=default,
                        type=CodepageParam(*extra, ebcdic=ebcdic),
                        show_default=default is not None, help=help_text)


# --------------------------------------------------------------------------- windows and selections

WINDOW = "mqtool.window"  # ctx.meta: the --offset/--length of the running command
SELECTION = "mqtool.selection"  # ctx.meta: its --where/--fields/--header


def window_options(f: Callable[..., Any] | None = None, *, short: bool = False
                   ) -> Callable[..., Any]:
    """``--offset`` / ``--length`` (xxd's ``-s`` / ``-l``; ``short``: those letters too):
    the command reads that window of its input, and the offsets it reports stay absolute
    in the input. The numbers are checked at once; the window is kept for ``window()``."""
    def add(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def windowed(*args: Any, window_offset: str | None = None,
                     window_length: str | None = None, **kwargs: Any) -> Any:
            from mqtool.io.window import WindowRequest

            request = WindowRequest(window_offset, window_length).check()
            click.get_current_context().meta[WINDOW] = request
            return f(*args, **kwargs)

        run: Callable[..., Any] = windowed

        names = (("-s",) if short else ()), (("-l",) if short else ())
        for opt in (click.option(*names[1], "--length", "window_length", metavar="N",
                                 help="Read N bytes of the input only (xxd -l; decimal, 0x.. or "
                                      "X'..')."),
                    click.option(*names[0], "--offset", "window_offset", metavar="N",
                                 help="Start at byte N of the input (xxd -s; decimal, 0x.. or "
                                      "X'..'; negative: from the end). Reported offsets stay "
                                      "those of the input.")):
            run = opt(run)
        return run

    return add(f) if f is not None else add


def window() -> WindowRequest:
    """The ``--offset`` / ``--length`` of the running command (empty without them)."""
    from mqtool.io.window import WindowRequest

    ctx = click.get_current_context(silent=True)
    found = ctx.meta.get(WINDOW) if ctx is not None else None
    return found if found is not None else WindowRequest()


def where_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--where EXPR`` alone (``stats``); ``select_options`` has it with the others."""
    return click.option("--where", "select_where", metavar="EXPR",
                        help="Only units or rows whose decoded fields satisfy EXPR: "
                             "== != < <= > >=, in {..}, contains, matches, and, or, not; "
                             "constants by name (MQRC_Q_FULL); a bare field: it exists.")(f)


def select_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--where``, ``--fields``, ``--header``: the one mechanism by which every command that
    prints units or rows selects them and picks their columns (``api.selection``). The
    expression and field list are checked at once; the selection is kept for
    ``selection()``, which ``emit_units`` and the row printers read."""
    @functools.wraps(f)
    def chosen(*args: Any, select_where: str | None = None, select_fields: str | None = None,
            select_header: bool = False, **kwargs: Any) -> Any:
        from mqtool import api

        made = api.selection(select_where, select_fields, select_header)
        click.get_current_context().meta[SELECTION] = made
        return f(*args, **kwargs)

    run: Callable[..., Any] = chosen

    for opt in (click.option("--header", "select_header", is_flag=True,
                             help="With --fields: a first line naming the columns."),
                click.option("--fields", "select_fields", metavar="A,B,...",
                             help="Print these fields, tab-separated, one line per unit or row "
                                  "(tshark -T fields): a repeated field's values joined by ',', "
                                  "a missing one empty."),
                where_option):
        run = opt(run)
    return run


def selection() -> Selection:
    """The ``--where`` / ``--fields`` / ``--header`` of the running command (empty without)."""
    from mqtool import api

    ctx = click.get_current_context(silent=True)
    found = ctx.meta.get(SELECTION) if ctx is not None else None
    return found if found is not None else api.selection()


def column_lines() -> Callable[[object], str]:
    """For a command printing rows: the ``--fields`` line of the record ``selection()``
    kept last (the header line first, once, with ``--header``)."""
    sel = selection()
    headed = False

    def line(_record: object) -> str:
        nonlocal headed
        heading = None if headed else sel.heading()
        headed = True
        return sel.row() if heading is None else heading + "\n" + sel.row()

    return line


def decoder_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options every ``decode`` subcommand has, in one place; ``--json`` with
    ``--annotate`` (two outputs) is refused before the input is read."""

    @functools.wraps(f)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("json_out") and kwargs.get("annotate"):
            raise click.UsageError("--json and --annotate are two ways to print: give one")
        return f(*args, **kwargs)

    command: Callable[..., Any] = checked
    for opt in (color_option, tz_option, strict_option, annotate_option, raw_option, json_option,
                select_options, window_options, hex_option, input_argument):
        command = opt(command)
    return command


def command_format() -> str:
    """The format the running command works on (``decode urb`` -> ``urb``), for messages."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or ctx.info_name is None:
        return "input"
    return ctx.info_name if ctx.parent is not None and ctx.parent.parent is not None else "input"


def read_unit(file: str, hex_text: bool) -> bytes:
    """The bytes to decode: binary, or the bytes of dump text with ``--hex``
    (``api.read_unit``, named for the running command's format); the ``--offset`` /
    ``--length`` window of them."""
    from mqtool import api

    return api.read_unit(file, hex_text, command_format(), window=window())


def read_sources(file: str, hex_text: bool) -> Iterator[Source]:
    """The input as decoders see it (``api.sources``): each message body of a queue dump,
    or one blob (the ``--offset`` / ``--length`` window of the input: always a blob); an
    unreadable message is said on stderr."""
    from mqtool import api

    return api.sources(file, hex_text, command_format(), get_env().error, window=window())


def decode_sources(file: str, hex_text: bool,
                   decode: Callable[[bytes], Iterable[Decoded]]) -> Iterator[tuple[Decoded, bytes]]:
    """Each unit ``decode`` makes of the input as ``read_sources`` gives it (each message of
    a queue dump or of a directory of dumps and bodies, or the one blob), labelled with its
    message; a message the decoder refuses (``DecodeError``) becomes a unit with that error
    and the others are still decoded (a lone blob's refusal is raised as it is)."""
    from mqtool.errors import DecodeError
    from mqtool.model import Problem

    for src in read_sources(file, hex_text):
        try:
            for unit in decode(src.data):
                yield src.label(unit), src.data[unit.offset:unit.offset + unit.length]
        except DecodeError as e:
            if src.message is None:
                raise
            failed = Decoded(e.format, 0, len(src.data), title="not decoded")
            failed.errors.append(Problem(e.path, e.offset, e.reason))
            yield src.label(failed), src.data


def refuse_other_format(fmt: str, data: bytes | memoryview, source: str, hint: str = "", *,
                        claimed: bool = False) -> None:
    """``api.refuse_other_format``: input of another format refused (exit 2), naming what
    ``identify`` takes it for. For a decoder's automatic mode: an explicit choice
    (``--part``, ``--format``) decodes whatever it is given."""
    from mqtool import api

    api.refuse_other_format(fmt, data, source, hint, claimed=claimed)


# --------------------------------------------------------------------------- output


Writer = Callable[[Decoded, bytes | memoryview, bool], None]  # (unit, its bytes, first?)


def emit_units(env: Env, units: Iterable[tuple[Decoded, bytes | memoryview]], *, json_out: bool = False,
               raw: bool = False, annotate: bool = False, tz: tzinfo | None = None,
               strict_problems: bool = False, fast: bool = False) -> ExitStatus:
    """Print decoded units (listing, annotated hex, or JSON lines), then their errors.

    ``units`` yields each unit with its own bytes (a unit may carry its listing ``lines``).
    ``fast``: JSON encoded by orjson (the same bytes as ``json.dumps``, faster). Each
    error is said once, on stderr (the listing on stdout is the partial result); with
    ``strict_problems`` (``--strict``) each problem too. Returns DECODE when any unit has
    errors (its partial output was printed first), or when ``strict_problems`` and any
    problem.
    """
    sel, win = selection(), window()
    if sel.columns and (json_out or annotate):
        raise InputError("--fields prints columns: give it without --json and --annotate")
    if sel.columns:
        write = _columns_writer(env)
    elif json_out:
        write = _json_writer(env, raw, fast)
    elif annotate:
        write = _annotated_writer(env)
    else:
        write = _listing_writer(env, tz)
    status = ExitStatus.OK
    first = True
    for unit, data in units:
        if win.start and "payload_offset" not in unit.attrs:  # a payload's count from it
            shift_unit(unit, win.start)
        if not sel or sel.match(unit) is not None:
            write(unit, data, first)
            first = False
        where = (f"message {unit.attrs['message']} ({unit.attrs.get('source', '')}): "
                 if "message" in unit.attrs else "")
        for p in unit.errors:
            env.error(f"{unit.format}: {where}{p.describe()}")
        if strict_problems:
            for p in unit.problems:
                env.error(f"{unit.format}: {where}problem (--strict): {p.describe()}")
        if unit.errors or (strict_problems and unit.problems):
            status = ExitStatus.DECODE
    env.stdout.flush()
    sel.check()
    return status


def _columns_writer(env: Env) -> Writer:
    """``--fields``: one tab-separated line per unit (``--header``: the names first)."""
    sel = selection()
    write = env.stdout.write

    def one(unit: Decoded, data: bytes | memoryview, first: bool) -> None:
        heading = sel.heading() if first else None
        if heading is not None:
            write((heading + "\n").encode("utf-8"))
        write((sel.row() + "\n").encode("utf-8"))

    return one


def _json_writer(env: Env, raw: bool, fast: bool) -> Writer:
    from mqtool.io.inputs import release
    from mqtool.render.terminal import json_bytes_safe

    dumps = _fast_dumps() if fast else _dumps
    write = env.stdout.write

    def one(unit: Decoded, data: bytes | memoryview, first: bool) -> None:
        chunks = getattr(unit, "json_chunks", None)  # a unit too large for one string
        if chunks is None:
            write(json_bytes_safe(dumps(unit.to_json(raw))) + b"\n")
            return
        for chunk in chunks(raw):
            write(json_bytes_safe(chunk))
            if isinstance(data, memoryview):  # a mapped input: the pages read go back
                release(data)
        write(b"\n")

    return one


def _dumps(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def _fast_dumps() -> Callable[[object], bytes]:
    """orjson's dumps (a dependency), json's for what orjson refuses (integers past 64 bits)."""
    try:
        import orjson
    except ImportError:
        return _dumps

    def dumps(obj: object) -> bytes:
        try:
            return orjson.dumps(obj)
        except (TypeError, orjson.JSONEncodeError):
            return _dumps(obj)

    return dumps


def _listing_writer(env: Env, tz: tzinfo | None) -> Writer:
    from mqtool.render.listing import unit_text

    write = env.stdout.write

    def one(unit: Decoded, data: bytes | memoryview, first: bool) -> None:
        text = unit_text(unit, tz, errors=False)
        write((text if first else "\n" + text).encode("utf-8"))

    return one


def _annotated_writer(env: Env) -> Writer:
    from mqtool.render.annotate import Block, unit_stream
    from mqtool.render.terminal import text

    console = env.console()

    def one(unit: Decoded, data: bytes | memoryview, first: bool) -> None:
        if not first:
            env.line()
        if unit.title:
            console.print(text(unit.title))
        for item in unit_stream(unit, data):  # made as printed: memory stays bounded
            if isinstance(item, Block):  # many lines inside one field, styled at once
                for piece in item.colored(console):
                    env.stdout.write(piece)
            else:
                console.print(item)
        for p in unit.problems:
            console.print(text(f"problem: {p.describe()}"))

    return one


def summary_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--summary FILE``: the run's summary as JSON (``-``: on stdout), in every bulk
    command."""
    return click.option("--summary", "summary_path", metavar="FILE",
                        type=click.Path(allow_dash=True),
                        help="Also write the summary (rows, errors by reason) as JSON to FILE "
                             "(- for stdout).")(f)


def write_summary(env: Env, path: str, info: dict[str, Any]) -> None:
    """The summary of ``--summary FILE``; ``-`` prints it on stdout."""
    if path == "-":
        from mqtool.render.terminal import json_text

        env.line(json_text(info, indent=2))
        env.stdout.flush()
        return
    from mqtool import api

    api.write_summary(path, info)


def spark_conf(confs: Iterable[str]) -> dict[str, str]:
    """``--conf K=V`` values as a Spark configuration."""
    conf = {}
    for kv in confs:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise click.BadParameter(f"{kv!r} is not K=V", param_hint="--conf")
        conf[k.strip()] = v
    return conf


class Progress:
    """A rich progress bar on stderr, only when stderr is a terminal and the work is large
    (``total`` bytes, at least ``least``); the callback takes the bytes done so far, or
    (``steps``) the bytes done since the last call."""

    def __init__(self, env: Env, label: str, total: int | None, *, steps: bool = False,
                 least: int = 8 << 20) -> None:
        self.env, self.label, self.total, self.steps, self.least = env, label, total, steps, least
        self.bar: Any = None

    def __enter__(self) -> Callable[[int], None] | None:
        if not self.env.stderr_isatty or not self.total or self.total < self.least:
            return None
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self.bar = Progress(self.label, BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                            TimeRemainingColumn(), console=self.env.console_err(), transient=True)
        self.bar.start()
        task = self.bar.add_task(self.label, total=self.total)
        if self.steps:
            return lambda n: self.bar.advance(task, n)
        return lambda done: self.bar.update(task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


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
                force: bool, as_dump: bool, codepage: str = "cp037", *, text: bool = False) -> int:
    """What a builder built to ``-o FILE`` or stdout: its bytes (never to a terminal,
    unless they are ``text``), or (``as_dump``) their hex dump; ``data`` may be several
    pieces, each dumped in its own code page."""
    pieces = [(data, codepage)] if isinstance(data, bytes) else data
    if as_dump:
        from mqtool.render.hexdump import dump_bytes

        out = "\n".join(dump_bytes(b, codepage=cp) for b, cp in pieces).encode("utf-8")
    else:
        out = b"".join(b for b, _ in pieces)
    if output and output != "-":
        from mqtool.io.outputs import write_file

        write_file(output, out, force)
        return ExitStatus.OK
    if not (as_dump or text):
        env.refuse_binary_to_terminal()
    env.stdout.write(out)
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
