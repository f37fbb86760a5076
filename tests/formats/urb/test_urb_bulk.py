"""The bulk path (columns) gives the span decoder's values and meanings, field by field, and
hands every message it does not take to the span decoder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.urb.bulk import decode_columns
from mqtool.formats.urb.decode import decode
from mqtool.model import HEX, RESERVED, STCK
from mqtool.tod import Tod
from tests.formats.urb.test_urb_decode import DUMPS, VARIANTS, reencode
from tests.helpers import seed_bytes

SERVER = ["inst-color.data", "inst-employee.data", "close-destination.reply", "inst-color.init",
          "inst-color.cmpl", "inst-color.erro", "inst-employee.init", "inst-employee.cmpl",
          "prior-transaction.reply", "status.reply", "close-destination.request", "status.request"]


def assert_same(stream: bytes) -> int:
    """Every field of every element of every regular message: column == span; returns the count."""
    cols = decode_columns(stream)
    units = list(decode(stream))
    irregular = {u.offset for u in cols.irregular}
    rows = {t: {r["offset"]: r for r in table.to_pylist()} for t, table in cols.tables.items()}
    checked = 0
    assert cols.messages is not None
    assert sorted(cols.messages.column("offset").to_pylist() + sorted(irregular)) == [u.offset for u in units]
    for k, unit in enumerate(units):
        if unit.offset in irregular:
            bulk = next(u for u in cols.irregular if u.offset == unit.offset)
            assert (bulk.errors, bulk.problems, bulk.attrs["msg"]) == (unit.errors, unit.problems, k)
            continue
        for el in unit.elements:
            row = rows[el.type][el.offset]
            assert row["msg"] == k
            for s in el.spans:
                if s.kind == RESERVED:
                    continue
                if s.kind == STCK:
                    assert isinstance(s.value, Tod)
                    assert row[f"{s.name}_raw"] == s.value.raw
                    assert row[s.name] == s.value.datetime()
                elif s.kind == HEX:
                    assert row[s.name] == s.value
                else:
                    assert row[s.name] == s.value, (el.type, s.name)
                if s.meaning or f"{s.name}_meaning" in row:
                    assert row[f"{s.name}_meaning"] == s.meaning, (el.type, s.name)
                checked += 1
            if el.type == "URBD":
                assert row["urbddata"] == el.data
    return checked


def test_bulk_equals_spans_on_the_seed_messages() -> None:
    assert assert_same(b"".join(seed_bytes(f"urb/{n}.dump") for n in SERVER)) > 400


@pytest.mark.parametrize(("big", "cp"), VARIANTS)
def test_bulk_equals_spans_in_four_variants(big: bool, cp: str) -> None:
    blobs = []
    for n in SERVER:
        data = seed_bytes(f"urb/{n}.dump")
        blobs.append(reencode(next(decode(data)), data, big, cp))
    assert assert_same(b"".join(blobs)) > 400


def test_what_the_bulk_path_leaves_to_the_span_decoder() -> None:
    """URBI data (ISN list or selection: a judgement), damage, and trailing bytes."""
    color = seed_bytes("urb/inst-color.data.dump")
    damaged = color[:0xB0] + b"\xe4\xd9\xc2\xe7" + color[0xB4:]
    stream = (seed_bytes("urb/status.reply.dump") + seed_bytes("urb/inst-employee.request.dump") + damaged
              + seed_bytes("urb/synthetic/inst-isnlist.request.dump") + color + b"tail")
    cols = decode_columns(stream)
    assert [(u.attrs["msg"], u.offset, [p.path for p in u.errors]) for u in cols.irregular] == [
        (1, 192, []), (2, 368, ["unknown[0].eye"]), (3, 960, []), (5, 1736, ["urbh.urbheye"])]
    assert cols.messages.column("msg").to_pylist() == [0, 4]  # type: ignore[union-attr]
    assert cols.tables["URBT"].column("offset").to_pylist() == [1144 + 64]
    assert_same(stream)


def test_column_types() -> None:
    cols = decode_columns(seed_bytes("urb/inst-employee.data.dump"))
    t = cols.tables["URBT"]
    assert str(t.schema.field("urbtsnam").type) == "dictionary<values=string, indices=int32, ordered=0>"
    assert str(t.schema.field("urbtttim").type) == "timestamp[us, tz=UTC]"
    assert str(t.schema.field("urbtguid").type) == "fixed_size_binary[28]"
    assert t.column("urbtarc_meaning").to_pylist() == ["low-order byte first, ASCII, IEEE float"]
    assert "urbtres1" not in t.column_names and "urbtres2" not in t.column_names
    assert cols.messages.to_pylist() == [  # type: ignore[union-attr]
        {"msg": 0, "offset": 0, "length": 656, "codepage": "latin-1", "byte_order": "little"}]


def _streams() -> st.SearchStrategy[bytes]:
    seeds = [seed_bytes(f"urb/{n}.dump") for n in DUMPS]

    @st.composite
    def stream(draw: st.DrawFn) -> bytes:
        parts = [bytearray(draw(st.sampled_from(seeds))) for _ in range(draw(st.integers(1, 4)))]
        for part in parts:
            for _ in range(draw(st.integers(0, 3))):
                part[draw(st.integers(0, len(part) - 1))] = draw(st.integers(0, 255))
        return b"".join(parts)

    return stream()


@settings(max_examples=150, deadline=None)
@given(_streams())
def test_bulk_agrees_with_spans_on_mutated_streams(stream: bytes) -> None:
    assert_same(stream)
