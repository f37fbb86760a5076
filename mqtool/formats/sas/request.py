"""Requests for a message set, from YAML / JSON or from command-line style specs, checked
field by field: every problem is found and reported at once (``RequestError``), each with
its field path (``attachments[2].variables[1].length``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from mqtool.codepages import is_single_byte
from mqtool.errors import BuildError, InputError, MqtoolError
from mqtool.formats.sas.layout import (
    CHAR_LENGTH_MAX,
    CORRELID_SIZE,
    FLOAT_FORMATS,
    FORMAT,
    G_SIZE,
    INT_MAX,
    KEY_SIZE,
    MAX_ATTACHMENTS,
    NUMERIC_LENGTHS,
    PROFILES,
    Settings,
    Variable,
    layouts,
)
from mqtool.formats.sas.message_set import (
    DatasetAttachment,
    FileAttachment,
    Request,
    dataset_from_csv,
)

KINDS = ("binary", "text", "dataset")
TOP_KEYS = {"message", "message_file", "original_msgtype", "original_correlid",
            "header_correlid", "message_correlid", "attachments"}
FILE_KEYS = {"type", "path", "data", "name", "spec", "description", "version", "lrecl",
             "correlid"}
DATASET_KEYS = {"type", "csv", "variables", "rows", "library", "member", "label", "description",
                "version", "correlid"}
VARIABLE_KEYS = {f.name for f in fields(Variable)}
MAX_REQUEST = 64 << 20  # bytes of YAML / JSON
MAX_CELLS = 10_000_000  # values in a request's rows (YAML aliases can repeat a row cheaply)
MAX_VARIABLES = 32767
MAX_PROBLEMS = 100  # listed; the rest are counted


class RequestError(MqtoolError):
    """A request with one or more bad fields: ``problems`` are ``(path, reason)`` pairs, one
    line each in the message."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source, self.problems = source, problems
        super().__init__("\n".join(f"{FORMAT}: {source}: {p}: {r}" if p else
                                   f"{FORMAT}: {source}: {r}" for p, r in problems))


@dataclass
class SenderOverrides:
    """What the options say of the sender, on top of a profile (None: the profile's)."""

    profile: str = "zos"
    byte_order: str | None = None
    long: int | None = None
    codepage: str | None = None
    float_format: str | None = None
    nul: bool | None = None
    record_nul: bool = False


def sender_settings(o: SenderOverrides) -> Settings:
    """A profile's settings with the overrides applied; refuses what no sender writes."""
    if o.profile not in PROFILES:
        raise BuildError(FORMAT, "profile", f"{o.profile!r}: use {', '.join(PROFILES)}")
    s = PROFILES[o.profile]
    if o.byte_order is not None:
        if o.byte_order not in ("big", "little"):
            raise BuildError(FORMAT, "byte_order", f"{o.byte_order!r}: big or little")
        s = replace(s, big=o.byte_order == "big")
    if o.long is not None:
        if o.long not in (4, 8):
            raise BuildError(FORMAT, "long", f"{o.long!r}: 4 or 8")
        s = replace(s, long=o.long)
    if o.codepage is not None:
        if not is_single_byte(o.codepage):
            raise BuildError(FORMAT, "codepage", f"{o.codepage}: a sender's code page is "
                             "single-byte (EBCDIC or ASCII family)")
        s = replace(s, codepage=o.codepage)
    if o.float_format is not None:
        if o.float_format not in FLOAT_FORMATS:
            raise BuildError(FORMAT, "float_format", f"{o.float_format!r}: use "
                             f"{', '.join(FLOAT_FORMATS)}")
        s = replace(s, float_format=o.float_format)
    if o.nul is not None:
        s = replace(s, nul=o.nul)
    return replace(s, record_nul=o.record_nul)


def parse_g(value: object, where: str) -> bytes:
    """A correlid option or field: the 16-byte G in hex (or the whole 20 / 24-byte CorrelId,
    whose G is taken)."""
    if not isinstance(value, str):
        raise BuildError(FORMAT, where, f"{value!r} is not hex text")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise BuildError(FORMAT, where, f"{value!r} is not hex") from None
    if len(raw) not in (G_SIZE, KEY_SIZE, CORRELID_SIZE):
        raise BuildError(FORMAT, where, f"{len(raw)} bytes; give the {G_SIZE}-byte G (or the "
                         f"{KEY_SIZE}/{CORRELID_SIZE}-byte CorrelId)")
    return raw[:G_SIZE]


# --------------------------------------------------------------------------- checking


class _Check:
    """Collects problems while values are read from a document."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.more = 0

    def bad(self, where: str, reason: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((where, reason))
        else:
            self.more += 1

    def listed(self) -> list[tuple[str, str]]:
        return self.problems + ([("", f"{self.more} more problems not listed")] if self.more
                                else [])

    def mapping(self, value: object, where: str) -> Mapping[str, Any] | None:
        if isinstance(value, Mapping):
            return value
        self.bad(where, f"{_kind(value)}: a mapping is needed")
        return None

    def unknown(self, doc: Mapping[str, Any], known: set[str], where: str) -> None:
        for key in doc:
            if key not in known:
                self.bad(_join(where, str(key)), f"unknown field; known: {', '.join(sorted(known))}")

    def text(self, doc: Mapping[str, Any], key: str, where: str, default: str = "",
             limit: int = INT_MAX) -> str:
        v = doc.get(key, default)
        if v is None:
            return default
        if isinstance(v, bool) or not isinstance(v, str | int | float):
            self.bad(_join(where, key), f"{_kind(v)}: text is needed")
            return default
        text = str(v)
        if len(text) > limit:
            self.bad(_join(where, key), f"{len(text)} characters: at most {limit}")
            return default
        return text

    def integer(self, doc: Mapping[str, Any], key: str, where: str, default: int,
                low: int = -INT_MAX - 1, high: int = INT_MAX) -> int:
        v = doc.get(key, default)
        if isinstance(v, float) and math.isfinite(v) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            self.bad(_join(where, key), f"{_kind(v)}: a whole number is needed")
            return default
        if not low <= v <= high:
            self.bad(_join(where, key), f"{v} is out of range {low}..{high}")
            return default
        return v

    def g(self, doc: Mapping[str, Any], key: str, where: str) -> bytes | None:
        v = doc.get(key)
        if v is None:
            return None
        try:
            return parse_g(v, _join(where, key))
        except BuildError as e:
            self.bad(e.path, e.reason)
            return None

    def path(self, doc: Mapping[str, Any], key: str, where: str, base: Path) -> Path | None:
        v = doc.get(key)
        if v is None:
            return None
        if not isinstance(v, str) or not v or "\0" in v:
            self.bad(_join(where, key), f"{_kind(v)}: a file name is needed")
            return None
        p = base / v
        if not p.is_file():
            self.bad(_join(where, key), f"{v}: no such file")
            return None
        return p


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value: object) -> str:
    """A value as a problem names it (short: a hostile value may be huge)."""
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if value is None:
        return "null"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# --------------------------------------------------------------------------- documents


@dataclass
class Loaded:
    """A request read from a document, and its message text (encoded later, in the sender's
    code page)."""

    request: Request
    message_text: str | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)


def load_request(path: str, source_encoding: str = "utf-8", lrecl: int | None = None) -> Loaded:
    """A request in YAML or JSON (a file, or ``-`` for stdin). Raises ``RequestError`` with
    every problem found, ``InputError`` when the file cannot be read or parsed."""
    import yaml

    from mqtool.io.inputs import read_bytes

    data = read_bytes(path)
    if len(data) > MAX_REQUEST:
        raise InputError(f"{path}: {len(data)} bytes, more than a request ({MAX_REQUEST})")
    try:
        doc = yaml.safe_load(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise InputError(f"{path}: not YAML/JSON{where}: {getattr(e, 'problem', None) or e}"
                         ) from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be a request") from None
    base = Path(path).parent if path != "-" else Path.cwd()
    loaded = request_of(doc, base, source_encoding, lrecl)
    if loaded.problems:
        raise RequestError(path, loaded.problems)
    return loaded


def request_of(doc: object, base: Path, source_encoding: str = "utf-8",
               lrecl: int | None = None) -> Loaded:
    """A request from a parsed document; ``problems`` lists what is wrong (nothing raised
    for bad fields)."""
    c = _Check()
    top = c.mapping(doc, "")
    request = Request()
    text = None
    if top is None:
        return Loaded(request, None, c.problems)
    c.unknown(top, TOP_KEYS, "")
    request.original_msgtype = c.integer(top, "original_msgtype", "", 1)
    request.header_correlid = c.g(top, "header_correlid", "")
    request.message_correlid = c.g(top, "message_correlid", "")
    oc = top.get("original_correlid")
    if oc is not None:
        try:
            raw = bytes.fromhex(oc) if isinstance(oc, str) else None
        except ValueError:
            raw = None
        if raw is None or len(raw) > CORRELID_SIZE:
            c.bad("original_correlid", f"{_kind(oc)}: up to {CORRELID_SIZE} bytes in hex")
        else:
            request.original_correlid = raw.ljust(CORRELID_SIZE, b"\0")
    if "message_file" in top:
        p = c.path(top, "message_file", "", base)
        if p is not None:
            request.message = p.read_bytes()
    elif "message" in top:
        text = c.text(top, "message", "")
    atts = top.get("attachments") or []
    if not isinstance(atts, list):
        c.bad("attachments", f"{_kind(atts)}: a list is needed")
        atts = []
    if len(atts) > MAX_ATTACHMENTS:
        c.bad("attachments", f"{len(atts)} attachments: a header lists at most {MAX_ATTACHMENTS}")
        atts = []
    for i, a in enumerate(atts, 1):
        att = _attachment(c, a, i, base, source_encoding, lrecl)
        if att is not None:
            request.attachments.append(att)
    return Loaded(request, text, c.listed())


def _attachment(c: _Check, a: object, i: int, base: Path, source_encoding: str,
                lrecl: int | None) -> FileAttachment | DatasetAttachment | None:
    where = f"attachments[{i}]"
    doc = c.mapping(a, where)
    if doc is None:
        return None
    kind = doc.get("type", "binary")
    if kind not in KINDS:
        c.bad(f"{where}.type", f"{_kind(kind)}: use {', '.join(KINDS)}")
        return None
    version = _version(c, doc.get("version", [0, 0]), f"{where}.version")
    g = c.g(doc, "correlid", where)
    description = c.text(doc, "description", where)
    if kind != "dataset":
        return _file_attachment(c, doc, i, where, base, source_encoding, lrecl, kind == "text",
                                description, version, g)
    att = _dataset_attachment(c, doc, where, base, source_encoding)
    if att is not None:
        att.description, att.version, att.correlid = description, version, g
    return att


def _file_attachment(c: _Check, doc: Mapping[str, Any], i: int, where: str, base: Path,
                     source_encoding: str, lrecl: int | None, text: bool, description: str,
                     version: tuple[int, int], g: bytes | None) -> FileAttachment:
    c.unknown(doc, FILE_KEYS, where)
    path = c.path(doc, "path", where, base)
    data = c.text(doc, "data", where) if "data" in doc else None
    if path is None and data is None and "path" not in doc:
        c.bad(where, "a file attachment needs path or data")
    try:
        raw = data.encode(source_encoding) if data is not None else None
    except UnicodeEncodeError:
        c.bad(f"{where}.data", f"has characters {source_encoding} lacks")
        raw = None
    return FileAttachment(
        path=path, data=raw,
        name=c.text(doc, "name", where, str(doc.get("path", "")) or f"file{i}"),
        text=text, spec=c.text(doc, "spec", where, "FILENAME"),
        description=description, version=version,
        lrecl=c.integer(doc, "lrecl", where, lrecl or 0, 0, INT_MAX) or lrecl,
        source_encoding=source_encoding, correlid=g)


def _dataset_attachment(c: _Check, doc: Mapping[str, Any], where: str, base: Path,
                        source_encoding: str) -> DatasetAttachment | None:
    c.unknown(doc, DATASET_KEYS, where)
    library = c.text(doc, "library", where, "WORK", 8)
    member = c.text(doc, "member", where, "DATA", 32)
    label = c.text(doc, "label", where, "", 256)
    if "csv" in doc:
        p = c.path(doc, "csv", where, base)
        if p is None:
            return None
        try:
            return dataset_from_csv(p, encoding=source_encoding, member=doc.get("member"),
                                    library=library, label=label)
        except (BuildError, InputError) as e:
            c.bad(f"{where}.csv", str(e))
            return None
    variables = _variables(c, doc.get("variables", []), f"{where}.variables")
    rows = _rows(c, doc.get("rows", []), where)
    return DatasetAttachment(variables, [list(r) for r in rows], library=library,
                             member=member, label=label)


def _rows(c: _Check, rows: object, where: str) -> list[list[Any]]:
    """The rows of a data set given inline: lists of numbers, text or null."""
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        c.bad(f"{where}.rows", f"{_kind(rows)}: a list of rows (lists) is needed")
        return []
    if sum(len(r) for r in rows) > MAX_CELLS:
        c.bad(f"{where}.rows", f"more than {MAX_CELLS} values: build a data set this large "
              "from a CSV file (csv:)")
        return []
    for j, row in enumerate(rows, 1):
        for k, v in enumerate(row, 1):
            if not (v is None or isinstance(v, str | int | float)) or isinstance(v, bool):
                c.bad(f"{where}.rows[{j}][{k}]", f"{_kind(v)}: a number, text or null")
            elif isinstance(v, int | float) and not _finite(v):
                c.bad(f"{where}.rows[{j}][{k}]", f"{_kind(v)}: not a finite number a SAS "
                      "numeric holds (use null or .A for missing)")
    return rows


def _finite(v: float) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _version(c: _Check, v: object, where: str) -> tuple[int, int]:
    if (isinstance(v, list | tuple) and len(v) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= INT_MAX
                    for x in v)):
        return int(v[0]), int(v[1])
    c.bad(where, f"{_kind(v)}: [major, minor], two whole numbers 0..{INT_MAX}")
    return 0, 0


def _variables(c: _Check, value: object, where: str) -> list[Variable]:
    if not isinstance(value, list):
        c.bad(where, f"{_kind(value)}: a list is needed")
        return []
    if len(value) > MAX_VARIABLES:
        c.bad(where, f"{len(value)} variables: a SAS data set has at most {MAX_VARIABLES}")
        return []
    out = []
    lay = layouts().vardef
    for j, v in enumerate(value, 1):
        at = f"{where}[{j}]"
        doc = c.mapping(v, at)
        if doc is None:
            continue
        c.unknown(doc, VARIABLE_KEYS, at)
        if not doc.get("name"):
            c.bad(f"{at}.name", "every variable needs a name")
        values: dict[str, Any] = {}
        for f in fields(Variable):
            kind = lay.field(f.name).kind if f.name in lay.names else "int"
            if kind == "text":
                default = "" if f.default is MISSING else f.default
                values[f.name] = c.text(doc, f.name, at, default, 256)
            else:
                number = 0 if f.default is MISSING else f.default
                values[f.name] = c.integer(doc, f.name, at, number, 0, INT_MAX)
        var = Variable(**values)
        if var.numeric and var.length not in NUMERIC_LENGTHS:
            c.bad(f"{at}.length", f"{var.length}: a numeric variable has {NUMERIC_LENGTHS[0]}.."
                  f"{NUMERIC_LENGTHS[-1]} bytes")
        elif not var.numeric and not 1 <= var.length <= CHAR_LENGTH_MAX:
            c.bad(f"{at}.length", f"{var.length}: a character variable has 1..{CHAR_LENGTH_MAX}"
                  " bytes")
        out.append(var)
    return out


# --------------------------------------------------------------------------- options


def request_from_specs(attach: tuple[str, ...] | list[str], description: tuple[str, ...] | list[str],
                       lrecl: int | None = None, source_encoding: str = "utf-8") -> Request:
    """A request from ``KIND:PATH[=NAME]`` specs (``binary``, ``text``, ``dataset``), with
    descriptions in the same order. Every bad spec is reported at once."""
    request = Request()
    problems: list[tuple[str, str]] = []
    for i, spec in enumerate(attach):
        where = f"--attach {spec!r}"
        kind, sep, rest = spec.partition(":")
        path, _, name = rest.partition("=")
        if not sep or kind not in KINDS:
            problems.append((where, "use binary:FILE[=NAME], text:FILE[=NAME] or "
                             "dataset:CSV[=LIBRARY.MEMBER]"))
            continue
        p = Path(path)
        if not path or not p.is_file():
            problems.append((where, f"{path or 'no file'}: no such file"))
            continue
        desc = description[i] if i < len(description) else ""
        if kind == "dataset":
            lib, _, member = name.rpartition(".") if name else ("", "", "")
            try:
                att: FileAttachment | DatasetAttachment = dataset_from_csv(
                    p, encoding=source_encoding, member=member or None, library=lib or "WORK")
            except (BuildError, InputError) as e:
                problems.append((where, str(e)))
                continue
            att.description = desc
        else:
            att = FileAttachment(path=p, name=name or p.name, text=kind == "text",
                                 description=desc, lrecl=lrecl, source_encoding=source_encoding)
        request.attachments.append(att)
    if problems:
        raise RequestError("options", problems)
    return request


