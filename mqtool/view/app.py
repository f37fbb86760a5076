"""The Textual application: unit list | field tree and problems | annotated hex.

Selecting a field highlights its bytes; moving the hex cursor selects the innermost field
covering the byte; choosing a problem jumps to its offset. Keys: ``/`` search, ``g`` go to
offset, ``n``/``p`` next/previous unit, ``e`` export the selection, ``u``/``x`` show or
hide the unit list / the hex pane, ``?`` help, ``q`` quit. The panes share the width as
``layout`` says (the field tree keeps at least ``layout.TREE_MIN`` columns).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static, Tree
from textual.widgets.option_list import Option

from mqtool.errors import MqtoolError
from mqtool.view.export import default_name, export
from mqtool.view.fields import Node, build_tree, find, find_bytes, hex_query, innermost
from mqtool.view.hexlines import HexModel
from mqtool.view.layout import HEX, UNITS, Plan, choose
from mqtool.view.sources import Loaded, Source
from mqtool.view.widgets import HexView, UnitList, heading_text

HELP = """\
mqtool view — keys

  /        search: a field path, a value or a meaning (any case),
           or bytes as X'C1C2' / 0xC1C2; Enter again finds the next
  g        go to an offset: 592, 0x250 or X'0250' (another unit's
           offset in an extract or a multi-unit file opens that unit)
  n / p    next / previous unit (message, record)
  e        export the selection: NAME.json writes the subtree as JSON,
           any other name the selected bytes as dump text
  u / x    show or hide the unit list / the hex pane (a narrow
           terminal hides them: the hex pane shrinks to 8 bytes a
           line first, then the list goes, then the hex pane)
  tab      next pane (units, fields, problems, hex)
  arrows   move in the pane; in the hex pane the innermost field
           covering the cursor byte is selected
  enter    on a problem: jump to its offset
  ?        this help        q  quit

Units marked ! have errors, ? problems; fields with problems show ⚠.
Press any key to close."""


SEARCH_SECONDS = 2.0  # how long one search may decode later units
SETTLE = 0.12  # the unit list cursor rests this long before its unit is decoded and shown
IDLE = 0.4  # background framing waits this long after a key press or a click
KEYS = "/ search  g go to  n/p unit  e export  u units  x hex  tab pane  ? help  q quit"
PROBLEM_ROWS = 7  # the problems pane under the tree; fewer on a short terminal
SHORT = 36  # rows: a terminal this short gets a problems pane of ``SHORT_PROBLEM_ROWS``
SHORT_PROBLEM_ROWS = 4


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 80; height: auto; border: round $accent; padding: 0 1;
                          background: $surface; }
    """

    def compose(self) -> ComposeResult:
        yield Static(HELP, id="help")

    def on_key(self) -> None:
        self.dismiss()

    def on_click(self) -> None:
        self.dismiss()


class Panes(Horizontal):
    """The three panes side by side; their widths are arranged whenever its size changes
    (the terminal was resized)."""

    def on_resize(self, event: events.Resize) -> None:
        arrange = getattr(self.app, "arrange", None)
        if arrange is not None:
            arrange()


class ViewApp(App[int]):
    """``mqtool view``: explore the units of one input."""

    TITLE = "mqtool view"
    CSS = """
    #title { height: 1; background: $primary-background; color: $text; }
    #main { height: 1fr; }
    #units-pane { width: 46; border-right: solid $panel; }
    #units-head { height: 1; color: $text-muted; }
    #units { height: 1fr; }
    #middle { width: 1fr; }
    #tree { height: 1fr; }
    #problems { height: 7; border-top: solid $panel; }
    #hex { width: 84; border-left: solid $panel; scrollbar-size-vertical: 1; }
    #status { height: 1; background: $panel; }
    #keys { height: 1; color: $text-muted; }
    #prompt { display: none; }
    #prompt.open { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "prompt('search')", "Search"),
        Binding("g", "prompt('goto')", "Go to"),
        Binding("n", "unit(1)", "Next unit"),
        Binding("p", "unit(-1)", "Prev unit"),
        Binding("e", "prompt('export')", "Export"),
        Binding("u", "toggle_pane('units')", "Unit list"),
        Binding("x", "toggle_pane('hex')", "Hex pane"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_view", "Quit"),
        Binding("escape", "close_prompt", "Close", show=False),
    ]
    PROMPTS: ClassVar[dict[str, str]] = {
        "search": "search (path, value, meaning, X'hex')",
        "goto": "go to offset (592, 0x250, X'0250')",
        "export": "export to file (.json: subtree; else dump text)",
    }

    def __init__(self, source: Source, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source = source
        self.index = -1
        self.loaded: Loaded | None = None
        self.root: Node | None = None
        self.selected: Node | None = None
        self.tree_nodes: dict[int, Any] = {}  # id(Node) -> TreeNode
        self.mode = ""
        self.last_query = ""
        self._echo: Node | None = None  # tree cursor moved by us: do not move the hex back
        self._resume: tuple[str, int, int] | None = None  # a search that ran out of time
        self._pending_goto: int | None = None  # an offset the background framing has not reached
        self._settle: Any = None  # the timer that shows the unit the list cursor rests on
        self._active = 0.0  # when the user last pressed a key or a mouse button
        self._grown = 0.0  # when the unit list last grew
        self.wanted: dict[str, bool | None] = {UNITS: None, HEX: None}  # the toggles u, x
        self.latest: str | None = None  # the pane toggled last
        self.plan: Plan = choose(160, self.wanted)

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(self.source.description, id="title", markup=False)
        with Panes(id="main"):
            with Vertical(id="units-pane"):
                yield Static(heading_text(self.source), id="units-head", markup=False)
                yield UnitList(self.source, id="units")
            with Vertical(id="middle"):
                yield Tree("unit", id="tree")
                yield OptionList(id="problems")
            yield HexView(id="hex")
        yield Static("", id="status", markup=False)
        yield Input(id="prompt")
        yield Static(KEYS, id="keys", markup=False)

    @property
    def hex(self) -> HexView:
        return self.query_one(HexView)

    @property
    def field_tree(self) -> Tree[Node]:
        return self.query_one(Tree)

    def on_mount(self) -> None:
        self.arrange()
        if len(self.source):
            self.show_unit(0)
        self.query_one(Tree).focus()
        if not self.source.done:
            self._indexer = self.set_interval(0.1, self._index_more)
        self._status()

    # ------------------------------------------------------------------ the panes' widths

    def arrange(self) -> None:
        """Give the panes their widths for the terminal's size (``layout.choose``)."""
        width, height = self.size
        plan = self.plan = choose(width, self.wanted, self.latest)
        units, hexv = self.query_one("#units-pane"), self.hex
        units.display, hexv.display = plan.units > 0, plan.hex > 0
        if plan.units:
            units.styles.width = plan.units
        if plan.hex:
            hexv.styles.width = plan.hex
        hexv.reflow(plan.cols)
        self.query_one(OptionList).styles.height = (PROBLEM_ROWS if height >= SHORT
                                                    else SHORT_PROBLEM_ROWS)
        focused = self.focused
        if focused is not None and not all(w.display for w in focused.ancestors_with_self
                                           if hasattr(w, "display")):
            self.field_tree.focus()

    def action_toggle_pane(self, pane: str) -> None:
        """``u`` / ``x``: show the pane if it is hidden, else hide it; the other panes make
        room as ``layout`` says."""
        self.wanted[pane] = not self.plan.shows(pane)
        self.latest = pane
        self.arrange()
        if self.plan.shows(pane) != self.wanted[pane]:
            self.bell()  # no room for it even alone beside the tree
        self._status()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self._active = time.monotonic()
        await super().on_event(event)

    def _index_more(self) -> None:
        """A slice of background framing (more while a go-to waits for its offset), paused
        while the user is typing or scrolling; the list grows twice a second."""
        pending = self._pending_goto
        now = time.monotonic()
        if pending is None and now - self._active < IDLE:
            return
        self.source.advance(0.08 if pending is not None else 0.04)
        if now - self._grown < 0.5 and not self.source.done and pending is None and self.index >= 0:
            return
        self._grown = now
        self.query_one(UnitList).grow()
        if self.index < 0 and len(self.source):
            self.show_unit(0)
        if pending is not None and (self.source.done or _scanned(self.source) > pending):
            self._pending_goto = None
            self._goto(pending)
        if self.source.done:
            self._indexer.stop()
        self._status()

    # ------------------------------------------------------------------ showing a unit

    def show_unit(self, index: int) -> None:
        if not 0 <= index < len(self.source):
            return
        try:
            loaded = self.source.load(index)
            unit = loaded.unit
            root = build_tree(unit)
            model = HexModel(loaded.data, loaded.origin, list(unit.spans()), loaded.codepage,
                             self.plan.cols)
        except MqtoolError as e:
            self.notify(str(e), severity="error")
            return
        except Exception as e:  # noqa: BLE001 - a decoder bug on one unit must not end the session
            self.notify(f"internal error showing unit {index + 1} (a bug): {type(e).__name__}: {e}",
                        severity="error")
            return
        self.index, self.loaded, self.root = index, loaded, root
        self.query_one(UnitList).set_cursor(index, announce=False)
        self.hex.show(model)
        tree = self.field_tree
        tree.clear()
        tree.reset(_tree_label(root), root)
        self.tree_nodes = {id(root): tree.root}
        many = sum(1 for _ in root.walk()) > 400
        for child in root.children:
            self._add_tree(tree.root, child, expand=not many)
        tree.root.expand()
        problems = self.query_one(OptionList)
        problems.clear_options()
        listed = [("error", p) for p in unit.errors] + [("problem", p) for p in unit.problems]
        problems.add_options([Option(f"{kind} X'{p.offset:04X}': {p.reason}"
                                     + (f" ({p.path})" if p.path else ""), id=str(k))
                              for k, (kind, p) in enumerate(listed)] or
                             [Option("no errors or problems", disabled=True)])
        self._problems = [p for _, p in listed]
        self.selected = root
        self.hex.unhighlight()  # the whole unit: nothing singled out
        self._status()

    def _add_tree(self, parent: Any, node: Node, expand: bool) -> None:
        if node.children:
            tnode = parent.add(_tree_label(node), node, expand=expand)
            for c in node.children:
                self._add_tree(tnode, c, expand)
        else:
            tnode = parent.add_leaf(_tree_label(node), node)
        self.tree_nodes[id(node)] = tnode

    # ------------------------------------------------------------------ selection, both ways

    def select(self, node: Node, *, move_cursor: bool = True, sync_tree: bool = True) -> None:
        """Select a node: highlight its bytes, put the hex cursor on its first byte."""
        self.selected = node
        if node is self.root:
            self.hex.unhighlight()
        else:
            self.hex.highlight(node.start, node.end)
        if move_cursor and node.length > 0:
            self.hex.place(node.start)
        if sync_tree:
            tnode = self.tree_nodes.get(id(node))
            if tnode is not None:
                for anc in node.ancestors():
                    t = self.tree_nodes.get(id(anc))
                    if t is not None:
                        t.expand()
                self._echo = node
                self.field_tree.move_cursor(tnode)
                self.field_tree.scroll_to_node(tnode, animate=False)
        self._status()

    def select_offset(self, offset: int) -> None:
        """Put the hex cursor on ``offset`` and select the innermost field covering it."""
        if self.root is None:
            return
        self.hex.place(offset)
        node = innermost(self.root, offset)
        if node is not None:
            self.select(node, move_cursor=False)

    @on(Tree.NodeHighlighted, "#tree")
    def _tree_moved(self, event: Tree.NodeHighlighted[Node]) -> None:
        node = event.node.data
        if node is None:
            return
        if node is self._echo:
            self._echo = None
            return
        self.select(node, sync_tree=False)

    @on(HexView.CursorMoved)
    def _hex_moved(self, event: HexView.CursorMoved) -> None:
        self.select_offset(event.offset)

    @on(UnitList.Chosen)
    def _unit_chosen(self, event: UnitList.Chosen) -> None:
        """Show the unit under the list cursor once the cursor rests (``SETTLE`` seconds), so
        scrolling through a long list decodes only where it stops."""
        if self._settle is not None:
            self._settle.stop()
        self._settle = self.set_timer(SETTLE, self._show_settled)
        self._status(f"unit {event.index + 1}")

    def _show_settled(self) -> None:
        self._settle = None
        units = self.query(UnitList)
        if units:  # not when the app is closing
            self.show_unit(units.first().cursor)

    @on(OptionList.OptionSelected, "#problems")
    def _problem_chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is None:
            return
        p = self._problems[int(event.option.id)]
        m = self.hex.model
        if m is not None and m.origin <= p.offset < m.origin + len(m.data):
            self.select_offset(p.offset)
            self.hex.focus()
        else:
            self.notify(f"offset X'{p.offset:04X}' is outside this unit's bytes", severity="warning")

    # ------------------------------------------------------------------ actions

    def action_unit(self, step: int) -> None:
        target = self.index + step
        if target >= len(self.source) and not self.source.done:
            self.source.advance(0.05)
            self.query_one(UnitList).grow()
        if 0 <= target < len(self.source):
            self.show_unit(target)
        else:
            self.bell()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_quit_view(self) -> None:
        self.exit(0)

    def action_prompt(self, mode: str) -> None:
        prompt = self.query_one("#prompt", Input)
        self.mode = mode
        prompt.placeholder = self.PROMPTS[mode]
        if mode == "search":
            prompt.value = self.last_query
        elif mode == "export":
            prompt.value = default_name(self.selected, self.index) if self.selected else ""
        else:
            prompt.value = ""
        prompt.add_class("open")
        prompt.focus()

    def action_close_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.has_class("open"):
            prompt.remove_class("open")
            self.field_tree.focus()

    @on(Input.Submitted, "#prompt")
    def _prompt_done(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self.action_close_prompt()
        if not text:
            return
        {"search": self.search, "goto": self.goto, "export": self.export}[self.mode](text)

    def search(self, query: str) -> None:
        """The next field whose path, value or meaning contains ``query``, or the next
        occurrence of bytes given as ``X'..'``; when this unit has none, the following
        units are searched (for up to ``SEARCH_SECONDS``)."""
        self.last_query = query
        if self.loaded is None or self.root is None:
            return
        needle = hex_query(query)
        if needle is not None:
            at = find_bytes(self.loaded.data, self.loaded.origin, needle, self.hex.cursor)
            if at is not None:
                self._show_bytes(at, needle)
                return
        else:
            node = find(self.root, query, self.selected)
            if node is not None:
                self.select(node)
                return
        what = f"X'{needle.hex().upper()}'" if needle is not None else repr(query)
        stop = time.perf_counter() + SEARCH_SECONDS
        resume = self._resume
        k = resume[2] if resume and resume[:2] == (query, self.index) else self.index + 1
        self._resume = None
        while time.perf_counter() < stop:
            if k >= len(self.source):
                if self.source.done:
                    break
                self.source.advance(0.05)
                continue
            try:
                loaded = self.source.load(k)
            except MqtoolError:
                k += 1
                continue
            if needle is not None:
                at = find_bytes(loaded.data, loaded.origin, needle)
                if at is not None:
                    self.show_unit(k)
                    self._show_bytes(at, needle)
                    return
            else:
                node = find(build_tree(loaded.unit), query)
                if node is not None:
                    self.show_unit(k)
                    found = next((n for n in self.root.walk() if n.path == node.path
                                  and n.start == node.start), None) if self.root else None
                    if found is not None:
                        self.select(found)
                    return
            k += 1
        if k >= len(self.source):
            where = "in this unit or the units after it"
        else:
            where = f"in units {self.index + 1}..{k} (search again to go on)"
            self._resume = (query, self.index, k)
        self.notify(f"{what} not found {where}", severity="warning")

    def _show_bytes(self, at: int, needle: bytes) -> None:
        self.select_offset(at)
        self.hex.highlight(at, at + len(needle))
        self._status(f"X'{needle.hex().upper()}' at X'{at:04X}'")

    def goto(self, text: str) -> None:
        offset = parse_offset(text)
        if offset is None:
            self.notify(f"not an offset: {text!r} (592, 0x250 or X'0250')", severity="error")
            return
        m = self.hex.model
        if m is not None and m.origin <= offset < m.origin + len(m.data):
            self.select_offset(offset)
            return
        if not self.source.done and _scanned(self.source) <= offset:  # not framed yet: wait
            self._pending_goto = offset
            self._status(f"framing up to X'{offset:04X}'...")
            return
        self._goto(offset)

    def _goto(self, offset: int) -> None:
        k = self.source.locate(offset)
        if k is None:
            self.notify(f"no unit holds offset X'{offset:04X}' ({offset})", severity="warning")
            return
        self.show_unit(k)
        self.select_offset(offset)

    def export(self, path: str) -> None:
        if self.selected is None or self.loaded is None:
            return
        try:
            said = export(self.selected, self.loaded.unit, self.loaded.data, self.loaded.origin, path,
                          self.loaded.codepage)
        except MqtoolError as e:
            self.notify(str(e), severity="error")
            return
        self.notify(said)
        self._status(said)

    # ------------------------------------------------------------------ status line

    def _status(self, extra: str = "") -> None:
        n = self.selected
        parts = [f"unit {self.index + 1}/{len(self.source)}{'' if self.source.done else '+'}"]
        if n is not None:
            parts.append(f"{n.path or n.kind} X'{n.start:04X}'..X'{max(n.end - 1, n.start):04X}' "
                         f"({n.length} bytes)")
        if self.hex.cursor is not None:
            parts.append(f"cursor X'{self.hex.cursor:04X}' ({self.hex.cursor})")
        if extra:
            parts.append(extra)
        self.query_one("#status", Static).update(" | ".join(parts), layout=False)


def _tree_label(node: Node) -> Text:
    """A Text, not markup: paths like ``urbr[1]`` must not be read as style tags."""
    text = Text(node.label(), style="bold" if node.span is None else "")
    if node.span is not None:
        text.stylize("bold", 0, len(node.name))
        if node.span.meaning:
            text.highlight_words([node.span.meaning], "italic")
    if node.problems:
        text.append("  ⚠ " + "; ".join(p.reason for p in node.problems), style="red")
    return text


def _scanned(source: Source) -> int:
    """Bytes of the input indexed so far (sources indexed at once: everything)."""
    return int(getattr(source, "scanned", 1 << 62))


def parse_offset(text: str) -> int | None:
    """``592``, ``0x250``, ``X'250'`` or ``250h`` as an integer offset; None otherwise."""
    t = text.strip()
    try:
        if t[:2].lower() == "x'" and t.endswith("'"):
            return int(t[2:-1], 16)
        if t[:2].lower() == "0x":
            return int(t[2:], 16)
        if t[-1:].lower() == "h":
            return int(t[:-1], 16)
        return int(t, 10)
    except ValueError:
        return None
