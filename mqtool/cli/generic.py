"""``decode NAME`` and ``build-request NAME`` for a format with no command module of its
own: the options every decoder has, and a builder that takes its request from a file."""

from __future__ import annotations

import os
from datetime import tzinfo

import click

from mqtool.cli._common import (
    build_output_options,
    decode_sources,
    decoder_options,
    emit_units,
    get_env,
    window,
    write_built,
)


def command(verb: str, name: str) -> click.Command:
    """The generic ``decode`` or ``build`` command of format ``name``."""
    from mqtool import registry

    c = registry.codec(name)
    return _decode_command(c.name, c.title) if verb == "decode" else _build_command(c.name, c.build_title)


def _decode_command(name: str, title: str) -> click.Command:
    @click.command(name=name, short_help=title, help=f"Decode {title[0].lower()}{title[1:]}")
    @decoder_options
    def decode(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool,
               tz: tzinfo | None, strict: bool) -> int:
        from mqtool import api

        units = (decode_sources(file, hex_text, lambda data: api.decode(name, data))
                 if os.path.isdir(file) else api.decode_file(name, file, hex_text, window()))
        return int(emit_units(get_env(), units, json_out=json_out, raw=raw, annotate=annotate,
                              tz=tz,
                              strict_problems=strict))

    return decode


def _build_command(name: str, title: str) -> click.Command:
    @click.command(name=name, short_help=title, help=f"Build {title[0].lower()}{title[1:]}")
    @click.option("--from", "from_file", required=True, metavar="FILE",
                  type=click.Path(allow_dash=True),
                  help="The request: JSON or YAML, or the --json output of the decoder.")
    @build_output_options
    def build(from_file: str, output: str | None, as_dump: bool, force: bool) -> int:
        from mqtool import api
        from mqtool.io.inputs import read_request

        data = api.build(name, read_request(from_file))
        return write_built(get_env(), data, output, force, as_dump)

    return build
