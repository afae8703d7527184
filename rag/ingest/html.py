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
from rag.ingest.outline import Outline, one_line, sub_item, table_from_grid

DROP_TAGS = ["script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "button",
             "iframe", "svg", "canvas", "select", "input", "textarea", "dialog", "menu", "object", "embed"]
DROP_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "toolbar",
              "dialog", "alertdialog", "tablist", "status", "alert"}
# class/id words of page chrome in wiki and CMS exports, matched as whole words (dash/underscore/space
# separated), and distinctive ones matched anywhere (camelCase ids such as SuiteNavWrapper, commandBar).
_CLUTTER = re.compile(
    r"(?:^|[-_\s])(?:nav|navbar|navigation|menu|sidebar|breadcrumbs?|crumbs?|byline|metadata|meta|author|"
    r"authors|contributors?|comments?|discussion|replies|reactions?|likes?|labels?|tags|share|sharing|social|"
    r"feedback|helpful|rating|footer|header|toolbar|toc|cookies?|consent|gdpr|banner|popup|modal|overlay|"
    r"skip|pagination|pager|related|recommended|views?|print|subscribe|newsletter|ads?|advert|promo|widget|"
    r"notifications?|actions?|attachments?|children|icon|properties|property|topbar|brand|workspace|"
    r"switcher|search)(?:$|[-_\s])", re.I)
_CLUTTER_ANYWHERE = re.compile(
    r"sidebar|breadcrumb|suitenav|sitenav|globalnav|topnav|commandbar|siteactions|pageheader|page-header|"
    r"pagetree|page-tree|spacetools|space-tools|cookie|comment|feedback|footer|readtime|read-time|viewcount|"
    r"view-count|pageviews|page-views|lastupdated|last-updated|lastmodified|last-modified|page-metadata|"
    r"pagemetadata|byline|helpful|consent|skiplink|skip-link|edit-link|editsection|tableofcontents|"
    r"table-of-contents|o365", re.I)
# Words that mean the element *is* the content (never dropped for a clutter word also in its class).
_CONTENT = re.compile(r"(?:^|[-_\s])(?:main-content|wiki-content|page-content|page-body|article-body|"
                      r"notion-page-content|content-body|post-content|entry-content|mw-parser-output|"
                      r"ms-rtestate-field|canvas-content|sites-canvas-main)(?:$|[-_\s])", re.I)
# Lines that are page chrome whatever element holds them: bylines, view counts, reading times, feedback
# widgets, cookie notices, "skip to content", and UI strips ("Following · Share", "Han Yerin · 2026-02-24").
_CHROME_TEXT = re.compile(
    r"^(?:created by\b|last (?:edited|updated|modified)\b|edited by\b|posted by\b|written by\b|"
    r"was this (?:page|article) helpful|did this (?:page|article) help|is this page helpful|"
    r"\d[\d,.]*\s*(?:min(?:ute)?s?(?: read)?|views?|likes?|comments?|replies)\b|"
    r"(?:this (?:site|website) uses cookies|we use cookies|accept (?:all )?cookies|cookie settings)|"
    r"skip to (?:main )?content|jump to (?:navigation|search)|report abuse|page details|"
    r"작성자\s*[:：]|최종 수정|마지막 수정|수정자\s*[:：]|조회수?\s*[:：]?\s*\d|읽는 데 \d|"
    r"이 (?:페이지|문서)가 도움이 되었|도움이 되었나요|쿠키를 사용|댓글\s*\d*\s*개?$)"
    r"|\b\d[\d,.]*\s*(?:views?|조회)\s*$|\bmin read\b", re.I)
_UI_STRIP = re.compile(r"^[^.!?。:·•|]{1,40}(?:\s[·•|]\s[^.!?。:·•|]{1,40}){1,8}$")
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = {"p", "div", "section", "article", "main", "blockquote", "figure", "figcaption", "center", "body", "details",
           "summary"}


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


# What HTML written inside another page (a Markdown file) never shows as text. The page around it is the author's own
# Markdown, so nothing else is dropped as chrome by its class or role.
_FRAGMENT_DROP = ["script", "style", "noscript", "template", "iframe", "svg", "canvas", "select", "input", "textarea",
                  "button", "object", "embed"]


def read_fragment(html: str, outline: Outline) -> None:
    """HTML written inside a Markdown page (a raw `<table>`, `<details>`/`<summary>`, `<p>`, `<br>`, lists, an MDX
    component's tags) read into that page's `outline` as `read_html` reads a page's content: tables as labelled rows,
    lists as items, `<pre>` as code; unknown tags (`<Note>`, `<Sandpack>`) are markup and their text is kept."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(_FRAGMENT_DROP):
        tag.decompose()
    _walk(soup, outline)


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
    return metadata_from({"title": values.pop("og:title"), **_page_properties(soup), **values})


_PROPERTIES = re.compile(r"propert|page-metadata|pagemetadata|byline|page-info|pageinfo|doc-info|docinfo", re.I)
_BYLINE = re.compile(r"(?:created|written|posted) by\s+(?P<author>[^,·|]{2,60}?)(?:\s*(?:,|·|\||$)|\s+on\b)", re.I)


def _page_properties(soup: BeautifulSoup) -> dict[str, object]:
    """Label/value pairs a wiki page shows about itself (Notion's property table, Confluence's "Created by
    …, last modified by … on …" line, a SharePoint page-info strip), read before they are dropped as
    chrome: they say who owns the page, its status and when it changed."""
    found: dict[str, object] = {}
    for box in soup.find_all(class_=_PROPERTIES) + soup.find_all(id=_PROPERTIES):
        for tr in box.find_all("tr"):
            cells = tr.find_all(["th", "td"])
            if len(cells) >= 2:
                found.setdefault(cells[0].get_text(" ", strip=True).lower(), cells[1].get_text(" ", strip=True))
        for label in box.find_all(class_=re.compile(r"label|name|key", re.I)):
            value = label.find_next_sibling()
            if value is not None:
                found.setdefault(label.get_text(" ", strip=True).lower(), value.get_text(" ", strip=True))
        line = box.get_text(" ", strip=True)
        if (byline := _BYLINE.search(line)) and "created by" not in found:
            found["created by"] = byline["author"].strip()
        if re.search(r"(?:last )?(?:modified|edited|updated)", line, re.I) and "last edited" not in found:
            found["last edited"] = line
    return found


def _main(soup: BeautifulSoup) -> Tag:
    """The element holding the page's content, most specific first: a known wiki content container, an
    <article>, <main>, role=main; else the body."""
    for found in (soup.find(class_=_CONTENT), soup.find(id=_CONTENT), soup.find("article"), soup.find("main"),
                  soup.find(role="main")):
        if isinstance(found, Tag) and found.get_text(strip=True):
            return found
    body = soup.body
    return body if isinstance(body, Tag) else soup


# Elements whose edges separate words; any other element (em, code, a, span) sits inside a line, and the text
# around it carries its own spaces, so "shows <em>certificate expired</em>, open" reads without " ,".
_BREAKS = _BLOCKS | set(_HEADINGS) | {"br", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "td", "th", "pre",
                                      "caption", "hr", "img"}
_SKIPPED = ("Comment", "Doctype", "Declaration", "ProcessingInstruction", "CData")


def _gather(node: Tag) -> str:
    out: list[str] = []
    for child in node.children:
        if isinstance(child, NavigableString):
            if child.__class__.__name__ not in _SKIPPED:
                out.append(str(child))
        elif isinstance(child, Tag):
            inner = _gather(child)
            out.append(f" {inner} " if child.name in _BREAKS else inner)
    return "".join(out)


def text_of(node: Tag) -> str:
    """An element's text as one line, read the way a browser lays it out: spaces where blocks and cells
    meet, none added around inline elements."""
    return one_line(_gather(node))


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
        chrome = (_CLUTTER.search(words) or _CLUTTER_ANYWHERE.search(words)) and not _CONTENT.search(words)
        if (tag.get("role") in DROP_ROLES or tag.get("aria-hidden") == "true" or tag.has_attr("hidden")
                or "display:none" in str(tag.get("style", "")).replace(" ", "")
                or (chrome and tag.name not in ("table", "tr", "td", "th", "body", "html"))):
            tag.decompose()


def _walk(node: Tag, outline: Outline) -> None:
    """Document order: headings open sections, block elements become blocks, inline text joins its block."""
    inline: list[str] = []

    def flush() -> None:
        text = one_line("".join(inline))
        inline.clear()
        if not chrome(text):
            outline.add("paragraph", text)

    for child in node.children:
        if isinstance(child, NavigableString):
            if child.__class__.__name__ in _SKIPPED:
                continue
            inline.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name
        if name in _HEADINGS:
            flush()
            outline.heading(_HEADINGS[name], text_of(child))
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
            inline.append(_gather(child))
    flush()


def chrome(text: str) -> bool:
    """Whether a line is page chrome (or has no word at all, like an icon) rather than content."""
    text = one_line(text)
    if not re.search(r"\w", text):
        return True
    return bool(len(text) <= 120 and (_CHROME_TEXT.search(text) or _UI_STRIP.match(text)))


def _list(node: Tag, outline: Outline, parent: str = "") -> None:
    """Items in order, numbered as shown; a nested list's items carry their parent item's label."""
    ordered = node.name == "ol"
    start = int(str(node.get("start"))) if str(node.get("start", "")).isdigit() else 1
    n = start
    for li in node.find_all("li", recursive=False):
        nested = li.find_all(["ul", "ol"], recursive=False)
        for sub in nested:
            sub.extract()
        text = text_of(li)
        if not chrome(text):
            outline.add("item", (f"{n}. " if ordered else "- ") + (sub_item(parent, text) if parent else text))
        n += 1
        for sub in nested:
            _list(sub, outline, text)


def _definitions(node: Tag, outline: Outline) -> None:
    term = ""
    for child in node.find_all(["dt", "dd"]):
        if child.name == "dt":
            term = text_of(child)
        elif text := text_of(child):
            outline.add("term", f"{term}: {text}" if term else text)


def _table(node: Tag, outline: Outline) -> None:
    """Rows with their headers; a cell spanning rows or columns is repeated into each slot it covers."""
    grid: list[list[str]] = []
    pending: dict[int, tuple[int, str]] = {}  # column -> (rows still covered, text) from a rowspan above
    header_rows = row_labels = 0  # rows all <th> at the top; rows labelled by a leading <th>
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
            text = text_of(cell)
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
        elif cells and cells[0].name == "th":
            row_labels += 1
        grid.append(row)
    if not grid:
        return
    if header_rows > 1:  # several header rows: one header, the column's labels joined
        merged = [" ".join(dict.fromkeys(r[i] for r in grid[:header_rows] if i < len(r) and r[i]))
                  for i in range(max(len(r) for r in grid[:header_rows]))]
        grid = [merged, *grid[header_rows:]]
    caption = node.find("caption")
    if isinstance(caption, Tag) and caption.get_text(strip=True):
        outline.add("paragraph", text_of(caption))
    keyed = header_rows == 0 and row_labels == len(grid)  # "Status | Resolved" rows: label and value, no header
    table = table_from_grid(grid, header=not (keyed or (header_rows == 0 and not _looks_like_header(grid[0]))))
    if table is not None:
        outline.table(table)


def _looks_like_header(row: list[str]) -> bool:
    """A first row of three or more short labels without digits reads as a header even when written with
    <td>; a two-column table without <th> is read as label/value pairs."""
    return len(row) >= 3 and all(c and len(c) <= 40 and not any(ch.isdigit() for ch in c) for c in row)


def _consume(pending: dict[int, tuple[int, str]], col: int, left: int) -> dict[int, tuple[int, str]]:
    if left <= 1:
        return {k: v for k, v in pending.items() if k != col}
    return {**pending, col: (left - 1, pending[col][1])}


def _span(cell: Tag, name: str) -> int:
    value = str(cell.get(name, "1")).strip()
    return min(int(value), 100) if value.isdigit() and int(value) > 0 else 1
