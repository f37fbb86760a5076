"""``mqtool dump``: hex dumps people in this field recognise, and back (``-r``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from mqtool.cli._common import Env, codepage_option, color_option, get_env, window, window_options
from mqtool.errors import ExitStatus
from mqtool.render.hexdump import STYLES, DumpOptions

if TYPE_CHECKING:
    from mqtool.io.undump import Hole


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
@click.argument("file", default="-", metavar="[FILE|-]", type=click.Path(allow_dash=True))
@window_options(short=True)
@click.option("-c", "--cols", type=click.IntRange(0, 256), default=None,
              help="Bytes per line (16; xxd -b 6, -i 12, -p 30).")
@click.option("-g", "--group", type=click.IntRange(0, 256), default=None,
              help="Bytes per group (document 4, xxd 2, canonical 1; 0 = one group).")
@click.option("-u", "upper", is_flag=True, default=None, help="Upper-case hex (xxd style).")
@click.option("--style", type=click.Choice(STYLES), default="document", show_default=True,
              help="document (the manuals'), xxd, or canonical (hexdump -C).")
@codepage_option("Character column code page: 037 (default for document style), 500, 1047, "
                 "1140, ..., or ascii (default for xxd and canonical).")
@click.option("--dual", is_flag=True, help="Document style: EBCDIC and ASCII columns.")
@click.option("-v", "--no-squeeze", is_flag=True,
              help="Print repeated lines instead of 'N identical line(s) suppressed' (document) "
                   "or '*' (canonical). xxd style never squeezes unless -a.")
@click.option("-a", "autoskip", is_flag=True,
              help="xxd -a: a run of all-zero lines becomes '*' (implies --style xxd).")
@click.option("-p", "plain", is_flag=True, help="xxd -p: plain hex, 30 bytes a line.")
@click.option("-i", "include", is_flag=True, help="xxd -i: a C include file.")
@click.option("-b", "bits", is_flag=True, help="xxd -b: bits instead of hex, 6 bytes a line.")
@click.option("-e", "little", is_flag=True,
              help="xxd -e: little-endian groups (4 bytes unless -g).")
@click.option("--base", callback=_int, metavar="ADDR",
              help="Print storage addresses from ADDR (8 digits, lines aligned to the address).")
@click.option("-r", "--reverse", is_flag=True,
              help="Read dump text (document, xxd, hexdump -C, plain hex) and write the bytes.")
@click.option("-o", "--output", metavar="FILE", type=click.Path(), help="Write to FILE instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@color_option
def dump(file: str, cols: int | None, group: int | None,
         upper: bool | None, style: str, codepage: str | None, dual: bool, no_squeeze: bool,
         autoskip: bool, plain: bool, include: bool, bits: bool, little: bool,
         base: int | None, reverse: bool, output: str | None, force: bool) -> int:
    """Hex dump FILE (or stdin) in the documents' style:

    \b
      0000 E4D9C2C8 00000040 F0F10001 000000A0 *URBH... 01.....-*

    Repeated lines are squeezed into 'N identical line(s) suppressed'. --style xxd is
    byte-identical to xxd (-a, -p, -i, -b, -e, -c, -g, -u, -s, -l as xxd has them);
    --style canonical to hexdump -C. With -r, dump text is read back into bytes: the
    documents' dumps as printed (character columns garbled or missing, several lines run
    together, storage dumps that start mid-line), xxd (offsets honoured, gaps zero-filled),
    hexdump -C, amqsbcg data lines, plain hex of any length and X'...' literals. Only the
    hex words are trusted; a cut last line is an error naming its line.
    """
    env = get_env()
    if reverse:
        return _reverse(env, file, output, force)
    seek, length = _window(file, style == "xxd")
    mode = ("include" if include else "plain" if plain else "little" if little
            else "bits" if bits else "normal")
    if mode != "normal" or autoskip:
        if style not in ("document", "xxd") or base is not None or dual:
            raise click.UsageError("-a, -p, -i, -b and -e are xxd options: they go with "
                                   "--style xxd only (no --base, --dual)")
        return _xxd(env, file, seek, length, output, force, mode, cols, group,
                    bool(upper), autoskip)
    try:
        opts = DumpOptions(style=style, cols=cols or 16, group=group, upper=upper,
                           codepage=codepage, dual=dual,
                           squeeze=not no_squeeze and style != "xxd", base=base).resolved()
        from mqtool.codepages import single_byte_codec

        single_byte_codec(opts.codepage or "cp037")
    except (ValueError, LookupError) as e:
        raise click.BadParameter(str(e).strip("'\""), param_hint="--codepage") from None
    return _dump(env, file, opts, seek, length, output, force)


def _window(file: str, xxd: bool = False) -> tuple[int, int | None]:
    """Where ``-s``/``-l`` start and how many bytes they take (None: to the end; stdin's
    size is not known)."""
    from mqtool.io.inputs import check_regular, size_of

    req = window()
    if file != "-":
        check_regular(file)
    w = req.resolve(size_of(file), past_end=xxd)  # --style xxd, as xxd -s: nothing to dump
    return w.start, (w.length if w.length >= 0 else None)


def _xxd(env: Env, file: str, seek: int, length: int | None, output: str | None, force: bool,
         mode: str, cols: int | None, group: int | None, upper: bool, autoskip: bool) -> int:
    from mqtool.io.inputs import iter_chunks
    from mqtool.render.xxd import XxdOptions, xxd

    opts = XxdOptions(mode, cols, group, upper, autoskip, None if file == "-" else file).resolved()
    blocks = xxd(iter_chunks(file, seek, length), opts, start=seek)
    if output and output != "-":
        from mqtool.io.outputs import atomic_output

        with atomic_output(output, force) as f:
            for block in blocks:
                f.write(block)
        return ExitStatus.OK
    write = env.stdout.write
    for block in blocks:
        write(block)
    env.stdout.flush()
    return ExitStatus.OK


def _dump(env: Env, file: str, opts: DumpOptions, seek: int, length: int | None,
          output: str | None, force: bool) -> int:
    from mqtool.io.inputs import iter_chunks
    from mqtool.render.hexdump import dump as dump_blocks

    blocks = dump_blocks(iter_chunks(file, seek, length), opts, start=seek, total=length)
    if output and output != "-":
        from mqtool.io.outputs import atomic_output

        with atomic_output(output, force) as f:
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
    """Dump text back to bytes, streamed (``io.undump.read_back``)."""
    from mqtool.io.inputs import STDIN, open_regular, stdin
    from mqtool.io.undump import read_back

    if file == STDIN:
        _write_chunks(env, read_back(stdin(), "-"), output, force)
        return ExitStatus.OK
    with open_regular(file) as raw:  # a FIFO or a device is refused, never opened
        _write_chunks(env, read_back(raw, file, reopen=lambda: open_regular(file)), output, force)
    return ExitStatus.OK


def _write_chunks(env: Env, chunks: Iterator[bytes | Hole], output: str | None,
                  force: bool) -> None:
    """Stream to stdout (what was read stays written when an error follows), or to FILE
    through a temporary file renamed at the end (no half-written FILE). A run of zeros the
    text skips is a hole in FILE (sparse where the file system allows)."""
    import os

    from mqtool.io.outputs import atomic_output
    from mqtool.io.undump import Hole

    if not output or output == "-":
        env.refuse_binary_to_terminal()
        for c in chunks:
            for part in c.pieces() if isinstance(c, Hole) else (c,):
                env.stdout.write(part)
        env.stdout.flush()
        return
    with atomic_output(output, force) as f:
        end = 0
        for c in chunks:
            if isinstance(c, Hole) and c.pattern == b"\0":
                f.flush()
                end = os.lseek(f.fileno(), c.size, os.SEEK_CUR)
                continue
            for part in c.pieces() if isinstance(c, Hole) else (c,):
                f.write(part)
            end = 0
        if end:  # the text ends with a hole: the file's size says so
            f.flush()
            os.ftruncate(f.fileno(), end)
