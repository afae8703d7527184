"""Text of a Solbit document as a person reads it (HTML: page content only)."""
import os, re, unicodedata
from html.parser import HTMLParser

CONTENT = [("div", "id", "main-content"), ("div", "class", "page-body"),
           ("div", "class", "CanvasZone"), ("div", "class", "tyJCtd")]
VOID = {"br", "img", "input", "meta", "link", "hr", "col", "area", "base", "source", "wbr"}
BLOCK = {"p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "br", "dt", "dd", "caption", "table", "ul", "ol", "pre", "blockquote"}


class _Content(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0          # >0 while inside the content container
        self.out = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.depth:
            if tag not in VOID:
                self.depth += 1
            if tag in BLOCK:
                self.out.append("\n")
            return
        for t, k, v in CONTENT:
            if tag == t and v in (a.get(k) or "").split() + [a.get(k)]:
                self.depth = 1
                return

    def handle_endtag(self, tag):
        if self.depth and tag not in VOID:
            self.depth -= 1
            if tag in BLOCK:
                self.out.append("\n")

    def handle_data(self, data):
        if self.depth:
            self.out.append(data)


def html_text(raw):
    p = _Content()
    p.feed(raw)
    return "".join(p.out)


def extract(path):
    ext = os.path.splitext(path)[1].lower()
    if ext in (".md", ".txt"):
        raw = open(path, encoding="utf-8").read()
        if ext == ".md":   # YAML front matter is metadata, not text a person reads
            raw = re.sub(r"\A---\n.*?\n---\n", "", raw, flags=re.S)
        return raw
    if ext == ".html":
        return html_text(open(path, encoding="utf-8").read())
    if ext == ".pdf":
        from pypdf import PdfReader
        return "\n".join(p.extract_text() or "" for p in PdfReader(path).pages)
    if ext == ".docx":
        import docx
        d = docx.Document(path)
        parts = [p.text for p in d.paragraphs]
        for t in d.tables:
            for r in t.rows:
                parts.append(" | ".join(c.text for c in r.cells))
        return "\n".join(parts)
    if ext == ".pptx":
        from pptx import Presentation
        parts = []
        for s in Presentation(path).slides:
            for sh in s.shapes:
                if sh.has_text_frame:
                    parts.append(sh.text_frame.text)
                if getattr(sh, "has_table", False) and sh.has_table:
                    for r in sh.table.rows:
                        parts.append(" | ".join(c.text for c in r.cells))
            if s.has_notes_slide:
                parts.append(s.notes_slide.notes_text_frame.text)
        return "\n".join(parts)
    if ext == ".xlsx":
        import openpyxl
        wb = openpyxl.load_workbook(path, data_only=True)
        parts = []
        for ws in wb.worksheets:
            parts.append(f"## {ws.title}")
            for row in ws.iter_rows(values_only=True):
                cells = ["" if v is None else str(v) for v in row]
                if any(cells):
                    parts.append(" | ".join(cells))
        return "\n".join(parts)
    raise ValueError(path)


def norm(s):
    s = unicodedata.normalize("NFKC", s).casefold()
    s = re.sub(r"[*_`]+", "", s)
    s = re.sub(r"(?<=\d),(?=\d{3})", "", s)
    return re.sub(r"\s+", " ", s).strip()
