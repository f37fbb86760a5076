"""The app driven headless by Textual's pilot: selection both ways, keys, problems, export."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

from textual.widgets import Input, OptionList

from mqtool.formats.urb.layout import layouts as urb_layouts
from mqtool.io.undump import undump
from mqtool.view.app import ViewApp, parse_offset
from mqtool.view.layout import TREE_MIN
from mqtool.view.sources import open_source
from mqtool.view.widgets import HexView, UnitList
from tests.helpers import ROOT
from tests.view.conftest import CSQ_2SEG, SAS_QMSG, URB_DATA, URB_PROBLEM

SIZE = (160, 45)
URBR_AT = 0x00B0  # the first URBR element of inst-color.data (seed dump line 00B0)
ISN_AT = URBR_AT + urb_layouts().URBR.offset_of("urbrisn")


def drive(path: Path, steps: Callable[[ViewApp, Any], Awaitable[None]], **open_args: Any) -> ViewApp:
    app = ViewApp(open_source(str(path), **open_args))

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await steps(app, pilot)

    asyncio.run(go())
    return app


def screen_line(widget: Any, y: int) -> str:
    return widget.render_line(y).text.rstrip()


def test_moving_in_the_tree_highlights_the_fields_bytes() -> None:
    seen: list[tuple[str, tuple[int, int] | None, int | None, bytes]] = []

    async def steps(app: ViewApp, pilot: Any) -> None:
        assert app.field_tree.has_focus and app.selected is app.root
        await pilot.press("down", "down")  # root -> URBH element -> urbheye
        await pilot.pause()
        for _ in range(2):
            n = app.selected
            seen.append((n.path, app.hex.selected, app.hex.cursor, app.loaded.data[n.start:n.end]))
            await pilot.press("down")
            await pilot.pause()

    drive(URB_DATA, steps)
    raw = undump(URB_DATA.read_text())
    assert seen == [("urbh.urbheye", (0, 4), 0, "URBH".encode("cp037")),
                    ("urbh.urbhlen", (4, 8), 4, raw[4:8])]
    assert raw[4:8] == (64).to_bytes(4, "big")


def test_moving_the_hex_cursor_selects_the_innermost_field() -> None:
    got: dict[str, Any] = {}

    async def steps(app: ViewApp, pilot: Any) -> None:
        app.hex.focus()
        await pilot.press(*["down"] * (ISN_AT // 16), *["right"] * (ISN_AT % 16 + 2))
        await pilot.pause()
        got["cursor"] = app.hex.cursor
        got["path"] = app.selected.path
        got["tree"] = app.field_tree.cursor_node.data.path
        got["highlight"] = app.hex.selected
        got["status"] = str(app.query_one("#status").render())
        await pilot.click(HexView, offset=(app.hex.model.geo.hex_pos[0] + 1, 0))  # byte 0
        await pilot.pause()
        got["clicked"] = (app.hex.cursor, app.selected.path, app.field_tree.cursor_node.data.path)

    drive(URB_DATA, steps)
    assert got["cursor"] == ISN_AT + 2
    assert got["path"] == got["tree"] == "urbr[0].urbrisn"
    assert got["highlight"] == (ISN_AT, ISN_AT + 4)
    assert f"urbr[0].urbrisn X'{ISN_AT:04X}'..X'{ISN_AT + 3:04X}' (4 bytes)" in got["status"]
    assert got["clicked"] == (0, "urbh.urbheye", "urbh.urbheye")


def test_search_goto_and_the_screen_text() -> None:
    got: dict[str, Any] = {}

    async def steps(app: ViewApp, pilot: Any) -> None:
        await pilot.press("slash", *"urbrisn", "enter")
        await pilot.pause()
        got["first"] = (app.selected.path, app.hex.selected)
        await pilot.press("slash", "enter")  # the last query again: the next match
        await pilot.pause()
        got["second"] = app.selected.path
        await pilot.press("slash", "ctrl+u", *"X'C2D3E4C5'", "enter")  # "BLUE"
        await pilot.pause()
        got["bytes"] = (app.hex.cursor, app.hex.selected, app.selected.path)
        await pilot.press("g", *"X'0240'", "enter")
        await pilot.pause()
        got["goto"] = (app.hex.cursor, app.selected.path)
        hexv, units = app.query_one(HexView), app.query_one(UnitList)
        got["hex_top"] = screen_line(hexv, 0)
        got["unit_row"] = screen_line(units, 0)
        got["units_width"] = units.size.width
        got["heading"] = str(app.query_one("#units-head").render())
        got["hex_row_of_cursor"] = screen_line(hexv, 0x240 // 16 - int(hexv.scroll_offset.y))

    drive(URB_DATA, steps)
    assert got["first"] == ("urbr[0].urbrisn", (ISN_AT, ISN_AT + 4))
    assert got["second"] == "urbr[1].urbrisn"
    assert got["bytes"] == (0x190, (0x190, 0x194), "urbd[1].urbddata")
    assert got["goto"] == (0x240, "urbe[0].urbetsnr")
    seed = URB_DATA.read_text()
    # the pane prints the seed's own dump lines, the character column between asterisks
    line_0240 = seed[seed.index("0240 "):][:40]
    assert got["hex_row_of_cursor"].startswith(line_0240)
    assert got["hex_top"].startswith(seed[:40])
    assert got["hex_row_of_cursor"].endswith("*................*")
    # the unit's line: number, offset, length, and its Info as far as the pane shows it (the
    # seed's elements in order, URBR and URBD three times; the subscription in URBTSNAM)
    row = "     1 X'0000'     592 URBH URBT URBR×3 URBD×3 URBE, COLOR"
    assert got["unit_row"] == row[:got["units_width"]].rstrip()
    assert got["heading"].rstrip() == "   No. Offset   Length Info"


def test_next_and_previous_unit_and_go_to_another_units_offset() -> None:
    got: list[tuple[int, int, str]] = []

    async def steps(app: ViewApp, pilot: Any) -> None:
        for key in ("n", "n", "p"):  # the second n has nowhere to go
            await pilot.press(key)
            await pilot.pause()
            got.append((app.index, app.loaded.origin, app.selected.kind))
        await pilot.press("g", *"0x00DA", "enter")  # inside the second record
        await pilot.pause()
        got.append((app.index, app.hex.cursor, app.selected.path))

    drive(CSQ_2SEG, steps)
    assert got[:3] == [(1, 212, "unit"), (1, 212, "unit"), (0, 0, "unit")]
    # record 2 starts at X'00D4': RDW (4 bytes), then csrecorddate at X'00D8'
    assert got[3] == (1, 0xDA, "csrecorddate")


def test_a_queue_dumps_units_and_the_unit_list() -> None:
    got: list[Any] = []

    async def steps(app: ViewApp, pilot: Any) -> None:
        units = app.query_one(UnitList)
        units.focus()
        await pilot.press("down")
        await pilot.pause(0.4)  # the unit is shown once the cursor rests
        got.append((app.index, app.loaded.unit.attrs["message"], app.loaded.unit.format))
        await pilot.press("end")
        await pilot.pause(0.4)
        got.append((app.index, len(app.source)))
        loads = []
        real = app.source.load
        app.source.load = lambda i: loads.append(i) or real(i)
        await pilot.press("home", "down", "down", "down")
        await pilot.pause(0.4)
        got.append((app.index, loads))

    drive(SAS_QMSG, steps)
    assert got[0] == (1, 2, "sas-attachment")
    assert got[1][0] == got[1][1] - 1 > 2
    assert got[2] == (3, [3])  # moving through units 0..2 decoded none of them


def test_problems_are_listed_and_jump_to_their_offset() -> None:
    got: dict[str, Any] = {}

    async def steps(app: ViewApp, pilot: Any) -> None:
        problems = app.query_one(OptionList)
        got["listed"] = str(problems.get_option_at_index(0).prompt)
        got["tree_label"] = str(app.tree_nodes[id(app.root.children[1].children[5])].label)
        problems.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        got["jump"] = (app.hex.cursor, app.selected.path, app.hex.has_focus)

    drive(URB_PROBLEM, steps)
    assert got["listed"].startswith("problem X'0060': urbirt 'TRAM' is not a request type")
    assert got["jump"] == (0x60, "urbi[0].urbirt", True)


def test_export_writes_the_selection(tmp_path: Path) -> None:
    json_out, dump_out = tmp_path / "urbr.json", tmp_path / "isn.dump"
    got: dict[str, Any] = {}

    async def steps(app: ViewApp, pilot: Any) -> None:
        app.select(app.root.children[2])  # urbr[0]
        await pilot.press("e")
        await pilot.pause()
        prompt = app.query_one("#prompt", Input)
        got["default"] = prompt.value
        prompt.value = str(json_out)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("slash", "ctrl+u", *"urbrisn", "enter", "e")
        await pilot.pause()
        prompt.value = str(dump_out)
        await pilot.press("enter")
        await pilot.pause()
        got["status"] = str(app.query_one("#status").render())

    drive(URB_DATA, steps)
    assert got["default"] == "unit1-urbr_0.json"
    assert json.loads(json_out.read_text())["fields"]["urbrisn"] == 2
    assert undump(dump_out.read_text()) == (2).to_bytes(4, "big")
    assert f"wrote 4 bytes as dump text to {dump_out}" in got["status"]


def test_help_and_quit_with_status_0() -> None:
    got: dict[str, Any] = {}

    async def steps(app: ViewApp, pilot: Any) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        got["help"] = app.screen.query_one("#help").render()
        await pilot.press("x")  # any key closes it
        await pilot.pause()
        got["closed"] = app.screen is app.screen_stack[0]
        await pilot.press("q")

    app = drive(URB_DATA, steps)
    assert "/        search" in str(got["help"]) and got["closed"]
    assert app.return_value == 0 and app.return_code == 0


@pytest.mark.parametrize(("text", "value"), [("592", 592), ("0x250", 592), ("X'0250'", 592),
                                             ("250h", 592), ("x'", None), ("twelve", None)])
def test_offsets_are_read_in_the_notations_users_type(text: str, value: int | None) -> None:
    assert parse_offset(text) == value


def test_the_readme_screenshot_is_generated_from_the_app(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The SVG in README is this screen (MQTOOL_WRITE_DOCS=1 rewrites docs/view.svg); the
    file is named as a user in the checkout names it, no machine path in the picture."""
    import os

    monkeypatch.chdir(ROOT)
    out = tmp_path / "view.svg"

    async def steps(app: ViewApp, pilot: Any) -> None:
        await pilot.press("slash", *"urbrisn", "enter")
        await pilot.pause()
        app.save_screenshot(str(out.name), path=str(out.parent))

    drive(URB_DATA.relative_to(ROOT), steps)
    svg = out.read_text()
    tokens = ("urbr[0].urbrisn&#160;X&#x27;00C0&#x27;", "592&#160;URBH&#160;URBT&#160;URBR×3",
              "Length&#160;Info", "inst-color.data.dump", "q&#160;quit")
    for text in tokens:
        assert text in svg, text
    docs = ROOT / "docs" / "view.svg"
    if os.environ.get("MQTOOL_WRITE_DOCS"):
        docs.parent.mkdir(exist_ok=True)
        docs.write_text(svg)
    readme = (ROOT / "README.md").read_text()
    assert "docs/view.svg" in readme
    committed = docs.read_text()
    for text in tokens:
        assert text in committed, text
    assert str(ROOT) not in committed


def test_a_search_goes_on_in_the_following_units() -> None:
    got: list[Any] = []

    async def steps(app: ViewApp, pilot: Any) -> None:
        # the first observation of the data set (name "Alfred") is in a later message
        await pilot.press("slash", *"X'C1938699858440'", "enter")  # "Alfred " in EBCDIC
        await pilot.pause()
        got.append((app.index, app.hex.selected, app.loaded.data))
        await pilot.press("slash", "ctrl+u", *"no such field anywhere", "enter")
        await pilot.pause()
        got.append(app.index)

    drive(SAS_QMSG, steps)
    index, selected, data = got[0]
    from mqtool import registry
    from mqtool.formats.mq.dumps.read import QueueDump

    needle = "Alfred ".encode("cp037")
    first = next(i for i, (_, body) in enumerate(registry.decode_messages(QueueDump(str(SAS_QMSG))))
                 if needle in body)
    assert index == first > 0 and selected is not None
    assert data[selected[0]:selected[1]] == "Alfred ".encode("cp037")
    assert got[1] == index  # nothing found: the unit shown stays


def test_go_to_an_offset_the_background_framing_has_not_reached(extract_file: Path) -> None:
    from mqtool.formats.csq1logp.framing import frames, read_chunks
    from mqtool.view.sources import ExtractSource

    all_frames = [(f.offset, f.length) for f in frames(read_chunks(str(extract_file)), "rdw")]
    target = all_frames[-3][0] + 9
    got: list[Any] = []

    class OneSliceATime(ExtractSource):
        def advance(self, seconds: float) -> None:
            super().advance(0)  # 512 records a tick, whatever the budget

    app = ViewApp(OneSliceATime(str(extract_file), initial=0))

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            app.goto(hex(target))  # what g + Enter calls (key presses are slower than framing)
            got.append((app._pending_goto, len(app.source) < len(all_frames)))
            for _ in range(100):
                await pilot.pause(0.1)
                if app.index == len(all_frames) - 3:
                    break
            got.append((app.index, app.hex.cursor, app.loaded.origin))

    asyncio.run(go())
    assert got[0] == (target, True)  # the file was not framed that far when the go-to was asked
    assert got[1] == (len(all_frames) - 3, target, all_frames[-3][0])


def test_a_unit_that_cannot_be_shown_is_reported_and_the_session_goes_on() -> None:
    src = open_source(str(CSQ_2SEG))
    real = src.load

    def load(i: int) -> Any:
        if i == 1:
            raise RuntimeError("decoder bug")
        return real(i)

    src.load = load  # type: ignore[method-assign]
    app = ViewApp(src)
    got: list[Any] = []

    async def go() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            got.append((app.index, [n.message for n in app._notifications]))
            await pilot.press("q")

    asyncio.run(go())
    index, notes = got[0]
    assert index == 0 and notes == ["internal error showing unit 2 (a bug): RuntimeError: decoder bug"]
    assert app.return_code == 0


# ------------------------------------------------------------------ the panes at any size

TERMINALS = [(80, 24), (120, 40), (160, 45), (200, 50)]


def _panes(app: ViewApp) -> dict[str, Any]:
    units, hexv = app.query_one("#units-pane"), app.hex
    return {"units": units.outer_size.width if units.display else 0,
            "hex": hexv.outer_size.width if hexv.display else 0,
            "cols": hexv.model.cols if hexv.model else None,
            "tree": app.field_tree.size.width, "middle": app.query_one("#middle").size.width,
            "tree_rows": app.field_tree.size.height,
            "hex_top": screen_line(hexv, 0) if hexv.display else ""}


def test_the_panes_give_way_in_order_and_the_field_tree_keeps_its_room() -> None:
    got: dict[tuple[int, int], dict[str, Any]] = {}
    for size in TERMINALS:
        app = ViewApp(open_source(str(URB_DATA)))

        async def go(app: ViewApp = app, size: tuple[int, int] = size) -> None:
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                got[size] = _panes(app)

        asyncio.run(go())
    for (width, _height), p in got.items():
        assert p["tree"] >= TREE_MIN and p["tree_rows"] >= 10, (width, p)  # never nothing
        assert p["units"] + p["middle"] + p["hex"] == width, (width, p)
    first = "0000 E4D9C2C8 00000040 F0F10001 00000250 *URBH... 01.....&*"  # the seed's line
    # 200 columns: all three panes, the hex as the seed prints it, the fields that start on
    # the line named after it (the URBH's first ones)
    assert got[(200, 50)]["hex_top"].startswith(f"{first} urbheye urbhlen ")
    # 160: the field names go first, the tree keeping its room
    assert got[(160, 45)]["units"] > 0 and got[(160, 45)]["cols"] == 16
    assert got[(160, 45)]["hex_top"] == first
    # 120: the hex pane went to 8 bytes a line first; the list with its Info column stays
    assert got[(120, 40)]["units"] > 0 and got[(120, 40)]["cols"] == 8
    # 80: the list went next; tree and an 8-byte hex pane remain (the seed's first 8 bytes)
    assert got[(80, 24)]["units"] == 0 and got[(80, 24)]["cols"] == 8
    assert got[(80, 24)]["hex_top"].startswith("0000 E4D9C2C8 00000040 *URBH... *")


def test_u_and_x_show_and_hide_the_unit_list_and_the_hex_pane_at_80x24() -> None:
    got: list[dict[str, Any]] = []

    async def steps(app: ViewApp, pilot: Any) -> None:
        for key in ("", "u", "x", "x", "u"):
            if key:
                await pilot.press(key)
                await pilot.pause()
            got.append({**_panes(app), "row": screen_line(app.query_one(UnitList), 2)
                        if app.query_one("#units-pane").display else ""})

    app = ViewApp(open_source(str(SAS_QMSG)))

    async def go() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await steps(app, pilot)

    asyncio.run(go())
    shown = [(g["units"] > 0, g["hex"] > 0) for g in got]
    # start: no list; u: the list, the hex pane makes room; x: the hex pane back (the latest
    # toggle wins), the list makes room; x: the hex pane hidden, the list back; u: list hidden
    assert shown == [(False, True), (True, False), (False, True), (True, False), (False, False)]
    assert all(g["tree"] >= TREE_MIN for g in got)
    # the list's third line: message 3 of the dump, the data set definition (5 observations)
    assert got[1]["row"].split()[:5] == ["3", "msg", "3", "84", "TYPE"]
    assert "DSDEF, nobs=5" in got[1]["row"]


def test_a_resized_terminal_rearranges_the_panes() -> None:
    got: list[dict[str, Any]] = []

    async def steps(app: ViewApp, pilot: Any) -> None:
        got.append(_panes(app))
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        got.append(_panes(app))
        app.select(app.root.children[2])  # urbr[0]: its bytes highlighted in 8-byte lines
        await pilot.pause()
        got.append(app.hex.selected)

    drive(URB_DATA, steps)
    assert (got[0]["units"] > 0, got[0]["cols"]) == (True, 16)
    assert (got[1]["units"], got[1]["cols"], got[1]["tree"] >= TREE_MIN) == (0, 8, True)
    assert got[2] == (URBR_AT, URBR_AT + urb_layouts().URBR.size)


def test_the_80x24_screenshot_is_generated_from_the_app(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/view-80x24.svg is this screen (MQTOOL_WRITE_DOCS=1 rewrites it)."""
    import os

    monkeypatch.chdir(ROOT)
    out = tmp_path / "view-80x24.svg"
    app = ViewApp(open_source(str(URB_DATA.relative_to(ROOT))))

    async def go() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("slash", *"urbrisn", "enter")
            await pilot.pause()
            app.save_screenshot(str(out.name), path=str(out.parent))

    asyncio.run(go())
    tokens = ("urbr[0].urbrisn&#160;X&#x27;00C0&#x27;", "URBR&#160;element&#160;at&#160;offset",
              "q&#160;quit")
    svg = out.read_text()
    for text in tokens:
        assert text in svg, text
    docs = ROOT / "docs" / "view-80x24.svg"
    if os.environ.get("MQTOOL_WRITE_DOCS"):
        docs.write_text(svg)
    committed = docs.read_text()
    for text in tokens:
        assert text in committed, text
    assert str(ROOT) not in committed
    assert "view-80x24.svg" in (ROOT / "docs" / "view.md").read_text()
