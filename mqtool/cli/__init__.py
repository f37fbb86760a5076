"""The ``mqtool`` command: a click group whose subcommands load lazily.

Commands are listed in tables (module:attribute and one-line help), so ``mqtool --help``
imports no decoder, numpy, pandas or pyspark, and each subcommand lives in its own module.
The ``decode`` and ``build-request`` tables are derived from ``registry.CODECS``.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from mqtool import __version__

USAGE = 1  # errors.ExitStatus.USAGE (not imported here: --help stays light)
ENVIRONMENT = 4  # errors.ExitStatus.ENVIRONMENT
INTERNAL_ERROR = 70  # a bug: reported in one line, traceback with MQTOOL_DEBUG=1

_HERE = Path(__file__).parent
Target = str | dict[str, "Entry"] | Callable[[], click.Command] | Callable[[], dict[str, "Entry"]]
Entry = tuple[Target, str]  # (module:attribute, a sub-table or a command factory; one-line help)


def format_commands(verb: str) -> dict[str, Entry]:
    """``decode NAME`` / ``build-request NAME`` for every format of ``registry.CODECS``
    (builders: those with a ``build_title``), help from the codec. A format's own commands
    are ``<verb>_<module>`` in ``cli/<module>.py``, the module named for one of the
    format's names; a format without one gets the generic command of ``cli/generic.py``."""
    from mqtool import registry

    table: dict[str, Entry] = {}
    for c in registry.CODECS:
        if verb == "build" and not (c.build is not None and c.build_title):
            continue
        module = next((n for n in c.names if (_HERE / f"{n}.py").is_file()), None)
        target: Target = (f"mqtool.cli.{module}:{verb}_{module}" if module
                          else functools.partial(_generic, verb, c.name))
        table[c.name] = (target, c.build_title if verb == "build" else c.title)
    return table


def _generic(verb: str, name: str) -> click.Command:
    """The generic command of a format (imported like every command: by the table)."""
    command: click.Command = importlib.import_module("mqtool.cli.generic").command(verb, name)
    return command


@functools.cache
def decode_table() -> dict[str, Entry]:
    return {**format_commands("decode"),
            "auto": ("mqtool.cli.auto:decode_auto", "Recognise the format, then decode with it.")}


@functools.cache
def build_table() -> dict[str, Entry]:
    return format_commands("build")


def __getattr__(name: str) -> dict[str, Entry]:
    """``DECODE`` and ``BUILD``, made from the registry when first asked for (``mqtool
    --help`` loads no registry)."""
    tables = {"DECODE": decode_table, "BUILD": build_table}
    if name not in tables:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return tables[name]()


REASSEMBLE = {
    "attachment": ("mqtool.cli.sas:reassemble_attachment",
                   "Rebuild SAS attachments (files, data sets) from a queue dump."),
}
EXTRACT = {
    "csq1logp": ("mqtool.cli.csq1logp:extract",
                 "Bulk-extract CSQ1LOGP records to JSON lines, CSV or Parquet (no JVM)."),
    "urb": ("mqtool.cli.urb:extract_urb", "Bulk-extract Event Replicator URB messages."),
    "mq-stats": ("mqtool.cli.mqstats:extract_mq_stats",
                 "IBM MQ accounting and statistics messages as rows (Parquet, CSV, JSON lines)."),
}
SPARK_EXTRACT = {
    "csq1logp": ("mqtool.cli.csq1logp:spark_extract",
                 "Extract CSQ1LOGP records with PySpark into partitioned Parquet."),
    "urb": ("mqtool.cli.urb:spark_extract_urb", "Extract Event Replicator URB messages with PySpark."),
}
CHANGES = {
    "apply": ("mqtool.cli.changes:apply",
              "Fold typed change tables into a current-state table per Adabas file (Parquet)."),
}
TOP = {
    "dump": ("mqtool.cli.dump:dump",
             "Hex dump in the documents' style, xxd or hexdump -C; -r reads dumps back."),
    "decode": (decode_table, "Decode messages, records and templates; listing, --annotate, --json."),
    "build-request": (build_table, "Build request messages and templates."),
    "reassemble": (REASSEMBLE, "Rebuild logical units from the physical messages of a dump."),
    "reassemble-attachment": ("mqtool.cli.sas:reassemble_attachment",
                              "Same as 'reassemble attachment'."),
    "extract": (EXTRACT, "Bulk-extract records to JSON lines, CSV or Parquet (no JVM); "
                         "FORMAT csq1logp unless named."),
    "spark-extract": (SPARK_EXTRACT, "Extract records with PySpark into partitioned Parquet; "
                                     "FORMAT csq1logp unless named."),
    "changes": (CHANGES, "Work with the typed change tables of 'extract urb --typed'."),
    "identify": ("mqtool.cli.auto:identify", "Say which format each input file holds."),
    "layouts": ("mqtool.cli.layouts:layouts",
                "Show the record layouts mqtool knows: tables, Markdown, JSON, Kaitai."),
    "messages": ("mqtool.cli.messages:messages",
                 "List the messages of queue dumps and captures; filter; convert."),
    "view": ("mqtool.cli.view:view",
             "Explore units interactively: unit list, field tree, linked hex."),
    "scan": ("mqtool.cli.scan:scan",
             "Find the structures mqtool knows inside any bytes; carve them out."),
    "stats": ("mqtool.cli.stats:stats", "Count units or rows by the values of fields."),
    "verify": ("mqtool.cli.verify:verify",
               "Check the files a manifest's chain of custody names: what changed."),
    "man": ("mqtool.cli.man:man", "Show the manual page of mqtool or of a command."),
}


class StdoutClosedError(Exception):
    """The reader of our stdout pipe has gone (``mqtool dump big.bin | head``)."""


class StoppedError(BaseException):
    """SIGINT or SIGTERM stopped the command (``KeyboardInterrupt`` carried past click,
    which would print an empty line first)."""


class LazyGroup(click.Group):
    """A group whose commands are imported only when run or asked for help."""

    def __init__(self, *args: Any, table: dict[str, Entry], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.table)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = self.table.get(name)
        if entry is None:
            return None
        target, help_text = entry
        if target is decode_table or target is build_table:  # made from the registry
            target = target()
        if isinstance(target, dict):
            if name in DEFAULTED:
                return DefaultGroup(name=name, table=target, help=help_text, short_help=help_text,
                                    default=DEFAULTED[name])
            return LazyGroup(name=name, table=target, help=help_text, short_help=help_text)
        if callable(target):
            made = target()
            return made if isinstance(made, click.Command) else None
        module, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as e:
            raise click.exceptions.NoSuchCommand(
                e.command_name, did_you_mean(ctx, e.command_name, self.list_commands(ctx),
                                             args[1:]), ctx=ctx) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as e:  # before click's own handler (exit 1): see run()
            raise StdoutClosedError() from e
        except KeyboardInterrupt as e:  # before click's own handler: see run()
            raise StoppedError() from e

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, self.table[n][1]) for n in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def did_you_mean(ctx: click.Context, name: str, commands: list[str], rest: list[str]) -> str:
    """The message for a name no command of the group has: a file given where a command
    (a format) is expected gets the command line that reads it (``decode auto FILE``); a
    misspelt name the close ones (formats by their names and aliases)."""
    import difflib
    import shlex

    said = f"No such command {name!r}."
    if (name == "-" or os.path.exists(name)) and name not in commands:
        what = "- is stdin:" if name == "-" else f"{name} is a file:"
        auto = "auto" if "auto" in commands else commands[0] if len(commands) == 1 else None
        if auto is None:
            return f"{said} {what} name the format first ({', '.join(commands)})."
        line = shlex.join(["mqtool", *ctx.command_path.split()[1:], auto, name, *rest])
        return f"{said} {what} did you mean '{line}'?"
    names = {c: c for c in commands}
    if ctx.info_name in ("decode", "build-request"):  # formats: their aliases too
        from mqtool import registry

        names.update({a: c.name for c in registry.CODECS for a in c.aliases
                      if c.name in commands})
    close = difflib.get_close_matches(name.lower(), list(names), n=3, cutoff=0.6)
    picked = list(dict.fromkeys(names[c] for c in close))
    if not picked:
        return said
    return f"{said} Did you mean {' or '.join(repr(p) for p in picked)}?"


# groups whose first argument may be left out: ``mqtool extract FILE...`` is
# ``mqtool extract csq1logp FILE...``
DEFAULTED = {"extract": "csq1logp", "spark-extract": "csq1logp"}


class DefaultGroup(LazyGroup):
    """A lazy group with a default subcommand, used when the first argument names none."""

    def __init__(self, *args: Any, default: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.default = default

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.table and args[0] not in ("-h", "--help"):
            args = [self.default, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, f"[FORMAT] ARGS... (FORMAT: {self.default} "
                                                "unless named)")


@click.group(cls=LazyGroup, table=TOP, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mqtool")
def cli() -> None:
    """Forensic toolkit for mainframe and midrange messaging data.

    Exit status: 0 done; 1 usage error; 2 input not fully decoded (partial output was
    printed); 3 result incomplete (attachment or segments missing); 4 environment problem
    (Java missing, output not writable).
    """


ARGV: list[str] = []  # the arguments of the running command line (custody records name them)


def run(argv: list[str] | None = None) -> int:
    """Run mqtool; returns the exit status instead of exiting (tests call this)."""
    ARGV[:] = sys.argv[1:] if argv is None else [str(a) for a in argv]
    from mqtool.io.custody import begin_run

    begin_run(["mqtool", *ARGV])
    try:
        rv = cli.main(args=argv, prog_name="mqtool", standalone_mode=False)
        return int(rv or 0)
    except click.exceptions.Exit as e:
        return int(e.exit_code)
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help(), err=True)
        return USAGE
    except click.ClickException as e:
        _show_click(e)
        return USAGE
    except (click.Abort, KeyboardInterrupt, StoppedError):
        _discard_left()
        return _stopped()
    except (BrokenPipeError, StdoutClosedError):  # `mqtool dump big.bin | head` ends quietly
        _quiet_stdout()
        return 0
    except Exception as e:  # noqa: BLE001 - every failure gets a status and one line
        return _failed(e)


def _failed(e: Exception) -> int:
    """The status (and the one line on stderr) for an exception that ended a command."""
    from mqtool.errors import MqtoolError, missing_extra

    if isinstance(e, MqtoolError):
        if isinstance(e.__context__, BrokenPipeError):
            _quiet_stdout()
            return 0
        _error(str(e))
        return int(e.status)
    extra = missing_extra(e, _command_path())
    if extra is not None:  # an optional dependency is not installed: the environment
        _error(str(extra))
        return int(extra.status)
    if isinstance(e, OSError) and e.errno is not None and not os.environ.get("MQTOOL_DEBUG"):
        # the system refused a file (missing directory, permission, disk full): the
        # environment, not a bug
        where = f"{e.filename}: " if e.filename else ""
        _error(f"{where}{e.strerror or e}")
        return ENVIRONMENT
    if os.environ.get("MQTOOL_DEBUG"):
        raise e
    _error(f"internal error: {type(e).__name__}: {e} (MQTOOL_DEBUG=1 shows the traceback)")
    return INTERNAL_ERROR


def _command_path() -> str:
    """The words of the command being run (``spark-extract urb``), from ``sys.argv``."""
    return " ".join(a for a in sys.argv[1:3] if not a.startswith("-"))


def _show_click(e: click.ClickException) -> None:
    """Click's usage error (usage line, hint, ``Error: ...``), escaped: the values it
    quotes come from the command line."""
    import io

    from mqtool.render.terminal import escape_lines

    buf = io.StringIO()
    e.show(file=buf)
    sys.stderr.write(escape_lines(buf.getvalue()))
    sys.stderr.flush()


def _discard_left() -> None:
    """Temporary outputs a signal left behind: made, then stopped before the block that
    removes them on failure was entered."""
    from mqtool.io.outputs import discard_left

    discard_left()


def _stopped() -> int:
    """One line for a run stopped by a signal (SIGTERM, or SIGINT: Ctrl-C), its status."""
    from mqtool.io.signals import stopped_by

    status, word = stopped_by()
    _error(word)
    return status


def _quiet_stdout() -> None:
    """After a closed stdout pipe: send what is still buffered to /dev/null, say nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _error(message: str) -> None:
    from mqtool.render.terminal import error_lines

    sys.stderr.write(error_lines(message))
    sys.stderr.flush()


def main() -> None:
    """Console-script entry point; a stdout pipe closed by the reader ends quietly; SIGINT
    and SIGTERM end the run with one line, status 130 / 143, no partial output."""
    from mqtool.io.signals import handle_signals, ignore

    handle_signals()
    status = run()
    ignore()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
    except (OSError, ValueError):
        pass
    sys.exit(status)
