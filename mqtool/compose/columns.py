"""The chain walk over every unit of a stream at once, with numpy: the columnar walker.

The same declaration the span walker reads (``Chain``: keys, length fields, generations,
trailing data and its rule, ``Trailing.faults`` / ``Trailing.tolerates``), applied to all
units together, one element per unit per round. Only elements of plain records take this
path (``types``); a unit with anything else, or with anything the span walker would report
(an unknown key, a length that does not fit, data that does not fit, non-zero filler, data
in a record whose data needs judgement), is flagged ``bad`` for the span walker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mqtool.compose import Trailing
from mqtool.compose.walk import Plan

WORD = 4  # the element head's length field and the trailing fields are fullwords


def rows(buf: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """``width`` bytes at each of ``starts`` as a contiguous (n, width) array: rows of a
    sliding-window view, without an (n, width) index matrix."""
    if not len(starts):
        return np.zeros((0, width), np.uint8)
    return np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(buf, width)[starts])


def int32(padded: np.ndarray, at: np.ndarray, big: np.ndarray) -> np.ndarray:
    """Signed fullwords at absolute offsets ``at``, each in its unit's byte order."""
    word = rows(padded, at, WORD)
    be = word.view(">i4").ravel().astype(np.int64)
    le = word.view("<i4").ravel().astype(np.int64)
    return np.where(big, be, le)


@dataclass(frozen=True)
class Columnar:
    """A chain's record types as arrays (index into ``types``), for every charset's plan:
    the keys that select them, the accepted lengths of fixed types (up to two generations),
    the minimum of the others, where their data's offset and length fields are (-1: no
    trailing data), and whether the columns carry their data."""

    types: tuple[str, ...]
    codes: np.ndarray  # sorted keys (read big-endian) ...
    code_types: np.ndarray  # ... the type each selects ...
    code_sets: np.ndarray  # ... and in which charset
    size1: np.ndarray
    size2: np.ndarray
    minimum: np.ndarray
    start_at: np.ndarray
    length_at: np.ndarray
    carries: np.ndarray
    tolerant: tuple[tuple[int, Trailing], ...]  # types whose data offset tolerates values
    head: int

    @classmethod
    def of(cls, plans: Sequence[Plan], types: tuple[str, ...]) -> Columnar:
        """From one plan per charset (charset index = position)."""
        keyed = sorted((int.from_bytes(key, "big"), types.index(p.record.type), cs)
                       for cs, plan in enumerate(plans) for key, p in plan.by_key.items()
                       if p.record.type in types)
        codes, code_types, code_sets = zip(*keyed, strict=True)
        plan = plans[0]
        out: dict[str, list[int]] = {k: [] for k in ("size1", "size2", "minimum", "start_at",
                                                     "length_at", "carries")}
        tolerant = []
        for ti, t in enumerate(types):
            rec = plan.chain.records[t]
            sizes, layout, tr = rec.sizes(plan.resolve), rec.layout(plan.resolve), rec.trailing
            out["size1"].append(sizes[0] if rec.fixed else 0)
            out["size2"].append(sizes[-1] if rec.fixed else 0)
            out["minimum"].append(min(sizes) if not rec.fixed else plan.head)
            out["start_at"].append(layout.offset_of(tr.start) if tr else -1)
            out["length_at"].append(layout.offset_of(tr.length) if tr else -1)
            out["carries"].append(bool(tr and tr.content is None))
            if tr and tr.tolerated:
                tolerant.append((ti, tr))
        arrays = {k: np.asarray(v) for k, v in out.items()}
        return cls(types, np.asarray(codes, np.uint32), np.asarray(code_types, np.int8),
                   np.asarray(code_sets, np.int8), tolerant=tuple(tolerant), head=plan.head,
                   **arrays)

    def walk(self, buf: np.ndarray, data: bytes, start: np.ndarray, end: np.ndarray,
             big: np.ndarray, cs: np.ndarray, key_at: int, len_at: int) -> dict[str, np.ndarray]:
        """All units' elements from ``start`` to ``end``, one per unit per round: their unit,
        offset, type, length and data (start, length); ``bad`` flags units the span walker
        must decode."""
        bad = np.zeros(len(start), dtype=bool)
        pos = start.copy()
        active = np.nonzero(pos < end)[0]
        found: dict[str, list[np.ndarray]] = {k: [] for k in ("msg", "pos", "type", "len", "dstart", "dlen")}
        reach = int(max(self.start_at.max(), self.length_at.max(), key_at, len_at)) + WORD
        padded = np.concatenate([buf, np.zeros(reach, np.uint8)])
        while active.size:
            p, e, b = pos[active], end[active], big[active]
            code = rows(padded, p + key_at, WORD).view(">u4").ravel()
            at = np.minimum(np.searchsorted(self.codes, code), len(self.codes) - 1)
            known = (self.codes[at] == code) & (self.code_sets[at] == cs[active]) & (e - p >= self.head)
            t = self.code_types[at].astype(np.int64)
            length = int32(padded, p + len_at, b)
            invalid = ~known | self._bad_length(t, length, p, e)
            lenh, lend = self._trailing(t, padded, p, b)
            faulty, lenh = self._bad_data(t, lenh, lend, length)
            invalid |= faulty
            trailing = self.start_at[t] >= 0
            filler = trailing & ~invalid & (length > lenh + lend)
            for j in np.nonzero(filler)[0]:  # rare: check the filler bytes are zero
                if any(data[p[j] + lenh[j] + lend[j]:p[j] + length[j]]):
                    invalid[j] = True
            bad[active[invalid]] = True
            ok = ~invalid
            good = active[ok]
            carries = self.carries[t[ok]]
            found["msg"].append(good)
            found["pos"].append(p[ok])
            found["type"].append(t[ok])
            found["len"].append(length[ok])
            found["dstart"].append(np.where(carries, p[ok] + lenh[ok], 0))
            found["dlen"].append(np.where(carries, lend[ok], 0))
            pos[good] += length[ok]
            active = good[pos[good] < end[good]]
        walked = {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in found.items()}
        walked["bad"] = bad
        return walked

    def _bad_length(self, t: np.ndarray, length: np.ndarray, p: np.ndarray, e: np.ndarray) -> np.ndarray:
        fixed = self.size1[t] > 0
        bad = (length < self.minimum[t]) | (p + length > e)
        return bad | (fixed & (length != self.size1[t]) & (length != self.size2[t]))  # type: ignore[no-any-return]

    def _trailing(self, t: np.ndarray, padded: np.ndarray, p: np.ndarray, b: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """The data's offset and length fields (tolerated offsets read as the fixed part's end)."""
        trailing = self.start_at[t] >= 0
        lenh = np.where(trailing, int32(padded, p + np.maximum(self.start_at[t], 0), b), 0)
        lend = np.where(trailing, int32(padded, p + np.maximum(self.length_at[t], 0), b), 0)
        return lenh, lend

    def _bad_data(self, t: np.ndarray, lenh: np.ndarray, lend: np.ndarray, length: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """``Trailing.faults`` and ``Trailing.tolerates`` on every element of the round, and
        data in a record whose data the columns do not carry; with the data offsets (a
        tolerated one read as the fixed part's end)."""
        trailing = self.start_at[t] >= 0
        size = self.minimum[t]
        bad = np.zeros(len(t), dtype=bool)
        for ti, tr in self.tolerant:
            sel = t == ti
            bad |= sel & ~tr.tolerates(lenh, size)
            lenh = np.where(sel, size, lenh)
        bad_start, bad_length = Trailing.faults(lenh, lend, length, size)
        bad |= trailing & (bad_start | bad_length)
        return bad | (trailing & ~self.carries[t] & (lend != 0)), lenh
