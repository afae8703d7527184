"""Chunkers: sizes, overlap, metadata, and the semantic cut on a topic shift."""
from rag.documents import Document, Section
from rag.ingest.chunking import OverlapChunker, SemanticChunker, pack, sentences


def test_pack_respects_size_and_repeats_overlap():
    sents = [f"Sentence number {i} is here." for i in range(40)]
    pieces = pack(sents, 200, 60)
    assert all(len(p) <= 200 for p in pieces)
    for left, right in zip(pieces, pieces[1:]):
        assert left.splitlines()[-1] in right  # the last sentence is carried over


def test_overlap_chunker_keeps_title_and_heading():
    doc = Document("a.md", "Title", [Section.of("Intro", "One. Two."), Section.of("Rules", "Three. " * 300)])
    chunks = OverlapChunker(300, 50).chunk(doc)
    assert chunks[0].heading == "Intro" and chunks[-1].heading == "Rules"
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert all(c.title == "Title" and len(c.text) <= 300 for c in chunks)
    assert chunks[1].embedding_text().startswith("Title / Rules\n")


def test_a_sentence_longer_than_the_chunk_is_split_not_dropped():
    doc = Document("a.txt", "T", [Section.of("", "x" * 2500)])
    chunks = OverlapChunker(1000, 100).chunk(doc)
    assert sum(len(c.text) for c in chunks) >= 2500


def test_semantic_chunker_cuts_at_the_topic_shift(embedder):
    vacation = ["Employees get fifteen days of annual leave.", "Leave requests go through the HR portal.",
                "Unused leave can be carried over until March.", "Sick leave is paid for five days a year."]
    database = ["PostgreSQL is the default production database.", "Connection pools are limited to 100.",
                "Replicas stream the write-ahead log.", "Backups run every night at two."]
    doc = Document("mix.md", "Mix", [Section.of("", " ".join(vacation + database))])
    chunks = SemanticChunker(embedder, size=2000, quantile=0.2, min_chars=50).chunk(doc)
    assert len(chunks) >= 2
    first = chunks[0].text
    assert "annual leave" in first and "PostgreSQL" not in first


def test_sentences_split_korean_and_english():
    assert sentences("배포합니다. 그 다음 확인합니다.\nNext line! Done?") == [
        "배포합니다.", "그 다음 확인합니다.", "Next line!", "Done?"]


def test_list_items_and_table_rows_stay_whole_and_one_per_line():
    from rag.ingest.chunking import units

    text = "- SEV3: 경미한 장애. 다음 영업일에 처리합니다.\n2. Restart the service. Then wait.\n애플리케이션 로그 — 보존 기간: 90일.\n" \
           "Plain prose. Two sentences."
    assert units(text) == ["- SEV3: 경미한 장애. 다음 영업일에 처리합니다.", "2. Restart the service. Then wait.",
                           "애플리케이션 로그 — 보존 기간: 90일.", "Plain prose.", "Two sentences."]
    assert pack(units(text), 900, 150)[0].splitlines()[0] == "- SEV3: 경미한 장애. 다음 영업일에 처리합니다."


def test_an_over_long_sentence_is_cut_into_pieces_that_each_fit_the_chunk():
    """The hard split itself: without it the 2,500-character sentence would be one 2,500-character chunk
    (past the embedder's window), and the total-length test above would still pass."""
    text = "".join(f"{n:04d}" for n in range(625))  # 2,500 characters, no sentence end, no space
    chunks = OverlapChunker(1000, 100).chunk(Document("a.txt", "T", [Section.of("", text)]))
    assert [len(c.text) for c in chunks] == [1000, 1000, 500]
    assert "".join(c.text for c in chunks) == text  # cut, in order, nothing lost or repeated


def test_a_sentence_never_starts_with_what_cannot_start_one():
    from rag.ingest.chunking import sentences

    assert sentences("Nuri Cloud Ltd. · Revision 3 · Owner: Build team. Caches are kept for 14 days.") == \
        ["Nuri Cloud Ltd. · Revision 3 · Owner: Build team.", "Caches are kept for 14 days."]
    assert sentences("Use a key, e.g. the deploy key. 다음 문장입니다.") == ["Use a key, e.g. the deploy key.", "다음 문장입니다."]


def test_dot_leaders_and_abbreviations_do_not_end_a_sentence():
    from rag.ingest.chunking import sentences, units

    assert sentences("Chuseok .......... 2026-09-24 to 2026-09-26") == ["Chuseok .......... 2026-09-24 to 2026-09-26"]
    assert units("Foundation day ........ 2026-10-12 (offices closed)") == \
        ["Foundation day ........ 2026-10-12 (offices closed)"]
    assert sentences("Solbit Logistics Pte. Ltd. · Effective 2026-01-01. Prices exclude VAT.") == \
        ["Solbit Logistics Pte. Ltd. · Effective 2026-01-01.", "Prices exclude VAT."]
    assert sentences("Rate card 2026 (KRW, excl. VAT) Valid all year.") == ["Rate card 2026 (KRW, excl. VAT) Valid all year."]
    # a numbering abbreviation goes on into its number only: "no." can end a sentence
    assert sentences("Call ext. 2400 now. The answer is no. Then stop.") == \
        ["Call ext. 2400 now.", "The answer is no.", "Then stop."]


def test_a_top_heading_that_words_the_title_is_not_repeated_in_every_chunk_heading():
    from rag.documents import Block, Document, Section
    from rag.ingest.chunking import heading_path

    top = "Remote Work Policy (version 3)"
    sections = [Section(top, (Block("paragraph", "Effective 2026-02-01."),), (top,)),
                Section("1. Who can work remotely", (Block("paragraph", "Office staff: 2 days."),),
                        (top, "1. Who can work remotely"))]
    doc = Document("p.docx", "Remote Work Policy v3", sections)
    assert [heading_path(doc, s) for s in sections] == [top, "1. Who can work remotely"]
    # a top heading that is not the title's wording stays in the path
    other = Document("p.docx", "Remote Work Policy v3", [Section("Scope", s.blocks, ("Scope",) + s.path[1:])
                                                         for s in sections])
    assert heading_path(other, other.sections[1]) == "Scope > 1. Who can work remotely"


def test_a_field_line_is_quotable_though_short_and_unpunctuated():
    """"대상: SolTrack WMS 웹 콘솔, 공개 API, 모바일 스캐너 앱" answers "which systems are affected?"; it was taken for a
    heading (short, no sentence ending, no number) and never read. A bare label is still not quotable."""
    from rag.ingest.chunking import quotable_units

    text = "- 대상: SolTrack WMS 웹 콘솔, 공개 API, 모바일 스캐너 앱\n- 영향:\nGateway:  sel-vpn.solbit.example\n회의실 예약"
    assert quotable_units(text) == ["대상: SolTrack WMS 웹 콘솔, 공개 API, 모바일 스캐너 앱", "Gateway:  sel-vpn.solbit.example"]


def test_a_list_item_is_quotable_though_short_and_unpunctuated():
    """A slide's bullets ("Risks: - Sorter capacity at Busan New Port Hub") answer "리스크는 뭐였어?"; without a full stop
    they were taken for headings and never read. A bare label item ("- 영향:") and a heading-like paragraph
    ("회의실 예약") still are not quotable."""
    from rag.ingest.chunking import quotable_units

    text = "- Sorter capacity at Busan New Port Hub\n- 영향:\n- 주말 집하 지연\n회의실 예약\n- Done"
    assert quotable_units(text) == ["Sorter capacity at Busan New Port Hub", "주말 집하 지연"]


def test_a_line_introducing_a_command_is_quoted_with_it():
    """A wiki page shows the command in a code block under "On the command line you can check the tunnel like
    this:": the command alone was too short to quote and was dropped, so "how can I check from the terminal?" got the
    lead-in without what it introduces. A lead-in takes the next line when that one cannot stand alone; a list
    after a lead-in, a quotable next line and a bare label stay as they were."""
    from rag.ingest.chunking import quotable_units

    text = "On the command line you can check the tunnel like this:\n$ secureconnect status\nGateway:  sel-vpn.example"
    assert quotable_units(text) == ["On the command line you can check the tunnel like this: $ secureconnect status",
                                    "Gateway:  sel-vpn.example"]
    assert quotable_units("문의처는 아래와 같습니다:\n총무팀") == ["문의처는 아래와 같습니다: 총무팀"]
    assert quotable_units("Before you start:\n- Install the client from the portal.\n- Sign in with SSO.") == \
        ["Install the client from the portal.", "Sign in with SSO."]
    assert quotable_units("Run the reset tool as shown below:\nThe tool asks for your employee number first.") == \
        ["The tool asks for your employee number first."]  # the lead-in alone is too short, as before
    assert quotable_units("Steps:\nopen it") == []


def test_a_run_of_bare_values_is_one_line_under_its_heading():
    """A timetable's departures are bare times, one per line ("07:10", "08:20"): each too short to quote, so "막차 몇
    시야?" never saw 08:20. A run of short values is one line, under the last part of its heading, so the user sees
    what the times are."""
    from rag.documents import Chunk
    from rag.ingest.chunking import quotable_units, sentence_texts

    text = "06:20  (주간조)\n07:10\n07:40\n08:20"
    assert quotable_units(text, "부산 셔틀 > [출근] 하단역 출발") == ["[출근] 하단역 출발: 06:20 (주간조), 07:10, 07:40, 08:20"]
    assert quotable_units(text) == ["06:20 (주간조), 07:10, 07:40, 08:20"]
    # a value line beside sentences stays as it was; a single bare value is still not a line of its own
    assert quotable_units("Opening hours are below.\n09:00\nClosed on Sundays.", "Hours") == \
        ["Opening hours are below.", "Closed on Sundays."]
    # embedded under its heading once, not twice
    chunk = Chunk(path="t.txt", ordinal=0, title="T", heading="부산 셔틀 > [출근] 하단역 출발", text=text)
    assert sentence_texts(chunk) == ["부산 셔틀 > [출근] 하단역 출발: 06:20 (주간조), 07:10, 07:40, 08:20"]
