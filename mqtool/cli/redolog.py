"""``mqtool decode redolog``: TIBCO OSB Data Object Broker user-exit structures (seed 003)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

from mqtool.cli._common import (
    codepage_option,
    decode_sources,
    decoder_options,
    emit_units,
    get_env,
    refuse_other_format,
)
from mqtool.errors import ExitStatus

if TYPE_CHECKING:
    from mqtool.model import Decoded

PARTS = ("auto", "parmlist", "header", "intent", "usrextpl", "parmset")


@click.command(short_help="TIBCO OSB redolog parameter list, header or intent list.")
@decoder_options
@click.option("--part", type=click.Choice(PARTS), default="auto", show_default=True,
              help="What the bytes are: the Redolog exit parameter list, a redolog header "
                   "(with its intent list when the bytes go on), an intent list, USREXTPL, the "
                   "Parameter Setting block; auto recognises parameter lists, headers and "
                   "intent lists unit by unit.")
@codepage_option("EBCDIC code page of names and user IDs (037, 1047, 500, ...).", "037")
@click.option("--synthetic", is_flag=True,
              help="Read format-1 segments with mqtool's SYNTHETIC v0 layout (request code and "
                   "table name first); output says synthetic: true.")
@click.option("--params", type=click.IntRange(0), metavar="P",
              help="Format 1: the table has P parameters (guides the segment scan).")
@click.option("--field-count", "fields", type=click.IntRange(1), metavar="N",
              help="Format 1: the table has N fields (guides the segment scan).")
@click.option("--map", "names", metavar="NAME,...",
              help="USREXTPL field map, one name per fullword (default shared_storage@, "
                   "exit_1@, exit_2@, ...; a name containing 'init' is the Initialization exit).")
def decode_redolog(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz,  # type: ignore[no-untyped-def]
                   part: str, codepage: str, synthetic: bool, params: int | None,
                   fields: int | None, names: str | None, strict: bool) -> int:
    """Decode what the TIBCO Object Service Broker Data Object Broker passes to its
    Redolog-1, Redolog-2 and Recovery user exits: the parameter list, the 48-byte redolog
    header (RLTYPE bits, RLSEQ#, STCK commit time, REDODATA, log offset) and the intent
    list, format 1 (row updates; 1-or-2-byte lengths) or format 2 (MOVTAB, $CLRTAB,
    SIXBUILD, SIXDELETE with their offset-addressed parameters and key name); also
    USREXTPL (each exit enabled or disabled) and the Parameter Setting block.

    The manual lost its layout tables: fields whose position or meaning was reconstructed
    from the manual's dumps say (inferred); words of unknown meaning are named by their
    offset (unk_0c) and say (unknown). Consecutive headers are checked against each other:
    RLSEQ# gaps are reported as information, a log offset that does not follow the
    previous entry as a problem. A queue dump, or a directory of dumps and message bodies,
    is decoded message by message.
    """
    from mqtool import api

    env = get_env()
    map_names = [n.strip() for n in names.split(",") if n.strip()] if names else None

    def one(data: bytes) -> Iterable[Decoded]:
        if part == "auto":
            refuse_other_format("redolog", data, file, claimed=True)
        return api.decode("redolog", data, part=part, codepage=codepage, synthetic=synthetic,
                          params=params, fields=fields, names=map_names)

    units = decode_sources(file, hex_text, one)
    return emit_units(env, units, json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict) or ExitStatus.OK
