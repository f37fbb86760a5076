"""IBM MQ's named constants, parsed from the text of IBM's constant files vendored under
``testdata/mq/ibm/`` (CMQC, CMQCFC, CMQXC as IBM ships them for its Python MQI, MQ 9.4;
see ``testdata/mq/SOURCES.md``), for tests that compare mqtool's tables with them.

``python -m tests.formats.mq.ibm_constants`` prints the value tables of
``mqtool/formats/mq/pcf_names.py`` (``VALUES``) from the families that module declares.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path

IBM = Path(__file__).resolve().parents[3] / "testdata" / "mq" / "ibm"
FILES = ("CMQC.py.txt", "CMQCFC.py.txt", "CMQXC.py.txt")
_LINE = re.compile(r"^(MQ[A-Z0-9_]+)\s*=\s*(.+?)\s*$")


def _value(text: str) -> int | None:
    text = text.strip().strip("()").strip()
    m = re.fullmatch(r'ord\("(.)"\)', text)
    if m:
        return ord(m.group(1))
    try:
        return int(text, 0)
    except ValueError:
        return None  # strings, byte strings, arrays, expressions


@lru_cache(maxsize=1)
def constants() -> tuple[tuple[str, int], ...]:
    """Every integer constant, in the files' order: (name, value)."""
    out = []
    for name in FILES:
        for line in (IBM / name).read_text(encoding="utf-8").splitlines():
            m = _LINE.match(line)
            if m:
                v = _value(m.group(2))
                if v is not None:
                    out.append((m.group(1), v))
    return tuple(out)


def by_name() -> dict[str, int]:
    out: dict[str, int] = {}
    for name, v in constants():
        out.setdefault(name, v)
    return out


def family(prefixes: tuple[str, ...]) -> dict[int, str]:
    """value -> name for the constants a family's prefixes (or exact names) select; the first
    name IBM gives a value wins; range markers (``_FIRST`` / ``_LAST`` pairs) and lengths,
    versions and StrucIds are not values of the family."""
    names = [(n, v) for n, v in constants() if any(n == p or (p.endswith("_") and
                                                               n.startswith(p))
                                                    for p in prefixes)]
    markers = {n for n, _ in names if n.endswith("_FIRST") and n[:-6] + "_LAST" in
               {m for m, _ in names}}
    markers |= {m[:-6] + "_LAST" for m in markers}
    out: dict[int, str] = {}
    for n, v in names:
        if n in markers or re.search(r"_(LENGTH|VERSION)(_\d+)?$|_CURRENT_", n):
            continue
        out.setdefault(v, n)
    return out


PARAMETER_PREFIXES = ("MQIA_", "MQCA_", "MQIACF_", "MQCACF_", "MQIACH_", "MQCACH_", "MQBACF_",
                      "MQGACF_", "MQIAMO_", "MQIAMO64_", "MQCAMO_")


def parameters() -> dict[int, str]:
    """PCF parameter id -> name; where two families share a number the first family of
    ``PARAMETER_PREFIXES`` wins (then the first name IBM gives it)."""
    out: dict[int, str] = {}
    for prefix in PARAMETER_PREFIXES:
        for n, v in constants():
            if n.startswith(prefix) and not n.endswith(("_FIRST", "_LAST")) \
                    and "_LAST_USED" not in n:
                out.setdefault(v, n)
    return dict(sorted(out.items()))


def _table(name: str, items: dict[int, str], indent: str) -> list[str]:
    lines, line = [], indent
    for v, n in sorted(items.items()):
        item = f" {v}: {n!r},"
        if len(line) + len(item) > 100:
            lines.append(line)
            line = indent
        line += item
    return [*lines, line]


def tables() -> str:
    """The generated part of ``pcf_names``: ``PARAMETERS`` and ``VALUES``."""
    from mqtool.formats.mq.pcf_names import FAMILIES, IN_MEANINGS

    out = ["PARAMETERS: dict[int, str] = {"]
    out += [f"    {v}: {n!r}," for v, n in parameters().items()]
    out += ["}", "", "VALUES: dict[str, dict[int, str]] = {"]
    for key, prefixes in FAMILIES.items():
        if key in IN_MEANINGS:
            continue
        table = family(prefixes)
        if not table:
            raise SystemExit(f"family {key}: no constants for {prefixes}")
        out += [f"    {key!r}: {{", *_table(key, table, "       "), "    },"]
    out.append("}")
    return "\n".join(out) + "\n"


def main() -> None:
    """``--write``: replace the generated tables in ``pcf_names.py``; else print them."""
    text = tables()
    if "--write" not in sys.argv:
        print(text, end="")
        return
    target = Path(__file__).resolve().parents[3] / "mqtool" / "formats" / "mq" / "pcf_names.py"
    src = target.read_text()
    head, _, rest = src.partition("PARAMETERS: dict[int, str] = {")
    _params, _, rest = rest.partition("\n}\n")
    middle, _, rest = rest.partition("VALUES: dict[str, dict[int, str]] = {")
    _values, _, tail = rest.partition("\n}\n")
    params_text, _, values_text = text.partition("\n\nVALUES")
    target.write_text(head + params_text + "\n" + middle + "VALUES" + values_text + tail)


if __name__ == "__main__":
    sys.exit(main())
