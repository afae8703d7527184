"""One turn through the RAG core: rewrite, route, retrieve, then answer the user's own words."""
from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass, field
from typing import AsyncIterator

from .analysis import Analyzer
from .answer import Answerer, is_korean
from .chain import decompose, merge, refine
from .documents import Hit
from .evidence import EvidenceRule
from .lookups import LookupRegistry
from .retrieval import MAX_QUERY_CHARS, Retriever
from .rewrite import HistoryTurn, Rewrite, Rewriter
from .routing import AMBIGUOUS, Route, Router, when_unsure


@dataclass
class Prepared:
    """Everything decided before the answer starts: shown to the user and stored with the turn."""

    question: str
    rewrite: Rewrite
    route: Route
    hits: list[Hit] = field(default_factory=list)
    searched: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    notice: str = ""
    steps: list[str] = field(default_factory=list)  # chain-of-retrieval sub-queries, when used
    reply: str | None = None  # a fixed reply decided up front (lookup result, pending action)
    related: list[Hit] = field(default_factory=list)  # passages found that do not answer: "maybe related"

    @property
    def not_found(self) -> bool:
        """Whether a search ran and docbot says the documents do not answer the question."""
        return self.searched and not self.hits


_REPLIES = {
    "empty": ("질문을 입력해 주세요. 예: \"휴가 신청 절차 알려줘\"",
              'Please type a question, for example "How do I request vacation?"'),
    "chitchat": ("안녕하세요! 회사 문서에 대해 무엇이든 물어보세요.",
                 "Hi! Ask me anything about the company's documents."),
    "thanks": ("천만에요! 더 궁금한 게 있으면 언제든 물어보세요.",
               "You're welcome! Ask again any time."),
    "realtime_lookup": ("지금 이 순간의 상태는 볼 수 없습니다. 저는 문서를 근거로 답합니다. 대시보드나 담당 팀에 확인해 주세요.",
                        "I can't see live state for that; I answer from documents. Please check the dashboard or the owning team."),
    "action": ("이 요청은 무언가를 변경하는 작업이라 바로 실행하지 않습니다. 변경은 확인 버튼과 권한 확인을 거쳐야 하며, 이 배포에는 아직 실행할 수 있는 작업이 연결되어 있지 않습니다.",
               "That would change something, so I won't do it directly: changes need a confirmation and a permission check, and no actions are connected in this deployment yet."),
    "rate_limited": ("잠시만요! 메시지가 너무 빨리 들어오고 있어요. 1분쯤 뒤에 다시 물어봐 주세요.",
                     "Easy there! Messages are coming in faster than I can take them; please ask again in a minute."),
    "error": ("죄송합니다. 답변을 준비하는 중에 문제가 생겼습니다. 잠시 후 다시 시도해 주세요.",
              "Sorry, something went wrong while preparing the answer. Please try again in a moment."),
    AMBIGUOUS: ("어떤 것을 원하시는지 확실하지 않습니다. 찾으시는 문서나 주제를 조금 더 알려주시겠어요?",
                "I'm not sure what you need. Which document or topic do you mean?"),
}


_THANKS = re.compile(r"고마|감사|thank|thx|\bty\b|cheers", re.IGNORECASE)


def canned(kind: str, question: str) -> str:
    """A fixed reply in the user's language."""
    korean, english = _REPLIES[kind]
    return korean if is_korean(question) else english


log = logging.getLogger(__name__)


class Pipeline:
    """Rewrite -> route -> retrieve (plain or chained) or look up -> answer, with stage timings."""

    def __init__(self, rewriter: Rewriter, router: Router, retriever: Retriever, answerer: Answerer,
                 *, analyzer: Analyzer, lookups: LookupRegistry | None = None, threshold: float = 0.65,
                 chain: str = "auto", max_steps: int = 3, evidence: EvidenceRule | None = None):
        self.rewriter, self.router, self.retriever, self.answerer = rewriter, router, retriever, answerer
        self.analyzer, self.lookups = analyzer, lookups or LookupRegistry()
        self.threshold, self.chain, self.max_steps = threshold, chain, max_steps
        self.evidence = evidence or EvidenceRule()

    def retrieve(self, query: str, k: int | None = None, channel: str | None = None,
                 prior: tuple[str, ...] = ()) -> tuple[list[Hit], list[str]]:
        """Hits this channel may see, through the chain when the query has several parts; and the steps.

        `prior`: documents the previous answer cited, favoured when the follow-up points back at them.
        """
        k = k or self.retriever.k
        steps = decompose(query, self.analyzer, self.max_steps) if self.chain != "off" else [query]
        if len(steps) < 2:
            return self.retriever.search(query, k, prior, channel), []
        per_step: list[list[Hit]] = []
        for step in steps:
            earlier = per_step[-1] if per_step else []
            refined = refine(step, earlier, self.analyzer)
            per_step.append(self.retriever.search(refined, k, channel=channel))
            if refined != step:  # the borrowed title can outweigh the step's own subject: search both
                per_step.append(self.retriever.search(step, k, channel=channel))
        # The whole question still runs: it finds passages that answer both parts at once.
        per_step.append(self.retriever.search(query, k, prior, channel))
        return merge(per_step, k * 2), steps

    async def prepare(self, question: str, history: list[HistoryTurn], channel: str | None = None) -> Prepared:
        """Rewrite with the history, route, and search when the route needs documents."""
        timings: dict[str, float] = {}
        clipped = question.strip()
        notice = ""
        if len(clipped) > MAX_QUERY_CHARS:
            notice = (f"(메시지가 길어서 앞부분 {MAX_QUERY_CHARS}자로 검색했습니다)" if is_korean(clipped)
                      else f"(your message is long; I searched with its first {MAX_QUERY_CHARS} characters)")
            clipped = clipped[:MAX_QUERY_CHARS]
        if not clipped:
            return Prepared(question, Rewrite("", "none"), Route("chitchat", 1.0, reason="empty"), notice="empty")
        started = time.perf_counter()
        rewrite = await self.rewriter.rewrite(clipped, history)
        timings["rewrite_ms"] = _ms(started)
        started = time.perf_counter()
        # The classifier embeds the message: CPU work, kept off the event loop like the search below.
        route = when_unsure(rewrite.route or await asyncio.to_thread(self.router.route, clipped, rewrite.text),
                            self.threshold)
        timings["route_ms"] = _ms(started)
        prepared = Prepared(question, rewrite, route, timings=timings, notice=notice)
        started = time.perf_counter()
        if route.intent == "knowledge_search":
            # Embedding and search are CPU-bound; keep the event loop free for other threads' turns.
            prepared.hits, prepared.steps = await asyncio.to_thread(self.retrieve, rewrite.text, None, channel,
                                                                    rewrite.prior)
            prepared.searched = True
            if not await asyncio.to_thread(self.evidence.answers, rewrite.text, prepared.hits, self.analyzer):
                # Nothing answers it: say so plainly, and offer the closest documents as "maybe related".
                prepared.related, prepared.hits = prepared.hits, []
                prepared.reply = not_found_reply(clipped, prepared.related)
            timings["retrieve_ms"] = _ms(started)
            if prepared.steps:
                timings["chain_steps"] = len(prepared.steps)
                log.info("chain-of-retrieval: %d steps, %d searches, %.0f ms", len(prepared.steps),
                         len(prepared.steps) + 1, timings["retrieve_ms"])
        elif route.intent == "realtime_lookup":
            prepared.reply = await self.lookups.answer(clipped, is_korean(clipped))
            timings["lookup_ms"] = _ms(started)
        return prepared

    async def answer(self, prepared: Prepared, history: list[HistoryTurn]) -> AsyncIterator[str]:
        """The reply in pieces: cited answer for document questions, a short fixed reply otherwise."""
        if prepared.notice == "empty":
            yield canned("empty", prepared.question)
            return
        if prepared.reply is not None:
            yield prepared.reply
            return
        if prepared.route.intent != "knowledge_search":
            kind = prepared.route.intent
            if kind == "chitchat" and _THANKS.search(prepared.question):
                kind = "thanks"
            yield canned(kind, prepared.question)
            return
        if prepared.notice:
            yield prepared.notice + "\n"
        question = prepared.question.strip()[:MAX_QUERY_CHARS * 4]
        async for piece in self.answerer.answer(question, prepared.rewrite.text, prepared.hits, history):
            yield piece


def not_found_reply(question: str, related: list[Hit]) -> str:
    """"Not found" in the user's language, with up to three closest documents as maybe related."""
    korean = is_korean(question)
    titles = list(dict.fromkeys(f"{h.chunk.title} ({h.chunk.path})" for h in related))[:3]
    head = ("색인된 문서에서 이 질문에 답하는 내용을 찾지 못했습니다." if korean
            else "I couldn't find an answer to this in the indexed documents.")
    if not titles:
        return head
    label = "관련 있을 수 있는 문서:" if korean else "Maybe related:"
    return "\n".join([head, label, *(f"• {t}" for t in titles)])


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
