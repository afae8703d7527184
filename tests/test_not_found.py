"""Saying "not found" when the documents do not answer, and offering the closest ones instead."""
import pytest

from bot.conversation import SessionKey

KEY = SessionKey("console", "local", "alice", "nf")


@pytest.mark.parametrize("question,header", [
    ("What is the policy on bringing dogs to the office?", "I couldn't find an answer to this in the indexed documents."),
    ("회사 주식 옵션 행사 가격은?", "색인된 문서에서 이 질문에 답하는 내용을 찾지 못했습니다."),
])
async def test_an_absent_topic_gets_not_found_with_maybe_related_documents(service, question, header):
    turn = await service.ask(KEY, question, "alice")
    answer = await turn.collect()
    lines = answer.splitlines()
    assert turn.prepared.searched and turn.prepared.not_found and turn.sources == []
    assert lines[0] == header and lines[1] in ("Maybe related:", "관련 있을 수 있는 문서:")
    assert all(line.startswith("• ") and line.endswith(")") for line in lines[2:]) and 1 <= len(lines) - 2 <= 3
    assert "[1]" not in answer  # nothing is cited as if it answered


@pytest.mark.parametrize("question,path", [
    ("재택근무는 일주일에 몇 번 가능해?", "remote-work.md"),
    ("온콜 수당은 얼마야?", "on-call-handbook.md"),  # answered across languages: no shared word
    ("How long are application logs kept?", "data-retention.md"),
])
async def test_answerable_questions_are_still_answered(service, question, path):
    turn = await service.ask(KEY, question, "alice")
    answer = await turn.collect()
    assert not turn.prepared.not_found and path in {s.path for s in turn.sources} and "[1]" in answer


def test_the_rule_needs_both_signals_low(analyzer):
    from rag.answer.evidence import EvidenceRule
    from rag.documents import Chunk, Hit

    def hit(text, relevance):
        return Hit(Chunk("a.md", 0, "Parking", "", text), 1.0, 0.8, relevance=relevance, population=500)

    rule = EvidenceRule(min_relevance=2.8, min_coverage=0.6)
    assert rule.answers("bicycle parking", [hit("Bicycle parking is in the basement.", 1.0)], analyzer)  # words
    assert rule.answers("bicycle parking", [hit("자전거는 지하에 둡니다.", 3.5)], analyzer)  # a clear vector match
    assert not rule.answers("bicycle parking", [hit("Cars park outside.", 2.0)], analyzer)
    assert not rule.answers("anything", [], analyzer)


def test_a_same_language_passage_sharing_no_topic_word_is_not_an_answer(analyzer):
    from rag.answer.evidence import EvidenceRule
    from rag.documents import Chunk, Hit

    near_topic = Hit(Chunk("referral.md", 0, "직원 추천 보상", "보상", "추천인에게 200만 원을 지급합니다."), 1.0, 0.9,
                     relevance=4.0, population=500)
    assert not EvidenceRule().answers("회사 주식 옵션 행사 가격은?", [near_topic], analyzer)
    assert EvidenceRule().answers("추천 보상은 얼마야?", [near_topic], analyzer)


def test_a_small_index_is_never_judged_on_z_scores(analyzer):
    from rag.answer.evidence import EvidenceRule
    from rag.documents import Chunk, Hit

    few = Hit(Chunk("a.md", 0, "Cars", "", "Cars park outside."), 1.0, 0.8, relevance=1.2, population=7)
    assert EvidenceRule().answers("bicycle parking", [few], analyzer)
