"""The document model: every loader fills it; its structure and metadata reach chunks, the index and citations."""
from datetime import date

import pytest

from rag.documents import Chunk, Metadata, caveat, caveats, normalise_date, normalise_status, row_text
from rag.ingest.chunking import OverlapChunker
from rag.ingest.loaders import load
from rag.ingest.metadata import byline

from conftest import make_indexer

WRAPPED = """# Travel

Relocation costs are reimbursed only when they were pre-approved in writing by the
hiring manager; such costs are invoiced to the department that made the offer and
are capped at 5,000 EUR per move.

- Taxis are reimbursed when pre-approved in writing by the hiring manager; such
  costs are invoiced monthly.
- Meals are not reimbursed.

Owner: Finance
Reviewed: 2026-01-10
"""


def test_hard_wrapped_markdown_paragraphs_are_one_line_and_list_items_stay_whole():
    lines = load("travel.md", WRAPPED.encode()).sections[0].text.splitlines()
    assert lines[0].startswith("Relocation costs") and lines[0].endswith("capped at 5,000 EUR per move.")
    assert "- Taxis are reimbursed when pre-approved in writing by the hiring manager; such costs are invoiced monthly." \
        in lines
    assert "Owner: Finance" in lines and "Reviewed: 2026-01-10" in lines  # short lines were meant as lines


def test_hard_wrapped_text_paragraphs_are_joined_but_list_items_and_rows_are_not():
    raw = (b"Expense policy\n\nRelocation costs are reimbursed only when they were pre-approved in writing\n"
           b"by the hiring manager; such costs are invoiced to the department that made the\noffer.\n\n"
           b"1. Book the trip in the portal at least fourteen days before departure, then\n"
           b"   attach the approval.\n2. Keep every receipt.\n")
    doc = load("expenses.txt", raw)
    assert doc.title == "Expense policy"
    lines = doc.text.splitlines()
    assert any(line.startswith("Relocation costs") and line.endswith("made the offer.") for line in lines)
    assert "1. Book the trip in the portal at least fourteen days before departure, then attach the approval." in lines
    assert "2. Keep every receipt." in lines


def test_a_chunk_never_splits_a_table_row_or_a_numbered_step():
    row = "| Tier | Limit | Notes |\n|---|---|---|\n| Gold | 900 EUR | " + "long note " * 60 + "|\n"
    steps = "\n".join(f"{n}. Step {n}: " + "do the careful thing " * 12 for n in range(1, 8))
    doc = load("t.md", f"# T\n\n{row}\n{steps}\n".encode())
    chunks = OverlapChunker(300, 50).chunk(doc)
    units = [line for c in chunks for line in c.text.splitlines()]
    assert any(u.startswith("Gold — Limit: 900 EUR; Notes: long note") for u in units)
    for n in range(1, 8):
        assert any(u.startswith(f"{n}. Step {n}:") and u.endswith("careful thing") for u in units)


def test_front_matter_is_the_documents_metadata():
    raw = ("---\ntitle: 재택근무 규정 (구)\nowner: 인사팀\nstatus: 폐지\neffective: 2021.3.1\nupdated: 2024-02-01\n"
           "tags: [hr, remote]\n---\n# Remote work\n\nEmployees may work remotely two days a week.\n").encode()
    doc = load("remote.md", raw)
    assert doc.title == "재택근무 규정 (구)"
    assert doc.meta == Metadata(title="재택근무 규정 (구)", author="인사팀", status="repealed", effective="2021-03-01",
                                updated="2024-02-01", tags=("hr", "remote"))
    assert "status" not in doc.text and doc.text.startswith("Employees may")
    assert all(c.meta.status == "repealed" for c in OverlapChunker().chunk(doc))


def test_a_source_supplies_link_and_title_a_file_lacks():
    doc = load("page-42.html", b"<html><body><p>Laptops are replaced every four years.</p></body></html>",
               Metadata(title="Hardware policy", url="https://wiki.example.com/x/42", author="IT"))
    assert doc.title == "Hardware policy" and doc.meta.url == "https://wiki.example.com/x/42"
    assert doc.meta.author == "IT"


@pytest.mark.parametrize("value,status", [("Repealed", "repealed"), ("폐지됨", "repealed"), ("DRAFT v2", "draft"),
                                          ("초안", "draft"), ("Superseded by POL-7", "superseded"),
                                          ("Approved", "current"), ("whatever", "")])
def test_statuses_are_normalised(value, status):
    assert normalise_status(value) == status


def test_dates_are_normalised():
    assert normalise_date("2026년 3월 1일") == "2026-03-01"
    assert normalise_date("2026.3.1") == "2026-03-01"
    assert normalise_date(date(2026, 3, 1)) == "2026-03-01"
    assert normalise_date("soon") == "" and normalise_date("2026-13-40") == ""


def test_caveat_words_repealed_draft_and_future_documents():
    today = date(2026, 12, 3)
    assert "repealed" in caveat(Metadata(title="Remote work", status="repealed"), today)
    assert "폐지" in caveat(Metadata(title="재택근무", status="repealed"), today, "ko")
    assert "draft" in caveat(Metadata(title="X", status="draft"), today)
    assert "2027-01-01" in caveat(Metadata(title="X", effective="2027-01-01"), today)
    assert caveat(Metadata(title="X", effective="2026-01-01", status="current"), today) == ""


def test_caveats_of_cited_chunks_one_per_document():
    old = Metadata(status="repealed")
    chunks = [Chunk("old.md", 0, "Old policy", "", "a", old), Chunk("old.md", 1, "Old policy", "", "b", old),
              Chunk("new.md", 0, "New policy", "", "c", Metadata(title="New policy", status="current"))]
    assert caveats(chunks, date(2026, 12, 3)) == ["⚠️ “Old policy” is marked as repealed."]


def test_row_text_reads_a_row_as_a_sentence():
    assert row_text(["Data", "Retention", "Owner"], ["App logs", "90 days", ""]) == "App logs — Retention: 90 days."
    assert row_text([], ["Gold", "900 EUR"]) == "Gold — 900 EUR."
    assert row_text(["A", "B"], ["", ""]) == ""


def test_metadata_survives_into_the_index_and_the_citation(tmp_path, analyzer, embedder):
    from rag.index.port import SearchQuery
    from rag.retrieve.ranking import Ranker

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "remote.md").write_text("---\ntitle: Remote work (old)\nstatus: repealed\nowner: HR\n---\n"
                                      "# Remote work\n\nEmployees may work remotely two days a week.\n")
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder)
    assert not indexer.run(folder).errors
    query = "How many days may I work remotely?"
    hits = Ranker().rank(indexer.index.candidates(SearchQuery(query, embedder.embed_query(query), 3), 10), 3, ())
    assert hits[0].chunk.meta.status == "repealed" and hits[0].chunk.title == "Remote work (old)"
    assert hits[0].citation()["status"] == "repealed"


def test_labelled_lines_and_dot_leaders_are_not_taken_for_wrapped_text():
    raw = ("Printers\n\nSeoul HQ: SEL-09F-MFP (9th floor), SEL-11F-MFP (11th floor), SEL-12F-MFP\n"
           "Busan office: PUS-2F-MFP (office building, 2nd floor)\n\n"
           "Seollal (Lunar New Year) ........ 2026-02-16 to 2026-02-18\nChildren's Day ................... 2026-05-05\n")
    lines = load("printers.txt", raw.encode()).text.splitlines()
    assert "Busan office: PUS-2F-MFP (office building, 2nd floor)" in lines
    assert "Children's Day — 2026-05-05." in lines  # a dot-leader line is a row: label, then value


def test_plain_text_sections_rows_and_sub_items_are_read_as_a_person_reads_them():
    # A notice as people type it: a heading over an indented block, capitals for sections, dot leaders
    # between a label and its value, an indented sub-list, and a closing line back at the margin.
    raw = ("OFFICE CLOSURES 2026\nIssued by: People Team, 2025-12-01\n\n"
           "KOREA (Seoul, Busan)\n  Chuseok .......................... 2026-09-24 to 2026-09-26\n"
           "  Foundation day ................... 2026-10-12 (offices closed)\n\n"
           "SINGAPORE BRANCH\n  Chinese New Year ................. 2026-02-17 to 2026-02-18\n\n"
           "How to book leave\n  - Effects:\n    * the team calendar shows it\n    * payroll is told\n\n"
           "Questions go to the People Team.\n")
    doc = load("closures.txt", raw.encode())
    assert doc.title == "OFFICE CLOSURES 2026" and doc.meta.author == "People Team"
    sections = {s.heading: [b.text for b in s.blocks] for s in doc.sections}
    assert sections["KOREA (Seoul, Busan)"] == ["Chuseok — 2026-09-24 to 2026-09-26.",
                                                 "Foundation day — 2026-10-12 (offices closed)."]
    assert sections["SINGAPORE BRANCH"] == ["Chinese New Year — 2026-02-17 to 2026-02-18."]
    assert sections["How to book leave"] == ["- Effects:", "* Effects — the team calendar shows it",
                                              "* Effects — payroll is told"]
    # the last line is back at the margin: it belongs to the notice, not to "How to book leave"
    assert "Questions go to the People Team." in sections["OFFICE CLOSURES 2026"]
    chunks = OverlapChunker(900, 150).chunk(doc)
    assert {c.heading for c in chunks if "Chinese New Year" in c.text} == {"SINGAPORE BRANCH"}


def test_a_plain_text_byline_is_its_metadata_not_its_content():
    # The line under a notice's title that only says who issued it and when is read as metadata and, like
    # a wiki page's byline, never indexed (a chunk of it alone was quoted as an answer's "closest" line).
    for raw, author, issued, content in (
            ("PRINTING AT SOLBIT OFFICES\nIT Service Desk - last updated 2025-10-20\n\nPrinters\n  Seoul HQ: SEL-09F-MFP\n",
             "IT Service Desk", "2025-10-20", "Seoul HQ: SEL-09F-MFP"),
            ("CLOSURES 2026\nIssued by: People Team, 2025-12-01\n\nKOREA\n  Chuseok ...... 2026-09-24\n",
             "People Team", "2025-12-01", "Chuseok — 2026-09-24."),
            ("[공지] WMS 정기 점검 안내\n\n작성: IT 서비스데스크 / 2026-03-10\n\n점검은 3월 21일에 진행합니다.\n",
             "IT 서비스데스크", "2026-03-10", "점검은 3월 21일에 진행합니다.")):
        doc = load("notice.txt", raw.encode())
        assert doc.meta.author == author
        text = "\n".join(c.text for c in OverlapChunker(900, 150).chunk(doc))
        assert author not in text and issued not in text and content in text, text
    # a line that says something besides who and when is content, and stays
    kept = load("n.txt", "공지\n시행일: 2025-12-01 · 소관: 운영팀 · 이천 허브는 별도 절차를 따른다.\n\n본문.\n".encode())
    assert "이천 허브는 별도 절차를 따른다." in kept.text
    for line in ("Owner: Kim, who approves leave", "Updated: soon we will move", "Questions: People Team, hr@x.example",
                 "Document HR-POL-008 v2 · Effective 2026-01-01 · Owner: People Team"):
        assert not byline(line), line


def test_underlined_plain_text_headings_open_sections():
    raw = "Build notes\n\nCaches\n------\nCaches are kept for 14 days.\n\nRunners\n=======\n40 Linux runners.\n"
    doc = load("notes.txt", raw.encode())
    assert [(s.heading, s.text) for s in doc.sections] == [("Caches", "Caches are kept for 14 days."),
                                                            ("Runners", "40 Linux runners.")]
    hashed = load("h.txt", b"# Runbook\n\n## Restart ##\nRun the script.\n\n### Learn C#\nRead the book.\n")
    assert hashed.title == "Runbook"
    assert [s.path for s in hashed.sections] == [("Runbook", "Restart"), ("Runbook", "Restart", "Learn C#")]
    # a rule under a sentence is a rule, not an underline
    ruled = load("r.txt", b"Title\n\nPara one.\n-----\nPara two.\n")
    assert [s.text for s in ruled.sections] == ["Para one.\nPara two."]


def test_short_plain_text_lines_alone_above_paragraphs_are_headings_only_when_the_text_uses_them():
    headed = load("p.txt", b"Policy\r\n\r\nBackground\r\n\r\nWe changed it.\r\n\r\nScope\r\n\r\nEveryone.\r\n")
    assert [(s.heading, s.text) for s in headed.sections] == [("Background", "We changed it."), ("Scope", "Everyone.")]
    note = load("n.txt", b"Notice\n\nHi all\n\nThe office closes at 6pm today.\n")
    assert [s.heading for s in note.sections] == ["Notice"]  # one greeting is not a section heading


def test_markdown_emphasis_and_link_targets_are_not_quoted():
    doc = load("e.md", "# E\n\n**Repealed** — see [the current policy](https://wiki.example.com/p/1) and `POL-7`.\n".encode())
    assert doc.sections[0].text == "Repealed — see the current policy and POL-7."


def test_a_numeric_row_label_keeps_its_column_name():
    # "10년 — 휴가: 15일" does not say ten years of what; the question asks about years of service.
    assert row_text(["근속 연수", "휴가", "여행 지원금"], ["10년", "15일", "2,000,000원"]) == \
        "근속 연수 10년 — 휴가: 15일; 여행 지원금: 2,000,000원."
    assert row_text(["Version", "Date"], ["1.4", "2026-01-12"]) == "Version 1.4 — Date: 2026-01-12."
    assert row_text(["Hub", "OTIF"], ["Icheon Hub", "97.8%"]) == "Icheon Hub — OTIF: 97.8%."  # a name: as it was


def test_columns_under_a_grouped_header_name_the_group_once():
    header = ["Service", "Unit", "Icheon Hub Standard", "Icheon Hub Cold", "Busan Hub Standard", "Busan Hub Cold"]
    assert row_text(header, ["Pallet storage", "pallet per month", "18,000", "42,000", "15,500", "38,000"]) == \
        "Pallet storage — Unit: pallet per month; Icheon Hub Standard: 18,000, Cold: 42,000; " \
        "Busan Hub Standard: 15,500, Cold: 38,000."
    # one value left in a group: its full column name
    assert row_text(header, ["Extra", "item", "", "300", "", ""]) == "Extra — Unit: item; Icheon Hub Cold: 300."
    # names that only end alike are not a group
    assert row_text(["Hub", "Standard cut-off", "Peak cut-off"], ["Icheon Hub", "16:00", "14:00"]) == \
        "Icheon Hub — Standard cut-off: 16:00; Peak cut-off: 14:00."
