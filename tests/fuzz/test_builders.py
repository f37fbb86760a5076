"""Every ``--from`` builder on request documents with wrong types and huge numbers: the
library raises only ``MqtoolError`` subclasses (a ``BuildError`` naming the field), the
command line exits 0 or 1, never 70, and leaves no output when it refuses."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import strategies as st

from mqtool import api
from mqtool.errors import MqtoolError
from mqtool.formats.urb.build import HEADER_FIELDS, MESSAGE_KEYS, URBI_DATA_KEYS, URBI_FIELDS
from tests.fuzz.strategies import check_cli, documents, json_values, run_fuzz, write_temp
from tests.helpers import TESTDATA, mq, seed_bytes


def _decoded(fmt: str, rel: str) -> dict[str, Any]:
    return api.decode(fmt, seed_bytes(rel))[0].to_json(False)


URB_GOOD = [json.loads((TESTDATA / "urb/synthetic/close-two.request.json").read_text()),
            {"type": "stat", "snam": "SUB1"},
            {"type": "inst", "dbid": 10006, "fnr": 9, "isns": ["1-5", 7]},
            _decoded("urb", "urb/inst-employee.request.dump"),
            _decoded("urb", "urb/status.request.dump")]
URB_KEYS = sorted({"type", "urbis", "format", "elements", "errors", *URBI_FIELDS, *URBI_DATA_KEYS,
                   *HEADER_FIELDS, *MESSAGE_KEYS})
MATQMSG_GOOD = [{"selection_type": "keyed", "key_relationship": "=", "key": "CUST0001",
                 "key_bytes": 16, "text_bytes": 32, "mode": "concurrent"},
                _decoded("matqmsg", "matqmsg/keyed-eq.selection.synthetic.dump")]
MATQMSG_KEYS = ["selection_type", "key_relationship", "key_bytes", "text_bytes", "mode", "key",
                "key_hex", "elements", "format"]
SAS_GOOD = [{"message": "m", "attachments": [{"type": "binary", "path": str(TESTDATA / "sas/mytext.txt")}]},
            {"message": "m", "original_msgtype": 8, "original_correlid": "00" * 24,
             "attachments": [{"type": "text", "path": str(TESTDATA / "sas/mytext.txt"),
                              "name": "d:\\mytext.txt", "description": "t"}]}]
SAS_KEYS = ["message", "attachments", "original_msgtype", "original_correlid", "description",
            "type", "path", "name", "version"]


@st.composite
def spoiled_elements(draw: st.DrawFn, good: list[dict[str, Any]]) -> dict[str, Any]:
    """A decoded unit (``decode --json``) with one field of one element replaced."""
    doc = copy.deepcopy(draw(st.sampled_from([g for g in good if "elements" in g])))
    el = draw(st.sampled_from(doc["elements"]))
    target = el["fields"] if isinstance(el.get("fields"), dict) and draw(st.booleans()) else el
    target[draw(st.sampled_from(sorted(target)))] = draw(json_values())
    return doc


def requests(keys: list[str], good: list[dict[str, Any]]) -> st.SearchStrategy[Any]:
    return st.one_of(documents(keys, good), spoiled_elements(good)) if any(
        "elements" in g for g in good) else documents(keys, good)


def _library(fmt: str) -> Any:
    def prop(doc: Any) -> None:
        try:
            out = api.build(fmt, doc)
        except MqtoolError:
            return
        assert isinstance(out, bytes)
    return prop


@pytest.mark.parametrize(("fmt", "keys", "good"), [("urb", URB_KEYS, URB_GOOD),
                                                   ("matqmsg", MATQMSG_KEYS, MATQMSG_GOOD)])
def test_builder_raises_only_mqtool_errors(fmt: str, keys: list[str], good: list[dict[str, Any]],
                                           fuzz_examples: int) -> None:
    run_fuzz(fuzz_examples, _library(fmt), requests(keys, good))




@pytest.mark.parametrize(("argv", "keys", "good"), [
    (["build-request", "urb"], URB_KEYS, URB_GOOD),
    (["build-request", "matqmsg"], MATQMSG_KEYS, MATQMSG_GOOD),
    (["build-request", "sas-attachment"], SAS_KEYS, SAS_GOOD),
], ids=["urb", "matqmsg", "sas-attachment"])
def test_from_never_crashes(argv: list[str], keys: list[str], good: list[dict[str, Any]],
                            fuzz_examples: int) -> None:
    def prop(doc: Any) -> None:
        f = write_temp(json.dumps(doc, allow_nan=True), ".json")
        out = f.with_suffix(".out")
        try:
            cmd = [*argv, "--from", str(f), "-o", str(out)]
            r = mq(*cmd)
            check_cli(r, cmd)
            assert r.status in (0, 1), r.stderr
            assert (r.status == 0) == out.exists(), "output only when built"
        finally:
            f.unlink()
            out.unlink(missing_ok=True)

    run_fuzz(max(fuzz_examples // 2, 5), prop, requests(keys, good))


@pytest.mark.parametrize(("doc", "message"), [  # issue 12 F6 (urb): exit 70 before
    ('{"format":"urb","elements":0,"errors":[]}', "urb: elements: must be a list, not int"),
    ('{"format":"urb","elements":[],"errors":1.5}', "urb: errors: must be a list, not float"),
    ('{"format":"urb","codepage":-1,"elements":[],"errors":[]}', "urb: codepage: unknown code page '-1'"),
    ('{"format":"urb","codepage":"cp037\\u0000","elements":[],"errors":[]}',
     "urb: codepage: unknown code page 'cp037\\x00'"),
    ('{"format":"urb","codepage":"utf-8","elements":[],"errors":[]}', "is not single-byte"),
    ('{"format":"urb","elements":[{"type":"URBH","fields":"x"}],"errors":[]}',
     "urb: elements[0].fields: must be a mapping of field names, not str"),
])
def test_urb_from_type_confusion(doc: str, message: str) -> None:
    f = write_temp(doc, ".json")
    try:
        r = mq("build-request", "urb", "--from", str(f))
    finally:
        f.unlink()
    assert r.status == 1 and message in r.stderr, r.stderr
