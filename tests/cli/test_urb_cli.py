"""``mqtool decode urb`` and ``mqtool build-request urb`` end to end (in-process CLI)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.cli import cli
from mqtool.cli._common import Env
from mqtool.render.hexdump import dump_bytes
from tests.helpers import TESTDATA, mq, seed_bytes

SEED_COMMANDS = {
    "close-destination.request": "close --token TOKEN001 --rnam BROUT1 --dnam BROUT2 --sender CLOSDEST "
                                 "--msnr 16 --stck BBBBBBBBBBBBBBBB",
    "inst-color.request": "inst --token TOKENTOK --rnam OUT1 --inam ICOLOR --dbid 10006 --fnr 4 "
                          "--sender Admin",
    "inst-employee.request": "inst --token EMPLTOKN --rnam OUT2 --inam IEMPLAA --dbid 10006 --fnr 9 "
                             "--acode 819 --wcode 4091 --arc 9 --selection 2001100020011100 "
                             "--charset ascii --byte-order little --sender Admin",
    "status.request": "stat --token TOKTOK --snam COLOR --sender Admin",
    "prior-transaction.request": "tran --token TOKTOK --rnam OUT3 --snam COLOR --tsnr 0 --sender Admin",
}


def corrected(name: str) -> bytes:
    """The seed's bytes, with the prior-transaction request's 'TRAM' corrected to 'TRAN'."""
    data = seed_bytes(f"urb/{name}.dump")
    return data[:0x63] + b"\xd5" + data[0x64:] if name.startswith("prior") else data


@pytest.mark.parametrize("name", list(SEED_COMMANDS))
def test_build_the_seeds_requests_from_options(name: str) -> None:
    res = mq("build-request", "urb", *SEED_COMMANDS[name].split())
    assert res.status == 0 and res.stdout == corrected(name)
    if name.startswith("prior"):  # blank destination and transaction 0, as the seed's dump
        assert res.stderr.splitlines() == [
            "mqtool: warning: urbi[0].urbidnam: no destination (--dnam) for the resent transaction; "
            "the manual says it is required, its example leaves it blank",
            "mqtool: warning: urbi[0].urbitsnr: transaction number 0 (--tsnr): no transaction "
            "normally has this number"]
    else:
        assert res.stderr == ""


@pytest.mark.parametrize("name", list(SEED_COMMANDS))
def test_decode_json_then_build_from_it_is_byte_exact(name: str, in_root: None) -> None:
    decoded = mq("decode", "urb", "--hex", f"testdata/urb/{name}.dump", "--json")
    assert decoded.status == 0 and len(decoded.text.splitlines()) == 1
    args = ["tran"] if name.startswith("prior") else []  # corrects the seed's TRAM
    rebuilt = mq("build-request", "urb", *args, "--from", "-", input=decoded.stdout)
    assert rebuilt.status == 0 and rebuilt.stdout == corrected(name)


def test_build_from_decoded_tram_without_a_type_is_refused(in_root: None) -> None:
    decoded = mq("decode", "urb", "--hex", "testdata/urb/prior-transaction.request.dump", "--json")
    res = mq("build-request", "urb", "--from", "-", input=decoded.stdout)
    assert res.status == 1 and res.stdout == b""
    assert res.stderr == ("mqtool: urb: urbi[0].urbirt: 'TRAM' is not a request type (open, "
                          "close, inst, tran, stat); give the type on the command line to correct it\n")


def test_edit_a_decoded_request_and_rebuild(in_root: None) -> None:
    decoded = mq("decode", "urb", "--hex", "testdata/urb/status.request.dump", "--json")
    res = mq("build-request", "urb", "--from", "-", "--dnam", "OUT1", "--charset", "ascii",
             input=decoded.stdout)
    again = mq("decode", "urb", "--json", "-", input=res.stdout)
    j = json.loads(again.text)
    assert j["codepage"] == "latin-1" and j["elements"][1]["fields"]["urbidnam"] == "OUT1"
    assert j["elements"][1]["fields"]["urbisnam"] == "COLOR"


@pytest.mark.parametrize(("args", "message"), [
    (["close", "--dnam", "TOOLONGNAME"],
     "mqtool: urb: urbi[0].urbidnam (--dnam): 'TOOLONGNAME' is 11 characters, the field holds 8"),
    (["inst", "--inam", "I", "--dbid", "1", "--fnr", "2", "--rnam", "R", "--isn", "5", "--isn", "5"],
     "mqtool: urb: urbi[0].isn[1]: ISN 5 is also item 0 (rule 1: no ISN more than once); the server "
     "would answer response 131 subcode 16"),
    (["open", "--dnam", "D", "--fnr", "9"],
     "mqtool: urb: urbi[0].urbifnr (--fnr): an OPND request does not allow it"),
    (["stat", "--snam", "S", "--dbid", "70000"],
     "mqtool: urb: urbi[0].urbidbid (--dbid): 70000 does not fit: the field takes 0..65535"),
    ([], "Error: give a request type (open, close, inst, tran, stat), reply, data or --from FILE"),
    (["bogus"], "Error: Invalid value for '[open|close|inst|tran|stat|reply|data]': 'bogus' is not one of"),
])
def test_refusals_are_one_line_and_status_1(args: list[str], message: str) -> None:
    res = mq("build-request", "urb", *args)
    assert res.status == 1 and res.stdout == b""
    assert message in res.stderr and "Traceback" not in res.stderr
    if message.startswith("mqtool:"):
        assert res.stderr == message + "\n"


def test_request_files(in_root: None) -> None:
    yaml_req = mq("build-request", "urb", "--from", "testdata/urb/synthetic/inst-two-files.request.yaml")
    assert yaml_req.status == 0 and len(yaml_req.stdout) == 296
    json_req = mq("build-request", "urb", "--from", "testdata/urb/synthetic/close-two.request.json")
    assert json_req.status == 0
    assert json_req.stdout == mq("build-request", "urb", "close", "--dnam", "BROUT2", "--dnam", "BROUT3",
                                 "--rnam", "BROUT1", "--token", "TOKEN001", "--sender", "CLOSDEST",
                                 "--msnr", "16", "--stck", "BBBBBBBBBBBBBBBB").stdout
    missing = mq("build-request", "urb", "--from", "testdata/urb/no-such-file.yaml")
    assert missing.status == 1 and "no such file" in missing.stderr


def test_output_file_and_force(tmp_path: Path) -> None:
    out = tmp_path / "req.bin"
    args = ["build-request", "urb", *SEED_COMMANDS["status.request"].split(), "-o", str(out)]
    assert mq(*args).status == 0 and out.read_bytes() == seed_bytes("urb/status.request.dump")
    again = mq(*args)
    assert again.status == 1 and "exists (use --force to overwrite)" in again.stderr
    assert mq(*args, "--force").status == 0


class _Tty(io.BytesIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_refused_with_dump_the_dump_of_what_was_built() -> None:
    from mqtool.errors import InputError

    env = Env(stdout=_Tty(), stderr=io.StringIO(), color_mode="never")
    args = ["build-request", "urb", *SEED_COMMANDS["inst-employee.request"].split()]
    with pytest.raises(InputError, match="terminal: use -o FILE, a pipe, or --dump"):
        cli.main(args=args, obj=env, standalone_mode=False, prog_name="mqtool")
    assert env.stdout.getvalue() == b""  # type: ignore[attr-defined]
    status = cli.main(args=[*args, "--dump"], obj=env, standalone_mode=False, prog_name="mqtool")
    assert status == 0
    text = env.stdout.getvalue().decode()  # type: ignore[attr-defined]
    data = seed_bytes("urb/inst-employee.request.dump")
    assert text == dump_bytes(data, codepage="latin-1")
    assert "0020 41646D69 6E202020 00000000 00000000 *Admin   ........*" in text


# --------------------------------------------------------------------------- decode

URB = TESTDATA / "urb"
MESSAGE_DUMPS = sorted(str(p.relative_to(URB)) for p in [*URB.glob("*.dump"), *URB.glob("synthetic/*.dump")]
                       if "urbddata" not in p.name)


@pytest.mark.parametrize("name", MESSAGE_DUMPS)
def test_every_message_dump_decodes_with_hex(name: str, in_root: None) -> None:
    res = mq("decode", "urb", "--hex", f"testdata/urb/{name}")
    assert res.status == 0 and res.stderr == ""
    assert res.text.startswith("URBH element at offset X'0000'\n  urbheye  = \"URBH\"\n")


@pytest.mark.parametrize("name", ["inst-employee.data.urbddata-1.dump", "inst-employee.data.urbddata-2.dump"])
def test_the_image_dumps_are_not_messages(name: str, in_root: None) -> None:
    """These two files are the record images of a listing, not URB messages: shown raw, exit 2."""
    res = mq("decode", "urb", "--hex", f"testdata/urb/{name}")
    assert res.status == 2
    assert res.text.startswith("unrecognised bytes at offset X'0000' (128 bytes)")
    assert res.stderr == ("mqtool: urb: the input is not a URB message: X'32303031' is neither 'URBH' "
                          "in EBCDIC (X'E4D9C2C8') nor in ASCII (X'55524248') at urbh.urbheye, offset "
                          "X'0000' (0)\n")


def test_binary_input_from_stdin_and_several_messages() -> None:
    blob = seed_bytes("urb/close-destination.reply.dump") + seed_bytes("urb/inst-employee.data.dump")
    res = mq("decode", "urb", "--json", input=blob)
    lines = [json.loads(ln) for ln in res.text.splitlines()]
    assert [(j["offset"], j["length"], j["codepage"], j["byte_order"]) for j in lines] == [
        (0, 192, "cp037", "big"), (192, 656, "latin-1", "little")]
    listing = mq("decode", "urb", input=blob).text
    assert listing.count("URBH element at offset") == 2 and "\n\nURBH element at offset X'00C0'" in listing


def test_listing_in_utc_by_default_and_in_a_zone() -> None:
    blob = seed_bytes("urb/status.reply.dump")
    assert "  urbsptim = 2004-06-22 10:20:32.471940 UTC" in mq("decode", "urb", input=blob).text
    berlin = mq("decode", "urb", "--tz", "Europe/Berlin", input=blob).text
    assert "  urbsptim = 2004-06-22 12:20:32.471940 CEST" in berlin


def test_annotate_labels_fields_from_the_same_spans() -> None:
    data = seed_bytes("urb/status.reply.dump")
    res = mq("decode", "urb", "--annotate", "--color", "never", input=data)
    lines = res.text.splitlines()
    assert lines[0] == ("0000 E4D9C2C8 00000040 F0F10001 000000C0 *URBH... 01......* urbheye urbhlen "
                        "urbhvers urbhbord urbhlent")
    assert lines[5].startswith("0050 E2E3C1E3 E2E4C2E2 BB680AF2 C1C18060") and lines[5].endswith(
        "urbsrt urbsst urbstime")
    colored = mq("decode", "urb", "--annotate", "--color", "always", input=data)
    assert "\x1b[" in colored.text


def test_forcing_options() -> None:
    data = seed_bytes("urb/inst-color.init.dump")
    assert "urbsinam = \"ICOLOR\"" in mq("decode", "urb", "--codepage", "500", input=data).text
    bad = mq("decode", "urb", "--codepage", "cp9999", input=data)
    assert bad.status == 1 and "unknown code page" in bad.stderr
    isn = mq("decode", "urb", "--urbi-data", "isn", input=seed_bytes("urb/inst-employee.request.dump"))
    assert "ISN list at offset X'00A0' (16 bytes)" in isn.text


BAD_CASES = {
    "truncated": (lambda d: d[:300], "urbd[0].urbdlen, offset X'00F4' (244)",
                  "URBD element at offset X'00F0'"),
    "past urbhlent": (lambda d: d[:0x234] + (0x100).to_bytes(4, "big") + d[0x238:],
                      "urbe[0].urbelen, offset X'0234' (564)", "  urbelen  = 256"),
    "zero length": (lambda d: d[:0xB4] + bytes(4) + d[0xB8:], "urbr[0].urbrlen, offset X'00B4' (180)",
                    "  urbrlen = 0"),
    "negative length": (lambda d: d[:0xB4] + b"\xff\xff\xff\xfb" + d[0xB8:],
                        "urbr[0].urbrlen, offset X'00B4' (180)", "  urbrlen = -5"),
    "unknown eyecatcher": (lambda d: d[:0xB0] + b"\xe4\xd9\xc2\xe7" + d[0xB4:],
                           "unknown[0].eye, offset X'00B0' (176)", "unknown element X'E4D9C2E7' ('URBX')"),
    "bad urbhbord": (lambda d: d[:10] + b"\x02\x03" + d[12:], "urbh.urbhbord, offset X'000A' (10)",
                     "  urbhbord = X'0203'"),
}


@pytest.mark.parametrize("case", list(BAD_CASES))
def test_bad_input_partial_listing_one_error_line_status_2(case: str) -> None:
    mutate, where, shown = BAD_CASES[case]
    res = mq("decode", "urb", input=mutate(seed_bytes("urb/inst-color.data.dump")))
    assert res.status == 2
    assert res.text.startswith("URBH element at offset X'0000'") and shown in res.text
    errors = res.stderr.splitlines()
    assert len(errors) == 1 and errors[0].startswith("mqtool: urb: ") and errors[0].endswith(where)


def test_non_dump_text_with_hex(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("This is a note about the queue, not a dump.\n")
    res = mq("decode", "urb", "--hex", str(p))
    assert res.status == 2 and res.stdout == b""
    assert res.stderr == ("mqtool: dump text: line 1, column 1: no dump line found: expected an offset "
                          "followed by hex words\n")


def test_a_dump_cut_short_with_hex(tmp_path: Path) -> None:
    text = (TESTDATA / "urb" / "inst-employee.data.dump").read_text()
    p = tmp_path / "cut.dump"
    p.write_text(text[:text.index("0190 ")])  # the dump stops before the second URBR
    res = mq("decode", "urb", "--hex", str(p))
    assert res.status == 2 and "URBD element at offset X'00F0'" in res.text
    assert res.stderr.endswith("at urbh.urbhlent, offset X'0190' (400)\n")


def test_empty_input_and_dump_text_without_hex(tmp_path: Path, in_root: None) -> None:
    empty = mq("decode", "urb", input=b"")
    assert empty.status == 2 and "empty input" in empty.stderr
    res = mq("decode", "urb", "testdata/urb/status.reply.dump")
    assert res == mq("decode", "urb", "--hex", "testdata/urb/status.reply.dump")
    assert res.status == 0 and res.text.startswith("URBH element at offset X'0000'\n")


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=400))
def test_cli_never_shows_a_traceback(data: bytes) -> None:
    res = mq("decode", "urb", input=b"\xe4\xd9\xc2\xc8" + data)
    assert res.status in (0, 2)
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr
    assert all(re.match(r"^mqtool: (urb|dump text|queue-dump): ", ln) for ln in res.stderr.splitlines())


def test_raw_json_rebuilds_too(in_root: None) -> None:
    """``--raw`` adds ``<field>_hex`` for character fields; the builder reads the text."""
    decoded = mq("decode", "urb", "--hex", "testdata/urb/inst-employee.request.dump", "--json", "--raw")
    assert '"urbirtok_hex":"454D504C544F4B4E"' in decoded.text
    rebuilt = mq("build-request", "urb", "--from", "-", input=decoded.stdout)
    assert rebuilt.status == 0 and rebuilt.stdout == seed_bytes("urb/inst-employee.request.dump")


def test_library_api_build_and_identify() -> None:
    from mqtool import api

    desc = {"type": "stat", "snam": "COLOR", "token": "TOKTOK", "sender": "Admin"}
    assert api.build("urb", desc) == seed_bytes("urb/status.request.dump")
    best = api.identify(seed_bytes("urb/inst-employee.cmpl.dump"))[0]
    assert (best.format, best.options) == ("urb", {"codepage": "latin-1", "byte_order": "little"})
    units = api.decode("urb", seed_bytes("urb/status.reply.dump"), codepage="500")
    assert units[0].attrs["codepage"] == "cp500"


# --------------------------------------------------------------------------- extract urb
# (the command objects; ``mqtool extract urb`` loads them into the extract group)


def _extract(*args: str):  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from mqtool.cli.urb import extract_urb

    return CliRunner().invoke(extract_urb, list(args), standalone_mode=False, catch_exceptions=True)


def test_extract_urb_writes_the_tables_and_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = _extract(str(TESTDATA / "urb" / "inst-color.data.dump"),
                   str(TESTDATA / "urb" / "status.reply.dump"), "-o", str(out))
    assert res.return_value == 0, res.output
    assert res.output.splitlines()[:7] == [
        "messages              2 rows", "transactions          1 rows", "records               3 rows",
        "images                3 rows", "status                1 rows", "errors                0 rows",
        "changes               3 rows"]
    res = _extract(str(TESTDATA / "urb" / "inst-color.data.dump"),
                   str(TESTDATA / "urb" / "status.reply.dump"), "-o", str(out), "--force",
                   "--summary", "-")
    assert json.loads(res.output)["rows"] == {  # --summary -: the summary as JSON instead
        "messages": 2, "transactions": 1, "records": 3, "images": 3, "status": 1, "errors": 0,
        "changes": 3}
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{t}.parquet" for t in ("messages", "transactions", "records", "images", "status", "errors",
                                  "changes")] + ["_summary.json"])
    info = json.loads((out / "_summary.json").read_text())
    assert info["rows"]["changes"] == 3 and info["mode"] == "PERMISSIVE"


def test_extract_urb_damage_exits_2_and_failfast_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "bad.bin"
    src.write_bytes(seed_bytes("urb/status.reply.dump") + b"\x00" * 10)
    res = _extract(str(src), "-o", str(tmp_path / "p"), "--to", "jsonl")
    assert res.return_value == 2
    rows = [json.loads(x) for x in (tmp_path / "p" / "errors.jsonl").read_text().splitlines()]
    assert [(r["offset"], r["path"]) for r in rows] == [(192, "urbh.urbheye")]
    res = _extract(str(src), "-o", str(tmp_path / "f"), "--mode", "failfast")
    from mqtool.errors import DecodeError

    assert isinstance(res.exception, DecodeError) and res.exception.status == 2
    assert not (tmp_path / "f").exists()  # the directory it made is removed too


def test_extract_urb_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    from mqtool.io.outputs import OutputExistsError

    color = str(TESTDATA / "urb" / "inst-color.data.dump")
    assert _extract(color, "-o", str(tmp_path)).return_value == 0
    again = _extract(color, "-o", str(tmp_path))
    assert isinstance(again.exception, OutputExistsError)
    assert _extract(color, "-o", str(tmp_path), "--force").return_value == 0


def test_every_refusal_of_a_request_at_once() -> None:
    """Issue 13: an inst request used to take four tries (--inam, --dbid, --rnam, --dnam)."""
    res = mq("build-request", "urb", "inst", "--fnr", "4", "--dnam", "OUT9")
    assert res.status == 1 and res.stdout == b""
    assert res.stderr.splitlines() == [
        "mqtool: urb: 4 refusals:",
        "  urbi[0].urbidnam (--dnam): an INST request does not allow it",
        "  urbi[0].urbiinam (--inam): an INST request needs it",
        "  urbi[0].urbidbid (--dbid): an INST request needs it",
        "  urbi[0].urbirnam (--rnam): an INST request needs it"]


def test_build_a_status_reply_from_options() -> None:
    from mqtool.formats.urb.decode import decode

    res = mq("build-request", "urb", "reply", "--reply-status", "erro", "--answers", "inst",
             "--token", "TOKEN1", "--inam", "ICOLOR", "--dbid", "10006", "--fnr", "4", "--rsp",
             "131", "--subcode", "12", "--sender", "REPTOR", "--msnr", "7")
    assert res.status == 0, res.stderr
    (unit,) = decode(res.stdout)
    assert not unit.errors and not unit.problems
    h, s = unit.elements
    assert (h.fields["urbhname"], h.fields["urbhmsnr"], h.fields["urbhlent"]) == ("REPTOR", 7, 192)
    assert {k: s.fields[k] for k in ("urbsst", "urbsrt", "urbsrtok", "urbsinam", "urbsdbid", "urbsfnr",
                                     "urbsrsp", "urbssubc", "urbslen", "urbslenh", "urbslend")} == {
        "urbsst": "ERRO", "urbsrt": "INST", "urbsrtok": "TOKEN1", "urbsinam": "ICOLOR", "urbsdbid": 10006,
        "urbsfnr": 4, "urbsrsp": 131, "urbssubc": 12, "urbslen": 128, "urbslenh": 128, "urbslend": 0}
    assert {sp.name: sp.meaning for sp in s.spans}["urbsst"] == "Initial-state processing ERROR"


def test_a_simulated_data_message_goes_through_extract(tmp_path: Path) -> None:
    """build-request urb data simulates the replicator; extract urb reads its changes back."""
    res = mq("build-request", "urb", "data", "--snam", "COLOR", "--dbid", "10006", "--fnr", "4",
             "--tsnr", "9", "--image", "2=GREEN", "--image", "3=BLUE", "--before", "3=RED",
             "--charset", "ascii", "--byte-order", "little", "-o", str(tmp_path / "d.bin"))
    assert res.status == 0, res.stderr
    out = tmp_path / "o"
    assert _extract(str(tmp_path / "d.bin"), "-o", str(out), "--to", "jsonl").return_value == 0
    rows = [json.loads(x) for x in (out / "changes.jsonl").read_text().splitlines()]
    assert [(r["isn"], r["file_number"], r["dbid"], r["transaction_number"], r["record_type"],
             r["image_type"], r["image_text"], r["image_codepage"]) for r in rows] == [
        (2, 4, 10006, 9, "U", "A", "GREEN", "latin-1"), (3, 4, 10006, 9, "U", "B", "RED", "latin-1"),
        (3, 4, 10006, 9, "U", "A", "BLUE", "latin-1")]
    t = json.loads((out / "transactions.jsonl").read_text())
    assert (t["urbtrcnt"], t["urbtlen"], t["urbtsnam"]) == (2, 128, "COLOR")


def test_reply_and_data_refusals_at_once() -> None:
    res = mq("build-request", "urb", "data", "--snam", "C", "--reply-status", "X", "--isn", "4")
    assert res.status == 1
    assert res.stderr.splitlines() == ["mqtool: urb: 3 refusals:", "  --isn: not an option of a data message",
                                       "  --reply-status: for status replies only",
                                       "  --image: a data message needs at least one record image"]
    res = mq("build-request", "urb", "reply", "--reply-status", "NOPE")
    assert res.status == 1 and "'NOPE' is not a status code" in res.stderr
    res = mq("build-request", "urb", "stat", "--snam", "S", "--image", "1=A")
    assert res.status == 1 and "--image: for reply and data messages only" in res.stderr


def test_json_lines_are_the_units_json_byte_for_byte(tmp_path: Path) -> None:
    """decode urb --json (encoded by orjson) writes exactly what json.dumps makes of each
    unit's JSON: the fast encoder changes speed, never bytes."""
    from mqtool.formats.urb.decode import decode
    from mqtool.io.undump import undump

    for dump in sorted((TESTDATA / "urb").glob("*.dump")):
        data = undump(dump.read_text())
        r = mq("decode", "urb", "--json", "--hex", dump)
        expected = "".join(json.dumps(u.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
                           for u in decode(data))
        assert r.stdout.decode("utf-8") == expected, dump.name
