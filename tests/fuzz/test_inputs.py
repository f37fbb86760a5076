"""Queue-dump readers (dmpmqmsg, amqsbcg, MQMD-prefixed binary, mqtool directory index) and
``dump -r`` on damaged input: only ``MqtoolError`` from the library, located problems, and
a command line that never exits 70."""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq.dumps.read import QueueDump
from mqtool.formats.mq.dumps.write import write_amqsbcg, write_dmpmqmsg, write_mqmd_binaries
from mqtool.io.outputs import OutputDir
from mqtool.io.undump import undump
from tests.fuzz.strategies import check_cli, damaged, mutated_text, run_fuzz, seed_texts, write_temp
from tests.helpers import TESTDATA, mq


def _messages() -> list:  # type: ignore[type-arg]
    return list(QueueDump(str(TESTDATA / "sas" / "mytext-zos.qmsg")))[:3]


def _seed_dumps() -> dict[str, list[bytes]]:
    msgs = _messages()
    dmp, bcg = io.BytesIO(), io.BytesIO()
    write_dmpmqmsg(msgs, dmp, width=16)
    write_amqsbcg(msgs, bcg)
    tmp = Path(tempfile.mkdtemp(prefix="mqfuzz-"))
    try:
        write_mqmd_binaries(msgs[:1], OutputDir(tmp))
        binary = next(tmp.glob("*.bin")).read_bytes()
    finally:
        shutil.rmtree(tmp)
    return {"dmpmqmsg": [dmp.getvalue(), (TESTDATA / "sas" / "class-zos.qmsg").read_bytes()[:4000]],
            "amqsbcg": [bcg.getvalue()], "mqmd-binary": [binary]}


SEEDS = _seed_dumps()


def read_all(data: bytes, kind: str) -> None:
    f = write_temp(data)
    try:
        dump = QueueDump(str(f), kind)
        for msg in dump:
            assert isinstance(msg.body, bytes)
            for p in msg.problems:
                assert isinstance(p.offset, int) and p.offset >= 0, p
        for p in dump.errors + dump.warnings:
            assert isinstance(p.offset, int) and p.offset >= 0, p
    except MqtoolError:
        pass
    finally:
        f.unlink()


@pytest.mark.parametrize("kind", list(SEEDS))
def test_queue_dump_reader_raises_only_mqtool_errors(kind: str, fuzz_examples: int) -> None:
    run_fuzz(fuzz_examples, lambda data: read_all(data, kind), damaged(SEEDS[kind]))


@pytest.mark.parametrize("kind", ["dmpmqmsg", "amqsbcg"])
def test_queue_dump_text_damage(kind: str, fuzz_examples: int) -> None:
    texts = [b.decode("latin-1") for b in SEEDS[kind]]
    run_fuzz(fuzz_examples, lambda text: read_all(text.encode("utf-8", "surrogatepass"), kind),
             mutated_text(texts))


def test_mqtool_directory_index_damage(fuzz_examples: int) -> None:
    lines = ['{"seq":1,"file":"000001.bin","msgtype":100000,"correlid":"%s"}' % ("11" * 24)]

    def prop(text: str) -> None:
        root = Path(tempfile.mkdtemp(prefix="mqfuzz-"))
        try:
            (root / "000001.bin").write_bytes(b"body")
            (root / "index.jsonl").write_text(text, encoding="utf-8", errors="surrogatepass")
            try:
                for msg in QueueDump(str(root), "mqtool-dir"):
                    assert isinstance(msg.body, bytes)
            except MqtoolError:
                pass
        finally:
            shutil.rmtree(root)

    run_fuzz(fuzz_examples, prop, mutated_text(lines))


@pytest.mark.parametrize("kind", list(SEEDS))
def test_reassemble_list_never_crashes(kind: str, fuzz_examples: int) -> None:
    def prop(data: bytes) -> None:
        f = write_temp(data)
        try:
            argv = ["reassemble", "attachment", str(f), "--list", "--input-format", kind]
            check_cli(mq(*argv), argv)
        finally:
            f.unlink()

    run_fuzz(max(fuzz_examples // 2, 5), prop, damaged(SEEDS[kind]))


# ------------------------------------------------------------------ dump -r

DUMP_TEXTS = seed_texts("dump/*", "urb/status.request.dump", "osb/sample1.header.dump",
                        "csq1logp/hello-2seg.dump")


def test_undump_raises_only_mqtool_errors(fuzz_examples: int) -> None:
    def prop(text: str) -> None:
        with contextlib.suppress(MqtoolError):
            assert isinstance(undump(text), bytes)

    run_fuzz(fuzz_examples, prop, st.one_of(mutated_text(DUMP_TEXTS), st.text(max_size=300)))


def test_dump_r_never_crashes(fuzz_examples: int) -> None:
    def prop(text: str) -> None:
        f = write_temp(text, ".txt")
        out = f.with_suffix(".out")
        try:
            argv = ["dump", "-r", str(f), "-o", str(out)]
            r = mq(*argv)
            check_cli(r, argv)
            assert r.status == 0 or not out.exists(), "a failed dump -r leaves no output"
        finally:
            f.unlink()
            out.unlink(missing_ok=True)

    run_fuzz(max(fuzz_examples // 2, 5), prop, mutated_text(DUMP_TEXTS))
