"""PDF: a layout-aware reader (pdfplumber) that rebuilds what the page shows.

Lines are grouped back into paragraphs by font size and spacing (a paragraph may run across a page
break); larger or bold short lines are headings; bullet and numbered lines are items; ruled tables are
read as rows with their header (their text is not read twice); a two-column page is read column by
column; running headers and footers (a margin line repeated on most pages, page numbers ignored) and
lone page numbers are dropped. The title is the document's Title property, else the largest text on
the first page, never a running header. A PDF without a text layer is reported as scanned.
"""
from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass, field, replace

import pdfplumber
from pdfminer.pdfparser import PDFSyntaxError
from pypdf import PdfReader
from pypdf.errors import LimitReachedError, PdfReadError

from rag.documents import Document, Table
from rag.errors import DocumentError
from rag.ingest.metadata import metadata_from, text_metadata, title_status
from rag.ingest.outline import Outline, one_line, table_from_grid

MAX_PDF_PAGES = 2000
MARGIN = 0.1  # running headers and footers sit in the top and bottom tenth of the page
_PAGE_NUMBER = re.compile(r"^(?:[-–—\s]*(?:p\.?|page|페이지)?\s*\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?\s*(?:쪽|페이지)?[-–—\s]*)$",
                          re.I)
_DIGITS = re.compile(r"\d+")
_ITEM = re.compile(r"^(?:[•●○◦▪■□‣∙·\-–*]\s*|\(?\d{1,3}[.)]\s|\(?[a-z가-힣][.)]\s|[①-⑳]\s?)")
_NUMBERED_HEADING = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|제\s*\d+\s*[조장절])\s+\S")
_SENTENCE_END = (".", "!", "?", "。", ":", "다.", ";")


@dataclass
class _Line:
    page: int
    top: float
    bottom: float
    x0: float
    x1: float
    size: float
    bold: bool
    text: str
    margin: bool = False  # in the page's top or bottom margin band
    first_word: float = 0.0  # width of the line's first word, with the space before it


@dataclass
class _Page:
    lines: list[_Line] = field(default_factory=list)
    tables: list[tuple[float, Table]] = field(default_factory=list)
    chars: int = 0
    images: int = 0


def _guard(path: str, raw: bytes) -> None:
    """Refuse what pdfminer would choke on before it reads anything: encryption, too many pages, and
    compression bombs (pypdf inflates each page's content with a limit; pdfminer has none)."""
    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            raise DocumentError(path, "PDF is encrypted")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise DocumentError(path, f"PDF has {len(reader.pages)} pages (limit {MAX_PDF_PAGES})")
        for page in reader.pages:
            contents = page.get_contents()
            if contents is not None:
                contents.get_data()
    except DocumentError:
        raise
    except LimitReachedError as exc:  # 75 MB a stream
        raise DocumentError(path, "refused: a PDF stream expands beyond the decompression limit") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise DocumentError(path, f"unreadable PDF ({exc.__class__.__name__}: {exc})") from exc


def read_pdf(path: str, raw: bytes) -> Document:
    """A Document from a PDF's text layer; raises DocumentError for encrypted, scanned or broken files."""
    _guard(path, raw)
    try:
        with pdfplumber.open(io.BytesIO(raw)) as pdf:
            pages = [_read_page(n, page) for n, page in enumerate(pdf.pages, 1)]
            info = {k: v for k, v in (pdf.metadata or {}).items() if isinstance(v, (str, int, float))}
    except DocumentError:
        raise
    except PDFSyntaxError as exc:
        raise DocumentError(path, f"unreadable PDF ({exc})") from exc
    except Exception as exc:  # pdfminer raises many types on broken or encrypted files
        name = exc.__class__.__name__
        if "Password" in name or "Encrypt" in name:
            raise DocumentError(path, "PDF is encrypted") from exc
        raise DocumentError(path, f"unreadable PDF ({name}: {exc})") from exc
    if not any(p.chars for p in pages):
        if any(p.images for p in pages):
            raise DocumentError(path, f"scanned PDF: {len(pages)} page(s) of images without a text layer "
                                      "(run OCR on it first)")
        raise DocumentError(path, "no text found")
    running = _running(pages)
    lines = [line for p in pages for line in p.lines
             if not (line.margin and (_key(line.text) in running or _PAGE_NUMBER.match(line.text)))]
    body = _body_size(lines)
    outline = Outline()
    first: list[str] = []
    _build(pages, lines, body, outline, first)
    sections = outline.done()
    meta = metadata_from({"title": info.get("Title", ""), "author": info.get("Author", ""),
                          "keywords": info.get("Keywords", ""), "modified": _pdf_date(info.get("ModDate"))})
    meta = meta.merged(text_metadata(first))
    if not meta.status and (status := title_status(meta.title)):
        meta = replace(meta, status=status)
    title = meta.title or _largest(pages, running, body) or outline.first_heading
    return Document(path, title, sections, meta)


def _read_page(number: int, page) -> _Page:
    out = _Page(chars=len(page.chars), images=len(page.images))
    if not out.chars:
        return out
    found = page.find_tables()
    boxes = [t.bbox for t in found]
    for t in found:
        if table := table_from_grid([[c or "" for c in row] for row in t.extract()]):
            out.tables.append((t.bbox[1], table))
    if boxes:
        page = page.filter(lambda obj: not any(_inside(obj, box) for box in boxes))
    height = float(page.height)
    for raw in _columns(page.extract_text_lines(return_chars=True, strip=True), float(page.width)):
        chars = raw["chars"]
        text = one_line(raw["text"])
        if not text:
            continue
        sizes = Counter(round(float(c["size"]), 1) for c in chars)
        bold = sum(1 for c in chars if "bold" in str(c.get("fontname", "")).lower()) > len(chars) / 2
        top, bottom = float(raw["top"]), float(raw["bottom"])
        x1 = max(float(c["x1"]) for c in chars)
        size = sizes.most_common(1)[0][0]
        out.lines.append(_Line(number, top, bottom, float(raw["x0"]), x1, size, bold, text,
                               top < height * MARGIN or bottom > height * (1 - MARGIN),
                               _first_word(chars) + size * 0.25))
    return out


def _first_word(chars: list[dict]) -> float:
    """How wide the line's first word is: up to its first space or first gap wider than a fifth of the size."""
    ordered = sorted(chars, key=lambda c: c["x0"])
    end = ordered[0]
    for c in ordered[1:]:
        if not c["text"].strip() or c["x0"] - end["x1"] > float(c["size"]) * 0.2:
            break
        end = c
    return float(end["x1"]) - float(ordered[0]["x0"])


def _inside(obj: dict, box: tuple) -> bool:
    x0, top, x1, bottom = box
    return obj.get("x0", -1) >= x0 - 1 and obj.get("x1", 1e9) <= x1 + 1 and \
        obj.get("top", -1) >= top - 1 and obj.get("bottom", 1e9) <= bottom + 1


def _columns(lines: list[dict], width: float) -> list[dict]:
    """Text lines in reading order. On a two-column page pdfplumber joins the two columns' lines that
    share a baseline; when most lines have a gap at the same place in the middle third, each line is cut
    there and the left column is read before the right one."""
    gaps = [g for line in lines if (g := _gap(line["chars"], width))]
    if len(lines) < 6 or len(gaps) < 0.5 * len(lines):
        return lines
    split = sorted(gaps)[len(gaps) // 2]
    left: list[dict] = []
    right: list[dict] = []
    spanning: list[dict] = []
    for line in lines:
        l_chars = [c for c in line["chars"] if c["x1"] <= split + 1]
        r_chars = [c for c in line["chars"] if c["x0"] >= split - 1]
        if len(l_chars) + len(r_chars) < len(line["chars"]):
            spanning.append(line)  # a title or table crossing the gutter
            continue
        for part, column in ((l_chars, left), (r_chars, right)):
            if part:
                column.append({"chars": part, "text": _chars_text(part), "top": min(c["top"] for c in part),
                               "bottom": max(c["bottom"] for c in part), "x0": min(c["x0"] for c in part),
                               "x1": max(c["x1"] for c in part)})
    top = min((c["top"] for c in left + right), default=0)
    return [s for s in spanning if s["top"] < top] + left + right + [s for s in spanning if s["top"] >= top]


def _gap(chars: list[dict], width: float) -> float | None:
    """The middle of the widest gap between characters in the middle third of the page, if wide enough."""
    best, where = 0.0, None
    ordered = sorted(chars, key=lambda c: c["x0"])
    for a, b in zip(ordered, ordered[1:]):
        gap = b["x0"] - a["x1"]
        mid = (a["x1"] + b["x0"]) / 2
        if gap > best and width / 3 < mid < 2 * width / 3:
            best, where = gap, mid
    return where if best >= 18 else None


def _chars_text(chars: list[dict]) -> str:
    out, last = [], None
    for c in sorted(chars, key=lambda c: c["x0"]):
        if last is not None and c["x0"] - last > float(c["size"]) * 0.2:
            out.append(" ")
        out.append(c["text"])
        last = c["x1"]
    return "".join(out)


def _key(text: str) -> str:
    """A margin line with its numbers blanked: "… — p. 3" and "… — p. 4" are the same running footer."""
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _running(pages: list[_Page]) -> set[str]:
    """Margin lines that repeat on at least half the pages (two at least): running headers and footers."""
    with_text = [p for p in pages if p.lines]
    if len(with_text) < 2:
        return set()
    counts = Counter(k for p in with_text for k in {_key(line.text) for line in p.lines if line.margin})
    return {k for k, n in counts.items() if n >= max(2, len(with_text) / 2)}


def _body_size(lines: list[_Line]) -> float:
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _build(pages: list[_Page], lines: list[_Line], body: float, outline: Outline, first: list[str]) -> None:
    """Headings, items and paragraphs from lines (joined while they continue one another), tables in place."""
    larger = sorted({line.size for line in lines if line.size >= body * 1.15}, reverse=True)
    level_of = {size: n for n, size in enumerate(larger, 1)}
    tables = sorted(((n, top, t) for n, p in enumerate(pages, 1) for top, t in p.tables), key=lambda x: x[:2])
    current: list[_Line] = []
    kind = "paragraph"
    right = _right_edges(lines)
    words = {w.strip(_PUNCT).casefold() for line in lines for w in line.text.split()}

    def flush() -> None:
        nonlocal current
        if current:
            text = _join_lines([line.text for line in current], words)
            outline.add("item" if kind == "item" else "paragraph", text)
            if len(first) < 12:
                first.append(text)
        current = []

    for line in lines:
        while tables and (tables[0][0], tables[0][1]) < (line.page, line.top):
            flush()
            outline.table(tables.pop(0)[2])
        heading = _heading_level(line, body, level_of, len(larger))
        if heading:
            flush()
            outline.heading(heading, line.text)
            if len(first) < 12:
                first.append(line.text)
            continue
        starts_item = bool(_ITEM.match(line.text))
        if current and not starts_item and _continues(current[-1], line, right[id(current[-1])]):
            current.append(line)
            continue
        flush()
        current, kind = [line], ("item" if starts_item else "paragraph")
    flush()
    for _, _, table in tables:
        outline.table(table)


_PUNCT = ".,;:!?()[]\"'“”‘’"


def _join_lines(texts: list[str], words: set[str]) -> str:
    """A paragraph's lines as one line. A word the typesetter hyphenated across the break is joined back
    ("auto-" + "matically" -> "automatically"), but a compound cut at its own hyphen keeps it ("Self-" +
    "service" -> "Self-service") when the document writes it with one elsewhere; a soft hyphen always goes."""
    out = texts[0]
    for text in texts[1:]:
        last = out.rsplit(None, 1)[-1].lstrip(_PUNCT) if out.strip() else ""
        stem = last[:-1].rsplit("-", 1)[-1]  # "pre-regis-" -> "regis"
        nxt = text.split()[0].strip(_PUNCT) if text.split() else ""
        if out.endswith("\u00ad"):
            out = out[:-1] + text
        elif out.endswith("-") and len(stem) >= 2 and stem.isascii() and stem.isalpha() and nxt[:1].islower():
            compound = f"{stem}-{nxt}".casefold() in words and f"{stem}{nxt}".casefold() not in words
            out = (out if compound else out[:-1]) + text
        else:
            out += " " + text
    return out


def _heading_level(line: _Line, body: float, level_of: dict[float, int], deepest: int) -> int:
    if len(line.text) > 120:
        return 0
    if line.size in level_of:
        return level_of[line.size]
    if line.bold and line.size >= body and not line.text.endswith(_SENTENCE_END) and \
            (len(line.text) <= 80 or _NUMBERED_HEADING.match(line.text)):
        return deepest + 1
    return 0


def _right_edges(lines: list[_Line]) -> dict[int, float]:
    """Each line's text column right edge: the furthest any line of its page and size overlapping it
    reaches (one column's lines overlap only each other; a title across both columns has another size)."""
    by_page: dict[int, list[_Line]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    return {id(line): max(o.x1 for o in by_page[line.page]
                          if o.x0 < line.x1 and o.x1 > line.x0 and abs(o.size - line.size) < 0.6)
            for line in lines}


def _continues(prev: _Line, line: _Line, right: float) -> bool:
    """Whether a line carries on the paragraph of the line before it: same size, the line before ran to the
    column's right edge (a short line ended its paragraph, as did one with room left for the next line's first
    word: a wrap moves a word down only when it does not fit), and either the next line down (gap under about
    one line) or the top of the next page after a line that did not end a sentence."""
    if abs(prev.size - line.size) > 0.6 or prev.bold != line.bold:
        return False
    if prev.x1 < right - 0.15 * max(right - prev.x0, 1):
        return False
    if right - prev.x1 > line.first_word:
        return False  # the next line's first word would have fitted: the line before ended its paragraph
    if line.page != prev.page:
        return line.page == prev.page + 1 and not prev.text.endswith(_SENTENCE_END)
    gap = line.top - prev.bottom
    return -2 <= gap <= max(prev.bottom - prev.top, line.size) * 1.0


def _largest(pages: list[_Page], running: set[str], body: float) -> str:
    """The first page's largest text (not a running header), as a title."""
    candidates = [line for line in (pages[0].lines if pages else [])
                  if _key(line.text) not in running and not _PAGE_NUMBER.match(line.text)]
    if not candidates:
        return ""
    best = max(candidates, key=lambda line: (line.size, -line.top))
    return best.text[:200] if best.size > body else ""


def _pdf_date(value: object) -> str:
    """A PDF date ("D:20260301090000Z") as YYYY-MM-DD text."""
    match = re.match(r"^(?:D:)?(\d{4})(\d{2})(\d{2})", str(value or ""))
    return f"{match[1]}-{match[2]}-{match[3]}" if match else ""
