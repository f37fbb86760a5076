"""Hypothesis strategies for the fuzz suite: seed inputs mutated the way damage happens
(bytes flipped, lengths set to extremes, cut, spliced, repeated), random bytes, and JSON
request documents with wrong types and huge numbers."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.helpers import TESTDATA, seed_bytes

# values that break length arithmetic: extremes of signed/unsigned halfwords and fullwords,
# EBCDIC and ASCII blanks
INTERESTING = [b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00",
               b"\x00\x00\x00\x01", b"\x00\x00\xff\xff", b"\x40\x40\x40\x40", b"\x20\x20\x20\x20",
               b"\xff\xfe", b"\x00\x10", b"\x01\xa3"]


def run_fuzz(examples: int, prop: Callable[..., None], *strategies: st.SearchStrategy[Any]) -> None:
    """Run ``prop`` under hypothesis with the suite's budget: deterministic in the ordinary
    suite (the same examples each run), random with ``--fuzz-long``."""
    from hypothesis import given

    from tests.conftest import FUZZ_EXAMPLES

    long = examples > FUZZ_EXAMPLES
    settings(max_examples=examples, deadline=None, database=None, derandomize=not long,
             suppress_health_check=list(HealthCheck), print_blob=long)(given(*strategies)(prop))()


def seeds(*patterns: str) -> list[bytes]:
    """The bytes of testdata files: ``*.dump`` read back as dump text, others as they are."""
    out = []
    for pattern in patterns:
        for p in sorted(TESTDATA.glob(pattern)):
            rel = p.relative_to(TESTDATA).as_posix()
            out.append(seed_bytes(rel) if p.suffix == ".dump" else p.read_bytes())
    assert out, f"no seeds for {patterns}"
    return out


def seed_texts(*patterns: str) -> list[str]:
    return [p.read_text(encoding="utf-8") for pattern in patterns for p in sorted(TESTDATA.glob(pattern))]


@st.composite
def mutated(draw: st.DrawFn, pool: list[bytes], max_ops: int = 4) -> bytes:
    """One seed, damaged by up to ``max_ops`` operations."""
    data = bytearray(draw(st.sampled_from(pool)))
    for _ in range(draw(st.integers(0, max_ops))):
        n = len(data)
        op = draw(st.sampled_from(["flip", "set", "interesting", "cut", "insert", "delete", "dup"]))
        at = draw(st.integers(0, max(n - 1, 0)))
        if op == "flip" and n:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and n:
            data[at] = draw(st.integers(0, 255))
        elif op == "interesting":
            v = draw(st.sampled_from(INTERESTING))
            data[at:at + len(v)] = v
        elif op == "cut":
            del data[at:]
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 16))]
        elif op == "dup" and n:
            end = min(n, at + draw(st.integers(1, 64)))
            data[at:at] = data[at:end]
    return bytes(data)


def damaged(pool: list[bytes]) -> st.SearchStrategy[bytes]:
    """Mutated seeds, every prefix of a seed, and random bytes."""
    prefixes = st.sampled_from(pool).flatmap(lambda b: st.integers(0, len(b)).map(lambda k: b[:k]))
    return st.one_of(mutated(pool), prefixes, st.binary(max_size=600))


@st.composite
def mutated_text(draw: st.DrawFn, pool: list[str], max_ops: int = 4) -> str:
    """Dump text with characters replaced, lines cut, joined, duplicated or dropped."""
    lines = draw(st.sampled_from(pool)).splitlines()
    for _ in range(draw(st.integers(0, max_ops))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        op = draw(st.sampled_from(["char", "cut", "join", "dup", "drop", "digits", "junk"]))
        if op == "char" and line:
            k = draw(st.integers(0, len(line) - 1))
            lines[i] = line[:k] + draw(st.sampled_from("0123456789ABCDEFabcdefXZ*|: .-\t\r\u00a0é"
                                                       )) + line[k + 1:]
        elif op == "cut":
            lines[i] = line[:draw(st.integers(0, len(line)))]
        elif op == "join" and i + 1 < len(lines):
            lines[i:i + 2] = [line + " " + lines[i + 1]]
        elif op == "dup":
            lines.insert(i, line)
        elif op == "drop":
            del lines[i]
        elif op == "digits":
            lines[i] = line + " " + "9" * draw(st.integers(1, 5000))
        else:
            lines[i] = draw(st.text(max_size=80))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n"]))


# ------------------------------------------------------------------ JSON with wrong types

HUGE = [2**31, 2**31 - 1, -(2**31) - 1, 2**63, 2**64, 10**30, -1, 1.5, 1e300, float("inf")]
scalars = st.one_of(st.none(), st.booleans(), st.sampled_from(HUGE), st.integers(),
                    st.floats(allow_nan=False), st.text(max_size=20),
                    st.sampled_from(["", "zz", "cp037\u0000", "utf-8", "hex", "X'C1'", "-1", "now"]))


def json_values(depth: int = 2) -> st.SearchStrategy[Any]:
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
        max_leaves=8)


def documents(keys: list[str], good: list[dict[str, Any]]) -> st.SearchStrategy[Any]:
    """Request documents: a good one with some values replaced by anything, keys of the
    format with values of any type, and arbitrary JSON."""
    def spoil(doc: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        return st.dictionaries(st.sampled_from(sorted(doc) or keys), json_values(), max_size=3).map(
            lambda bad: {**doc, **bad})
    keyed = st.dictionaries(st.sampled_from(keys), json_values(), max_size=6)
    return st.one_of(st.sampled_from(good).flatmap(spoil), keyed, json_values())


# ------------------------------------------------------------------ command-line checks

LOCATED = re.compile(r"offset|line \d+|column \d+|X'[0-9A-F]+'|byte \d+|record \d+|message \d+")


def check_cli(result: Any, argv: list[str]) -> None:  # tests.helpers.Result
    """The command-line properties: never 70, never a traceback; with status 2 (input not
    decoded) every error line names where (an offset or a line)."""
    err = result.stderr
    assert result.status != 70, f"{argv}: {err}"
    assert "Traceback" not in err and "internal error" not in err, f"{argv}: {err}"
    if result.status == 2:
        for line in err.splitlines():
            assert LOCATED.search(line), f"{argv}: error names no offset or line: {line!r}"


def write_temp(data: bytes | str, suffix: str = ".bin") -> Path:
    import tempfile

    fd, name = tempfile.mkstemp(suffix=suffix, prefix="mqfuzz-")
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return Path(name)


__all__ = ["check_cli", "damaged", "documents", "json_values", "mutated", "mutated_text", "run_fuzz",
           "seed_texts", "seeds", "write_temp"]
