"""Loaders: Markdown, plain text, HTML, PDF and Office files into Documents (rag.documents: sections, blocks, metadata).

Every failure becomes a DocumentError naming the file, so an indexing run can report the
file and move on instead of aborting.
"""
from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from markdown_it import MarkdownIt

from rag.documents import BlockKind, Document, Metadata, Table, row_text
from rag.errors import DocumentError
from rag.ingest.html import read_fragment, read_html
from rag.ingest.metadata import byline, front_matter, text_metadata
from rag.ingest.office import read_docx, read_pptx, read_xlsx
from rag.ingest.outline import Outline, one_line, sub_item, unwrap
from rag.ingest.pdf import read_pdf

# Larger files are almost always exports or dumps, not documents people ask about.
MAX_FILE_BYTES = 20 * 1024 * 1024


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
    """Markdown (and MDX): front matter is the metadata; its title, else the first H1, else the first heading, is
    the title; headings nest into heading paths; soft-wrapped lines of a paragraph or list item are joined.

    Raw HTML in the page is read by the HTML reader (`read_fragment`): a `<table>` as labelled rows, `<details>`,
    `<p>`, lists; a table or list whose cells hold blank lines and Markdown (split by markdown-it into several HTML
    blocks with Markdown between them) is rendered whole first. Hugo shortcodes (`{{< note >}}`, `{{% … %}}`), MDX
    components (`<Note>`, `<Sandpack>`), JSX comments (`{/*anchor*/}`) and, in .mdx, `import`/`export` lines are
    markup: dropped, the text inside them kept."""
    meta, text = front_matter(decode(path, raw))
    text = _without_template_tags(text)
    lines = text.splitlines(keepends=True)
    mdx = path.lower().endswith(".mdx")
    tokens = _MARKDOWN.parse(text)
    outline = Outline()
    h1 = ""
    level = 0  # the heading being read (0: none)
    marker = ""  # a list item's marker, put back in front of its text so steps keep their numbers
    items: list[str] = []  # the text of each list item open around this point, outermost first
    table: list[list[str]] | None = None
    paragraph = False  # inside a paragraph (an MDX import/export statement is one)
    n = 0
    while n < len(tokens):
        tok = tokens[n]
        n += 1
        if tok.type == "table_open":
            table = []
        elif tok.type == "table_close":
            if table is not None and (t := _markdown_table(table)):
                outline.table(t)
            table = None
        elif table is not None:
            if tok.type == "tr_open":
                table.append([])
            elif tok.type == "inline" and table:
                table[-1].append(_inline_text(tok))
        elif tok.type == "html_block":
            end, last_line = _html_region_end(tokens, n - 1)
            if end > n - 1 and tok.map:
                region = "".join(lines[tok.map[0]:last_line])
                read_fragment(_MARKDOWN.render(textwrap.dedent(region)), outline)
                n = end + 1
            elif _TAGS_AND_COMMENTS.sub("", tok.content).strip():
                read_fragment(tok.content, outline)
        elif tok.type == "paragraph_open":
            paragraph = True
        elif tok.type == "paragraph_close":
            paragraph = False
        elif tok.type == "heading_open":
            level = int(tok.tag[1:])
        elif tok.type == "inline" and level:
            outline.heading(level, _inline_text(tok))
            h1 = h1 or (one_line(_inline_text(tok)) if level == 1 else "")
            level = 0
        elif tok.type == "list_item_open":
            marker = f"{tok.info}{tok.markup} " if tok.info else "- "
            items.append("")
        elif tok.type == "list_item_close":
            items.pop()
            marker = ""  # an item with no text of its own ("- {% tag %}", a code block) leaves no marker behind
        elif tok.type == "inline" and marker:
            item = _inline_text(tok)
            items[-1] = item
            parent = items[-2] if len(items) > 1 else ""
            # a list item's wrapped lines are always one item; a nested one is read under its parent's label
            outline.add("item", marker + (sub_item(parent, item) if parent else item))
            marker = ""
        elif tok.type == "inline" and mdx and paragraph and all(
                _MDX_STATEMENT.match(line) for line in tok.content.splitlines() if line.strip()):
            continue  # import Sandpack from '@site/…': the page's code, not its text
        elif tok.type == "inline":
            for line in unwrap(_inline_text(tok).splitlines()):
                outline.add("paragraph", line)
        elif tok.type in ("fence", "code_block"):
            outline.add("code", tok.content)
    sections = outline.done()
    title = meta.title or h1 or outline.first_heading or _fallback_title(path)
    return Document(path, title, sections, meta)


_MARKDOWN = MarkdownIt("commonmark").enable("table")
# Hugo shortcodes, opening and closing ("{{< note >}}", "{{% alert title=… %}}", "{{< /note >}}"): bounded, linear.
_SHORTCODE = re.compile(r"\{\{[<%][^{}\n]{0,500}[>%]\}\}")
# Jekyll/Liquid tags ("{% page "/software/" %}", "{% include x.html %}"): markup, dropped; a comment tag with its text;
# a Slack channel tag shows the channel ("{% slack_channel "people-ops" %}" is "#people-ops" on the page).
_LIQUID_COMMENT = re.compile(r"\{%-?\s*+comment\s*+-?%\}[^{]{0,2000}\{%-?\s*+endcomment\s*+-?%\}")
_LIQUID_CHANNEL = re.compile(r"\{%-?\s*+slack_channel\s++[\"']([^\"'{}%\n]{1,80})[\"'][^{}%\n]{0,200}%\}")
_LIQUID_TAG = re.compile(r"\{%[^{}\n]{0,500}%\}")
# A JSX comment, as MDX pages put anchors in headings ("## Reacting to input {/*reacting-to-input*/}").
_JSX_COMMENT = re.compile(r"\{/\*[^*]{0,300}\*/\}")
_MDX_STATEMENT = re.compile(r"^[ \t]*+(?:import|export)\s")
# Tags and comments, to tell an HTML block with text from one that is only markup ("<Sandpack>", "</div>").
_TAGS_AND_COMMENTS = re.compile(r"<!--(?:[^-]|-(?!->))*+-->|<[^<>]*+>")
# HTML elements whose rows or items an author spreads over blank lines, with Markdown between them: markdown-it
# cuts such a table into several HTML blocks, read together. Lower-case names only: <Table> is a component.
_HTML_TAG_NAME = re.compile(r"<(/?)(table|ul|ol|dl)\b[^<>]*+>")


def _without_template_tags(text: str) -> str:
    """The page without Hugo shortcodes, Liquid tags and JSX comments (a Slack channel tag kept as its channel)."""
    text = _LIQUID_CHANNEL.sub(lambda m: f"#{m[1]}", _LIQUID_COMMENT.sub("", text))
    return _JSX_COMMENT.sub("", _LIQUID_TAG.sub("", _SHORTCODE.sub("", text)))


def _html_region_end(tokens: list, start: int) -> tuple[int, int]:
    """The token that closes the table or list an HTML block at `start` leaves open, and the line after it (its
    Markdown cells and the HTML blocks between them are read with it; left open, the region runs to the end of the
    page); else (`start`, 0): the block stands alone. A region that would close the list item or quote it sits in
    stays cut at `start`."""
    depth, last_line = 0, 0
    for n in range(start, len(tokens)):
        tok = tokens[n]
        if tok.level < tokens[start].level:
            return start, 0
        last_line = tok.map[1] if tok.map else last_line
        if tok.type == "html_block":
            for match in _HTML_TAG_NAME.finditer(tok.content):
                depth += -1 if match[1] else 1
            if depth <= 0:
                return (n, last_line) if n > start else (start, 0)
    return len(tokens) - 1, last_line


def _inline_text(tok) -> str:
    """An inline token's text as read: emphasis markers and link targets dropped, code spans and image
    alt text kept, soft and hard breaks as line breaks."""
    parts: list[str] = []
    for child in tok.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "html_inline":
            # A real tag (<br>, <span …>, a comment) is invisible when the page is read; anything else in
            # angle brackets (Slack's <!channel>, <@U123>) is text the author typed and is kept as text,
            # to be escaped on the way out like every other document text.
            # <br> breaks the line, as on the page.
            tag = _HTML_TAG.match(child.content)
            parts.append(("\n" if _BR.match(child.content) else "") if tag else child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts) if tok.children is not None else tok.content


def _markdown_table(rows: list[list[str]]) -> Table | None:
    """The first row of a Markdown table is always its header (the syntax requires one)."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2:
        return None
    return Table(tuple(one_line(c) for c in rows[0]), tuple(tuple(one_line(c) for c in r) for r in rows[1:]))


# A line that starts a list item or is a table/ASCII-art row: it begins a block of its own in plain text.
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>$|<!--|<\?")
_BR = re.compile(r"<br\b", re.IGNORECASE)
_TEXT_ITEM = re.compile(r"^\s*(?:[-*•·▪◦]\s|\d{1,3}[.)]\s|\(?[a-zA-Z가-힣]\)\s|[①-⑳]|\|)")
# "Chuseok .......... 2026-09-24 to 2026-09-26": a label, dot leaders, a value: a row of a two-column table.
_LEADER_ROW = re.compile(r"^\s*(\S.{0,80}?)\s*(?:\.{4,}|…{2,}|·{4,})\s*(\S.*)$")
_UNDERLINE = re.compile(r"^\s*(?:={3,}|-{3,})\s*$")
_ATX = re.compile(r"^(#{1,6})\s+(\S.*)$")  # "## Scope" in a text file written the Markdown way
_SENTENCE_MARK = (".", "!", "?", "。", ":", ";", ",", "：")


def load_text(path: str, raw: bytes) -> Document:
    """Plain text as a person reads it: the first non-empty line is the title; a short line over an indented
    block, an underlined line ("Scope" over "-----") or an all-capitals line ("SINGAPORE BRANCH") is a
    heading, and an indented heading's section ends where the text comes back to its margin; hard-wrapped
    paragraphs are joined into one line, while list items (their wrapped continuation lines joined onto them;
    an indented item under its parent's label), table-like rows and dot-leader lines ("Chuseok ..... 9/24",
    read as the row "Chuseok — 9/24.") stay whole. Labelled values in the opening lines are its metadata."""
    text = decode(path, raw).replace("\r\n", "\n").replace("\r", "\n").strip("\n\ufeff")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = _atx_text(match[2]) if (match := _ATX.match(first)) else first
    outline = Outline()
    body = text.lstrip()
    if len(first) <= 80 and not first.endswith((".", "!", "?", "。", ":", ";", ",")):
        outline.heading(1, first)  # a title line, never joined onto the paragraph below it
        body = body.split("\n", 1)[1] if "\n" in body else ""
    body = _without_byline(body)
    paragraphs = [[line.rstrip() for line in p.splitlines() if line.strip()] for p in re.split(r"\n[ \t]*\n", body)]
    paragraphs = [p for p in paragraphs if p]
    # A short line alone above a paragraph is a heading only in a text that has several of them ("Hi all"
    # above a note is not one).
    alone = sum(_alone_heading(p, paragraphs[n + 1]) for n, p in enumerate(paragraphs[:-1])) >= 2
    open_margin: int | None = None  # the margin of a heading whose block is indented under it
    for n, lines in enumerate(paragraphs):
        lines = _setext(lines, outline)
        if not lines:
            open_margin = None
            continue
        margin = _indent(lines[0])
        following = paragraphs[n + 1] if n + 1 < len(paragraphs) else []
        if _is_heading(lines, following) or alone and following and _alone_heading(lines, following):
            outline.heading(2, lines[0])
            rest = lines[1:]
            open_margin = margin if rest and _indent(rest[0]) > margin or not rest and following \
                and _indent(following[0]) > margin else None
            lines = rest
        elif open_margin is not None and margin <= open_margin:
            outline.close(2)  # back at the heading's margin: the indented section ended
            open_margin = None
        for kind, block in _text_blocks(lines):
            outline.add(kind, block)
    meta = text_metadata([line.strip() for line in text.splitlines()[:12] if line.strip()])
    return Document(path, first[:120] or _fallback_title(path), outline.done(), meta)


def _without_byline(body: str) -> str:
    """The text without the lines under its title that only say who issued it and when ("Issued by: People
    Team, 2025-12-01"): read as its metadata, they are its front matter, not its content (a byline is never
    indexed, as in a wiki page)."""
    lines = body.split("\n")
    for n, line in enumerate(lines[:6]):
        if not line.strip():
            continue
        if not byline(line.strip()):
            break
        lines[n] = ""
    return "\n".join(lines)


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _setext(lines: list[str], outline: Outline) -> list[str]:
    """Lines underlined with "===" or "---" and Markdown-style "## Heading" lines opened as headings (the
    underline and the hashes dropped); a lone rule dropped. Returns the lines after the last heading."""
    out: list[str] = []
    for line in lines:
        atx = _ATX.match(line)
        underlined = _UNDERLINE.match(line) and out and len(out[-1].strip()) <= 80 and \
            not _TEXT_ITEM.match(out[-1]) and not out[-1].strip().endswith(_SENTENCE_MARK)
        if atx or underlined:
            head = _atx_text(atx[2]) if atx else out.pop()
            for kind, block in _text_blocks(out):
                outline.add(kind, block)
            outline.heading(min(len(atx[1]) + 1, 6) if atx else 2, head)
            out = []
        elif not _UNDERLINE.match(line):
            out.append(line)
    return out


def _atx_text(text: str) -> str:
    """A "## Heading ##" line's text without its closing hashes ("C#" keeps its own)."""
    words = text.strip().rsplit(" ", 1)
    return words[0].strip() if len(words) == 2 and set(words[1]) == {"#"} else text.strip()


def _heading_like(line: str) -> bool:
    """A short line that could head a section: no sentence punctuation at its end, no "label: value", not a
    list item, a row or a number."""
    text = line.strip()
    return 0 < len(text) <= 60 and not text.endswith(_SENTENCE_MARK) and ": " not in text and "：" not in text \
        and not _TEXT_ITEM.match(text) and not _LEADER_ROW.match(text) and not text[0].isdigit() \
        and "\t" not in text and "  " not in text


def _is_heading(lines: list[str], following: list[str]) -> bool:
    """Whether a paragraph's first line heads a section: a heading-like line over lines indented under it
    (in the paragraph or the next one), or one in capitals (SINGAPORE BRANCH) over more text."""
    head = lines[0]
    if not _heading_like(head):
        return False
    under = lines[1] if len(lines) > 1 else (following[0] if following else "")
    if not under:
        return False
    if _indent(under) > _indent(head):
        return True
    letters = [c for c in head if c.isalpha() and c.isascii()]
    return len(letters) >= 3 and all(c.isupper() for c in letters)


def _alone_heading(lines: list[str], following: list[str]) -> bool:
    """A short line alone in its paragraph above a paragraph of text ("Background", then its text)."""
    head = lines[0].strip()
    return len(lines) == 1 and len(head) <= 40 and _heading_like(head) and not head[0].islower() \
        and bool(following) and not _heading_like(following[0])


def _text_blocks(lines: list[str]) -> list[tuple[BlockKind, str]]:
    """One paragraph's lines as blocks: a list item, table row or dot-leader row starts a block; other lines
    continue the block before them (a wrapped sentence, or a wrapped list item's continuation). An item
    indented under another carries its parent's label ("영향 — 점검 시간 동안 …")."""
    blocks: list[tuple[BlockKind, list[str]]] = []
    parents: list[tuple[int, str]] = []  # the open items above this line: (indent, text)
    for line in lines:
        if not line.strip():
            continue
        if "\t" in line.strip() or line.lstrip().startswith("|"):
            blocks.append(("row", [" ".join(c.strip() for c in re.split(r"\t|\|", line) if c.strip())]))
        elif leader := _LEADER_ROW.match(line):
            blocks.append(("row", [row_text((), (leader[1], leader[2]))]))
        elif _TEXT_ITEM.match(line):
            indent = _indent(line)
            while parents and parents[-1][0] >= indent:
                parents.pop()
            item = line.strip()
            if parents:
                marker = item.split(" ", 1)
                item = f"{marker[0]} " + sub_item(parents[-1][1], marker[1] if len(marker) > 1 else "")
            parents.append((indent, line.strip()))
            blocks.append(("item", [item]))
            continue
        elif blocks and blocks[-1][0] != "row":
            blocks[-1][1].append(line)
            if blocks[-1][0] == "item" and parents:
                parents[-1] = (parents[-1][0], parents[-1][1] + " " + line.strip())
            continue
        else:
            blocks.append(("paragraph", [line]))
        parents = []
    out: list[tuple[BlockKind, str]] = []
    for kind, parts in blocks:
        if kind == "paragraph":
            out.extend(("paragraph", line) for line in unwrap(parts))
        else:  # an item's continuation lines are its wrapped text
            out.append((kind, " ".join(p.strip() for p in parts)))
    return out


def load_html(path: str, raw: bytes) -> Document:
    """HTML: see rag.ingest.html."""
    return read_html(path, decode(path, raw))


def load_pdf(path: str, raw: bytes) -> Document:
    """PDF: see rag.ingest.pdf."""
    return read_pdf(path, raw)


LOADERS: dict[str, Callable[[str, bytes], Document]] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".mdx": load_markdown,
    ".txt": load_text,
    ".text": load_text,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
    ".docx": read_docx,
    ".pptx": read_pptx,
    ".xlsx": read_xlsx,
}


def supported(path: Path) -> bool:
    """Whether a file has a loader."""
    return path.suffix.lower() in LOADERS


def load(path: str, raw: bytes, meta: Metadata | None = None) -> Document:
    """Load one file's bytes; raises DocumentError when it is unsupported, too large or empty.

    `meta` is what the source knows about the file (a connector's URL, title, author, modified time): the
    document's own metadata wins field by field, except that a title derived from the file name loses to
    the source's, and the source's URL is always the link."""
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
        raise DocumentError(path, _why_no_text(path, raw))
    return _with_source_meta(doc, meta or Metadata())


_IMAGE = re.compile(r"!\[[^\]\n]*+\]\([^)\n]*+\)|<img\b[^<>]*+>", re.IGNORECASE)


def _why_no_text(path: str, raw: bytes) -> str:
    """Why a page read as no text, in the words of what it holds: only front matter, only images, only markup (HTML
    tags, comments, components or shortcodes); "no text found" when none of these says it."""
    if Path(path).suffix.lower() not in (".md", ".markdown", ".mdx"):
        return "no text found"
    _, body = front_matter(decode(path, raw))
    if not body.strip():
        return "no text found: the page has only front matter, no body"
    pictures = bool(_IMAGE.search(body))
    rest = _TAGS_AND_COMMENTS.sub("", _IMAGE.sub("", _without_template_tags(body)))
    if re.search(r"\w", rest):
        return "no text found"
    if pictures and not _TAGS_AND_COMMENTS.search(_IMAGE.sub("", body)):
        return "no text found: the page has only images, none with alt text"
    return "no text found: the page has only markup (HTML tags, comments, components or shortcodes), no text"


def _with_source_meta(doc: Document, source: Metadata) -> Document:
    own = doc.meta if doc.meta.title else replace(doc.meta, title=doc.title)
    if source.title and doc.title == _fallback_title(doc.path):
        own = replace(own, title=source.title)
    merged = replace(own.merged(source), url=source.url or own.url)
    return replace(doc, title=merged.title or doc.title, meta=merged)
