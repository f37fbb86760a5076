"""How the three panes share the terminal's width, and in which order they give way.

The field tree always keeps ``TREE_MIN`` columns (the hex pane shows the names of the
fields beside its lines only where the tree still has ``TREE_ROOMY``). As the terminal
narrows, the hex pane gives way first (16 bytes a line with room for the field names, then
without it, then 8 bytes a line), then the unit list (its Info column, then the list
itself), then the hex pane goes; the list comes back alone beside the tree where the 8-byte
hex pane no longer fits but the list does. The user's toggles (``u`` the unit list, ``x`` the hex pane) win
over that order; when both cannot be had, the latest one does.
"""

from __future__ import annotations

from dataclasses import dataclass

TREE_MIN = 36  # columns the field tree never goes below
TREE_ROOMY = 56  # columns the tree keeps where the hex pane has room for field names
UNITS_WIDE, UNITS_NARROW = 44, 26  # the unit list with its Info column, and without
# the hex pane: 16 bytes a line with field names, 16 bytes (59 columns), 8 bytes (33); each
# with its border and a one-column scroll bar
HEX_NAMED, HEX_16, HEX_8 = 84, 61, 35

UNITS, HEX = "units", "hex"


@dataclass(frozen=True)
class Plan:
    """The width of the unit list and of the hex pane (0: hidden), and the bytes on a hex
    line; the field tree takes the rest."""

    units: int
    hex: int
    cols: int = 16

    @property
    def needs(self) -> int:
        return self.units + self.hex + (TREE_ROOMY if self.hex == HEX_NAMED else TREE_MIN)

    def shows(self, pane: str) -> bool:
        return (self.units if pane == UNITS else self.hex) > 0


# in order of preference: the first that fits (and agrees with the toggles) is used
PLANS = (
    Plan(UNITS_WIDE, HEX_NAMED), Plan(UNITS_WIDE, HEX_16), Plan(UNITS_WIDE, HEX_8, 8),
    Plan(UNITS_NARROW, HEX_NAMED), Plan(UNITS_NARROW, HEX_16), Plan(UNITS_NARROW, HEX_8, 8),
    Plan(0, HEX_NAMED), Plan(0, HEX_16), Plan(0, HEX_8, 8),
    Plan(UNITS_WIDE, 0), Plan(UNITS_NARROW, 0), Plan(0, 0),
)


def choose(width: int, wanted: dict[str, bool | None], latest: str | None = None) -> Plan:
    """The plan for ``width`` columns: the first of ``PLANS`` that fits and shows or hides
    each pane as ``wanted`` says (None: as the order decides); when none does, the toggle
    of ``latest`` alone is kept."""
    tries = [wanted, {p: (v if p == latest else None) for p, v in wanted.items()}]
    for keep in tries:
        for plan in PLANS:
            if plan.needs <= width and all(v is None or plan.shows(p) == v for p, v in keep.items()):
                return plan
    return PLANS[-1]
