"""Issue 25, "Done means": no chunk of the Solbit corpus (eval/solbit/docs, wiki exports and PDFs nobody on the
team wrote) holds navigation, breadcrumbs, bylines, view counts, comments, feedback widgets, cookie banners or
the PDFs' running header and footer. The page chrome is found by the generator's own markup
(eval/solbit/generator/html_shell.py), not by the reader's rules, so the test does not grade itself."""
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from rag.ingest.chunking import OverlapChunker
from rag.ingest.loaders import load

DOCS = Path(__file__).resolve().parent.parent / "eval" / "solbit" / "docs"
CHROME = ("[class*=cookie]", "[class*=crumb]", ".page-metadata", ".sp-byline", ".byline", "[class*=feedback]",
          ".comment", "[class*=comments]", "nav", ".nav-tree", ".sidebar", ".property", "header", "footer")
RUNNING = ("internal use only", "사내 한정")
_PAGE_NUMBER = re.compile(r"^\W*p\.\s*\d+\W*$")


def chunk_texts(path: Path) -> tuple[str, list[str]]:
    """The document's title and, per chunk, its heading and text."""
    rel = path.relative_to(DOCS).as_posix()
    doc = load(rel, path.read_bytes())
    return doc.title, [f"{c.heading}\n{c.text}" for c in OverlapChunker(900, 150).chunk(doc)]


def chrome_texts(path: Path) -> set[str]:
    soup = BeautifulSoup(path.read_bytes(), "html.parser")
    found: set[str] = set()
    for selector in CHROME:
        for element in soup.select(selector):
            for piece in element.stripped_strings:
                piece = " ".join(piece.split())
                if len(piece) >= 2 and piece not in {"/", "·", "|"}:
                    found.add(piece)
    return found


@pytest.mark.parametrize("path", sorted(DOCS.rglob("*.html")), ids=lambda p: p.name)
def test_no_chunk_of_a_wiki_export_holds_its_page_chrome(path):
    title, chunks = chunk_texts(path)
    lines = {line.strip().casefold() for c in chunks for line in c.splitlines()}
    text = "\n".join(chunks).casefold()
    chrome = chrome_texts(path)
    assert chrome, "the generator's chrome markup was not found: update CHROME"
    for piece in chrome - {title}:  # the page title is repeated in the chrome (a crumb, the header)
        # A long piece (a byline, a comment, a widget) never appears; a short one (a menu entry, a crumb, a
        # name) never stands as a line of its own (the same words may well occur inside a sentence).
        if len(piece) >= 20:
            assert piece.casefold() not in text, (path.name, piece)
        else:
            assert piece.casefold() not in lines, (path.name, piece)


@pytest.mark.parametrize("path", sorted(DOCS.rglob("*.pdf")), ids=lambda p: p.name)
def test_no_chunk_of_a_pdf_holds_its_running_header_or_page_numbers(path):
    title, chunks = chunk_texts(path)
    assert not any(marker in title.casefold() for marker in RUNNING)
    for chunk in chunks:
        assert not any(marker in chunk.casefold() for marker in RUNNING), (path.name, chunk[:200])
        assert not any(_PAGE_NUMBER.match(line.strip()) for line in chunk.splitlines()), (path.name, chunk[:200])
