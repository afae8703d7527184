"""Loanwords across scripts (rag.text.loanwords) and the reading's topic coverage in either language: a Korean
question's "플랜", "엔터프라이즈" and "롤백" are the English document's "plans", "Enterprise" and "rollback"."""
import pytest

from rag.answer.reading import Reader
from rag.documents import Chunk, Hit
from rag.text.bilingual import Bilingual
from rag.text.loanwords import MIN_CONSONANTS, english_skeletons, korean_skeleton, matches


@pytest.fixture(scope="module")
def bilingual(analyzer) -> Bilingual:
    return Bilingual(analyzer)


@pytest.mark.parametrize("korean, english", [
    ("롤백", "rollback"), ("엔터프라이즈", "enterprise"), ("셔틀", "shuttle"), ("대시보드", "dashboard"),
    ("부산", "busan"), ("플랜", "plans"), ("에스컬레이션", "escalation"), ("로그인", "login"), ("서비스", "service"),
    ("매니저", "manager"), ("온보딩", "onboarding"), ("스프린트", "sprint"), ("싱가포르", "singapore"),
])
def test_a_word_written_in_hangul_matches_its_english_spelling(korean, english):
    assert matches([korean], [english]) == [(korean, english)]


@pytest.mark.parametrize("korean, english", [
    ("라이트", "lite"),  # two consonants: "rate", "light", "route" would all match
    ("플랜", "planet"), ("롤백", "rollout"), ("셔틀", "settlement"), ("부산", "business"),
    ("사과", "apple"), ("서버", "server"),  # too short as well
])
def test_short_or_different_skeletons_do_not_match(korean, english):
    assert matches([korean], [english]) == []


def test_skeletons_drop_vowels_and_an_unspoken_r_and_collapse_repeats():
    assert korean_skeleton("엔터프라이즈") == "NTPLS" and "NTPLS" in english_skeletons("enterprise")
    assert korean_skeleton("롤백") == "LPK" and english_skeletons("rollback") == {"LPK"}
    assert korean_skeleton("SolTrack") == "" and korean_skeleton("") == ""
    assert len(korean_skeleton("라이트")) < MIN_CONSONANTS


def test_the_english_document_that_says_the_questions_words_leads_over_a_korean_near_miss(analyzer, embedder,
                                                                                          bilingual):
    """Fails without the coverage term: retrieval put the Korean maintenance notice first, and the plan's row,
    which says four of the question's five topic words in English, trailed it."""
    notice = ("점검 시간 동안 공개 API는 HTTP 503을 반환합니다.\n야간 출고는 02:00 전에 마감해 주세요.\n"
              "점검은 2026년 3월 21일 02:00부터 06:00까지 진행됩니다.")
    plans = ("Included users — Lite: 10; Pro: 50; Enterprise: Unlimited.\n"
             "Extra user: ₩15,000 per user per month (Lite and Pro).\nAll plans are billed monthly.")
    question = "엔터프라이즈 플랜은 사용자 몇 명까지 포함돼?"
    notice_cosine, plans_cosine = (float(c) for c in embedder.embed_passages([notice, plans]) @
                                   embedder.embed_query(question))
    # Retrieval put the notice well above the plans (same language, a number for "how many").
    hits = [Hit(Chunk("notice.txt", 0, "WMS 정기 점검 안내", "", notice), 2.9, notice_cosine, relevance=2.9,
                spread=0.02, population=200),
            Hit(Chunk("plans.html", 0, "Plans", "", plans), 1.5, plans_cosine, relevance=1.5, spread=0.02,
                population=200)]
    reading = Reader(analyzer, embedder, bilingual=bilingual).read(question, question, hits)
    assert reading.concept_coverage("plans.html") > reading.concept_coverage("notice.txt")
    assert reading.best is not None and reading.best.path == "plans.html"
    # What the old reading led with: no coverage terms and no translated words (since the glossary's second
    # batch, the translated words' shared-word bonus alone already lifts the plan's row).
    without = Reader(analyzer, embedder, concept_weight=0.0, line_concept_weight=0.0,
                     translated_weight=0.0).read(question, question, hits)
    assert without.best is not None and without.best.path == "notice.txt"

