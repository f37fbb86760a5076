"""Fixtures of the view tests: seed paths and a generated CSQ1LOGP extract."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import TESTDATA

URB_DATA = TESTDATA / "urb" / "inst-color.data.dump"
URB_PROBLEM = TESTDATA / "urb" / "prior-transaction.request.dump"
SAS_QMSG = TESTDATA / "sas" / "class-zos.qmsg"
CSQ_2SEG = TESTDATA / "csq1logp" / "hello-2seg.dump"


@pytest.fixture(scope="session")
def extract_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An RDW-framed CSQ1LOGP extract of a few thousand records (generated, deterministic)."""
    from mqtool.testing import csq1logp_gen

    path = tmp_path_factory.mktemp("view") / "extract.rdw"
    spec = csq1logp_gen.Spec(count=3000, avg_data=200, multi_every=300, multi_size=40_000)
    csq1logp_gen.write(str(path), spec, "rdw")
    return path
