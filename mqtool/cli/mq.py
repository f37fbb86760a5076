"""``mqtool decode mq`` and ``mqtool build-request mq``: the IBM MQ header chain (MQDLH,
MQRFH2, MQXQH, MQTM, MQCIH, MQIIH, MQMDE, MQWIH, MQRMH, MQDH ...) in front of a payload."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import tzinfo
from typing import Any

import click

from mqtool.cli import BUILD, DECODE
from mqtool.cli._common import (
    decoder_options,
    emit_units,
    get_env,
    port_option,
    read_sources,
    refuse_other_format,
    write_built,
)
from mqtool.errors import ExitStatus
from mqtool.model import Decoded


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
@port_option
def decode_mq(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool,
              tz: tzinfo | None,
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
    from mqtool import api

    env = get_env()
    given: dict[str, Any] | None = None
    if mq_format is not None:
        given = {"format": mq_format, "encoding": 273 if encoding is None else encoding,
                 "codedcharsetid": 819 if ccsid is None else ccsid}
    elif encoding is not None or ccsid is not None:
        raise click.UsageError("--encoding and --ccsid go with --format")

    def units() -> Iterator[tuple[Decoded, bytes | memoryview]]:
        for src in read_sources(file, hex_text):
            if src.message is None and given is None:
                refuse_other_format("mq", src.view, file, claimed=True)
            mqmd = given or (src.message.mqmd if src.message is not None else None)
            (unit,) = api.decode("mq", src.view, mqmd=mqmd, require_header=not mqmd)
            yield src.label(unit), src.view

    return emit_units(env, units(), json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict) or ExitStatus.OK


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
              help="Start from the --json output of 'decode mq' or 'decode auto', or a line of "
                   "'messages --json' (its elements or headers, context or mqmd, pcf and "
                   "payload: its hex, else its text); header options add to it. What it cannot "
                   "rebuild is refused by its path.")
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
    from mqtool import api
    from mqtool.errors import BuildError
    from mqtool.io.inputs import read_bytes, read_request

    env = get_env()
    if wrap_file and (payload_text is not None or payload_file or with_mqmd or as_dump):
        raise click.UsageError("--wrap takes the payloads from the dump and writes "
                               "dmpmqmsg text: no --text, --payload, --mqmd or --dump")
    if payload_text is not None and payload_file:
        raise click.UsageError("give --text or --payload, not both")
    given = {"xqh": xqh, "dlh": dlh, "mde": mde, "cih": cih, "iih": iih, "wih": wih, "tm": tm}
    document = read_request(from_file) if from_file else None
    try:
        chain = api.mq_chain(
            fields={f"MQ{k.upper()}": v for k, v in given.items() if v is not None},
            properties=rfh2_props, document=document,  # type: ignore[arg-type]
            payload=read_bytes(payload_file) if payload_file else None, payload_text=payload_text,
            payload_format=payload_format, encoding=encoding, ccsid=ccsid,
            payload_ccsid=payload_ccsid, payload_needed=not wrap_file)
    except BuildError as e:  # every refusal, one line each, named by its option
        for where, reason in getattr(e, "refusals", None) or [("", str(e))]:
            env.error(f"{_option(where)}: {reason}" if where else reason)
        return ExitStatus.USAGE
    if wrap_file:
        return write_built(env, api.wrap_messages(wrap_file, chain), output, force, False,
                           text=True)
    return write_built(env, api.build_mq(chain, with_mqmd), output, force, as_dump,
                       chain.codepage)


def _option(where: str) -> str:
    """The option a refusal is about: ``MQDLH`` -> ``--dlh``, ``payload`` -> ``--text``."""
    return "--text" if where == "payload" else f"--{where.removeprefix('MQ').lower()}"
