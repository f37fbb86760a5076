"""PCF names against IBM's constants (the text of IBM's CMQC / CMQCFC / CMQXC constant
files in testdata/mq/ibm, MQ 9.4): parameter ids, command codes and every value family;
then the names in decoded PCF messages and on MQCIH / MQCFH fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqtool.formats.mq import decode as codec
from mqtool.formats.mq import meanings as m
from mqtool.formats.mq.chain import walk
from mqtool.formats.mq.pcf_names import (
    COMMANDS,
    FAMILIES,
    FAMILY_OF,
    IN_MEANINGS,
    MASKS,
    PARAMETER_FAMILIES,
    PARAMETERS,
    VALUES,
    family_meaning,
    value_meaning,
)
from tests.formats.mq import ibm_constants as ibm

VECTORS = Path(__file__).resolve().parents[3] / "testdata" / "mq"
MANIFEST = json.loads((VECTORS / "vectors.json").read_text())
IBM = ibm.by_name()


def test_the_vendored_constants_are_ibms() -> None:
    assert len(ibm.constants()) > 4000
    assert (IBM["MQRQ_CONN_NOT_AUTHORIZED"], IBM["MQCMD_Q_MGR_EVENT"], IBM["MQQT_LOCAL"]) == \
        (1, 44, 1)


def test_parameter_ids_are_ibms() -> None:
    for pid, name in PARAMETERS.items():
        assert IBM.get(name) == pid, name
    assert ibm.parameters() == PARAMETERS
    assert PARAMETERS[IBM["MQCACF_USER_IDENTIFIER"]] == "MQCACF_USER_IDENTIFIER"


def test_command_codes_are_ibms() -> None:
    assert ibm.family(("MQCMD_",)) == COMMANDS
    assert COMMANDS[221] == "MQCMD_INQUIRE_ERROR_LOG"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_value_family_is_ibms(family: str) -> None:
    theirs = ibm.family(FAMILIES[family])
    assert theirs, family
    if family == "MQRO":  # report options: meanings names the options and their bits
        assert {n: b for _mask, b, n in m.MQRO} == {n: IBM[n] for _mask, _b, n in m.MQRO}
        assert all(family_meaning(family, IBM[n]) == n for _mask, _b, n in m.MQRO)
    elif family in IN_MEANINGS:  # declared once, in meanings; checked value by value
        assert {v: family_meaning(family, v) for v in theirs} == theirs
    else:
        assert VALUES[family] == theirs


@pytest.mark.parametrize(("parameter", "family"), sorted(PARAMETER_FAMILIES.items()))
def test_every_parameter_family_pairs_ibm_names(parameter: str, family: str) -> None:
    assert parameter in IBM and PARAMETERS[IBM[parameter]] == parameter
    assert FAMILY_OF[IBM[parameter]] == family and family in FAMILIES


# the families the issue names, each on the parameter (or field) that carries it
@pytest.mark.parametrize(("parameter", "value", "name"), [
    ("MQIACF_REASON_QUALIFIER", "MQRQ_CONN_NOT_AUTHORIZED", "MQRQ_CONN_NOT_AUTHORIZED"),
    ("MQIACF_REASON_QUALIFIER", "MQRQ_CHANNEL_STOPPED_ERROR", "MQRQ_CHANNEL_STOPPED_ERROR"),
    ("MQIA_APPL_TYPE", "MQAT_JAVA", "MQAT_JAVA"),
    ("MQIACF_EVENT_APPL_TYPE", "MQAT_USER", "MQAT_USER"),
    ("MQIA_Q_TYPE", "MQQT_REMOTE", "MQQT_REMOTE"),
    ("MQIACF_OBJECT_TYPE", "MQOT_CHANNEL", "MQOT_CHANNEL"),
    ("MQIA_DEFINITION_TYPE", "MQQDT_PERMANENT_DYNAMIC", "MQQDT_PERMANENT_DYNAMIC"),
    ("MQIACF_EVENT_ORIGIN", "MQEVO_CONSOLE", "MQEVO_CONSOLE"),
    ("MQIACF_COMMAND", "MQCMD_DELETE_Q", "MQCMD_DELETE_Q"),
    ("MQIACH_CHANNEL_TYPE", "MQCHT_SVRCONN", "MQCHT_SVRCONN"),
    ("MQIACH_CHANNEL_STATUS", "MQCHS_RETRYING", "MQCHS_RETRYING"),
    ("MQIA_PLATFORM", "MQPL_UNIX", "MQPL_AIX"),  # one value, the first name IBM gives it
    ("MQIA_AUTHORITY_EVENT", "MQEVR_ENABLED", "MQEVR_ENABLED"),
    ("MQIACF_Q_ATTRS", "MQCA_Q_NAME", "MQCA_Q_NAME"),
    ("MQIACF_PARAMETER_ID", "MQIA_MAX_Q_DEPTH", "MQIA_MAX_Q_DEPTH"),
    ("MQIACF_REASON_CODE", "MQRC_NOT_AUTHORIZED", "MQRC_NOT_AUTHORIZED"),
])
def test_value_names(parameter: str, value: str, name: str) -> None:
    assert value_meaning(IBM[parameter], IBM[value]) == name


def test_masks_show_their_flags() -> None:
    opts = IBM["MQOO_INPUT_SHARED"] | IBM["MQOO_FAIL_IF_QUIESCING"]
    assert value_meaning(IBM["MQIACF_OPEN_OPTIONS"], opts) == \
        "MQOO_INPUT_SHARED + MQOO_FAIL_IF_QUIESCING"
    gmo = IBM["MQGMO_SYNCPOINT"] | IBM["MQGMO_WAIT"] | 1 << 30
    assert value_meaning(IBM["MQIACF_GET_OPTIONS"], gmo) == "MQGMO_WAIT + MQGMO_SYNCPOINT + X'40000000'"
    assert family_meaning("MQCADSD", IBM["MQCADSD_SEND"] | IBM["MQCADSD_MSGFORMAT"]) == \
        "MQCADSD_SEND + MQCADSD_MSGFORMAT"
    assert "MQOO" in MASKS and "MQQT" not in MASKS


def test_filter_operators_and_cfh_control() -> None:
    assert {family_meaning("MQCFOP", IBM[n]) for n in ("MQCFOP_GREATER", "MQCFOP_LIKE")} == \
        {"MQCFOP_GREATER", "MQCFOP_LIKE"}
    assert family_meaning("MQCFC", IBM["MQCFC_LAST"]) == "MQCFC_LAST"


@pytest.mark.parametrize("name", sorted(n for n in MANIFEST if n.startswith("event.")))
def test_decoded_event_names_its_values(name: str) -> None:
    body = (VECTORS / name).read_bytes()
    chain = walk(body, MANIFEST[name]["mqmd"])
    params = chain.pcf.parameters
    by = [(p["name"], p.get("meaning"), p.get("meanings"), p.get("operator_meaning"))
          for p in params]
    assert ("MQIACF_OPEN_OPTIONS", "MQOO_OUTPUT", None, None) in by
    assert ("MQIACF_Q_ATTRS", None, ["MQIA_APPL_TYPE", "MQIA_CODED_CHAR_SET_ID"], None) in by
    assert ("MQIACF_Q_ATTRS", None, ["", "MQIA_DEFINITION_TYPE"], None) in by
    assert params[-1]["operator_meaning"] == "MQCFOP_GREATER"
    group = next(p for p in params if p["name"] == "MQGACF_COMMAND_CONTEXT")
    assert group["parameters"][0]["meaning"] == "MQAT_JAVA"
    spans = {s.path: s.meaning for el in chain.pcf.elements for s in el.spans_deep()}
    assert "MQAT_JAVA" in spans.values() and "MQIA_APPL_TYPE" in spans.values()
    head = {s.name: s.meaning for s in chain.pcf.elements[0].spans}
    assert head["control"] == "MQCFC_LAST"
    unit = next(codec.decode(body, MANIFEST[name]["mqmd"])).to_json()
    assert unit["pcf"]["parameters"][2]["meaning"] == "MQOO_OUTPUT"


def test_cih_fields_show_their_names() -> None:
    from mqtool.formats.mq.layout import header_layout

    cih = header_layout("MQCIH", True, "cp500", 2)
    data = cih.build({"strucid": "CIH ", "version": 2, "struclength": 180,
                      "getwaitinterval": IBM["MQCGWI_DEFAULT"],
                      "outputdatalength": IBM["MQCODL_AS_INPUT"],
                      "adsdescriptor": IBM["MQCADSD_SEND"] | IBM["MQCADSD_RECV"],
                      "conversationaltask": IBM["MQCCT_YES"]})
    meanings = {s.name: s.meaning for s in cih.parse(data).spans}
    assert (meanings["getwaitinterval"], meanings["outputdatalength"], meanings["adsdescriptor"],
            meanings["conversationaltask"]) == ("MQCGWI_DEFAULT", "MQCODL_AS_INPUT",
                                                "MQCADSD_SEND + MQCADSD_RECV", "MQCCT_YES")
    assert m.MQCLT[1] == "MQCLT_PROGRAM"
