"""One turn through the RAG core: rewrite, route, retrieve, then answer the user's own words."""
from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from rag.answer.answerers import Answerer, is_korean
from rag.answer.evidence import EvidenceRule
from rag.answer.lookups import LookupRegistry
from rag.documents import Hit
from rag.messages import Text, say
from rag.retrieve.chain import decompose, merge, refine
from rag.retrieve.retriever import MAX_QUERY_CHARS, Retriever
from rag.text.analysis import Analyzer
from rag.understand.rewrite import HistoryTurn, Rewrite, Rewriter
from rag.understand.routing import Intent, Route, Router, reconcile, when_unsure


@dataclass
class Prepared:
    """Everything decided before the answer starts: shown to the user and stored with the turn."""

    question: str
    rewrite: Rewrite
    route: Route
    hits: list[Hit] = field(default_factory=list)
    searched: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    notice: str = ""  # said before the answer (the message was too long and was clipped)
    canned: Text | None = None  # a fixed reply from the catalogue instead of an answer (empty message, errors)
    steps: list[str] = field(default_factory=list)  # chain-of-retrieval sub-queries, when used
    reply: str | None = None  # a fixed reply decided up front (lookup result, pending action)
    related: list[Hit] = field(default_factory=list)  # passages found that do not answer: "maybe related"

    @property
    def not_found(self) -> bool:
        """Whether a search ran and docbot says the documents do not answer the question."""
        return self.searched and not self.hits


_THANKS = re.compile(r"고마|감사|thank|thx|\bty\b|cheers", re.IGNORECASE)




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
            notice = say(Text.LONG_MESSAGE, clipped, limit=MAX_QUERY_CHARS)
            clipped = clipped[:MAX_QUERY_CHARS]
        if not clipped:
            return Prepared(question, Rewrite("", "none"), Route(Intent.CHITCHAT, 1.0, reason="empty"),
                            canned=Text.EMPTY)
        started = time.perf_counter()
        rewrite = await self.rewriter.rewrite(clipped, history)
        timings["rewrite_ms"] = _ms(started)
        started = time.perf_counter()
        # The classifier embeds the message: CPU work, kept off the event loop like the search below.
        routed = rewrite.route
        if routed is None:
            routed = await asyncio.to_thread(self.router.route, clipped, rewrite.text)
        elif routed.intent != Intent.KNOWLEDGE_SEARCH:  # the model's word alone never leaves the documents
            offline = await asyncio.to_thread(self.router.route, clipped, rewrite.text)
            routed = reconcile(routed, offline, clipped, self.threshold)
        route = when_unsure(routed, self.threshold)
        timings["route_ms"] = _ms(started)
        prepared = Prepared(question, rewrite, route, timings=timings, notice=notice)
        started = time.perf_counter()
        if route.intent == Intent.KNOWLEDGE_SEARCH:
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
        elif route.intent == Intent.REALTIME_LOOKUP:
            prepared.reply = await self.lookups.answer(clipped, is_korean(clipped))
            timings["lookup_ms"] = _ms(started)
        return prepared

    async def answer(self, prepared: Prepared, history: list[HistoryTurn]) -> AsyncIterator[str]:
        """The reply in pieces: cited answer for document questions, a short fixed reply otherwise."""
        if prepared.canned is not None:
            yield say(prepared.canned, prepared.question)
            return
        if prepared.reply is not None:
            yield prepared.reply
            return
        if prepared.route.intent != Intent.KNOWLEDGE_SEARCH:
            kind = Text(prepared.route.intent)
            if kind == Text.CHITCHAT and _THANKS.search(prepared.question):
                kind = Text.THANKS
            yield say(kind, prepared.question)
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
    head = say(Text.NOT_FOUND, korean)
    if not titles:
        return head
    label = say(Text.MAYBE_RELATED, korean)
    return "\n".join([head, label, *(f"• {t}" for t in titles)])


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
