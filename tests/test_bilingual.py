"""Cross-language keywords (rag.text.bilingual) and the reading's per-language calibration: a question in one
language reaches, by its words, a document written in the other."""
import re
from pathlib import Path

import pytest

from rag.answer.reading import MIN_CALIBRATION, Reader, language_calibrated, with_compounds
from rag.index.port import SearchQuery
from rag.pipeline import READ_DEPTH, Pipeline
from rag.retrieve.retriever import Retriever
from rag.text import english
from rag.text.bilingual import Bilingual, glossary, tables
from rag.text.loanwords import named, romanize, spellings

from conftest import index_files, make_indexer


@pytest.fixture(scope="module")
def bilingual(analyzer) -> Bilingual:
    return Bilingual(analyzer)


def test_the_dictionary_ships_in_a_package_and_holds_both_directions():
    korean, english = tables()
    assert len(korean) > 20_000  # the Basic Korean Dictionary's nouns, not a hand-written list
    assert "sick leave" in korean["병가"]
    assert "주차" in english["parking"] and "주차" in english["~park"]  # as written, and by stem


@pytest.mark.parametrize("question, expected", [
    ("싱가포르 지사 병가는 며칠이야?", {"sick", "leave"}),
    ("미국 출장 숙박비 한도 얼마야?", {"business", "trip", "limit"}),
    ("회의실 예약은 어떻게 해?", {"meeting", "room", "booking"}),
])
def test_a_korean_questions_topic_nouns_bring_their_english_senses(bilingual, question, expected):
    assert expected <= set(bilingual.expand(question).split())


@pytest.mark.parametrize("question, expected", [
    ("How many days of sick leave do I get?", "병가"),  # a two-word term, looked up whole
    ("How much is visitor parking?", "주차"),
    ("Who has to approve an expense?", "승인"),  # "approve" finds the sense "approval" by its stem
    ("What are the night shift hours?", "야간"),
])
def test_an_english_questions_words_bring_korean_headwords(bilingual, question, expected):
    assert expected in bilingual.expand(question).split()


def test_an_english_questions_phrases_are_the_terms_of_two_or_three_words_it_writes(bilingual):
    """"per diem" and "meeting rooms" are each one thing asked about: the reading counts them as the compound they are."""
    assert bilingual.phrases("What's the domestic per diem for executives?") == ["per diem"]
    assert bilingual.phrases("Which meeting rooms have a TV?") == ["meeting rooms"]
    assert bilingual.phrases("회의실 몇 층이야?") == []


def test_grammar_and_unknown_words_translate_to_nothing(bilingual):
    assert bilingual.expand("How do I do it?") == "" and bilingual.expand("What's that?") == ""
    assert bilingual.expand("SolTrack XJ-9 qwzx") == ""
    assert bilingual.expand("") == ""


def test_an_english_question_matches_a_korean_document_by_its_words(tmp_path, analyzer, embedder, bilingual):
    """Fails without the dictionary: BM25 only matched the question's own language, so the Korean procedure
    got no keyword evidence at all and English pages about the same hub outranked it."""
    indexer = index_files(tmp_path, analyzer, embedder, {
        "night-shift.md": "# 부산 허브 교대 근무\n\n부산 허브의 야간조 근무 시간은 22:00부터 다음 날 06:00까지입니다.\n"
                          "다음 조는 교대 15분 전에 도착해 인수인계를 받습니다.\n",
        "hub-directory.md": "# Hub directory\n\nBusan Hub — address: 12 Harbor Road, Busan; phone: 051-000-0000; "
                            "manager: Kim.\n",
        "holidays.md": "# Holiday operations\n\nThe Busan Hub operates on public holidays with reduced staff. Office "
                       "hours at headquarters are 09:00 to 18:00.\n"})
    question = "What are the night shift hours at the Busan hub?"

    def korean_hit(retriever):
        return next((h for h in retriever.search(question, 5) if h.chunk.path == "night-shift.md"), None)

    before = korean_hit(Retriever(indexer.index, embedder))
    after = korean_hit(Retriever(indexer.index, embedder, bilingual=bilingual))
    assert before is None or not before.keyword  # floored away, or kept without keyword evidence
    assert after is not None and after.keyword  # now among BM25's own top hits, so it stays
    if before is not None:
        assert after.score > before.score and after.cosine == before.cosine  # the vector is the user's words


def test_the_lower_languages_typical_shift_is_lifted_to_the_higher_ones():
    texts = ["영어 질문에 한국어 문장 하나.", "한국어 문장 둘.", "한국어 문장 셋.",
             "English one.", "English two.", "English three."]
    shifts = [-2.0, -2.5, -1.5, 0.0, -0.5, 0.5]  # Korean sentences run two spreads lower
    calibrated = language_calibrated(texts, shifts)
    assert calibrated[3:] == shifts[3:]  # the higher language keeps its values
    assert [round(c, 6) for c in calibrated[:3]] == [0.0, -0.5, 0.5]
    # the order within each language is untouched
    assert sorted(range(3), key=lambda i: calibrated[i]) == sorted(range(3), key=lambda i: shifts[i])


def test_too_few_sentences_of_a_language_move_nothing():
    texts = ["한국어 문장 하나.", "English one.", "English two.", "English three."]
    assert MIN_CALIBRATION > 1
    shifts = [-3.0, 0.0, 0.1, 0.2]
    assert language_calibrated(texts, shifts) == shifts


def test_answerability_reads_the_uncalibrated_scale_and_the_order_the_calibrated_one(analyzer, embedder):
    """Lifting a language to the other's level says a sentence is the best of its language, not that it
    answers: the judge's bar (rag.answer.evidence) was set on the raw scale, so `Candidate.z` stays raw."""
    from rag.answer.reading import Reader, sentence_relevance
    from rag.documents import Chunk, Hit

    korean = "발생 — 내용: 2025-11-28 19:40.\n복구 — 내용: 2025-11-28 23:05.\n영향 — 내용: 출고 지연 1,240건."
    english = ("Outpatient claims are paid up to SGD 1,200 a year.\nDental care is covered up to SGD 300.\n"
               "Claims are submitted by the 10th of the following month.")
    hits = [Hit(Chunk("inc.html", 0, "장애 보고", "", korean), 2.0, 0.80, relevance=2.0, spread=0.02, population=200),
            Hit(Chunk("sg.pdf", 0, "Benefits", "", english), 2.5, 0.84, relevance=2.5, spread=0.02, population=200)]
    question = "Is there a gym membership subsidy?"
    reading = Reader(analyzer, embedder).read(question, question, hits)
    texts = [c.sentence for c in reading.candidates]
    cosines = [c.cosine for c in reading.candidates]
    passages = [c.hit for c in reading.candidates]
    raw = sentence_relevance(passages, texts, cosines, calibrate=False)
    calibrated = sentence_relevance(passages, texts, cosines)
    assert [round(c.z, 6) for c in reading.candidates] == [round(r, 6) for r in raw]
    assert any(abs(a - b) > 1e-6 for a, b in zip(raw, calibrated))  # the calibration did move something


def test_a_long_paste_adds_a_bounded_number_of_words(bilingual):
    from rag.text.bilingual import MAX_WORDS

    _, english = tables()
    senses = [key for key in english if key.isalpha() and len(key) > 4][:300]  # 300 known English words
    assert len(bilingual.words(" ".join(senses))) == MAX_WORDS


def test_a_passage_says_a_query_word_as_written_or_translated(bilingual):
    from rag.text.bilingual import concepts_said

    senses = bilingual.senses("What are the night shift hours at Busan New Port Hub?")
    assert [word for word, _ in senses][:4] == ["night", "shift", "hours", "busan"]
    assert concepts_said("부산신항 허브 야간조 — 교대 근무 시간: 22:00~07:00", senses) >= 4
    assert concepts_said("Night shift hours", senses) == 3  # as written
    assert concepts_said("야근 식대는 1인 1식 12,000원", senses) == 0  # "야근" is not "야간"


@pytest.fixture(scope="module")
def solbit(tmp_path_factory, analyzer, embedder):
    """The Solbit corpus (eval/solbit/docs: Korean and English documents, wiki exports, PDFs, Office files)."""
    indexer = make_indexer(tmp_path_factory.mktemp("solbit") / "index.sqlite3", analyzer, embedder)
    assert not indexer.run(Path(__file__).resolve().parent.parent / "eval" / "solbit" / "docs").errors
    return indexer


@pytest.mark.parametrize("question, expected", [
    # Five English pages say "Busan New Port Hub"; the Korean shift procedure says night shift and hours in
    # Korean only (e5 alone: eighth).
    ("What are the night shift hours at Busan New Port Hub?", "ops/busan-shift-procedure.docx"),
    ("After what time can I expense a taxi home after overtime?", "policies/expense-policy.md"),  # 택시, 잔업
])
def test_the_translated_words_reach_the_other_languages_answer(solbit, embedder, bilingual, question, expected):
    """The translated words' BM25 score was measured against the English words' best, and was a fraction of
    a small bonus; on the translated list's own scale, the document they find is among the five."""
    hits = Retriever(solbit.index, embedder, bilingual=bilingual).search(question, 5)
    assert expected in {h.chunk.path for h in hits}


def test_one_translated_word_alone_gets_no_translation_bonus(tmp_path, analyzer, embedder, bilingual):
    """"데이터베이스" in an access-request page is chance for "which database does the billing one use?"."""
    indexer = index_files(tmp_path, analyzer, embedder, {
        "access.md": "# 권한 신청\n\n프로덕션 데이터베이스 접근 권한은 누리콘솔에서 신청합니다.\n",
        "arch.md": "# Architecture\n\nAtlas is the billing system. It runs on MySQL.\n"})
    retriever = Retriever(indexer.index, embedder, bilingual=bilingual)
    question = "which database does the billing one use?"
    senses = bilingual.senses(question)
    found = indexer.index.candidates(SearchQuery(question, embedder.embed_query(question), 5,
                                                 translated=bilingual.expand(question)), 10)
    assert "access.md" in [found.chunks[key].chunk.path for key, _ in found.translated]  # BM25 finds it ...
    assert Retriever._saying_enough(found, senses) == []  # ... saying one of the question's words
    assert retriever.search(question, 5)[0].chunk.path == "arch.md"


def test_the_workplace_glossary_is_well_formed():
    """One Korean term per line, no spaces; lowercase English equivalents of one to three words each."""
    terms = glossary()
    assert len(terms) > 1000
    for word, senses in terms.items():
        assert re.fullmatch(r"[가-힣0-9a-zA-Z]+", word) and re.search(r"[가-힣]", word), word
        assert 1 <= len(senses) <= 4 and all(s == s.lower() and 1 <= len(s.split()) <= 3 for s in senses), word


@pytest.mark.parametrize("question, expected", [
    # The general dictionary has none of these, or only another sense ("허브" is a herb).
    ("재택근무 가능해?", "remote"),
    ("관리자 권한은 언제 만료돼?", "administrator"),
    ("해외 출장 일비 얼마야?", "allowance"),  # Kiwi splits "출장 일비" by context; the glossary reads the word whole
    ("부산신항 허브 센터장이 누구야?", "hub"),
    ("What is the per diem for executives?", "일비"),  # the glossary's own phrase, function word and all
    ("Can I work from home on probation?", "재택근무"),
    ("Where does the hub shuttle leave from?", "셔틀버스"),
])
def test_workplace_words_the_general_dictionary_lacks_are_translated(bilingual, question, expected):
    assert expected in bilingual.expand(question).split()


def test_a_korean_question_in_workplace_words_finds_the_english_policy(tmp_path, analyzer, embedder, bilingual):
    """Fails without the glossary: "관리자" and "권한" had no English sense that the policy uses, so it said too
    few of the question's words for the translation bonus and trailed an English page that shares only "WMS"."""
    indexer = index_files(tmp_path, analyzer, embedder, {
        "access.md": "# Access requests\n\nPrivileged (admin) access expires automatically after 90 days and must be "
                     "requested again.\nRequests are approved by the system owner.\n",
        "maintenance.md": "# WMS 정기 점검 안내\n\n운영 WMS 정기 점검을 3월 21일 02:00부터 06:00까지 진행합니다.\n"
                          "점검 중에는 운영 WMS에 접속할 수 없습니다.\n",
        "outage.md": "# WMS API outage\n\nThe WMS public API returned errors for 2 hours. The operations team restarted "
                     "the gateway.\n"})
    hits = Retriever(indexer.index, embedder, bilingual=bilingual).search("운영 WMS 관리자 권한은 얼마 뒤에 만료돼?", 5)
    ranked = [h.chunk.path for h in hits]
    access = hits[ranked.index("access.md")]
    assert access.translation > 0 and ranked.index("access.md") < ranked.index("outage.md")


@pytest.mark.parametrize("question, fact", [
    # Each table row of the other-language document is about the topic; the one that says the asked words
    # (users: 사용자, included: 포함; executives: 임원) is the answer. The document saying them elsewhere
    # decided nothing between its own rows.
    ("SolTrack 프로 플랜은 사용자 몇 명까지 포함돼?", "Included users"),
    ("What's the monthly corporate card limit for executives?", "5,000,000"),
])
def test_the_line_that_says_the_asked_words_leads(solbit, analyzer, embedder, bilingual, question, fact):
    hits = Retriever(solbit.index, embedder, bilingual=bilingual).search(question, 5)
    reading = Reader(analyzer, embedder, bilingual=bilingual).read(question, question, hits)
    assert fact in reading.best.sentence


@pytest.mark.parametrize("korean, latin", [
    ("이천", "icheon"), ("부산", "busan"), ("판교", "pangyo"), ("서울", "seoul"), ("인천", "incheon"),
    ("하단역", "hadanyeok"), ("울릉", "ulleung"), ("성수동", "seongsudong"),
])
def test_a_korean_name_is_romanized_as_english_documents_write_it(korean, latin):
    assert romanize(korean) == latin


def test_a_korean_name_reaches_the_english_page_that_writes_it_in_latin_letters(bilingual):
    """"이천" is in the learner's dictionary as a number (two thousand); the hub directory says "Icheon Hub"."""
    assert "icheon" in bilingual.expand("이천 허브 대표번호 뭐야?").split()
    assert named(["이천", "허브", "서울"], ["icheon", "hub", "standard"]) == [("이천", "icheon")]


def test_a_glossary_compound_stands_for_its_parts():
    """"대표번호" is one thing asked about (a main phone number), not 대표 (a CEO) and 번호; "온콜", which Kiwi
    splits into syllables it then drops, joins the topic words."""
    assert with_compounds(["이천", "허브", "대표", "번호"], ["허브", "대표번호"]) == ["이천", "허브", "대표번호"]
    assert with_compounds(["수당"], ["온콜"]) == ["수당", "온콜"]


def test_a_line_says_a_korean_word_by_its_telling_english_words_only(bilingual, analyzer, embedder):
    """병가 is "sick leave" or "sick day": a line about remote work "up to 3 days per week" said it through "day", and
    led the hedge for "싱가포르 지사 병가는 며칠이야?". Of a phrase sense only its least common word tells."""
    from rag.documents import Chunk, Hit

    assert "sick" in bilingual.telling_words("병가")
    assert not {"day", "leave"} & set(bilingual.telling_words("병가"))
    assert bilingual.telling_words("unused") == bilingual.words("unused")  # an English word keeps its headwords
    hits = [Hit(Chunk("sg.pdf", 0, "Singapore Branch Handbook", "",
                      "Staff may work remotely up to 3 days per week.\nOutpatient sick leave — Entitlement: 14 days per year."),
                1.0)]
    reading = Reader(analyzer, embedder, bilingual=bilingual).read("병가는 며칠이야?", "병가는 며칠이야?", hits)
    said = {c.sentence[:5]: c.said for c in reading.candidates}
    assert said["Outpa"] > said["Staff"]


def test_a_one_syllable_word_written_apart_still_makes_its_compound(bilingual):
    """"설 연휴" is the glossary's 설연휴 (Lunar New Year holidays): the one-syllable 설 is too short to be a topic word
    alone, so the English calendar's "Seollal" line was not said by the question (fails on the old look-up, which
    read each word alone). A determiner before a word is not glued to it: "이 사람" is not 이사."""
    assert "설연휴" in bilingual.glossary_terms("올해 설 연휴 사무실 휴무가 언제야?")
    assert "seollal" in bilingual.words("올해 설 연휴 사무실 휴무가 언제야?")
    assert "이사" not in bilingual.glossary_terms("이 사람은 누구야?")


@pytest.mark.parametrize("question, fact", [
    ("How many days of annual leave do I get in Korea after my first year?", "15일"),
    ("What per diem is paid for a same-day domestic business trip?", "50%"),
])
def test_a_turn_reads_its_top_documents_other_passages(solbit, analyzer, embedder, bilingual, question, fact):
    """The document ranks among the top five by one passage; the passage that holds the fact ranks lower,
    and the answer, which reads only the hits it is given, never saw it."""
    retriever = Retriever(solbit.index, embedder, 5, bilingual=bilingual)
    pipeline = Pipeline(None, None, retriever, None, analyzer=analyzer)
    shallow, _ = pipeline.retrieve(question, depth=1)
    deep, _ = pipeline.retrieve(question, depth=READ_DEPTH)
    assert not any(fact in h.chunk.text for h in shallow)
    assert any(fact in h.chunk.text for h in deep)
    assert deep[:5] == shallow and {h.chunk.path for h in deep} == {h.chunk.path for h in shallow}


@pytest.mark.parametrize("question, fact", [
    ("How many days of leave do I get when my wife gives birth?", "20일"),
    ("What's the forklift speed limit in the rack storage area at Busan New Port Hub?", "시속 8km"),
])
def test_the_translated_keywords_give_a_second_opinion_on_the_other_languages_lines(
        solbit, analyzer, embedder, bilingual, question, fact):
    """The Korean table row that answers trailed English rows about other leave types (and hubs): e5 compares a
    Korean line with an English question worse than with the question's words put into Korean. (Since the hub's
    name counts as one topic word, the rack row leads the forklift question without the second opinion too; the
    opinion still lifts it.)"""
    retriever = Retriever(solbit.index, embedder, 5, bilingual=bilingual)
    hits, _ = Pipeline(None, None, retriever, None, analyzer=analyzer).retrieve(question, depth=READ_DEPTH)
    reading = Reader(analyzer, embedder, bilingual=bilingual).read(question, question, hits)
    assert fact in reading.best.sentence
    without = Reader(analyzer, embedder, bilingual=bilingual, translated_weight=0.0).read(question, question, hits)

    def line(r):
        return next(c for c in r.candidates if fact in c.sentence)

    assert line(reading).score > line(without).score
    if fact == "20일":  # the leave question still needs it
        assert fact not in without.best.sentence


@pytest.mark.parametrize("latin, hangul", [("gimpo", "김포"), ("Gimhae", "김해"), ("icheon", "이천"), ("pangyo", "판교"),
                                           ("jamsil", "잠실"), ("suwon", "수원")])
def test_a_romanized_korean_name_is_spelled_back_in_hangul(latin, hangul):
    assert hangul in spellings(latin)
    assert all(romanize(s) == latin.lower() for s in spellings(latin))


def test_an_english_question_naming_a_korean_place_reaches_the_korean_page_that_names_it(tmp_path, analyzer, embedder,
                                                                                          bilingual):
    """"Gimpo" is in no dictionary; romanized back, it is 김포, which the Korean parking guide says. Spellings Kiwi
    does not know as a name (팡요 for "Pangyo") are left out, and an English word is never spelled in Hangul."""
    indexer = index_files(tmp_path, analyzer, embedder, {
        "gimpo.md": "# 김포 물류센터 주차 안내\n\n주차는 B동 옆 야외 주차장을 이용한다. 방문 차량은 정문 경비실에 등록한다.\n",
        "pangyo.md": "# 판교 사무소 주차 안내\n\n주차는 지하 3층을 이용한다. 방문 차량은 안내데스크에 등록한다.\n",
        "yeouido.md": "# 여의도 사무소 주차 안내\n\n주차는 지하 2층을 이용한다. 방문 차량은 1층 안내데스크에 등록한다.\n",
    })
    assert dict(bilingual.senses("Where do I park at the Gimpo center?"))["gimpo"] == ("김포",)
    assert dict(bilingual.senses("Pangyo parking"))["pangyo"] == ("판교",)
    assert dict(bilingual.senses("Parking at Pangyo"))["parking"][0] == "주차"  # looked up, not spelled
    hits = Retriever(indexer.index, embedder, 3, bilingual=bilingual).search("Where do I park at the Gimpo center?")
    assert hits[0].chunk.path == "gimpo.md"


@pytest.mark.parametrize("word, form", [
    ("paid", "pay"), ("left", "leave"), ("kept", "keep"),  # irregular forms: the Snowball stem is the form itself
    ("hospitalisation", "hospitalization"), ("colour", "color"), ("organised", "organize"),  # British spelling
    ("hospitalization", "hospitalisation"),  # ... and the other way, for the documents that spell it so
])
def test_an_english_word_has_its_lemma_and_its_other_spelling(word, form):
    assert form in english.forms(word)
    assert english.forms("leave") == () and english.other_spelling("policy") is None  # nothing to add


def test_an_irregular_or_british_word_still_finds_its_korean_headwords(bilingual):
    """Fails on the dictionary keys alone: "paid" stems to "paid" and "hospitalisation" to "hospitalis", neither a
    key of the American dictionary, so "when is it paid out?" reached no Korean page by its words."""
    assert "지급" in bilingual.expand("when is it paid out?").split()
    assert "입원" in bilingual.expand("how long is hospitalisation leave?").split()


def test_a_korean_word_reaches_an_english_line_in_either_spelling(bilingual, analyzer, embedder):
    """입원 is "hospitalization" to the dictionary; the Singapore handbook writes "Hospitalisation". The row said no
    word of "입원하면?" and the remote-work line above it led."""
    from rag.documents import Chunk, Hit

    assert {"hospitalization", "hospitalisation"} <= set(bilingual.telling_words("입원"))
    assert "hospitalisation" in bilingual.expand("입원 휴가 며칠이야?").split()  # the keyword search's word too
    hits = [Hit(Chunk("sg.pdf", 0, "Singapore Branch Handbook", "Leave",
                      "Staff may work remotely up to 3 days per week.\n"
                      "Hospitalisation leave — Entitlement: 60 days per year (incl. sick leave)."), 1.0)]
    reading = Reader(analyzer, embedder, bilingual=bilingual).read("입원하면 며칠이야?", "입원하면 며칠이야?", hits)
    said = {c.sentence[:5]: c.said for c in reading.candidates}
    assert said["Hospi"] > said["Staff"]
