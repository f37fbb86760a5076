"""A format with no command module of its own still gets ``decode NAME`` and (with a
``build_title``) ``build-request NAME``: the command tables come from ``registry.CODECS``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mqtool import registry
from mqtool.cli import format_commands
from tests.helpers import TESTDATA, mq


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> None:
    """A format "fake" that decodes and builds as matqmsg does, with no cli/fake.py."""
    c = replace(registry.codec("matqmsg"), name="fake", aliases=(), title="Fake templates.",
                build_title="A fake template.")
    monkeypatch.setattr(registry, "CODECS", (*registry.CODECS, c))


def _command(verb: str, name: str) -> click.Command:
    target, _help = format_commands(verb)[name]
    assert callable(target)
    return target()


def test_the_tables_name_every_codec_with_its_help(fake: None) -> None:
    decode, build = format_commands("decode"), format_commands("build")
    assert list(decode) == [*registry.names()]
    assert decode["urb"] == ("mqtool.cli.urb:decode_urb", registry.codec("urb").title)
    assert decode["sas-attachment"][0] == "mqtool.cli.sas:decode_sas"  # its alias' module
    assert decode["fake"][1] == "Fake templates." and build["fake"][1] == "A fake template."
    assert "redolog" not in build  # a library builder without a command (no build_title)


def test_generic_decode_gives_what_the_codec_decodes(fake: None) -> None:
    dump = TESTDATA / "matqmsg" / "keyed-eq.selection.synthetic.dump"
    r = CliRunner().invoke(_command("decode", "fake"), ["--hex", "--json", str(dump)])
    assert r.exit_code == 0, r.output
    own = mq("decode", "matqmsg", "--hex", "--json", dump)
    assert r.output == own.text


def test_generic_build_takes_a_request_file(fake: None, tmp_path: Path) -> None:
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"selection_type": "all", "key_bytes": 0, "text_bytes": 16}) + "\n")
    out = tmp_path / "t.bin"
    r = CliRunner().invoke(_command("build", "fake"), ["--from", str(req), "-o", str(out)])
    assert r.exit_code == 0, r.output
    own = mq("build-request", "matqmsg", "--type", "all", "--text-bytes", "16", "-o",
             tmp_path / "own.bin")
    assert own.status == 0 and out.read_bytes() == (tmp_path / "own.bin").read_bytes()
