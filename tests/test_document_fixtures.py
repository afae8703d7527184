"""The fixture corpus (tests/fixtures/documents, written by scripts/make_document_fixtures.py): every format
reads back its facts as sentences, table rows, items and definitions, with its metadata, and no chunk of
any fixture holds navigation, bylines, view counts, comments, widgets, cookie notices or running headers."""
import json
from pathlib import Path

import pytest

from rag.errors import DocumentError
from rag.ingest.chunking import OverlapChunker
from rag.ingest.loaders import load

FIXTURES = Path(__file__).parent / "fixtures" / "documents"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
READABLE = sorted(name for name, spec in EXPECTED.items() if "error" not in spec)


def chunks_of(name: str):
    doc = load(name, (FIXTURES / name).read_bytes())
    return doc, OverlapChunker(900, 150).chunk(doc)


def test_every_fixture_file_has_expectations():
    files = {p.name for p in FIXTURES.iterdir()} - {"expected.json", "eval.jsonl"}
    assert files == set(EXPECTED)
    assert {Path(n).suffix for n in files} >= {".md", ".txt", ".html", ".pdf", ".docx", ".pptx", ".xlsx"}


@pytest.mark.parametrize("name", READABLE)
def test_facts_read_back_whole(name):
    spec = EXPECTED[name]
    doc, chunks = chunks_of(name)
    assert doc.title == spec["title"]
    lines = [line for c in chunks for line in c.text.splitlines()]
    for fact in spec.get("facts", []):
        assert any(fact in c.text for c in chunks), fact
    for whole in spec.get("rows", []) + spec.get("items", []) + spec.get("terms", []):
        assert whole in lines, whole
    blocks = [b.text for section in doc.sections for b in section.blocks]
    for paragraph in spec.get("paragraphs", []):  # rebuilt as the author set it: not glued, not cut
        assert paragraph in blocks, paragraph
    for text, heading in spec.get("headings", {}).items():  # each fact under the heading a reader sees it under
        assert {c.heading for c in chunks if text in c.text} == {heading}, text


@pytest.mark.parametrize("name", READABLE)
def test_no_chunk_holds_page_clutter(name):
    _, chunks = chunks_of(name)
    for chunk in chunks:
        seen = f"{chunk.title}\n{chunk.heading}\n{chunk.text}".casefold()
        for clutter in EXPECTED[name].get("clutter", []):
            assert clutter.casefold() not in seen, (clutter, chunk.heading, chunk.text[:200])


@pytest.mark.parametrize("name", [n for n in READABLE if EXPECTED[n].get("meta")])
def test_metadata_is_read(name):
    doc, chunks = chunks_of(name)
    for key, value in EXPECTED[name]["meta"].items():
        assert getattr(doc.meta, key) == value, key
    assert chunks[0].meta == doc.meta


def test_a_large_sheet_is_capped_and_reported():
    doc, _ = chunks_of("price-list-2026.xlsx")
    assert any("Usage export" in note and "2000" in note for note in doc.meta.notes)
    assert "tenant-1998" in doc.text and "tenant-1999" not in doc.text  # header + 1,999 rows
    assert len(doc.meta.notes) == 1


def test_a_scanned_pdf_is_reported_as_scanned():
    with pytest.raises(DocumentError) as info:
        load("scanned-contract.pdf", (FIXTURES / "scanned-contract.pdf").read_bytes())
    assert "scanned" in info.value.reason


def test_the_eval_set_asks_about_fixture_files():
    for line in (FIXTURES / "eval.jsonl").read_text().splitlines():
        turn = json.loads(line)["turns"][0]
        (relevant,) = turn["relevant"]
        text = " ".join(c.text for c in chunks_of(relevant)[1])
        assert any(fact in text for fact in turn["answer_contains"]), turn
