"""``mqtool layouts``: the record layouts mqtool knows, from its declarations."""

from __future__ import annotations

import click

from mqtool.cli._common import get_env

SUFFIX = {"table": ".txt", "markdown": ".md", "json": ".json", "ksy": ".ksy"}


@click.command(short_help="Show the record layouts mqtool knows: tables, Markdown, JSON, Kaitai.")
@click.argument("selector", required=False, metavar="[FORMAT[.RECORD]]")
@click.option("--markdown", "style", flag_value="markdown", help="Markdown tables (docs/formats/).")
@click.option("--json", "style", flag_value="json",
              help="One JSON line per format (or record): every field's name, offset, size, type, "
                   "meanings; element tables and repeated members.")
@click.option("--ksy", "style", flag_value="ksy",
              help="A Kaitai Struct spec of the whole format (for ImHex, Kaitai's Web IDE, "
                   "visualizers and compilers).")
@click.option("-o", "--output", metavar="DIR",
              type=click.Path(file_okay=False, dir_okay=True, writable=True),
              help="Write one file per format into this directory (FORMAT.md, FORMAT.json, "
                   "ID.ksy, FORMAT.txt) instead of printing.")
@click.option("--force", is_flag=True, help="Overwrite existing files in the output directory.")
def layouts(selector: str | None, style: str | None, output: str | None, force: bool) -> int:
    """Show the record layouts of FORMAT (urb, csq1logp, sas-attachment, redolog, matqmsg, mq),
    or of one record (urb.URBH, any case), as the manuals print them: offset in decimal and
    hex, type, length, name, description and the meaning of each value. Without FORMAT, list
    the formats and their records.

    Everything comes from the same declarations the decoders, builders and bulk paths use,
    so the tables cannot drift from what mqtool decodes. --markdown writes the tables of
    docs/formats/, --json the same as data, --ksy a Kaitai Struct spec of a whole format
    (its element chains, framing, repeated members and meaning tables as enums).
    """
    from mqtool import api
    from mqtool.errors import ExitStatus, InputError
    from mqtool.render import layouts as render

    style = style or "table"
    env = get_env()
    if selector:
        fmt, record = api.lookup_layout(selector)
        chosen = [fmt]
    else:
        record = None
        chosen = api.format_docs()
    if record is not None and (style == "ksy" or output):
        raise InputError(f"{'--ksy' if style == 'ksy' else '-o'} takes a whole format "
                         f"({fmt.name}), not one record")

    def text_of(f: render.FormatDoc) -> str:
        if style == "markdown":
            return render.markdown(f)
        if style == "json":
            return render.to_json(f) + "\n"
        if style == "ksy":
            return api.ksy(f.name)
        return render.listing(f)

    if output:
        from mqtool.errors import OutputExistsError
        from mqtool.io.outputs import OutputDir

        texts = {(render.ksy_id(f.name) if style == "ksy" else f.name) + SUFFIX[style]: text_of(f)
                 for f in chosen}  # all rendered first: a failure writes nothing
        out = OutputDir(output, force)
        for p in (out.path(name) for name in texts):
            if p.exists() and not force:
                raise OutputExistsError(f"{p} exists (use --force to overwrite)")
        for name, text in texts.items():
            with out.create(name, binary=False) as fh:
                fh.write(text)
            env.line(str(out.path(name)))
        return ExitStatus.OK
    if record is not None:
        if style == "markdown":
            env.write(render.markdown_record(fmt, record))
        elif style == "json":
            env.line(render.to_json(fmt, record))
        else:
            env.write(render.table(fmt, record))
        return ExitStatus.OK
    if not selector and style == "table":
        env.write(render.summary(chosen))
        return ExitStatus.OK
    if style == "ksy" and len(chosen) > 1:
        raise InputError("--ksy describes one format: name it (mqtool layouts urb --ksy), "
                         "or write them all with -o DIR")
    env.write(("" if style == "json" else "\n").join(text_of(f) for f in chosen))
    return ExitStatus.OK
