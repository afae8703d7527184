"""Building a Document's sections while a reader walks a file: a heading stack and the blocks under it.

Every reader (Markdown, text, HTML, PDF, Office) pushes headings and blocks here, so they all give
the same shape: sections with their heading path, paragraphs with soft wraps joined, items, table
rows, definitions and code.
"""
from __future__ import annotations

import re

from rag.documents import Block, BlockKind, Section, Table

_SPACE = re.compile(r"[ \t\r\f\v\u00a0\u200b]+")


def one_line(text: str) -> str:
    """Whitespace (line breaks included) collapsed to single spaces: a wrapped paragraph as one line."""
    return _SPACE.sub(" ", text.replace("\n", " ")).strip()


class Outline:
    """Collects blocks under the current heading path into sections."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []
        self._blocks: list[Block] = []
        self.sections: list[Section] = []
        self.first_heading = ""

    def heading(self, level: int, text: str) -> None:
        """Open a section under a heading of this level (1 outermost); deeper open headings close."""
        text = one_line(text)
        if not text:
            return
        self._flush()
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        self.first_heading = self.first_heading or text

    def close(self, level: int) -> None:
        """End the open sections of this level and deeper: what follows sits under the heading above them."""
        self._flush()
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()

    def add(self, kind: BlockKind, text: str) -> None:
        """One block; paragraphs, items, rows and definitions become one line, code keeps its lines."""
        text = text.strip("\n") if kind == "code" else one_line(text)
        if text.strip():
            self._blocks.append(Block(kind, text))

    def table(self, table: Table) -> None:
        """A table's data rows, each one row block."""
        self._blocks.extend(table.blocks())

    def done(self) -> list[Section]:
        """The sections so far (call once at the end)."""
        self._flush()
        return self.sections

    def _flush(self) -> None:
        if self._blocks:
            path = tuple(h for _, h in self._stack)
            self.sections.append(Section(path[-1] if path else "", tuple(self._blocks), path))
        self._blocks = []


def table_from_grid(grid: list[list[str]], header: bool = True) -> Table | None:
    """A table from rows of cell texts, empty rows dropped: with `header`, the first row with any text is
    the header; without, every row is data (label in the first cell, values after it)."""
    rows = [[one_line(c) for c in row] for row in grid]
    rows = [r for r in rows if any(r)]
    if not rows:
        return None
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    if not header or len(rows) == 1:
        return Table((), tuple(tuple(r) for r in rows))
    return Table(tuple(rows[0]), tuple(tuple(r) for r in rows[1:]))


_LABEL_END = re.compile(r"[:：]\s")


def item_label(text: str) -> str:
    """What a list item says its sub-items are about: its words before a colon ("Temporary staff: 320 in
    total" -> "Temporary staff"), else the whole item when short enough to be a label, else ""."""
    text = one_line(re.sub(r"^(?:[-*•]|\d{1,3}[.)])\s+", "", text))
    if (match := _LABEL_END.search(text + " ")) and 0 < match.start() <= 40:
        return text[: match.start()]
    return text.rstrip(":：") if len(text) <= 60 else ""


def sub_item(parent: str, text: str) -> str:
    """A nested list item with its parent's label in front ("Temporary staff — Busan New Port Hub: 140"), so
    a chunk or an answer line that quotes it alone still says what the figure counts."""
    label = item_label(parent)
    return f"{label} — {one_line(text)}" if label else one_line(text)


WRAP_MIN = 30  # a paragraph whose longest line is shorter was not hard-wrapped: its breaks are meant
# A line that starts with a label ("Busan office: …", "담당자: …") or carries dot leaders ("Chuseok ...... 9/24")
# is a line of its own, whatever its length.
_LABEL = re.compile(r"^[^\s:：]{1,20}(?: [^\s:：]{1,20}){0,3}[:：]\s")
_LEADERS = re.compile(r"\.{4,}|…{2,}|·{4,}")


def unwrap(lines: list[str]) -> list[str]:
    """Hard-wrapped lines joined back into the lines the author meant. A line continues onto the next
    when the next line's first word would not have fitted after it within the paragraph's width (the
    greedy wrap an editor does at 72–80 columns); a line the next word would have fitted on ended where
    its author pressed return ("Owner: Finance"), as does one ending in ":" or followed by a labelled line."""
    lines = [line.strip() for line in lines if line.strip()]
    if not lines:
        return []
    width = max(len(line) for line in lines)
    out = [lines[0]]
    for prev, line in zip(lines, lines[1:]):
        first = line.split()[0]
        wrapped = width >= WRAP_MIN and len(prev) + 1 + len(first) > width * 0.97 and not prev.endswith((":", "：")) \
            and not _LABEL.match(line) and not _LEADERS.search(line) and not _LEADERS.search(prev)
        if wrapped:
            out[-1] += " " + line
        else:
            out.append(line)
    return out
