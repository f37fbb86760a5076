"""mqtool's URB decoder vs adapya-era (Software AG's public Python library for the format).

    pip install adapya-era           # the baseline only; not a dependency of mqtool
    python bench/urb.py [N]          # N messages, default 100000
    python bench/urb.py --cli [N]    # whole processes: extract urb, decode urb --json, the listing
    python bench/urb.py --annotate   # --annotate of a 64 KB ISN-list request vs its listing
    python bench/urb.py --typed [N] [ROUNDS]  # typed change tables vs bytes-only (bench/urb_typed.py)

The default run ends with the typed / bytes-only cost ratio of ``extract urb --typed``
(``bench/urb_typed.py``: 20000 record changes, 5 alternated rounds, with the machine load).

With ``--cli`` every command runs as its own process on the same stream file, best of three,
against an adapya-era process in the same run: one that decodes every message like the
in-process baseline below and writes each as a JSON line (every field's value and meaning;
adapya has no table writer, so this is the baseline of ``extract urb`` too), and one that
prints the listing lines (``name = value  meaning``). Wall and CPU seconds of each child are
printed; the ratios are taken on CPU seconds (2 cores shared with other work make wall time
noisy) and on wall time.

The stream repeats the seed's ten server messages back to back: the two data messages
(EBCDIC/big-endian 592 bytes: URBT + 3 x (URBR, URBD) + URBE; ASCII/little-endian 656
bytes: URBT + 2 x (URBR, URBD 160) + URBE) and the eight status messages (URBH + URBS).
Both sides decode every message completely: every field of every element (fillers left
out) with its value and its meaning text, and each URBD's record image.

What is compared, and how the baseline is adapted (printed with the results):

* mqtool: ``mqtool.formats.urb.layout.decode(stream)``: one ``Decoded`` per message, every field a
  span with offset, value and meaning; the bench touches every span.
* adapya-era: its ``Datamap`` element classes (``Urbh``, ``Urbt``, ``Urbr``, ``Urbd``,
  ``Urbe``, ``Urbs``), created once per variant; every non-filler field read, its
  ``ppfunc`` meaning called. adapya's own walker (``reptor.Replicator.process``) advances
  past a URBT by 128 bytes and so misreads the seed's 112-byte URBTs; the baseline walks by
  each element's own length field instead, like mqtool, so both decode the same elements.
  STCK fields stay raw integers on both sides (rendering is the listing's job).
Before timing, the values of both sides are compared field by field on each message kind.
"""

from __future__ import annotations

import sys
from pathlib import Path

from _common import best

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SERVER_MESSAGES = ("inst-color.data", "inst-employee.data", "close-destination.reply", "inst-color.init",
                   "inst-color.cmpl", "inst-color.erro", "inst-employee.init", "inst-employee.cmpl",
                   "prior-transaction.reply", "status.reply")
ADAPYA_TYPES = ("URBH", "URBS", "URBT", "URBR", "URBD", "URBE")


def seed_messages() -> list[bytes]:
    from mqtool.io.undump import undump

    return [undump((ROOT / "testdata" / "urb" / f"{n}.dump").read_text(encoding="utf-8"))
            for n in SERVER_MESSAGES]


def stream_of(n: int) -> bytes:
    msgs = seed_messages()
    return b"".join(msgs[k % len(msgs)] for k in range(n))


# --------------------------------------------------------------------------- mqtool


def mqtool_decode(stream: bytes) -> tuple[int, int]:
    """Decode the stream; returns (messages, fields) after touching every value and meaning."""
    from mqtool.formats.urb.decode import decode
    from mqtool.model import RESERVED

    messages = fields = 0
    for unit in decode(stream):
        messages += 1
        for el in unit.walk():
            for s in el.spans:
                if s.kind != RESERVED:
                    s.value, s.meaning  # noqa: B018 - touch what the listing would print
                    fields += 1
            fields += el.data is not None
    return messages, fields


def mqtool_columns(stream: bytes) -> tuple[int, int]:
    """Decode the stream to columns; returns (messages, field values)."""
    from mqtool.formats.urb.bulk import decode_columns

    cols = decode_columns(stream)
    assert not cols.irregular
    fields = sum(t.num_rows * sum(1 for c in t.column_names if c not in ("msg", "offset")
                                  and c != "urbsdata" and not c.endswith(("_meaning", "_raw")))
                 for t in cols.tables.values())
    return cols.messages.num_rows, fields  # type: ignore[union-attr]


# --------------------------------------------------------------------------- adapya-era


class Adapya:
    """adapya-era's element Datamaps, one set per variant, walked by element lengths."""

    def __init__(self) -> None:
        from adapya.base import datamap
        from adapya.era import urb as au

        self.datamap = datamap
        classes = {"URBH": au.Urbh, "URBS": au.Urbs, "URBT": au.Urbt, "URBR": au.Urbr,
                   "URBD": au.Urbd, "URBE": au.Urbe}
        self.maps = {}
        for ebcdic in (True, False):
            for big in (True, False):
                maps = {}
                for name, cls in classes.items():
                    dm = cls(buffer=None, offset=0)
                    dm.setEbcdic(ebcdic)
                    dm.byteOrder = datamap.NETWORKBO if big else datamap.NATIVEBO
                    keys = [(k, dm.keydict[k][4].get("ppfunc")) for k in dm.keylist
                            if not dm.keydict[k][3] & datamap.T_NONE]
                    maps[name] = (dm, keys)
                self.maps[(ebcdic, big)] = maps

    def decode(self, stream: bytes, collect: bool = False) -> tuple[int, int, list]:
        messages = fields = 0
        out: list = []
        off, n = 0, len(stream)
        while off < n:
            ebcdic = stream[off:off + 4] == b"\xe4\xd9\xc2\xc8"
            big = stream[off + 10:off + 12] == b"\x00\x01"
            maps = self.maps[(ebcdic, big)]
            cp = "cp037" if ebcdic else "latin-1"
            h, keys = maps["URBH"]
            h.buffer, h.offset = stream, off
            msg = [("URBH", self._read(h, keys))]
            lent = h.urbhlent
            pos, end = off + 64, off + lent
            while pos < end:
                dm, keys = maps[stream[pos:pos + 4].decode(cp)]
                dm.buffer, dm.offset = stream, pos
                values = self._read(dm, keys)
                name = dm.dmname
                length = values[f"{name.lower()}len"][0]
                if name == "URBD":
                    values["urbddata"] = (stream[pos + 32:pos + 32 + dm.urbdlend], "")
                msg.append((name, values))
                pos += length
            messages += 1
            fields += sum(len(v) for _, v in msg)
            if collect:
                out.append(msg)
            off = end
        return messages, fields, out

    @staticmethod
    def _read(dm, keys) -> dict:  # type: ignore[no-untyped-def]
        values = {}
        for key, fun in keys:
            v = getattr(dm, key)
            values[key] = (v, fun(v) if fun else "")
        return values


def compare(adapya: Adapya) -> list[str]:
    """Field-by-field comparison of both decoders on each message kind; differences in words."""
    from mqtool.formats.urb.decode import decode
    from mqtool.tod import Tod

    notes = []
    compared = 0
    for name, data in zip(SERVER_MESSAGES, seed_messages(), strict=True):
        unit = next(decode(data))
        _, _, (theirs,) = adapya.decode(data, collect=True)
        ours = [el for el in unit.elements]
        if [e.type for e in ours] != [t for t, _ in theirs]:
            notes.append(f"{name}: element chains differ")
            continue
        for el, (_t, values) in zip(ours, theirs, strict=True):
            spans = {s.name: s for s in el.spans}
            for key, (v, _m) in values.items():
                if key == "urbddata":
                    same = v == el.data
                elif key not in spans:
                    notes.append(f"{name}: {el.type}.{key} only in adapya")
                    continue
                else:
                    mine = spans[key].value
                    if isinstance(mine, Tod):
                        mine = mine.raw
                    if isinstance(v, bytes) and isinstance(mine, int):  # urbtarc: 1 byte
                        v = int.from_bytes(v, "big")
                    same = mine == v
                compared += 1
                if not same:
                    notes.append(f"{name}: {el.type}.{key}: mqtool {spans[key].value!r}, adapya {v!r}")
    return [f"{compared} field values compared on the {len(SERVER_MESSAGES)} message kinds: "
            f"{'all equal' if not notes else str(len(notes)) + ' differ'}", *notes]


# --------------------------------------------------------------------------- whole processes


def adapya_process(mode: str, path: str) -> None:
    """The baseline process: decode the stream with adapya-era, write JSON lines or a listing."""
    import json

    adapya = Adapya()
    data = Path(path).read_bytes()
    _, _, msgs = adapya.decode(data, collect=True)
    out = sys.stdout
    for msg in msgs:
        if mode == "json":
            out.write(json.dumps([[name, {k: [v.hex().upper() if isinstance(v, bytes) else v, m]
                                             for k, (v, m) in values.items()}]
                                  for name, values in msg], ensure_ascii=False) + "\n")
        else:
            for name, values in msg:
                out.write(f"{name} element\n")
                for k, (v, m) in values.items():
                    out.write(f"  {k} = {v!r}  {m}\n")
            out.write("\n")


def timed(cmd: list[str], runs: int = 3) -> tuple[float, float]:
    """Best wall and best CPU (user + system) seconds of ``runs`` runs of ``cmd``."""
    import resource
    import subprocess
    import time

    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def extract_command(src: str, out: str) -> list[str]:
    """``mqtool extract urb`` where the extract group has it, else the same click command."""
    import subprocess

    from _common import mqtool_cmd

    probe = subprocess.run([*mqtool_cmd(), "extract", "urb", "--help"], capture_output=True, check=False)
    if probe.returncode == 0 and b"URBH" in probe.stdout:
        return [*mqtool_cmd(), "extract", "urb", src, "-o", out, "--force"]
    return [sys.executable, "-c", "import sys; from mqtool.cli.urb import "
            "extract_urb; sys.exit(extract_urb.main(sys.argv[1:], standalone_mode=False))",
            src, "-o", out, "--force"]


def cli_main(n: int) -> None:
    from _common import OUT, mqtool_cmd

    OUT.mkdir(parents=True, exist_ok=True)
    src = OUT / f"urb-{n}.bin"
    if not src.exists() or src.stat().st_size != len(stream_of(min(n, 10))) * n // min(n, 10):
        src.write_bytes(stream_of(n))
    me = [sys.executable, __file__]
    rows = [
        ("adapya-era, JSON lines", [*me, "--adapya", "json", str(src)]),
        ("adapya-era, listing", [*me, "--adapya", "listing", str(src)]),
        ("mqtool extract urb (Parquet)", extract_command(str(src), str(OUT / f"urb-{n}-tables"))),
        ("mqtool decode urb --json", [*mqtool_cmd(), "decode", "urb", "--json", str(src)]),
        ("mqtool decode urb (listing)", [*mqtool_cmd(), "decode", "urb", str(src)]),
    ]
    print(f"{n} messages, {src.stat().st_size / 1e6:.1f} MB, whole processes, best of 3")
    times = {}
    for name, cmd in rows:
        times[name] = timed(cmd)
        wall, cpu = times[name]
        print(f"  {name:<30} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
    base_json, base_list = times["adapya-era, JSON lines"], times["adapya-era, listing"]
    for name, base in (("mqtool extract urb (Parquet)", base_json), ("mqtool decode urb --json", base_json),
                       ("mqtool decode urb (listing)", base_list)):
        wall, cpu = times[name]
        print(f"  {name:<30} {base[1] / cpu:5.1f}x adapya (cpu)   {base[0] / wall:5.1f}x (wall)")


def annotate_main(isns: int) -> None:
    """F10: ``--annotate`` of an ISN-list request against its listing, whole processes; the
    ratio stays flat as the list grows when annotation is linear."""
    import json

    from _common import OUT, mqtool_cmd

    OUT.mkdir(parents=True, exist_ok=True)
    for n in (isns // 4, isns):
        desc = OUT / f"isn-{n}.json"
        desc.write_text(json.dumps({"type": "inst", "inam": "I", "dbid": 1, "fnr": 1, "rnam": "R",
                                    "isns": list(range(1, n + 1))}))
        src = OUT / f"isn-{n}.bin"
        import subprocess

        subprocess.run([*mqtool_cmd(), "build-request", "urb", "--from", str(desc), "-o", str(src),
                        "--force"], check=True)
        listing = timed([*mqtool_cmd(), "decode", "urb", str(src)])
        annotated = timed([*mqtool_cmd(), "decode", "urb", "--annotate", str(src)])
        print(f"  {n:6d} ISNs ({src.stat().st_size / 1024:.0f} KB): listing cpu {listing[1]:5.2f} s, "
              f"--annotate cpu {annotated[1]:5.2f} s ({annotated[1] / listing[1]:.1f}x the listing)")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--annotate":
        annotate_main(int(sys.argv[2]) if len(sys.argv) > 2 else 16383)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--adapya":
        adapya_process(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--typed":
        import urb_typed

        urb_typed.run(*(int(a) for a in sys.argv[2:4]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--cli":
        cli_main(int(sys.argv[2]) if len(sys.argv) > 2 else 100_000)
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    try:
        adapya = Adapya()
    except ImportError:
        sys.exit("adapya-era is not installed: pip install adapya-era (the baseline of this benchmark "
                 "only; mqtool does not need it)")
    stream = stream_of(n)
    print(f"{n} messages, {len(stream) / 1e6:.1f} MB (the seed's 2 data and 8 status messages, repeated)")
    for line in compare(adapya):
        print(f"  {line}")

    warm = stream_of(100)  # imports and layouts, outside the timing
    mqtool_columns(warm)
    mqtool_decode(warm)
    t_col, (c_msgs, c_fields) = best(mqtool_columns, stream)
    t_mq, (m_msgs, m_fields) = best(mqtool_decode, stream)
    t_ad, (a_msgs, a_fields, _) = best(adapya.decode, stream)
    assert m_msgs == a_msgs == c_msgs == n, (m_msgs, a_msgs, c_msgs)
    assert m_fields == a_fields == c_fields, (m_fields, a_fields, c_fields)
    print(f"  {m_fields} field values each (every field but the reserved fillers, and each image)")
    print(f"  mqtool bulk (columns)     {t_col:6.2f} s  {n / t_col:9.0f} msg/s   {t_ad / t_col:5.1f}x adapya")
    print(f"  mqtool decode (spans)     {t_mq:6.2f} s  {n / t_mq:9.0f} msg/s   {t_ad / t_mq:5.1f}x adapya")
    print(f"  adapya-era 1.3.0          {t_ad:6.2f} s  {n / t_ad:9.0f} msg/s")
    print("  bulk: urb_bulk.decode_columns, one Arrow table per element type, a value column per")
    print("  field and a meaning column per field with a meaning table; spans: urb.decode, one")
    print("  Span (offset, value, meaning, raw bytes) per field, what listings and JSON are made of.")
    import urb_typed

    print("typed change tables (extract urb --typed) against the bytes-only changes table:")
    urb_typed.run()


if __name__ == "__main__":
    main()
