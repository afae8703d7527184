"""HTML: the page's main content read as a person reads it, without the page around it.

Wiki exports (Confluence, Notion, SharePoint, Google Sites) wrap a policy in a side menu, a breadcrumb,
a byline ("Created by …, last edited by … · 3 min read · 120 views"), reader comments, "Was this page
helpful?" and cookie banners, mostly in plain `div`s. The main content is chosen first (see `_main`),
clutter inside it is dropped by role, class/id and by the byline's own wording, and the rest is walked in
document order: headings nest, tables become rows with their headers, definition lists become
"term: definition", code blocks stay code.
"""
from __future__ import annotations

import re

from bs4 import BeautifulSoup, NavigableString, Tag

from rag.documents import Document, Metadata
from rag.ingest.metadata import metadata_from
from rag.ingest.outline import Outline, one_line, table_from_grid

DROP_TAGS = ["script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "button",
             "iframe", "svg", "canvas", "select", "input", "textarea", "dialog", "menu", "object", "embed"]
DROP_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "toolbar",
              "dialog", "alertdialog", "tablist", "status", "alert"}
# class/id words of page chrome in the wiki and CMS exports seen; matched as whole dash/underscore-separated words.
_CLUTTER = re.compile(
    r"(?:^|[-_\s])(?:nav|navbar|navigation|menu|sidebar|side-bar|breadcrumbs?|crumbs?|byline|page-metadata|"
    r"metadata|meta-data|author|authors|contributors?|comments?|comment-thread|discussion|replies|reactions?|"
    r"likes?|labels?|tags|share|sharing|social|feedback|helpful|rating|footer|header|toolbar|toc|"
    r"table-of-contents|cookies?|consent|gdpr|banner|popup|modal|overlay|skip-link|skip|pagination|pager|"
    r"related|recommended|read-time|readtime|views?|view-count|page-views|last-updated|last-modified|"
    r"edit-link|edit-section|print|subscribe|newsletter|ads?|advert|promo|widget|notification|alert-bar|"
    r"page-tree|pagetree|space-tools|site-nav|global-nav|topbar|top-bar|bottom-bar|actions?|"
    r"attachments?|children|child-pages)(?:$|[-_\s])", re.I)
# Words that mean the element *is* the content (never dropped for a clutter word also in its class).
_CONTENT = re.compile(r"(?:^|[-_\s])(?:main-content|wiki-content|page-content|article-body|notion-page-content|"
                      r"content-body|post-content|entry-content|mw-parser-output|ms-rtestate-field|"
                      r"canvas-content|sites-canvas-main)(?:$|[-_\s])", re.I)
# Lines that are page chrome whatever element holds them.
_CHROME_TEXT = re.compile(
    r"^(?:created by\b|last (?:edited|updated|modified) by\b|edited by\b|posted by\b|written by\b|"
    r"was this (?:page|article) helpful|did this (?:page|article) help|is this page helpful|"
    r"\d[\d,.]*\s*(?:min(?:ute)?s? read|views?|likes?|comments?)\b|"
    r"(?:this (?:site|website) uses cookies|we use cookies|accept (?:all )?cookies|cookie settings)|"
    r"skip to (?:main )?content|jump to (?:navigation|search)|"
    r"작성자\s*[:：]|최종 수정|마지막 수정|수정자\s*[:：]|조회수?\s*[:：]?\s*\d|"
    r"이 (?:페이지|문서)가 도움이 되었|도움이 되었나요|쿠키를 사용|댓글\s*\d*\s*개?$)", re.I)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = {"p", "div", "section", "article", "main", "blockquote", "figure", "figcaption", "center", "body"}


def read_html(path: str, text: str) -> Document:
    """A Document from an HTML page: <title>/<meta> are the metadata, the main content the sections."""
    soup = BeautifulSoup(text, "html.parser")
    meta = _metadata(soup)
    h1 = soup.find("h1")
    title = meta.title or (h1.get_text(" ", strip=True) if isinstance(h1, Tag) else "")
    main = _main(soup)
    _drop_clutter(main)
    outline = Outline()
    _walk(main, outline)
    sections = outline.done()
    return Document(path, one_line(title) or outline.first_heading, sections, meta)


def _metadata(soup: BeautifulSoup) -> Metadata:
    values: dict[str, object] = {}
    for tag in soup.find_all("meta"):
        key = tag.get("name") or tag.get("property") or tag.get("itemprop") or tag.get("http-equiv")
        if key and tag.get("content"):
            values.setdefault(str(key).lower(), str(tag["content"]))
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag) and canonical.get("href"):
        values.setdefault("canonical", str(canonical["href"]))
    html = soup.find("html")
    if isinstance(html, Tag) and html.get("lang"):
        values.setdefault("lang", str(html["lang"]))
    # A page's <title> often carries the site ("Leave policy - HR - Confluence"); og:title and the
    # first <h1> do not, so they go first.
    page_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    h1 = soup.find("h1")
    values.setdefault("og:title", "")
    if not values.get("og:title"):
        values["og:title"] = (h1.get_text(" ", strip=True) if isinstance(h1, Tag) else "") or page_title
    meta = metadata_from({"title": values.pop("og:title"), **values})
    return meta


def _main(soup: BeautifulSoup) -> Tag:
    """The element holding the page's content: <main>, role=main, an <article>, a known wiki content
    container; else the body."""
    for found in (soup.find("main"), soup.find(role="main"),
                  soup.find(class_=_CONTENT), soup.find(id=_CONTENT), soup.find("article")):
        if isinstance(found, Tag) and found.get_text(strip=True):
            return found
    body = soup.body
    return body if isinstance(body, Tag) else soup


def _words(tag: Tag) -> str:
    classes: list[str] | str = tag.get("class") or []
    return " ".join([*(classes if isinstance(classes, list) else [classes]), str(tag.get("id") or "")])


def _drop_clutter(root: Tag) -> None:
    for tag in root.find_all(DROP_TAGS):
        tag.decompose()
    for tag in root.find_all(True):
        if tag.decomposed:
            continue
        words = _words(tag)
        if (tag.get("role") in DROP_ROLES or tag.get("aria-hidden") == "true" or tag.has_attr("hidden")
                or "display:none" in str(tag.get("style", "")).replace(" ", "")
                or (_CLUTTER.search(words) and not _CONTENT.search(words) and tag.name not in ("table", "tr", "td", "th"))):
            tag.decompose()


def _walk(node: Tag, outline: Outline) -> None:
    """Document order: headings open sections, block elements become blocks, inline text joins its block."""
    inline: list[str] = []

    def flush() -> None:
        text = one_line(" ".join(inline))
        inline.clear()
        if text and not _CHROME_TEXT.match(text):
            outline.add("paragraph", text)

    for child in node.children:
        if isinstance(child, NavigableString):
            if child.__class__.__name__ in ("Comment", "Doctype", "Declaration", "ProcessingInstruction", "CData"):
                continue
            inline.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name
        if name in _HEADINGS:
            flush()
            outline.heading(_HEADINGS[name], child.get_text(" ", strip=True))
        elif name == "table":
            flush()
            _table(child, outline)
        elif name in ("ul", "ol"):
            flush()
            _list(child, outline)
        elif name == "dl":
            flush()
            _definitions(child, outline)
        elif name == "pre":
            flush()
            outline.add("code", child.get_text())
        elif name == "br":
            flush()
        elif name in _BLOCKS or name == "li" or child.find(list(_BLOCKS) + list(_HEADINGS) + ["table", "ul", "ol"]):
            flush()
            _walk(child, outline)
        else:
            inline.append(child.get_text(" "))
    flush()


def _list(node: Tag, outline: Outline) -> None:
    ordered = node.name == "ol"
    start = int(str(node.get("start"))) if str(node.get("start", "")).isdigit() else 1
    n = start
    for li in node.find_all("li", recursive=False):
        nested = li.find_all(["ul", "ol"], recursive=False)
        for sub in nested:
            sub.extract()
        text = li.get_text(" ", strip=True)
        if text and not _CHROME_TEXT.match(text):
            outline.add("item", (f"{n}. " if ordered else "- ") + text)
        n += 1
        for sub in nested:
            _list(sub, outline)


def _definitions(node: Tag, outline: Outline) -> None:
    term = ""
    for child in node.find_all(["dt", "dd"]):
        if child.name == "dt":
            term = child.get_text(" ", strip=True)
        elif text := child.get_text(" ", strip=True):
            outline.add("term", f"{term}: {text}" if term else text)


def _table(node: Tag, outline: Outline) -> None:
    """Rows with their headers; a cell spanning rows or columns is repeated into each slot it covers."""
    grid: list[list[str]] = []
    pending: dict[int, tuple[int, str]] = {}  # column -> (rows still covered, text) from a rowspan above
    header_rows = 0
    for tr in node.find_all("tr"):
        if tr.find_parent("table") is not node:
            continue  # a nested table's rows belong to that table
        row: list[str] = []
        col = 0
        cells = tr.find_all(["td", "th"], recursive=False)
        for cell in cells:
            while col in pending:
                left, text = pending[col]
                row.append(text)
                pending = _consume(pending, col, left)
                col += 1
            text = cell.get_text(" ", strip=True)
            span = _span(cell, "colspan")
            for _ in range(span):
                if (down := _span(cell, "rowspan")) > 1:
                    pending[col] = (down - 1, text)
                row.append(text)
                col += 1
        while col in pending:
            left, text = pending[col]
            row.append(text)
            pending = _consume(pending, col, left)
            col += 1
        if cells and all(c.name == "th" for c in cells) and len(grid) == header_rows:
            header_rows += 1
        grid.append(row)
    if header_rows > 1:  # several header rows: one header, the column's labels joined
        merged = [" ".join(dict.fromkeys(r[i] for r in grid[:header_rows] if i < len(r) and r[i]))
                  for i in range(max(len(r) for r in grid[:header_rows]))]
        grid = [merged, *grid[header_rows:]]
    caption = node.find("caption")
    if isinstance(caption, Tag) and caption.get_text(strip=True):
        outline.add("paragraph", caption.get_text(" ", strip=True))
    if header_rows == 0 and grid and len(grid) > 1 and not _looks_like_header(grid[0]):
        table = table_from_grid([[""] * max(len(r) for r in grid), *grid])  # no header: values by position
    else:
        table = table_from_grid(grid)
    if table is not None:
        outline.table(table)


def _looks_like_header(row: list[str]) -> bool:
    """A first row of short labels without digits reads as a header even when written with <td>."""
    return all(c and len(c) <= 40 and not any(ch.isdigit() for ch in c) for c in row)


def _consume(pending: dict[int, tuple[int, str]], col: int, left: int) -> dict[int, tuple[int, str]]:
    if left <= 1:
        return {k: v for k, v in pending.items() if k != col}
    return {**pending, col: (left - 1, pending[col][1])}


def _span(cell: Tag, name: str) -> int:
    value = str(cell.get(name, "1")).strip()
    return min(int(value), 100) if value.isdigit() and int(value) > 0 else 1
