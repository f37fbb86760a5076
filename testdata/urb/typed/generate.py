"""Writes employees-changes.urb: a small Event Replicator stream for docs/urb-typed.md.

    python testdata/urb/typed/generate.py

A global format field table (URBF + URBGs) for file 9 of database 10006 and two data
messages, built by ``mqtool.testing.urb_gen`` (EBCDIC, big-endian, as from z/OS): three
inserts, then an update of one salary, a delete and an insert.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from mqtool.testing import urb_gen as g

FIELDS = [g.Field("AA", "PERSONNEL-ID", g.A, 8), g.Field("AE", "NAME", g.A, 20),
          g.Field("AC", "SALARY", g.P, 5, 2), g.Field("AK", "BIRTH", g.DATE, 8),
          g.Field("AP", "LANG", g.A, 3, occurs=2, mu=True)]


def person(pid: str, name: str, salary: str, born: str, langs: list[str]) -> dict[str, object]:
    from datetime import date

    return {"PERSONNEL-ID": pid, "NAME": name, "SALARY": Decimal(salary),
            "BIRTH": date.fromisoformat(born), "LANG": langs}


def changes() -> list[list[g.Change]]:
    smith = person("50005800", "SMITH", "38750.00", "1961-04-12", ["ENG"])
    adkinson = person("50005900", "ADKINSON", "41200.50", "1958-11-30", ["ENG", "FRE"])
    garcia = person("50006000", "GARCIA", "29900.00", "1972-02-07", ["SPA", "ENG"])
    raised = {**smith, "SALARY": Decimal("40250.00")}
    kowalski = person("50006100", "KOWALSKI", "33000.25", "1980-08-19", ["POL"])
    return [[g.Change("I", 1, None, smith), g.Change("I", 2, None, adkinson),
             g.Change("I", 3, None, garcia)],
            [g.Change("U", 1, smith, raised), g.Change("D", 3, garcia, None),
             g.Change("I", 4, None, kowalski)]]


def main() -> None:
    data = g.stream(FIELDS, changes(), subscription="EMPLOYEE").data
    (Path(__file__).parent / "employees-changes.urb").write_bytes(data)


if __name__ == "__main__":
    main()
