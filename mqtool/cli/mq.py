"""``mqtool decode mq`` and ``mqtool build-request mq``: the IBM MQ header chain (MQDLH,
MQRFH2, MQXQH, MQTM, MQCIH, MQIIH, MQMDE, MQWIH, MQRMH, MQDH ...) in front of a payload."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import click

from mqtool.cli import BUILD, DECODE
from mqtool.cli._common import Env, decoder_options, emit_units, get_env, read_sources, write_binary
from mqtool.errors import DecodeError, ExitStatus, InputError

# option -> header type, in the order the chain is built
HEADER_OPTIONS = (("xqh", "MQXQH"), ("dlh", "MQDLH"), ("mde", "MQMDE"), ("cih", "MQCIH"),
                  ("iih", "MQIIH"), ("wih", "MQWIH"), ("rfh2", "MQRFH2"), ("tm", "MQTM"))
_INT = re.compile(r"^[+-]?(?:\d+|0[xX][0-9a-fA-F]+)$")


@click.command(short_help=DECODE["mq"][1])
@decoder_options
@click.option("--format", "mq_format", metavar="NAME",
              help="The MQMD Format of a raw body (MQDEAD, MQHRF2, MQXMIT, MQTRIG, ...); "
                   "default: recognise the first header by its StrucId.")
@click.option("--encoding", type=int, metavar="N",
              help="With --format: the MQMD Encoding (273 big-endian, 546 little-endian, 785 "
                   "z/OS).")
@click.option("--ccsid", type=int, metavar="N",
              help="With --format: the MQMD CodedCharSetId (819, 1208, 500, 1047, ...).")
@click.option("--strict", is_flag=True, help="Exit with status 2 when problems were found.")
def decode_mq(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz,  # type: ignore[no-untyped-def]
              mq_format: str | None, encoding: int | None, ccsid: int | None,
              strict: bool) -> int:
    """Decode the IBM MQ headers in front of a message's application data: MQDLH (dead
    letter, with its reason as MQRC_/MQFB_ name), MQRFH2 (property folders mcd, jms, usr,
    psc, ... as XML, properties by folder-qualified name with their dt types), MQRFH,
    MQXQH with its MQMD, MQTM, MQTMC2, MQCIH, MQIIH, MQMDE, MQWIH, MQRMH, MQDH with its
    MQOR/MQPMR records. Each header's Format, Encoding and CodedCharSetId say what follows
    it; the payload is shown last (text for MQSTR, in its CCSID; PCF command, response and
    event messages -- MQADMIN, MQEVENT, MQPCF -- as the MQCFH and its named parameters).

    FILE is a message body (the first header recognised by its StrucId, ASCII or EBCDIC,
    either byte order; or --format) or a queue dump (dmpmqmsg, amqsbcg, MQMD-prefixed,
    mqtool directory), whose messages' MQMD Format names the first header.

    A chain cut short gives the headers decoded so far, then an error with the field and
    byte offset (exit status 2); a StrucId that is not the one Format announced, and an
    RFH2 folder that is not XML (kept as text), are problems.
    """
    from mqtool.formats.mq.codec import FORMAT, unit_of
    from mqtool.formats.mq.dumps.read import label_unit

    env = get_env()
    given: dict[str, Any] | None = None
    if mq_format is not None:
        given = {"format": mq_format, "encoding": 273 if encoding is None else encoding,
                 "codedcharsetid": 819 if ccsid is None else ccsid}
    elif encoding is not None or ccsid is not None:
        raise click.UsageError("--encoding and --ccsid go with --format")

    def units():  # type: ignore[no-untyped-def]
        for src in read_sources(file, hex_text):
            if src.message is None:
                if not src.data:
                    raise DecodeError(FORMAT, "", 0, "empty input: no message to decode")
                yield unit_of(src.data, given, require_header=True), src.data
                continue
            msg = src.message
            mqmd = given or msg.mqmd
            yield label_unit(unit_of(msg.body, mqmd), msg), msg.body

    return emit_units(env, units(), json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict) or ExitStatus.OK


def _value(text: str) -> Any:
    return int(text, 0) if _INT.match(text) else text


def parse_assignments(text: str, option: str) -> dict[str, Any]:
    """``reason=2051,destqname=Q1`` -> ``{"reason": 2051, "destqname": "Q1"}``."""
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.partition("=")
        if not eq or not name.strip():
            raise click.BadParameter(f"{part!r} is not name=value", param_hint=option)
        out[name.strip().lower()] = _value(value)
    return out


def parse_property(text: str) -> tuple[str, str, Any, str | None]:
    """``usr.Count:i4=5`` -> ``("usr", "Count", 5, "i4")``; no ``:dt``: a string."""
    from mqtool.formats.mq.rfh2 import DT_TYPES, INT_TYPES, typed

    name, eq, value = text.partition("=")
    name, _, dt = name.partition(":")
    folder, dot, prop = name.strip().partition(".")
    if not eq or not dot or not folder or not prop:
        raise click.BadParameter(f"{text!r} is not folder.name=value (or folder.name:dt=value)",
                                 param_hint="--rfh2")
    if dt and dt not in DT_TYPES:
        raise click.BadParameter(f"dt {dt!r} is not one of {', '.join(sorted(DT_TYPES))}",
                                 param_hint="--rfh2")
    v = typed(value, dt or None)
    if dt in INT_TYPES and not isinstance(v, int):
        raise click.BadParameter(f"{value!r} is not an integer for dt {dt}", param_hint="--rfh2")
    return folder, prop, v, dt or None


def _unknown_fields(type_: str, fields: dict[str, Any], option: str) -> list[str]:
    """One refusal per field name the header does not have (all of them, not the first)."""
    from mqtool.formats.mq.layout import header_layout

    names = header_layout(type_).names
    return [click.BadParameter(f"{type_} has no field {name!r}; fields: "
                               f"{', '.join(n for n in names if n != 'strucid')}",
                               param_hint=option).format_message()
            for name in fields if name not in names]


def _from_json(path: str) -> dict[str, Any]:
    from mqtool.io.inputs import read_text

    text = read_text(path).strip()
    line = text.splitlines()[0] if text else ""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON ({e.msg} at line 1 column {e.colno})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("elements"), list):
        raise InputError(f"{path}: expected a 'decode mq --json' object with \"elements\"")
    return obj


@click.command(short_help=BUILD["mq"][1])
@click.option("--xqh", metavar="F=V,...", help="MQXQH fields (remoteqname, remoteqmgrname).")
@click.option("--dlh", metavar="F=V,...",
              help="MQDLH fields: reason (e.g. 2051), destqname, destqmgrname, putappltype, "
                   "putapplname, putdate, puttime.")
@click.option("--mde", metavar="F=V,...", help="MQMDE fields (groupid, msgseqnumber, ...).")
@click.option("--cih", metavar="F=V,...", help="MQCIH fields (version, function, ...).")
@click.option("--iih", metavar="F=V,...", help="MQIIH fields (ltermoverride, mfsmapname, ...).")
@click.option("--wih", metavar="F=V,...", help="MQWIH fields (servicename, servicestep, ...).")
@click.option("--rfh2", "rfh2_props", multiple=True, metavar="FOLDER.NAME[:DT]=VALUE",
              help="An MQRFH2 property (repeatable): mcd.Msd=jms_text, jms.Dst=queue:///Q, "
                   "usr.Count:i4=5; DT is i1, i2, i4, i8, r4, r8, boolean, bin.hex, string.")
@click.option("--tm", metavar="F=V,...", help="MQTM fields (qname, processname, applid, ...); "
                                               "the chain ends with it.")
@click.option("--from", "from_file", metavar="FILE", type=click.Path(allow_dash=True),
              help="Start from the --json output of 'decode mq' (its elements, context and "
                   "payload: with --raw its bytes, else its text); header options add to it.")
@click.option("--text", "payload_text", metavar="TEXT", help="The payload as text (Format MQSTR).")
@click.option("--payload", "payload_file", metavar="FILE", type=click.Path(allow_dash=True),
              help="The payload bytes from FILE.")
@click.option("--format", "payload_format", metavar="NAME",
              help="Format of the payload (default MQSTR with --text, else blank).")
@click.option("--encoding", type=int, metavar="N",
              help="MQMD Encoding: the first header's byte order (default 273: big-endian; 546 "
                   "little-endian; 785 z/OS).")
@click.option("--ccsid", type=int, metavar="N",
              help="MQMD CodedCharSetId: the first header's characters (default 819; 500 or "
                   "1047 for EBCDIC).")
@click.option("--payload-ccsid", type=int, metavar="N",
              help="CCSID of the payload (default: --ccsid).")
@click.option("--wrap", "wrap_file", metavar="DUMP", type=click.Path(allow_dash=True),
              help="Wrap the body of every message of a queue dump in the chain (the headers "
                   "take over each message's Format, Encoding and CCSID) and write dmpmqmsg "
                   "text: a dead-letter queue from --dlh.")
@click.option("--mqmd", "with_mqmd", is_flag=True,
              help="Put an MQMD version 2 in front (an MQMD-prefixed binary queue dumps read).")
@click.option("--dump", "as_dump", is_flag=True, help="Print a hex dump instead of the bytes.")
@click.option("-o", "--output", metavar="FILE", type=click.Path(), help="Write to FILE.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
def build_mq(xqh: str | None, dlh: str | None, mde: str | None, cih: str | None,
             iih: str | None, wih: str | None, rfh2_props: tuple[str, ...], tm: str | None,
             from_file: str | None, payload_text: str | None, payload_file: str | None,
             payload_format: str | None, encoding: int | None, ccsid: int | None,
             payload_ccsid: int | None, wrap_file: str | None, with_mqmd: bool, as_dump: bool,
             output: str | None, force: bool) -> int:
    """Build a payload wrapped in a chain of IBM MQ headers. Each header announces the next (Format,
    Encoding, CodedCharSetId) and its StrucLength is computed; fields not given are
    blank or zero. The chain is built in the order MQXQH, MQDLH, MQMDE, MQCIH, MQIIH,
    MQWIH, MQRFH2, MQTM; --from takes any chain 'decode mq --json' printed and rebuilds it
    byte for byte.

    \b
      mqtool build-request mq --dlh reason=2051,destqname=PAYROLL.IN,destqmgrname=QM1 \\
          --rfh2 mcd.Msd=jms_text --rfh2 usr.Batch:i4=7 --text 'hello' --dump
    """
    from mqtool.formats.mq import codec as mq

    env = get_env()
    headers: list[dict[str, Any]] = []
    req: dict[str, Any] = {}
    payload: bytes | None = None
    if from_file:
        obj = _from_json(from_file)
        headers = [e for e in obj["elements"] if isinstance(e, dict)]
        ctx = obj.get("context") or {}
        pay = obj.get("payload") or {}
        req = {"encoding": ctx.get("encoding", 273), "ccsid": ctx.get("codedcharsetid", 819),
               "payload_format": pay.get("format", ""), "payload_encoding": pay.get("encoding"),
               "payload_ccsid": pay.get("ccsid")}
        if isinstance(pay.get("hex"), str):
            try:
                payload = bytes.fromhex(pay["hex"])
            except ValueError:
                raise InputError(f"{from_file}: payload.hex is not hex") from None
        elif "text" in pay:
            from mqtool.codepages import ccsid_codec

            payload = str(pay["text"]).encode(ccsid_codec(pay.get("ccsid")) or "latin-1",
                                              errors="replace")
    given = {"xqh": xqh, "dlh": dlh, "mde": mde, "cih": cih, "iih": iih, "wih": wih, "tm": tm}
    props: dict[str, dict[str, Any]] = {}
    dts: dict[str, dict[str, str]] = {}
    refused: list[str] = []  # every bad option value, reported all at once
    for text in rfh2_props:
        try:
            folder, prop, value, dt = parse_property(text)
        except click.BadParameter as e:
            refused.append(e.format_message())
            continue
        props.setdefault(folder, {})[prop] = value
        if dt:
            dts.setdefault(folder, {})[prop] = dt
    for option, type_ in HEADER_OPTIONS:
        if option == "rfh2":
            if props:
                headers.append({"type": type_, "folders": [
                    {"name": f, "properties": p, "dt": dts.get(f, {})} for f, p in props.items()]})
            continue
        text = given[option]
        if text is None:
            continue
        try:
            fields = parse_assignments(text, f"--{option}")
        except click.BadParameter as e:
            refused.append(e.format_message())
            continue
        bad = _unknown_fields(type_, fields, f"--{option}")
        refused += bad
        if not bad:
            headers.append({"type": type_, "fields": fields})
    if refused:
        for line in refused:
            env.error(line)
        return ExitStatus.USAGE
    if not headers:
        raise click.UsageError("give at least one header (--dlh, --rfh2, --xqh, ...) or --from")
    if encoding is not None:
        req["encoding"] = encoding
    if ccsid is not None:
        req["ccsid"] = ccsid
    if payload_ccsid is not None:
        req["payload_ccsid"] = payload_ccsid
    if payload_format is not None:
        req["payload_format"] = payload_format
    if wrap_file:
        if payload_text is not None or payload_file or with_mqmd or as_dump:
            raise click.UsageError("--wrap takes the payloads from the dump and writes "
                                   "dmpmqmsg text: no --text, --payload, --mqmd or --dump")
        return _wrap(env, wrap_file, headers, req, output, force)
    if payload_text is not None and payload_file:
        raise click.UsageError("give --text or --payload, not both")
    if payload_text is not None:
        req.setdefault("payload_format", "MQSTR")
        from mqtool.codepages import ccsid_codec

        cc = req.get("payload_ccsid") or req.get("ccsid", 819)
        try:
            payload = payload_text.encode(ccsid_codec(cc) or "latin-1")
        except UnicodeEncodeError as e:
            raise click.BadParameter(f"has characters CCSID {cc} lacks: {e.reason}",
                                     param_hint="--text") from None
    elif payload_file:
        from mqtool.io.inputs import read_bytes

        payload = read_bytes(payload_file)
    req["headers"], req["payload"] = headers, payload or b""
    if not from_file:  # each header and field on its own: every refusal at once
        refused = _header_refusals(mq.build, req)
        if len(refused) > 1:
            for line in refused:
                env.error(line)
            return ExitStatus.USAGE
    data = mq.build(req)
    if with_mqmd:
        data = _mqmd_for(headers, req) + data
    from mqtool.formats.mq.chain import header_codepage

    return _write(env, data, as_dump, output, force, header_codepage(int(req.get("ccsid") or 819)))


def _header_refusals(build: Any, req: dict[str, Any]) -> list[str]:
    """What building each header of the chain alone — each of its fields alone — refuses,
    named by its option."""
    from mqtool.errors import BuildError

    option = {type_: f"--{name}" for name, type_ in HEADER_OPTIONS}
    out = []
    for h in req["headers"]:
        fields = h.get("fields") or {}
        for one in ([{**h, "fields": {k: v}} for k, v in fields.items()] if fields else [h]):
            try:
                build({**req, "headers": [one], "payload": b""})
            except BuildError as e:
                out.append(f"{option.get(str(h.get('type')), 'header')}: {e}")
    return out


def _first_format(headers: list[dict[str, Any]]) -> str:
    from mqtool.formats.mq.layout import BY_TYPE

    info = BY_TYPE.get(str(headers[0].get("type")))
    return info.format if info else ""


def _mqmd_for(headers: list[dict[str, Any]], req: dict[str, Any]) -> bytes:
    from mqtool.formats.mq.mqmd import build_mqmd

    enc = int(req.get("encoding", 273))
    return build_mqmd({"format": _first_format(headers), "encoding": enc,
                       "codedcharsetid": int(req.get("ccsid", 819)), "msgtype": 8},
                      big=(enc & 0xF) != 2)


def _wrap(env: Env, path: str, headers: list[dict[str, Any]], req: dict[str, Any],
          output: str | None, force: bool) -> int:
    """Every message of the dump at ``path`` with its body wrapped in ``headers``."""
    from dataclasses import replace

    from mqtool.formats.mq import codec as mq
    from mqtool.formats.mq.dumps.read import QueueDump
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg

    dump = QueueDump(path)
    first = _first_format(headers)

    def wrapped():  # type: ignore[no-untyped-def]
        for msg in dump:
            md = msg.mqmd
            enc = md.get("encoding") if isinstance(md.get("encoding"), int) else 546
            cc = md.get("codedcharsetid") if isinstance(md.get("codedcharsetid"), int) else 819
            body = mq.build({**req, "headers": headers, "payload": msg.body,
                             "encoding": req.get("encoding", enc), "ccsid": req.get("ccsid", cc),
                             "payload_format": str(md.get("format") or ""),
                             "payload_encoding": enc, "payload_ccsid": cc})
            yield replace(msg, body=body, mqmd={**md, "format": first,
                                                "encoding": req.get("encoding", enc),
                                                "codedcharsetid": req.get("ccsid", cc)})

    out = io.BytesIO()
    n = write_dmpmqmsg(wrapped(), out)
    if n == 0:
        raise DecodeError("queue-dump", "", 0, f"{path}: no messages in this dump")
    data = out.getvalue()
    if output and output != "-":
        from mqtool.io.outputs import write_file

        write_file(output, data, force)
    else:
        env.stdout.write(data)
        env.stdout.flush()
    return ExitStatus.OK


def _write(env: Env, data: bytes, as_dump: bool, output: str | None, force: bool,
           codepage: str) -> int:
    if as_dump:
        from mqtool.render.hexdump import dump_bytes

        text = dump_bytes(data, codepage=codepage)
        if output and output != "-":
            from mqtool.io.outputs import write_file

            write_file(output, text.encode("utf-8"), force)
        else:
            env.write(text)
        return ExitStatus.OK
    write_binary(env, data, output, force)
    return ExitStatus.OK
