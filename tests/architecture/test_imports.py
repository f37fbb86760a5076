"""The package's import graph: no cycles, and no arrow running up the layers.

Layers, bottom to top (ARCHITECTURE.md draws them):

    0 base      errors, tod, model, codepages, layout, compose/, codec, io/, render/
    1 formats   formats/<name>/ (a format may import ``formats.mq``, never another format)
    2 library   registry, api, testing/, catalog, scan, query
    3 shells    cli/, spark/, view/, __main__

The shells stand on one seam: they import ``api`` and ``registry`` (the library they
call), ``io`` (inputs and outputs), ``render`` (what they print), the base types their
values come in (``errors``, ``model``, ``codepages``, ``tod``, the package's version) and
one another; never a format package, the catalog or the declaration machinery
(``layout``, ``compose``, ``codec``): what they need of a format, ``api`` gives.

Every ``import`` statement counts, including those inside functions (lazy imports still
make a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "mqtool"

BASE = {"errors", "tod", "model", "codepages", "layout", "compose", "codec", "io", "render", "__init__"}
LIBRARY = {"registry", "api", "testing", "catalog", "scan", "query"}
SHELLS = {"cli", "spark", "view", "__main__"}


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PKG.rglob("*.py")}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The mqtool modules ``path`` imports (``from pkg import sub`` resolves to ``pkg.sub``)."""
    tree = ast.parse(path.read_text(), str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("mqtool"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mqtool"):
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in known else node.module)
    return out & known


def layer(mod: str) -> int:
    parts = mod.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    if top in BASE:
        return 0
    if top == "formats":
        return 1
    if top in LIBRARY:
        return 2
    if top in SHELLS:
        return 3
    raise AssertionError(f"{mod}: not in any layer; add it to tests/architecture/test_imports.py")


def format_of(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "formats" else None


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {m: imports_of(p, known) - {m} for m, p in mods.items()}


def test_every_module_has_a_layer() -> None:
    for mod in modules():
        layer(mod)


def test_no_arrow_runs_up_the_layers() -> None:
    wrong = []
    for mod, deps in graph().items():
        for dep in deps:
            if layer(dep) > layer(mod):
                wrong.append(f"{mod} -> {dep}")
    assert wrong == []


def test_formats_import_no_other_format_but_mq() -> None:
    wrong = []
    for mod, deps in graph().items():
        mine = format_of(mod)
        for dep in deps:
            theirs = format_of(dep)
            if mine and theirs and theirs != mine and theirs != "mq":
                wrong.append(f"{mod} -> {dep}")
    assert wrong == []


# what a shell may import: the seam (see the docstring)
SEAM = {"api", "registry", "io", "render", "errors", "model", "codepages", "tod", "__init__"}


def seam_breaks(g: dict[str, set[str]]) -> list[str]:
    """Imports from a shell module of anything but the seam and the shells."""
    wrong = []
    for mod, deps in g.items():
        if layer(mod) != 3:
            continue
        for dep in deps:
            top = dep.split(".")[1] if "." in dep else "__init__"
            if top not in SEAM and top not in SHELLS:
                wrong.append(f"{mod} -> {dep}")
    return sorted(wrong)


def test_shells_import_only_the_seam() -> None:
    assert seam_breaks(graph()) == []


def test_the_seam_rule_catches_a_shell_reaching_into_a_format() -> None:
    g = {"mqtool.cli.urb": {"mqtool.formats.urb.decode", "mqtool.api"},
         "mqtool.view.sources": {"mqtool.catalog", "mqtool.io.inputs", "mqtool.cli._common"},
         "mqtool.api": {"mqtool.formats.urb.decode"}}
    assert seam_breaks(g) == ["mqtool.cli.urb -> mqtool.formats.urb.decode",
                              "mqtool.view.sources -> mqtool.catalog"]


def test_no_import_cycles() -> None:
    g = graph()
    # a package imports its children only through explicit submodule imports; the edge
    # package -> child is real, child -> package is an edge to the package's __init__
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(g.get(m, ())):
            if state.get(d) == 1:
                cycles.append([*stack[stack.index(d):], d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m)
    assert cycles == []


@pytest.mark.parametrize("text, expected", [
    ("from mqtool.formats.urb import layout\n", {"mqtool.formats.urb.layout"}),
    ("def f():\n    from mqtool.errors import DecodeError\n", {"mqtool.errors"}),
    ("import mqtool.model\n", {"mqtool.model"}),
])
def test_the_import_reader_sees_every_form(tmp_path: Path, text: str, expected: set[str]) -> None:
    f = tmp_path / "m.py"
    f.write_text(text)
    assert imports_of(f, set(modules())) == expected


def test_the_checks_catch_a_violation() -> None:
    assert layer("mqtool.layout") < layer("mqtool.formats.urb.decode") < layer("mqtool.api")
    assert layer("mqtool.api") < layer("mqtool.cli.urb")
    assert format_of("mqtool.formats.sas.reassemble") == "sas"
