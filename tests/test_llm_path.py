"""The LLM path against a local OpenAI-compatible server: rewrite, streaming answer, fallbacks."""
import pytest

from rag.answer import ExtractiveAnswerer, LLMAnswerer
from rag.documents import Chunk, Hit
from rag.llm import OpenAIChat
from rag.rewrite import HistoryTurn, LLMRewriter

from openai_standin import OpenAIStandIn, Reply

HISTORY = [HistoryTurn("user", "배포 절차 문서 요약해줘"),
           HistoryTurn("assistant", "배포는 스테이징, 승인 2명, 카나리 순서입니다. [1]")]


@pytest.fixture
async def llm():
    standin = await OpenAIStandIn().start()
    yield standin
    await standin.close()


def chat(llm) -> OpenAIChat:
    return OpenAIChat("test-model", "sk-test", llm.base_url, max_retries=0)


async def test_rewrite_keeps_the_first_line_without_preamble(llm, analyzer):
    llm.script = [Reply("Standalone query: 배포 절차는 언제 바뀌었나요?\nI resolved 그건 to 배포 절차.")]
    result = await LLMRewriter(chat(llm), analyzer).rewrite("그럼 그건 언제 바뀐 거야?", HISTORY)
    assert (result.text, result.method) == ("배포 절차는 언제 바뀌었나요?", "llm")
    sent = llm.requests[0]["messages"][-1]["content"]
    assert "배포 절차 문서 요약해줘" in sent and "그럼 그건 언제 바뀐 거야?" in sent


async def test_first_turn_makes_no_rewrite_call(llm, analyzer):
    result = await LLMRewriter(chat(llm), analyzer).rewrite("휴가 정책 알려줘", [])
    assert result.method == "none" and llm.requests == []


@pytest.mark.parametrize("reply,reason", [
    (Reply("배포 절차는 언제 바뀌었나요?", delay=1.5), "within"),
    (Reply(""), "empty"),
    (Reply("Sure! Here is the rewritten question: ..."), "explanatory"),
    (Reply("배포 절차 " * 80), "longer"),
    (Reply("Kubernetes 배포 절차는 언제 바뀌었나요?"), "invented"),
    (Reply("x", status=500), "failed"),
])
async def test_rewrite_falls_back_to_the_original(llm, analyzer, reply, reason):
    llm.script = [reply]
    rewriter = LLMRewriter(chat(llm), analyzer, timeout=0.5, max_chars=300)
    result = await rewriter.rewrite("그럼 그건 언제 바뀐 거야?", HISTORY)
    assert result.text == "그럼 그건 언제 바뀐 거야?" and result.method == "fallback"
    assert reason in result.note


HITS = [Hit(Chunk("deploy.md", 0, "배포 절차", "개정 이력", "2026-03-02: 승인자를 2명으로 변경했습니다."), 1.0, 0.9, True)]


async def test_answer_streams_and_sees_the_original_question(llm, analyzer, embedder):
    llm.script = [Reply(pieces=["2026-03-02에 ", "바뀌었습니다 ", "[1]"])]
    answerer = LLMAnswerer(chat(llm), ExtractiveAnswerer(analyzer, embedder))
    pieces = [p async for p in answerer.answer("그럼 그건 언제 바뀐 거야?", "배포 절차 변경일", HITS, HISTORY)]
    assert pieces == ["2026-03-02에 ", "바뀌었습니다 ", "[1]"]
    request = llm.requests[0]
    assert request["stream"] is True
    last = request["messages"][-1]["content"]
    assert "Question: 그럼 그건 언제 바뀐 거야?" in last and "[1] 배포 절차 (deploy.md)" in last
    assert "배포 절차 변경일" not in last  # the rewrite is for retrieval only
    assert [m["role"] for m in request["messages"]] == ["system", "user", "assistant", "user"]


async def test_answer_falls_back_to_extractive_when_the_model_stalls(llm, analyzer, embedder):
    llm.script = [Reply(pieces=["never"], stall_after=0)]
    answerer = LLMAnswerer(chat(llm), ExtractiveAnswerer(analyzer, embedder), timeout=0.5)
    text = "".join([p async for p in answerer.answer("언제 바뀌었어?", "배포 절차 변경", HITS, [])])
    assert "승인자를 2명으로 변경했습니다. [1]" in text


async def test_answer_cut_midway_keeps_what_was_said(llm, analyzer, embedder):
    llm.script = [Reply(pieces=["Part one. ", "never"], stall_after=1)]
    answerer = LLMAnswerer(chat(llm), ExtractiveAnswerer(analyzer, embedder), timeout=0.5)
    text = "".join([p async for p in answerer.answer("when?", "deploy change", HITS, [])])
    assert text.startswith("Part one. ") and "cut short" in text
