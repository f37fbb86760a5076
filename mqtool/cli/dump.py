"""``mqtool dump``: hex dumps people in this field recognise, and back (``-r``)."""

from __future__ import annotations

import click

from mqtool.cli._common import Env, color_option, get_env, write_binary
from mqtool.errors import ExitStatus, InputError
from mqtool.render.hexdump import STYLES, DumpOptions


def _int(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """Numbers as xxd takes them: decimal, 0x hex, or X'hex' as the documents write them."""
    if value is None:
        return None
    text = value.strip().replace("_", "")
    try:
        if text.upper().startswith("X'") and text.endswith("'"):
            return int(text[2:-1], 16)
        return int(text, 0)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a number (decimal, 0x.., or X'..')") from None


@click.command(short_help="Hex dump in the documents' style, xxd or hexdump -C; -r reads dumps back.")
@click.argument("file", default="-", metavar="[FILE|-]")
@click.option("-s", "--seek", callback=_int, metavar="N",
              help="Start at byte N (negative: from the end of the file).")
@click.option("-l", "--length", callback=_int, metavar="N", help="Dump N bytes only.")
@click.option("-c", "--cols", type=click.IntRange(1, 256), default=16, show_default=True,
              help="Bytes per line.")
@click.option("-g", "--group", type=click.IntRange(0, 256), default=None,
              help="Bytes per group (document 4, xxd 2, canonical 1; 0 = one group).")
@click.option("-u", "upper", is_flag=True, default=None, help="Upper-case hex (xxd style).")
@click.option("--style", type=click.Choice(STYLES), default="document", show_default=True,
              help="document (the manuals'), xxd, or canonical (hexdump -C).")
@click.option("--codepage", metavar="CP", default=None,
              help="Character column code page: 037 (default for document style), 500, 1047, "
                   "1140, ..., or ascii (default for xxd and canonical).")
@click.option("--dual", is_flag=True, help="Document style: EBCDIC and ASCII columns.")
@click.option("-v", "--no-squeeze", is_flag=True,
              help="Print repeated lines instead of 'N identical line(s) suppressed'.")
@click.option("--base", callback=_int, metavar="ADDR",
              help="Print storage addresses from ADDR (8 digits, lines aligned to the address).")
@click.option("-r", "--reverse", is_flag=True,
              help="Read dump text (document, xxd, hexdump -C, plain hex) and write the bytes.")
@click.option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@color_option
def dump(file: str, seek: int | None, length: int | None, cols: int, group: int | None,
         upper: bool | None, style: str, codepage: str | None, dual: bool, no_squeeze: bool,
         base: int | None, reverse: bool, output: str | None, force: bool) -> int:
    """Hex dump FILE (or stdin) in the documents' style:

    \b
      0000 E4D9C2C8 00000040 F0F10001 000000A0 *URBH... 01.....-*

    Repeated lines are squeezed into 'N identical line(s) suppressed'. With -r, dump text
    is read back into bytes: the documents' dumps as printed (character columns garbled or
    missing, several lines run together, storage dumps that start mid-line), xxd and
    hexdump -C output. Only the hex words are trusted.
    """
    env = get_env()
    if reverse:
        return _reverse(env, file, output, force)
    if length is not None and length < 0:
        raise click.BadParameter("must not be negative", param_hint="--length")
    try:
        opts = DumpOptions(style=style, cols=cols, group=group, upper=upper, codepage=codepage,
                           dual=dual, squeeze=not no_squeeze, base=base).resolved()
        from mqtool.codepages import single_byte_codec

        single_byte_codec(opts.codepage or "cp037")
    except (ValueError, LookupError) as e:
        raise click.BadParameter(str(e).strip("'\""), param_hint="--codepage") from None
    return _dump(env, file, opts, seek or 0, length, output, force)


def _dump(env: Env, file: str, opts: DumpOptions, seek: int, length: int | None,
          output: str | None, force: bool) -> int:
    from mqtool.io.inputs import iter_chunks, size_of
    from mqtool.render.hexdump import dump as dump_blocks

    size = size_of(file)
    start = seek if seek >= 0 or size is None else max(0, size + seek)
    total = None
    if size is not None:
        total = max(0, size - start)
        if length is not None:
            total = min(total, length)
    blocks = dump_blocks(iter_chunks(file, seek, length), opts, start=start, total=total)
    if output and output != "-":
        from mqtool.io.outputs import open_new

        with open_new(output, force) as f:
            for block in blocks:
                f.write(block)
        return ExitStatus.OK
    if env.color:
        _colored(env, blocks, opts)
    else:
        write = env.stdout.write
        for block in blocks:
            write(block)
        env.stdout.flush()
    return ExitStatus.OK


def _colored(env: Env, blocks, opts: DumpOptions) -> None:  # type: ignore[no-untyped-def]
    """Colour by byte class (NUL, printable, blank, other); terminal volumes only."""
    from mqtool.render.colors import colorize_dump_line
    from mqtool.render.hexdump import geometry

    console = env.console()
    for block in blocks:
        for line in block.decode("utf-8").splitlines():
            head = line.split(" ", 1)[0].rstrip(":")
            geo = geometry(opts, len(head)) if head else None
            console.print(colorize_dump_line(line, geo, opts.codepage or "cp037"))


def _reverse(env: Env, file: str, output: str | None, force: bool) -> int:
    from mqtool.io.inputs import read_text
    from mqtool.io.undump import undump

    text = read_text(file)
    if not text.strip():
        raise InputError(f"{file}: empty input, no dump to read")
    write_binary(env, undump(text), output, force)
    return ExitStatus.OK
