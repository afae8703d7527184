"""The offline rewriter: what a follow-up keeps, what it replaces, and where it never borrows from."""
import pytest

from rag.understand.rewrite import HistoryTurn, OfflineRewriter


def exchange(question: str, answer: str = "", paths=("doc.md",), intent="knowledge_search", rewritten=""):
    """One stored user turn and the answer after it, as the conversation service reads them back."""
    return [HistoryTurn("user", question, rewritten=rewritten or question, intent=intent),
            HistoryTurn("assistant", answer or "Here is what the documents say:", ["Doc"],
                        list(paths) if intent == "knowledge_search" else [])]


@pytest.fixture(scope="module")
def rewriter(analyzer):
    return OfflineRewriter(analyzer)


async def test_a_topic_shift_keeps_the_new_noun_first_and_carries_the_aspect(rewriter):
    history = exchange("탈퇴한 계정의 데이터는 얼마나 보관해?", paths=("data-retention.md",))
    result = await rewriter.rewrite("그럼 결제 로그는?", history)
    assert result.text.startswith("그럼 결제 로그는?") and "보관" in result.text
    assert result.prior == ("data-retention.md",)


async def test_an_entity_named_only_in_the_answer_resolves_it(rewriter):
    history = exchange("Which database should a new production service use?",
                       "Here is what the documents say:\n• PostgreSQL is our default for every production "
                       "service. [1]\n• The Platform team runs managed PostgreSQL 16 clusters. [1]",
                       paths=("database-options.md",))
    result = await rewriter.rewrite("how is it backed up?", history)
    assert "PostgreSQL" in result.text and result.method == "offline"


async def test_a_follow_up_without_a_pronoun_still_borrows_the_topic(rewriter):
    history = exchange("What happens if the primary on-call doesn't acknowledge a page?", paths=("on-call.md",))
    result = await rewriter.rewrite("and after 20 minutes?", history)
    assert "primary" in result.text and "page" in result.text
    assert result.prior == ("on-call.md",)


async def test_references_chain_through_the_previous_rewrite(rewriter):
    history = exchange("Who owns Orion Gateway?", paths=("gateway.md",))
    history += exchange("what are its rate limits?", paths=("gateway.md",),
                        rewritten="what are its rate limits? Orion Gateway")
    result = await rewriter.rewrite("그 한도를 넘으면 어떻게 돼?", history)
    assert "Orion" in result.text and "Gateway" in result.text


async def test_a_self_contained_follow_up_is_left_alone(rewriter):
    history = exchange("휴가는 며칠 전에 신청해야 해?", paths=("vacation-policy.md",))
    result = await rewriter.rewrite("How long are audit logs kept for customer data?", history)
    assert result.text == "How long are audit logs kept for customer data?" and result.prior == ()


async def test_a_self_contained_follow_up_on_the_same_topic_still_favours_the_answers_documents(rewriter):
    """"how much extra is night work paid?" needs no borrowed words, but in this thread it is about the Busan
    shift procedure just quoted: its documents are favoured (the travel policy's allowances led without)."""
    history = exchange("What are the night shift hours at Busan New Port Hub?", paths=("ops/busan-shift.docx",))
    result = await rewriter.rewrite("how much extra is night work paid?", history)
    assert result.text == "how much extra is night work paid?" and result.prior == ("ops/busan-shift.docx",)
    moved = await rewriter.rewrite("how much extra is night work paid at the Icheon Hub?", history)
    assert moved.prior == ()  # names another hub: the Busan documents get no prior


@pytest.mark.parametrize("earlier", [
    exchange("hi docbot!", intent="chitchat"),
    exchange("restart the gateway now", intent="action"),
    exchange("is the gateway down right now?", intent="realtime_lookup"),
    exchange("Traceback (most recent call last): gateway timeout " + "x" * 600),
])
async def test_greetings_actions_live_state_and_pasted_logs_lend_nothing(rewriter, earlier):
    history = exchange("출장 호텔 한도 알려줘", paths=("travel-policy.md",)) + earlier
    result = await rewriter.rewrite("what about weekends?", history)
    assert "gateway" not in result.text.lower() and "docbot" not in result.text.lower()
    assert "호텔" in result.text  # the last *document* question is still what "what about" refers to


async def test_a_not_found_reply_lends_no_names(rewriter):
    history = [HistoryTurn("user", "결제 이벤트는 어떤 카프카 토픽으로 가?", rewritten="결제 이벤트는 어떤 카프카 토픽으로 가?",
                           intent="knowledge_search"),
               HistoryTurn("assistant", "색인된 문서에서 이 질문에 답하는 내용을 찾지 못했습니다.\n관련 있을 수 있는 문서:\n"
                                        "• Architecture Overview (architecture-overview.pdf)\n• Nuri Labs Glossary (glossary.txt)")]
    result = await rewriter.rewrite("그걸 받는 시스템은 무슨 DB를 써?", history)
    assert not any(name in result.text for name in ("Architecture", "Overview", "Glossary", "Labs"))
    assert "결제" in result.text  # the question's own topic still carries over


async def test_a_name_ending_a_sentence_is_read_whole(rewriter):
    history = exchange("Which database should a new production service use?",
                       "Here is what the documents say:\n• Use PostgreSQL. [1]\n• This guide from the Platform team "
                       "compares the databases. [1]", paths=("database-options.md",))
    result = await rewriter.rewrite("how is it backed up?", history)
    assert "PostgreSQL" in result.text.split() and "SQL." not in result.text


@pytest.mark.parametrize("question,answer,follow_up", [
    ("서울 사무실 주차 등록은 어떻게 해?", "서울 본사 주차는 총무팀에 차량 번호를 등록한다. [1]", "부산은?"),
    ("How much is the Lite plan a month?", "The Lite plan costs 90,000 won a month. [1]",
     "and the Enterprise plan?"),
    ("What does error ERR-41 mean?", "ERR-41 means the label printer is offline. [1]", "and ERR-57?"),
])
async def test_a_follow_up_naming_a_new_entity_drops_the_previous_answers_prior(rewriter, question, answer,
                                                                                 follow_up):
    """The thread moved to another city, plan or code: the last answer's document is not what it is about."""
    result = await rewriter.rewrite(follow_up, exchange(question, answer, paths=("previous.md",)))
    assert result.prior == ()
    assert result.text.startswith(follow_up)


async def test_a_follow_up_on_the_same_entity_keeps_the_prior(rewriter):
    """The control: the same city again (a longer form of the name counts as the same one)."""
    history = exchange("부산신항 허브 주차 등록은 어떻게 해?", "부산신항 허브 주차는 운영지원팀에 등록한다. [1]",
                       paths=("busan.md",))
    assert (await rewriter.rewrite("부산은?", history)).prior == ("busan.md",)
    assert (await rewriter.rewrite("택시비는?", history)).prior == ("busan.md",)


@pytest.mark.parametrize("question,answer,follow_up", [
    ("크로스도킹이 뭐야?", "크로스도킹 (Cross-docking): 입고된 상품을 보관하지 않고 24시간 이내에 출고하는 방식. [1]",
     "OTIF 목표는?"),
    ("What does cross-docking mean?", "Cross-docking ships received goods within 24 hours. [1]",
     "and the OTIF target?"),
])
async def test_a_new_entity_with_a_new_aspect_borrows_nothing(rewriter, question, answer, follow_up):
    """A follow-up naming another thing and asking something new about it is its own question: the earlier
    question's words ("크로스도킹") would pull the search back to the old topic."""
    result = await rewriter.rewrite(follow_up, exchange(question, answer, paths=("previous.md",)))
    assert result.text == follow_up and result.prior == ()


async def test_a_new_entity_alone_still_borrows_the_aspect(rewriter):
    """The control: "부산은?" and "and the Enterprise plan?" ask the same thing about another entity."""
    history = exchange("서울 사무실 주차 등록은 어떻게 해?", "서울 본사 주차는 총무팀에 차량 번호를 등록한다. [1]")
    assert "주차" in (await rewriter.rewrite("부산은?", history)).text
    history = exchange("How much is the Lite plan a month?", "The Lite plan costs 90,000 won a month. [1]")
    assert "month" in (await rewriter.rewrite("and the Enterprise plan?", history)).text
    history = exchange("P1 티켓이 2시간 안에 안 풀리면 누구한테 보고돼?", "Duty Manager에게 보고된다. [1]")
    assert "티켓" in (await rewriter.rewrite("P4는 첫 응답 언제까지야?", history)).text
    history = exchange("재택근무 신청은 언제까지 해야 돼?", "전주 목요일까지 신청한다. [1]")
    assert "재택" in (await rewriter.rewrite("코어타임은 몇 시야?", history)).text


@pytest.mark.parametrize("header", ["Here is what the documents say (quoted from Korean documents):",
                                    "The closest I found — it may not answer exactly:"])
async def test_the_answers_own_header_is_not_something_it_introduced(rewriter, header):
    """Fails on the old rewriter: "Korean" of "(quoted from Korean documents)" was borrowed as a name the
    answer introduced ("그럼 고객 상담 녹취는? Korean application logs kept"), pulling the search to it."""
    history = exchange("How long are application logs kept?",
                       f"{header}\n• 애플리케이션 로그 — 보존 기간: 90일. [1]\n• Every access is written to the "
                       "Atlas audit log. [2]", paths=("data-retention.md",))
    result = await rewriter.rewrite("그럼 그건 어디에 저장돼?", history)
    assert "Korean" not in result.text and "closest" not in result.text.lower()
    assert "Atlas" in result.text  # a name the quotes introduced is still what "그건" may point at
