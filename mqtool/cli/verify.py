"""``mqtool verify MANIFEST``: re-hash the files a run's chain of custody names and say
what changed since."""

from __future__ import annotations

import json

import click

from mqtool.cli._common import get_env


@click.command(short_help="Check the files a manifest's chain of custody names: what changed.")
@click.argument("manifest", metavar="MANIFEST", type=click.Path())
@click.option("--json", "json_out", is_flag=True,
              help='One JSON object: {"manifest", "status", "checks": [{"role", "path", '
                   '"status", "detail"}]}.')
def verify(manifest: str, json_out: bool) -> int:
    """Read the chain of custody in MANIFEST (a manifest.json of 'scan --carve' or
    'reassemble attachment', the _summary.json of 'extract', the custody.json of 'messages
    -o', or a bare record) and check every file it names: each input by its recorded
    path, each output beside MANIFEST. One line per file:

    \b
      OK         input  image.bin
      SHA256     output 000002-0000000ca9-mq.mq: SHA-256 ..., recorded ...

    A file is OK, MTIME (content as recorded, modification time not: touched),
    SIZE or SHA256 (content changed), MISSING, UNREADABLE, or UNCHECKED (standard input
    cannot be read again). The last line says the verdict: verified, touched or changed.

    Exit status 0 when every file's content is as recorded (verified or touched), 2 when
    any changed or is missing, 1 when MANIFEST holds no custody record.
    """
    from mqtool import api
    from mqtool.render.terminal import escape as printable

    env = get_env()
    v = api.verify(manifest)
    if json_out:
        env.line(json.dumps(v.to_json(), ensure_ascii=False))
    else:
        for check in v.checks:
            env.line(printable(check.line()))
        inputs = sum(c.role == "input" for c in v.checks)
        env.line(printable(f"{manifest}: {v.status} ({inputs} input(s), "
                           f"{len(v.checks) - inputs} output(s))"))
    env.stdout.flush()
    return int(v.exit_status)
