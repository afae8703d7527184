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


def _reading(kind, sentence, z, cosine, fills_slot, population=500, text=None):
    from rag.answer.questions import Kind
    from rag.answer.reading import Candidate, Reading
    from rag.documents import Chunk, Hit

    hit = Hit(Chunk("a.md", 0, "A", "", text or sentence), 1.0, cosine, relevance=z, population=population)
    reading = Reading(Kind(kind), background={True: (0.80, 0.02), False: (0.80, 0.02)})
    reading.candidates = [Candidate("a.md", 0, sentence, hit, z, cosine, 1, fills_slot, z)]
    return reading, [hit]


def test_three_outcomes_from_the_best_sentence():
    from rag.answer.evidence import Judge, Verdict

    judge = Judge()
    strong = _reading("quantity", "Pro — Price per month: KRW 290,000.", 4.0, 0.90, True)
    assert judge.verdict(strong[0], "How much is Pro a month?", strong[1]) == Verdict.ANSWERED
    slot_empty = _reading("quantity", "Pro includes priority support.", 4.0, 0.90, False)
    assert judge.verdict(slot_empty[0], "How much is Pro a month?", slot_empty[1]) == Verdict.HEDGED
    generic = _reading("quantity", "Cars park outside.", 0.5, 0.80, True)
    assert judge.verdict(generic[0], "How many bicycle racks are there?", generic[1]) == Verdict.NOT_FOUND


def test_a_number_or_name_the_evidence_lacks_is_hedged_not_answered():
    from rag.answer.evidence import Judge, Verdict

    reading, hits = _reading("quantity", "10년 — 휴가: 15일; 여행 지원금: 2,000,000원.", 4.5, 0.9, True)
    assert Judge().verdict(reading, "근속 10년이면 리프레시 휴가 며칠이야?", hits) == Verdict.ANSWERED
    assert Judge().verdict(reading, "근속 20년이면 리프레시 휴가 며칠이야?", hits) == Verdict.HEDGED


def test_a_small_index_is_judged_on_lift_over_generic_text_not_let_through():
    from rag.answer.evidence import Judge, Verdict

    reading, hits = _reading("yesno", "Cars park outside.", 1.2, 0.801, True, population=7)
    assert Judge().verdict(reading, "Can I bring my dog to the office?", hits) == Verdict.NOT_FOUND


FIVE = {
    "it-helpdesk.md": "# IT helpdesk\n\nThe IT helpdesk is on the 3rd floor. Call extension 2400 for help with "
                      "laptops, accounts and printers.\n",
    "on-call.md": "# On-call\n\nPagerDuty pages the primary on-call engineer first. Acknowledge a page within "
                  "15 minutes.\n",
    "vacation.md": "# Vacation\n\nEvery employee gets 15 days of paid vacation per year. Request vacation in the "
                   "HR portal at least one week ahead.\n",
    "expenses.md": "# Expenses\n\nSubmit receipts in the expense tool within 30 days. Meals are reimbursed up to "
                   "12,000 KRW.\n",
    "wifi.md": "# Office Wi-Fi\n\nConnect to the network Corp-Secure with your SSO account. Guests use Corp-Guest.\n",
}


async def test_a_five_document_folder_still_says_not_found(tmp_path, analyzer, embedder, classifier):
    from tests.conftest import service_over

    service = service_over(tmp_path, analyzer, embedder, classifier, FIVE)
    turn = await service.ask(KEY, "What is the policy on bringing dogs to the office?", "alice")
    answer = await turn.collect()
    assert turn.prepared.not_found, answer
    turn = await service.ask(SessionKey("console", "local", "alice", "nf5"), "How many vacation days do I get?",
                             "alice")
    answer = await turn.collect()
    assert not turn.prepared.not_found and "15 days" in answer


async def test_an_answer_from_a_repealed_or_future_document_says_so(tmp_path, analyzer, embedder, classifier):
    from tests.conftest import service_over

    files = {
        "parking-2019.md": "---\ntitle: Parking rules 2019\nstatus: repealed\n---\n# Parking rules 2019\n\n"
                           "Bicycles are parked in the basement rack next to the lifts.\n",
        "canteen.md": "---\ntitle: 구내식당 운영\neffective: 2999-01-01\n---\n# 구내식당 운영\n\n"
                      "구내식당은 평일 11시 30분부터 13시 30분까지 운영합니다.\n",
    }
    service = service_over(tmp_path, analyzer, embedder, classifier, files)
    answer = await (await service.ask(KEY, "Where do I park my bicycle?", "alice")).collect()
    assert "[1]" in answer and "⚠️ “Parking rules 2019” is marked as repealed." in answer
    other = SessionKey("console", "local", "alice", "cv")
    answer = await (await service.ask(other, "구내식당은 몇 시까지 운영해?", "alice")).collect()
    assert "[1]" in answer and "⚠️ 「구내식당 운영」은(는) 2999-01-01부터 시행됩니다." in answer
