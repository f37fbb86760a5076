"""The two line-drawn panes: the unit list and the hex view (only visible lines are drawn,
so a million records or a megabyte body cost nothing until shown)."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mqtool.view.hexlines import HexModel
from mqtool.view.sources import Row, Source

MARKS = {"!": Style(color="red", bold=True), "?": Style(color="yellow")}


def row_text(number: int, row: Row, where_width: int) -> str:
    """A unit's line: mark, number, where, length, then its Info (cropped by the pane)."""
    return f"{row.mark}{number:>5} {row.where:<{where_width}} {row.length:>7} {row.info}"


def heading_text(source: Source) -> str:
    """The column titles above the unit list, aligned with ``row_text``."""
    return f" {'No.':>5} {source.where_title:<{source.where_width}} {'Length':>7} Info"


def _strip(widget: ScrollView, text: Text, width: int) -> Strip:
    segments = list(text.render(widget.app.console))
    x = int(widget.scroll_offset.x)
    return Strip(segments).crop(x, x + width).extend_cell_length(width).apply_style(widget.rich_style)


class UnitList(ScrollView, can_focus=True):
    """Messages / records of the source, one line each; the cursor picks the unit shown."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, source: Source, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.source = source
        self.cursor = 0
        self.grow()

    def grow(self) -> None:
        """The source found more units: a longer virtual list."""
        self.virtual_size = Size(0, len(self.source))  # labels are cropped, never scrolled sideways

    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_offset.y) + y
        width = self.size.width
        if row >= len(self.source):
            return Strip([Segment(" " * width)]).apply_style(self.rich_style)
        label = row_text(row + 1, self.source.row(row), self.source.where_width)[:width].ljust(width)
        base = self.rich_style
        if row == self.cursor:
            base += Style(reverse=True) if self.has_focus else Style(bgcolor="grey30")
        mark = MARKS.get(label[:1])
        if mark is None:
            return Strip([Segment(label, base)], width)
        return Strip([Segment(label[:1], base + mark), Segment(label[1:], base)], width)

    def set_cursor(self, index: int, announce: bool = True) -> None:
        n = len(self.source)
        if n == 0:
            return
        index = max(0, min(index, n - 1))
        changed = index != self.cursor
        self.cursor = index
        top, height = int(self.scroll_offset.y), max(self.size.height, 1)
        if index < top:
            self.scroll_to(y=index, animate=False)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False)
        self.refresh()
        if announce and changed:
            self.post_message(self.Chosen(index))

    def action_move(self, step: int) -> None:
        self.set_cursor(self.cursor + step)

    def action_page(self, step: int) -> None:
        self.set_cursor(self.cursor + step * max(self.size.height - 1, 1))

    def action_jump(self, index: int) -> None:
        self.set_cursor(index if index >= 0 else len(self.source) - 1)

    def on_click(self, event: Click) -> None:
        self.set_cursor(int(self.scroll_offset.y) + event.y)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class HexView(ScrollView, can_focus=True):
    """The annotated hex of the unit shown; a byte cursor, the selection highlighted."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "Left", show=False),
        Binding("right", "move(1)", "Right", show=False),
        Binding("up", "move(-16)", "Up", show=False),
        Binding("down", "move(16)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "Start", show=False),
        Binding("end", "edge(1)", "End", show=False),
    ]

    class CursorMoved(Message):
        def __init__(self, offset: int) -> None:
            super().__init__()
            self.offset = offset

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.model: HexModel | None = None
        self.cursor: int | None = None
        self.selected: tuple[int, int] | None = None

    def show(self, model: HexModel) -> None:
        self.model = model
        self.cursor = model.origin if model.data else None
        self.selected = None
        self.virtual_size = Size(model.width + 40, model.lines)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def reflow(self, cols: int) -> None:
        """The same bytes ``cols`` to a line (16 as the documents print them, 8 where the
        pane is narrow), cursor and selection kept."""
        m = self.model
        if m is None or m.cols == cols:
            return
        self.model = HexModel(m.data, m.origin, m.spans, m.codepage, cols)
        self.virtual_size = Size(self.model.width + 40, self.model.lines)
        if self.cursor is not None:
            self.place(self.cursor)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        row = int(self.scroll_offset.y) + y
        m = self.model
        if m is None or row >= m.lines or not m.data:
            text = Text("(no bytes)" if m is not None and not m.data and y == 0 else "")
            return _strip(self, text, width)
        return _strip(self, m.line(row, self.selected, self.cursor), width)

    def highlight(self, start: int, end: int) -> None:
        self.selected = (start, end) if end > start else None
        self.refresh()

    def unhighlight(self) -> None:
        self.selected = None
        self.refresh()

    def place(self, offset: int, announce: bool = False) -> None:
        """Put the cursor on ``offset`` (clamped to the unit) and scroll it into view."""
        m = self.model
        if m is None or not m.data:
            return
        offset = max(m.origin, min(offset, m.origin + len(m.data) - 1))
        self.cursor = offset
        row = m.row_of(offset)
        top, height = int(self.scroll_offset.y), max(self.size.height, 1)
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif row >= top + height:
            self.scroll_to(y=row - height // 2, animate=False)
        self.refresh()
        if announce:
            self.post_message(self.CursorMoved(offset))

    def action_move(self, step: int) -> None:
        if self.cursor is not None:
            self.place(self.cursor + step, announce=True)

    def action_page(self, step: int) -> None:
        if self.cursor is not None and self.model is not None:
            self.place(self.cursor + step * self.model.cols * max(self.size.height - 1, 1), announce=True)

    def action_edge(self, end: int) -> None:
        m = self.model
        if m is not None and m.data:
            self.place(m.origin + (len(m.data) - 1 if end else 0), announce=True)

    def on_click(self, event: Click) -> None:
        m = self.model
        if m is None:
            return
        at = m.offset_at(int(self.scroll_offset.y) + event.y, int(self.scroll_offset.x) + event.x)
        if at is not None:
            self.place(at, announce=True)

