"""What ``build-request mq --from`` cannot rebuild is refused by its path in one line (status
1, a request with wrong values), never left out of the bytes; and what the PCF JSON does not
show (a StringLength longer than the text) can be given and is kept."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, mq

MQ = TESTDATA / "mq"


def _doc(name: str, *raw: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(mq("decode", "mq", "--json", *raw, MQ / name).stdout)
    return doc


def _refused(doc: Any, path: str) -> str:
    r = mq("build-request", "mq", "--from", "-", input=json.dumps(doc))
    assert r.status == ExitStatus.USAGE and not r.stdout, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert f"mqtool: mq: {path}: " in r.stderr, r.stderr
    return r.stderr


def test_an_unknown_field_of_a_header_is_refused() -> None:
    doc = _doc("dlh-tm.be.ascii.bin", "--raw")
    doc["elements"][0]["fields"]["reasn"] = 2051
    _refused(doc, "headers[0].fields.reasn")


def test_an_unknown_key_of_a_header_document_or_payload_is_refused() -> None:
    for where, path in ((lambda d: d["elements"][1], "headers[1].colour"),
                        (lambda d: d, "colour"), (lambda d: d["payload"], "payload.colour")):
        doc = _doc("dlh-tm.be.ascii.bin", "--raw")
        where(doc)["colour"] = "blue"
        _refused(doc, path)


def test_a_cut_header_is_not_rebuilt_whole(tmp_path: Any) -> None:
    cut = tmp_path / "cut.bin"
    cut.write_bytes((MQ / "dlh-tm.be.ascii.bin").read_bytes()[:100])  # MQDLH is 172 bytes
    doc = json.loads(mq("decode", "mq", "--json", "--raw", cut).stdout)
    assert "is 60 bytes but builds as 172" in _refused(doc, "headers[0].length")


@pytest.mark.parametrize(("edit", "path"), [
    (lambda p: p["header"].update(parametercount=9), "pcf.header.parametercount"),
    (lambda p: p["header"].update(struclength=40), "pcf.header.struclength"),
    (lambda p: p["parameters"][0].update(struclength=20), "pcf.parameters[0].struclength"),
    (lambda p: p["parameters"][0].update(stringlength=2), "pcf.parameters[0].stringlength"),
    (lambda p: p["parameters"][3].update(count=3), "pcf.parameters[3].count"),
    (lambda p: p["parameters"][8].update(parametercount=2), "pcf.parameters[8].parametercount"),
    (lambda p: p["parameters"][2].update(meaning="MQOO_INPUT_SHARED"),
     "pcf.parameters[2].meaning"),
    (lambda p: p["parameters"][1].update(value="NO.SUCH.Q  "), "pcf.parameters[1].value"),
    (lambda p: p["parameters"][8]["parameters"][0].update(type="MQCFXX"),
     "pcf.parameters[8].parameters[0].type"),
    (lambda p: p["parameters"][5].update(value="0G"), "pcf.parameters[5].value"),
    (lambda p: p["meanings"].update(command="MQCMD_INQUIRE_Q"), "pcf.meanings"),
])
def test_a_pcf_value_the_builder_does_not_make_is_refused(edit: Any, path: str) -> None:
    doc = _doc("event.be.ascii.bin")
    edit(doc["pcf"])
    _refused(doc, path)


def test_an_edit_beside_the_payload_bytes_is_refused_at_its_first_difference() -> None:
    doc = _doc("event.le.ascii.bin", "--raw")
    doc["pcf"]["parameters"][2]["value"] = 32
    assert "is not what payload.hex holds" in _refused(doc, "pcf.parameters[2].value")


def test_a_string_length_given_longer_than_the_text_is_kept() -> None:
    """The vectors' MQCFSL holds "AB" and "CD" in StringLength 4 (blank-padded): given that
    length, the PCF builder alone makes the vector's bytes."""
    for name in ("event.be.ascii.bin", "event.le.ascii.bin"):
        doc = _doc(name)
        sl = doc["pcf"]["parameters"][4]
        assert sl["type"] == "MQCFSL" and sl["value"] == ["AB", "CD"]
        sl["stringlength"] = 4
        built = mq("build-request", "mq", "--from", "-", input=json.dumps(doc))
        assert built.status == 0, built.stderr
        assert built.stdout == (MQ / name).read_bytes()


def test_a_pcf_payload_behind_a_header_is_built_from_pcf(tmp_path: Any) -> None:
    """A dead-lettered event: MQDLH (172 bytes), then the PCF payload in the Encoding the
    MQDLH announces; built from the JSON without payload bytes."""
    event = (MQ / "event.le.ascii.bin").read_bytes()
    made = mq("build-request", "mq", "--dlh", "reason=2051,destqname=Q", "--payload",
              MQ / "event.le.ascii.bin", "--format", "MQEVENT", "--encoding", "546")
    assert made.status == 0 and made.stdout.endswith(event), made.stderr
    body = tmp_path / "dlq-event.bin"
    body.write_bytes(made.stdout)
    doc = json.loads(mq("decode", "mq", "--json", body).stdout)
    assert [e["type"] for e in doc["elements"]] == ["MQDLH"] and "hex" not in doc["payload"]
    doc["pcf"]["parameters"][4]["stringlength"] = 4  # the MQCFSL's, as the vector has it
    built = mq("build-request", "mq", "--from", "-", input=json.dumps(doc))
    assert built.status == 0, built.stderr
    assert built.stdout == made.stdout
