"""A missing optional dependency is an environment problem: one line naming the extra that
installs it (``pip install 'mqtool[spark]'``, ``[view]``, ``[sas]``, ``[pcap]``), exit
status 4, nothing written, never exit 70.

Each test runs mqtool in a subprocess whose ``sitecustomize`` hides the modules (an import
hook raising ``ModuleNotFoundError`` for them), as a core install without the extra would.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mqtool.errors import EXTRAS, ExitStatus, MissingExtraError, missing_extra
from tests.helpers import ROOT, TESTDATA, seed_bytes

HIDER = '''
import os, sys
HIDDEN = {n for n in os.environ.get("MQTOOL_TEST_HIDE", "").split(",") if n}


class Hide:
    """A finder that finds nothing for the hidden packages (as if not installed)."""

    def __init__(self, finder):
        self.finder = finder

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            return None
        return self.finder.find_spec(name, path, target)

    def __getattr__(self, name):
        return getattr(self.finder, name)


sys.meta_path[:] = [Hide(f) for f in sys.meta_path]
'''


@pytest.fixture(scope="module")
def hider(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("hide")
    (d / "sitecustomize.py").write_text(HIDER)
    return d


def run(hider: Path, hide: str, *args: object, cwd: Path | None = None,
        env: dict[str, str] | None = None, code: str | None = None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, **(env or {}), "MQTOOL_TEST_HIDE": hide,
         "PYTHONPATH": os.pathsep.join([str(hider), str(ROOT)])}
    argv = ["-c", code] if code else ["-m", "mqtool", *map(str, args)]
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=e,
                          cwd=cwd, timeout=120)


def test_the_hider_hides(hider: Path) -> None:
    r = run(hider, "pyspark", code="import importlib.util; print(importlib.util.find_spec('pyspark'))\n"
                                    "import pyspark")
    assert r.stdout == "None\n"
    assert r.returncode == 1 and "ModuleNotFoundError: No module named 'pyspark'" in r.stderr


@pytest.fixture
def rec_bin(tmp_path: Path) -> Path:
    f = tmp_path / "rec.bin"
    f.write_bytes(seed_bytes("csq1logp/hello-2seg.dump"))
    return f


def _java(tmp_path: Path, version: str) -> Path:
    """A JAVA_HOME whose bin/java says it is ``version``."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2024-01-16' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    return tmp_path / "jdk"


@pytest.mark.parametrize("command", [["spark-extract"], ["spark-extract", "urb"]])
def test_spark_extract_without_pyspark(command: list[str], hider: Path, rec_bin: Path,
                                       tmp_path: Path) -> None:
    """The README's core install (no pyspark): one line, exit 4, no output directory."""
    out = tmp_path / "out"
    r = run(hider, "pyspark,py4j", *command, rec_bin, "-o", out,
            env={"JAVA_HOME": str(_java(tmp_path, "17.0.2"))})
    assert r.returncode == ExitStatus.ENVIRONMENT, r.stderr
    assert r.stderr == ("mqtool: spark-extract needs pyspark, which is not installed: "
                        "pip install 'mqtool[spark]'\n")
    assert r.stdout == "" and not out.exists()


def test_java_missing_or_old_is_an_environment_error_without_pyspark(hider: Path, rec_bin: Path,
                                                                     tmp_path: Path) -> None:
    """``test_java_missing_or_old_is_an_environment_error`` in an install without pyspark:
    Java is checked first, the same lines as with it."""
    r = run(hider, "pyspark,py4j", "spark-extract", rec_bin, "-o", tmp_path / "o",
            env={"JAVA_HOME": str(tmp_path)})
    assert r.returncode == 4 and "needs Java 17 or newer" in r.stderr and "has no bin/java" in r.stderr
    r = run(hider, "pyspark,py4j", "spark-extract", rec_bin, "-o", tmp_path / "o",
            env={"JAVA_HOME": str(_java(tmp_path, "11.0.2"))})
    assert r.returncode == 4 and "is Java 11" in r.stderr and len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_view_without_textual(hider: Path, tmp_path: Path) -> None:
    r = run(hider, "textual", "view", TESTDATA / "sas" / "mytext-zos.qmsg")
    assert r.returncode == ExitStatus.ENVIRONMENT, r.stderr
    assert r.stderr == "mqtool: view needs Textual: pip install 'mqtool[view]'\n"


@pytest.fixture(scope="module")
def dataset_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.helpers import mq

    d = tmp_path_factory.mktemp("ds")
    (d / "class.csv").write_text("NAME,AGE\nALFRED,14\nALICE,13\n")
    r = mq("build-request", "sas-attachment", "--message", "m", "--attach",
           f"dataset:{d / 'class.csv'}=SASHELP.CLASS", "-o", d / "set.qmsg")
    assert r.status == 0, r.stderr
    return d / "set.qmsg"


def test_sas_transport_without_pyreadstat(hider: Path, dataset_dump: Path, tmp_path: Path) -> None:
    """The data set is written as Parquet and CSV; the .xpt needs pyreadstat: one line on
    stderr naming the extra, exit 4; with --no-xpt nothing is missing (exit 0)."""
    r = run(hider, "pyreadstat", "reassemble", "attachment", dataset_dump, "-o", tmp_path / "o",
            "-q")
    assert r.returncode == ExitStatus.ENVIRONMENT, r.stderr
    assert r.stderr == ("mqtool: writing SAS transport (.xpt) files needs pyreadstat, which is not "
                        "installed: pip install 'mqtool[sas]' (or --no-xpt); the Parquet and CSV "
                        "files were written\n")
    written = sorted(p.name for p in (tmp_path / "o").rglob("CLASS.*"))
    assert written == ["CLASS.csv", "CLASS.parquet"]
    r = run(hider, "pyreadstat", "reassemble", "attachment", dataset_dump, "-o", tmp_path / "n",
            "-q", "--no-xpt")
    assert r.returncode == 0 and r.stderr == ""


def test_pcap_reader_without_dpkt(hider: Path) -> None:
    """Reading a capture needs the pcap extra (the library says so as an EnvError: exit 4
    in every command that reads captures)."""
    code = ("import io\nfrom mqtool.formats.mq.capture.packets import CaptureFile\n"
            "try:\n    CaptureFile('x.pcap', b'', io.BytesIO())\n"
            "except Exception as e:\n    print(type(e).__name__, e.status, e)\n")
    r = run(hider, "dpkt,pcapng", code=code)
    assert r.stdout == ("EnvError 4 reading pcap / pcapng captures needs dpkt and python-pcapng: "
                        "pip install 'mqtool[pcap]'\n"), r.stderr


def test_a_missing_module_anywhere_is_exit_4_naming_its_extra(hider: Path, dataset_dump: Path,
                                                              tmp_path: Path) -> None:
    """The one rule in ``cli.run``: an ``ImportError`` of an optional module, wherever it
    is raised, is one line naming the extra (here pandas, which pyreadstat imports)."""
    r = run(hider, "pandas", "reassemble", "attachment", dataset_dump, "-o", tmp_path / "o", "-q")
    assert r.returncode == ExitStatus.ENVIRONMENT, r.stderr
    assert r.stderr.splitlines()[-1] == ("mqtool: writing SAS transport (.xpt) files needs pandas, "
                                         "which is not installed: pip install 'mqtool[sas]'")
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


@pytest.mark.parametrize("module", sorted(EXTRAS))
def test_every_optional_module_has_an_extra_in_pyproject(module: str) -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    err = missing_extra(ModuleNotFoundError("x", name=f"{module}.sub"), "")
    assert isinstance(err, MissingExtraError) and err.status == ExitStatus.ENVIRONMENT
    assert err.extra in extras and f"pip install 'mqtool[{err.extra}]'" in str(err)
    assert missing_extra(ModuleNotFoundError("x", name="json"), "") is None
    assert missing_extra(ValueError("x"), "") is None
