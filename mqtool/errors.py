"""Error types and exit statuses shared by every mqtool command; the optional extras
and the message a missing one gives."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """Process exit statuses; the same meaning for every subcommand.

    Decided for every command: empty input, a queue dump with no messages, and input that
    is plainly another format are all DECODE (2) — nothing was decoded (``EmptyInputError``,
    ``NoMessagesError``, ``WrongFormatError``). 70 is never a status: it means a bug.
    """

    OK = 0
    USAGE = 1  # bad options, bad request values, missing input file
    DECODE = 2  # input could not be fully decoded; partial output was printed
    INCOMPLETE = 3  # result incomplete: attachment missing messages, segments missing
    ENVIRONMENT = 4  # Java missing, output not writable, ...


class MqtoolError(Exception):
    """Base of all errors mqtool reports to users (one line, no traceback)."""

    status: ExitStatus = ExitStatus.USAGE


class InputError(MqtoolError):
    """The input could not be read or is not of the kind the command expects."""

    status = ExitStatus.USAGE


class EnvError(MqtoolError):
    """Something outside the input is missing or unusable (Java, output directory)."""

    status = ExitStatus.ENVIRONMENT


class BuildError(MqtoolError):
    """A builder refused its input; names the field and the rule."""

    status = ExitStatus.USAGE

    def __init__(self, fmt: str, path: str, reason: str) -> None:
        self.format, self.path, self.reason = fmt, path, reason
        super().__init__(f"{fmt}: {path}: {reason}" if path else f"{fmt}: {reason}")


class DecodeError(MqtoolError):
    """Decoding stopped: which format, which field (dotted path), which byte offset, why.

    ``partial`` carries whatever was decoded before the error, when the raiser has it.
    """

    status = ExitStatus.DECODE

    def __init__(
        self, fmt: str, path: str, offset: int, reason: str, partial: object = None
    ) -> None:
        self.format, self.path, self.offset, self.reason = fmt, path, offset, reason
        self.partial = partial
        super().__init__(self.describe())

    def describe(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.format}: {self.reason}{where}, offset X'{self.offset:04X}' ({self.offset})"


class EmptyInputError(DecodeError):
    """The input has no bytes (or no records): nothing to decode."""

    def __init__(self, fmt: str, source: str = "") -> None:
        super().__init__(fmt, "", 0, f"{source + ': ' if source else ''}empty input: nothing to decode")


class NoMessagesError(DecodeError):
    """A queue dump that holds no message (``why``: what its reader knows of it)."""

    def __init__(self, source: str, dump_format: str, why: str = "") -> None:
        super().__init__("queue-dump", "", 0, f"{source}: no messages in this {dump_format} dump"
                                              + (f": {why}" if why else ""))


class WrongFormatError(DecodeError):
    """The input is plainly another format; ``identified`` says what ``identify`` thinks."""

    def __init__(self, fmt: str, offset: int, reason: str, identified: str | None = None) -> None:
        self.identified = identified
        hint = f"; identify says: {identified}" if identified else ""
        super().__init__(fmt, "", offset, f"{reason}{hint}")


class CodepageError(InputError, LookupError):
    """A code-page name that is unknown or not a single-byte EBCDIC or ASCII-family page."""


class UndumpError(DecodeError):
    """Dump text that could not be read back: names the line and column."""

    def __init__(self, line: int, column: int, reason: str) -> None:
        self.line, self.column = line, column
        super().__init__("dump", f"line {line} column {column}", 0, reason)

    def describe(self) -> str:
        return f"dump text: line {self.line}, column {self.column}: {self.reason}"


# --------------------------------------------------------------------------- optional extras

# the extra of pyproject.toml that installs each optional module (the first one named is
# the one the message gives; pandas comes with both spark and sas)
EXTRAS = {
    "pyspark": ("spark",), "py4j": ("spark",), "pandas": ("sas", "spark"),
    "textual": ("view",), "pyreadstat": ("sas",), "dpkt": ("pcap",), "pcapng": ("pcap",),
}
FOR_EXTRA = {"spark": "spark-extract", "view": "mqtool view", "sas": "writing SAS transport "
             "(.xpt) files", "pcap": "reading pcap / pcapng captures"}


class MissingExtraError(EnvError):
    """An optional dependency is not installed: one line naming the extra that installs it."""

    def __init__(self, module: str, extra: str) -> None:
        self.module, self.extra = module, extra
        super().__init__(f"{FOR_EXTRA[extra]} needs {module}, which is not installed: "
                         f"pip install 'mqtool[{extra}]'")


def missing_extra(e: BaseException, command: str = "") -> MissingExtraError | None:
    """``MissingExtraError`` for an ``ImportError`` of a module an extra installs (its top
    package named by ``e.name``), else None. ``command``: the words of the command run,
    which decide between extras that share a module (``spark-extract`` needs pandas from
    ``spark``)."""
    if not isinstance(e, ImportError) or not e.name:
        return None
    top = e.name.split(".")[0]
    extras = EXTRAS.get(top)
    if extras is None:
        return None
    extra = next((x for x in extras if x in command), extras[0])
    return MissingExtraError(top, extra)


def require_extra(extra: str, *modules: str) -> None:
    """Raise ``MissingExtraError`` before any work when a module of ``extra`` is missing."""
    import importlib.util

    for m in modules:
        try:
            found = importlib.util.find_spec(m) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MissingExtraError(m, extra)


class OutputExistsError(MqtoolError):
    """An output file exists and ``--force`` was not given."""
