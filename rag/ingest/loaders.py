"""Loaders: Markdown, plain text, HTML and PDF files into titled, sectioned Documents.

Every failure becomes a DocumentError naming the file, so an indexing run can report the
file and move on instead of aborting.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from pypdf import PdfReader
from pypdf.errors import LimitReachedError, PdfReadError

from rag.documents import Document, Section
from rag.errors import DocumentError

# Larger files are almost always exports or dumps, not documents people ask about.
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_PDF_PAGES = 2000


def decode(path: str, raw: bytes) -> str:
    """Bytes to text: UTF-8 (with or without BOM), then CP949 for older Korean files."""
    if b"\x00" in raw[:4096]:
        raise DocumentError(path, "looks like a binary file, not text")
    for encoding in ("utf-8-sig", "cp949"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise DocumentError(path, "text is neither UTF-8 nor CP949")


def _fallback_title(path: str) -> str:
    return Path(path).stem.replace("-", " ").replace("_", " ").strip()


def load_markdown(path: str, raw: bytes) -> Document:
    """Markdown: the first H1 is the title; every heading opens a section."""
    tokens = MarkdownIt("commonmark").enable("table").parse(decode(path, raw))
    title, heading = "", ""
    parts: list[str] = []
    sections: list[Section] = []
    in_heading = False
    table = _Table()
    marker = ""  # a list item's marker, put back in front of its text so steps keep their numbers
    for tok in tokens:
        if table.take(tok):
            if tok.type == "tr_close" and (row := table.row_text()):
                parts.append(row)
        elif tok.type == "list_item_open":
            marker = f"{tok.info}{tok.markup} " if tok.info else "- "
        elif tok.type == "inline" and marker and not in_heading:
            parts.append(marker + tok.content.strip())
            marker = ""
        elif tok.type == "heading_open":
            _flush(sections, heading, parts)
            parts, in_heading = [], True
        elif tok.type == "heading_close":
            in_heading = False
        elif tok.type == "inline" and in_heading:
            heading = tok.content.strip()
            title = title or heading
        elif tok.type in ("inline", "fence", "code_block"):
            parts.append(tok.content.strip())
    _flush(sections, heading, parts)
    return Document(path, title or _fallback_title(path), sections)


class _Table:
    """Markdown table rows as "first cell: header: value; ..." lines, so a row reads as a sentence
    ("애플리케이션 로그 — 보존 기간: 90일.") instead of cells glued into one run of words."""

    def __init__(self) -> None:
        self.headers: list[str] = []
        self.cells: list[str] = []
        self.in_head = False

    def take(self, tok) -> bool:
        """Consume a table token; False for anything outside a table."""
        if tok.type == "thead_open":
            self.in_head, self.headers = True, []
        elif tok.type == "thead_close":
            self.in_head = False
        elif tok.type == "tr_open":
            self.cells = []
        elif tok.type == "inline" and self._in_cell:
            self.cells.append(tok.content.strip())
        elif tok.type in ("th_open", "td_open"):
            self._in_cell = True
        elif tok.type in ("th_close", "td_close"):
            self._in_cell = False
        elif tok.type in ("table_open", "table_close", "tbody_open", "tbody_close", "tr_close"):
            return True
        else:
            return False
        return True

    _in_cell = False

    def row_text(self) -> str:
        if self.in_head:
            self.headers = self.cells
            return ""
        cells = [c for c in self.cells]
        if not any(cells):
            return ""
        pairs = [f"{h}: {v}" if h else v for h, v in zip(self.headers[1:] + [""] * len(cells), cells[1:]) if v]
        line = cells[0] + (" — " + "; ".join(pairs) if pairs else "")
        return line if line.endswith((".", "。")) else line + "."


def _flush(sections: list[Section], heading: str, parts: list[str]) -> None:
    text = "\n".join(p for p in parts if p)
    if text.strip():
        sections.append(Section(heading, text))


def load_text(path: str, raw: bytes) -> Document:
    """Plain text: the first non-empty line is the title; paragraphs stay as written."""
    text = decode(path, raw)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return Document(path, first[:120] or _fallback_title(path), [Section("", text.strip())])


def load_html(path: str, raw: bytes) -> Document:
    """HTML: <title> or the first <h1> is the title; h1-h3 open sections; scripts and chrome dropped."""
    soup = BeautifulSoup(decode(path, raw), "html.parser")
    for tag in soup(["script", "style", "nav", "header", "footer", "noscript", "template"]):
        tag.decompose()
    h1 = soup.find("h1")
    title = (soup.title.string or "").strip() if soup.title and soup.title.string else ""
    title = title or (h1.get_text(" ", strip=True) if h1 else "") or _fallback_title(path)
    body = soup.body or soup
    heading = ""
    parts: list[str] = []
    sections: list[Section] = []
    for el in body.find_all(["h1", "h2", "h3", "p", "li", "pre", "td", "th", "blockquote"]):
        if el.name in ("h1", "h2", "h3"):
            _flush(sections, heading, parts)
            heading, parts = el.get_text(" ", strip=True), []
        elif not el.find_parent(["li", "td", "th", "blockquote"]) or el.name in ("td", "th"):
            parts.append(el.get_text(" ", strip=True))
    _flush(sections, heading, parts)
    if not sections:
        loose = body.get_text("\n", strip=True)
        sections = [Section("", loose)] if loose else []
    return Document(path, title, sections)


def load_pdf(path: str, raw: bytes) -> Document:
    """PDF: one section per page (heading "p. N"); the metadata title, else the first line."""
    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            raise DocumentError(path, "PDF is encrypted")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise DocumentError(path, f"PDF has {len(reader.pages)} pages (limit {MAX_PDF_PAGES})")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except DocumentError:
        raise
    except LimitReachedError as exc:  # a compression bomb: pypdf stops inflating at its limit (75 MB a stream)
        raise DocumentError(path, "refused: a PDF stream expands beyond the decompression limit") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise DocumentError(path, f"unreadable PDF ({exc.__class__.__name__}: {exc})") from exc
    # PDF text breaks lines where the page did; rejoin lines that do not end a sentence.
    pages = [re.sub(r"(?<![.!?:。])\n(?!\n)", " ", p) for p in pages]
    sections = [Section(f"p. {n}", text) for n, text in enumerate(pages, 1) if text]
    first = next((line.strip() for p in pages for line in p.splitlines() if line.strip()), "")[:80]
    return Document(path, meta_title.strip() or first[:120] or _fallback_title(path), sections)


LOADERS: dict[str, Callable[[str, bytes], Document]] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
    ".text": load_text,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
}


def supported(path: Path) -> bool:
    """Whether a file has a loader."""
    return path.suffix.lower() in LOADERS


def load(path: str, raw: bytes) -> Document:
    """Load one file's bytes; raises DocumentError when it is unsupported, too large or empty."""
    loader = LOADERS.get(Path(path).suffix.lower())
    if loader is None:
        raise DocumentError(path, f"unsupported file type {Path(path).suffix or '(none)'}")
    if len(raw) > MAX_FILE_BYTES:
        raise DocumentError(path, f"file is {len(raw) // 1_048_576} MB (limit {MAX_FILE_BYTES // 1_048_576} MB)")
    if not raw.strip():
        raise DocumentError(path, "file is empty")
    try:
        doc = loader(path, raw)
    except DocumentError:
        raise
    except Exception as exc:  # parsers raise many types on hostile input; one broken file must not stop a run
        raise DocumentError(path, f"cannot parse ({exc.__class__.__name__}: {exc})") from exc
    if not any(re.search(r"\w", s.text) for s in doc.sections):
        raise DocumentError(path, "no text found")
    return doc
