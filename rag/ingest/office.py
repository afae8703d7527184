"""Office files: Word (.docx, python-docx), PowerPoint (.pptx, python-pptx) and Excel (.xlsx, openpyxl).

Each fills the one document model: Word headings nest and its list paragraphs are items (numbered lists
get their numbers back); every table, in any of the three, is rows with their header, merged cells
repeated into each slot they cover. A slide is a section under its title, with its text, tables and
speaker notes. A sheet is a section whose rows are table rows (title lines above the header become
paragraphs; a merged header over sub-headers is joined; empty rows skipped); a sheet over MAX_SHEET_ROWS
rows is cut there and the cut is reported in the document's notes. Document properties are the metadata.
"""
from __future__ import annotations

import io
import logging
import re
from datetime import date, datetime

from rag.documents import Document, Metadata, Table
from rag.ingest.metadata import metadata_from, text_metadata, title_status
from rag.ingest.outline import Outline, one_line, sub_item, table_from_grid

log = logging.getLogger(__name__)

MAX_SHEET_ROWS = 2000  # rows read per sheet; a larger sheet is an export, capped and reported
MAX_SHEETS = 50
MAX_SLIDES = 500


def _properties(props) -> dict[str, object]:
    """The core properties every Office format shares (docProps/core.xml)."""
    def first(*names: str) -> object:
        return next((v for n in names if (v := getattr(props, n, None))), "")

    # python-docx/python-pptx name them author and content_status; openpyxl creator and contentStatus.
    return {"title": first("title"), "author": first("author", "creator"),
            "status": first("content_status", "contentStatus"), "keywords": first("keywords"),
            "language": first("language"), "updated": first("modified", "created")}


def _finish(path: str, meta: Metadata, outline: Outline, opening: list[str]) -> Document:
    sections = outline.done()
    meta = meta.merged(text_metadata(opening))
    if not meta.status and (status := title_status(meta.title or outline.first_heading)):
        meta = Metadata(**{**meta.as_dict(), "status": status, "tags": tuple(meta.tags), "notes": tuple(meta.notes)})
    return Document(path, meta.title or outline.first_heading, sections, meta)


# ---------------------------------------------------------------------------------------------- Word

_HEADING_STYLE = re.compile(r"^(?:heading|제목)\s*(\d)$", re.I)


def read_docx(path: str, raw: bytes) -> Document:
    """Headings (Title and Heading N styles) nest; list paragraphs are items; tables are rows; in order."""
    import docx
    from docx.table import Table as DocxTable
    from docx.text.paragraph import Paragraph

    document = docx.Document(io.BytesIO(raw))
    meta = metadata_from(_properties(document.core_properties))
    outline = Outline()
    opening: list[str] = []
    numbers: dict[tuple[str, int], int] = {}
    parents: dict[int, str] = {}  # the last list item at each level
    title = ""
    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "tbl":
            outline.table(_docx_table(DocxTable(element, document)))
            continue
        if tag != "p":
            continue
        paragraph = Paragraph(element, document)
        text = paragraph.text.strip()
        if not text:
            continue
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        heading = _HEADING_STYLE.match(style)
        if style == "Title" or heading:
            level = int(heading[1]) + 1 if heading else 1  # the Title style sits above Heading 1
            outline.heading(level, text)
            title = title or (text if style == "Title" else "")
        elif marker := _list_marker(paragraph, style, numbers):
            level = _list_level(paragraph)
            parents = {k: v for k, v in parents.items() if k < level}
            parent, parents[level] = parents.get(level - 1, ""), text
            outline.add("item", marker + (sub_item(parent, text) if parent else text))  # read under its parent
        else:
            outline.add("paragraph", text)
        if len(opening) < 12:
            opening.append(text)
    if not meta.title and title:
        meta = Metadata(**{**meta.as_dict(), "title": title, "tags": tuple(meta.tags)})
    return _finish(path, meta, outline, opening)


def _list_level(paragraph) -> int:
    """A list paragraph's indent level (w:ilvl; "List Bullet 2" styles count from 1)."""
    ppr = paragraph._p.pPr
    num = ppr.numPr if ppr is not None else None
    if num is not None and num.ilvl is not None:
        return int(num.ilvl.val)
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    return int(match[1]) - 1 if (match := re.search(r"List (?:Bullet|Number) (\d)$", style)) else 0


def _list_marker(paragraph, style: str, numbers: dict[tuple[str, int], int]) -> str:
    """"- " or "N. " for a list paragraph (by style, or by numbering properties), "" otherwise. Word keeps
    numbers in its numbering part; counting the paragraphs of each list gives the numbers shown."""
    ppr = paragraph._p.pPr
    num = ppr.numPr if ppr is not None else None
    numbered = "Number" in style or (num is not None and "Bullet" not in style)
    if num is None and "List" not in style:
        return ""
    if not numbered:
        return "- "
    num_id = str(num.numId.val) if num is not None and num.numId is not None else style
    level = int(num.ilvl.val) if num is not None and num.ilvl is not None else 0
    key = (num_id, level)
    numbers[key] = numbers.get(key, 0) + 1
    for deeper in [k for k in numbers if k[0] == num_id and k[1] > level]:
        del numbers[deeper]  # a new parent item restarts its sub-list
    return f"{numbers[key]}. "


def _docx_table(table) -> Table:
    """python-docx repeats a merged cell's text into every slot it covers (row.cells), which is what a
    row needs to read on its own."""
    grid = [[cell.text for cell in row.cells] for row in table.rows]
    return table_from_grid(grid) or Table((), ())


# ----------------------------------------------------------------------------------------- PowerPoint


def read_pptx(path: str, raw: bytes) -> Document:
    """One section per slide under its title: text frames (indented paragraphs are items), tables as
    rows, then the speaker notes."""
    import pptx

    presentation = pptx.Presentation(io.BytesIO(raw))
    meta = metadata_from(_properties(presentation.core_properties))
    outline = Outline()
    opening: list[str] = []
    for number, slide in enumerate(presentation.slides, 1):
        if number > MAX_SLIDES:
            meta = _noted(meta, f"only the first {MAX_SLIDES} slides were read")
            break
        title_shape = slide.shapes.title
        title = one_line(title_shape.text_frame.text) if title_shape is not None and title_shape.has_text_frame \
            else ""
        outline.heading(1, title or f"Slide {number}")
        if len(opening) < 12 and title:
            opening.append(title)
        for shape in _shapes_in_order(slide.shapes):
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            _pptx_shape(shape, outline, opening)
        if slide.has_notes_slide and (notes := slide.notes_slide.notes_text_frame):
            for line in notes.text.splitlines():
                outline.add("paragraph", line)
    if not meta.title and outline.first_heading:
        meta = Metadata(**{**meta.as_dict(), "title": outline.first_heading, "tags": tuple(meta.tags),
                           "notes": tuple(meta.notes)})
    return _finish(path, meta, outline, opening)


def _shapes_in_order(shapes) -> list:
    """Shapes top to bottom, left to right; group shapes opened."""
    found = []
    for shape in shapes:
        if shape.shape_type is not None and int(shape.shape_type) == 6:  # MSO_SHAPE_TYPE.GROUP
            found.extend(_shapes_in_order(shape.shapes))
        else:
            found.append(shape)
    return sorted(found, key=lambda s: (s.top or 0, s.left or 0))


def _pptx_shape(shape, outline: Outline, opening: list[str]) -> None:
    if getattr(shape, "has_table", False) and shape.has_table:
        outline.table(_pptx_table(shape.table))
    elif shape.has_text_frame:
        paragraphs = [p for p in shape.text_frame.paragraphs if p.text.strip()]
        body = len(paragraphs) > 1
        parents: dict[int, str] = {}  # the last bullet seen at each indent level
        for paragraph in paragraphs:
            text = paragraph.text
            level = paragraph.level
            parents = {k: v for k, v in parents.items() if k < level}
            parents[level] = text
            if level > 0 and (parent := parents.get(level - 1)):
                text = sub_item(parent, text)  # a sub-bullet is read under its bullet
            if body or level > 0:
                outline.add("item", "- " + text)
            else:
                outline.add("paragraph", text)
            if len(opening) < 12:
                opening.append(one_line(text))


def _pptx_table(table) -> Table:
    """A merge origin's text is repeated into the cells it spans (python-pptx leaves them empty)."""
    rows = len(table.rows)
    cols = len(table.columns)
    grid = [[table.cell(r, c).text for c in range(cols)] for r in range(rows)]
    for r in range(rows):
        for c in range(cols):
            cell = table.cell(r, c)
            if cell.is_merge_origin:
                for dr in range(cell.span_height):
                    for dc in range(cell.span_width):
                        if r + dr < rows and c + dc < cols:
                            grid[r + dr][c + dc] = cell.text
    return table_from_grid(grid) or Table((), ())


# ---------------------------------------------------------------------------------------------- Excel


def read_xlsx(path: str, raw: bytes) -> Document:
    """One section per sheet: title lines, then the table under its header, each row a row block."""
    import openpyxl

    # Read-only mode streams rows but cannot see merged cells; small workbooks are read whole to fill them.
    small = len(raw) < 2_000_000
    workbook = openpyxl.load_workbook(io.BytesIO(raw), data_only=True, read_only=not small)
    try:
        meta = metadata_from(_properties(workbook.properties))
        outline = Outline()
        opening: list[str] = []
        for number, sheet in enumerate(workbook.worksheets, 1):
            if number > MAX_SHEETS:
                meta = _noted(meta, f"only the first {MAX_SHEETS} sheets were read")
                break
            meta = _sheet(sheet, small, outline, opening, meta)
    finally:
        workbook.close()
    return _finish(path, meta, outline, opening)


def _sheet(sheet, merged: bool, outline: Outline, opening: list[str], meta: Metadata) -> Metadata:
    outline.heading(1, sheet.title)
    spans = list(sheet.merged_cells.ranges) if merged else []
    fill: dict[tuple[int, int], tuple[int, int]] = {}
    for span in spans:  # every slot of a merged range shows its top-left value
        for r in range(span.min_row, span.max_row + 1):
            for col in range(span.min_col, span.max_col + 1):
                fill[(r, col)] = (span.min_row, span.min_col)
    across = {(s.min_row, c) for s in spans if s.max_col > s.min_col for c in range(s.min_col, s.max_col + 1)}
    grid: list[list[str]] = []
    rows_seen = 0
    values: dict[tuple[int, int], str] = {}
    last = min(sheet.max_row or MAX_SHEET_ROWS + 1, MAX_SHEET_ROWS + 1)  # iter_rows pads up to max_row
    for r, sheet_row in enumerate(sheet.iter_rows(max_row=last), 1):
        rows_seen = r
        if r > MAX_SHEET_ROWS:
            break
        cells = [_display(c) for c in sheet_row]
        for c, text in enumerate(cells, 1):
            values[(r, c)] = text
        grid.append(cells)
    if rows_seen > MAX_SHEET_ROWS:
        total = sheet.max_row if (sheet.max_row or 0) > MAX_SHEET_ROWS else f"more than {MAX_SHEET_ROWS}"
        note = f"sheet '{sheet.title}': only the first {MAX_SHEET_ROWS} of {total} rows were indexed"
        log.warning("%s", note)
        meta = _noted(meta, note)
    for (r, c), (r0, c0) in fill.items():
        if r <= len(grid) and c <= len(grid[r - 1]):
            grid[r - 1][c - 1] = values.get((r0, c0), "")
    numbered = [(r, row) for r, row in enumerate(grid, 1) if any(row)]
    header: list[str] = []
    header_row = 0
    data: list[list[str]] = []
    for r, row in numbered:
        filled = [v for v in dict.fromkeys(row) if v]
        if not header:
            if len(filled) <= 1:
                outline.add("paragraph", filled[0] if filled else "")  # a title or note line above the table
                if len(opening) < 12 and filled:
                    opening.append(filled[0])
            else:
                header = row
                header_row = r
            continue
        if r == header_row + 1 and any((header_row, c) in across for c in range(1, len(row) + 1)) and \
                all(not _number_like(v) for v in row if v):
            header = [" ".join(dict.fromkeys(p for p in (h, v) if p)) for h, v in zip(header, row)]
            continue  # a merged header over sub-headers: one header, both labels
        if len(filled) == 1 and not row[0] == "" and all(not v for v in row[1:]):
            _flush_rows(outline, header, data)
            data = []
            outline.add("paragraph", filled[0])  # a group label row ("Offices (no warehouse)")
            continue
        data.append(row)
    _flush_rows(outline, header, data)
    return meta


def _flush_rows(outline: Outline, header: list[str], data: list[list[str]]) -> None:
    if data and (table := table_from_grid([header, *data])):
        outline.table(table)


def _number_like(text: str) -> bool:
    return bool(re.fullmatch(r"[\d,.\s%₩$€£-]+", text))


_FORMAT_QUOTED = re.compile(r'"([^"]*)"')


def _display(cell) -> str:
    """A cell's value as the sheet shows it: thousands separators, percentages, currency symbols, dates."""
    value = cell.value
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == datetime.min.time() else value.isoformat(" ", "minutes")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value).strip()
    fmt = str(getattr(cell, "number_format", "General") or "General").split(";")[0]
    if fmt == "General":
        return str(int(value)) if float(value).is_integer() else str(value)
    decimals = len(m[1]) if (m := re.search(r"0\.(0+)", fmt)) else 0
    number = value * 100 if "%" in fmt else value
    text = f"{number:,.{decimals}f}" if "," in fmt else f"{number:.{decimals}f}"
    literals = _FORMAT_QUOTED.findall(fmt)
    symbol = next((s for s in ("₩", "$", "€", "£", "¥") if s in fmt.replace('"', "")), "")
    prefix = literals[0] if literals and fmt.startswith('"') else (symbol if fmt.lstrip("[$").startswith(symbol)
                                                                      and symbol else "")
    suffix = literals[-1] if literals and fmt.endswith('"') else ""
    return f"{prefix}{text}{'%' if '%' in fmt else ''}{suffix}"


def _noted(meta: Metadata, note: str) -> Metadata:
    return Metadata(**{**meta.as_dict(), "tags": tuple(meta.tags), "notes": (*meta.notes, note)})
