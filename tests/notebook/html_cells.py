"""Test helper: the cells of the tables in a display's HTML, by column (style, title, text)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Cell:
    text: str = ""
    style: str = ""
    title: str | None = None


@dataclass
class Table:
    header: list[Cell] = field(default_factory=list)
    rows: list[list[Cell]] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        return [c.text for c in self.header]

    def column(self, name: str) -> list[Cell]:
        i = self.columns.index(name)
        return [row[i] for row in self.rows]


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self._cell: Cell | None = None
        self._row: list[Cell] | None = None
        self._head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.tables.append(Table())
        elif tag == "thead":
            self._head = True
        elif tag == "tbody":
            self._head = False
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = Cell(style=found.get("style") or "", title=found.get("title"))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None and self.tables:
            if self._head:
                self.tables[-1].header = self._row
            else:
                self.tables[-1].rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.text += data


def tables_in(html: str) -> list[Table]:
    parser = _Tables()
    parser.feed(html)
    return parser.tables
