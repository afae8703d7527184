"""One turn through the RAG core: rewrite, route, retrieve, then answer the user's own words."""
from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import date

from rag.answer.answerers import Answerer, is_korean, number_sources
from rag.answer.evidence import Judge, Verdict
from rag.answer.lookups import LookupRegistry
from rag.answer.reading import Reading
from rag.documents import Hit, caveats
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
    hedged: bool = False  # the closest evidence is quoted under a hedge: it may not answer exactly
    reading: Reading | None = None  # the sentence-level reading the verdict was made on (traces, explain, eval)
    verdict: Verdict | None = None  # how the search ended (None: no search)

    @property
    def not_found(self) -> bool:
        """Whether a search ran and docbot says the documents do not answer the question."""
        return self.searched and not self.hits


# Hits a turn reads, as a multiple of top_k: the top documents' other passages within it are read too
# (3 against 1 on the dev sets: Solbit dev grounded 0.830 -> 0.841 but leads 0.659 -> 0.636, extra-dev 0.714 ->
# 0.720, handbook dev.jsonl 0.765 -> 0.791, conversations-dev one turn fewer; docs/answers.md).
READ_DEPTH = 3
_THANKS = re.compile(r"고마|감사|thank|thx|\bty\b|cheers", re.IGNORECASE)




log = logging.getLogger(__name__)


class Pipeline:
    """Rewrite -> route -> retrieve (plain or chained) or look up -> answer, with stage timings."""

    def __init__(self, rewriter: Rewriter, router: Router, retriever: Retriever, answerer: Answerer,
                 *, analyzer: Analyzer, lookups: LookupRegistry | None = None, threshold: float = 0.65,
                 chain: str = "auto", max_steps: int = 3, judge: Judge | None = None,
                 today: Callable[[], date] = date.today, read_depth: int = READ_DEPTH):
        self.rewriter, self.router, self.retriever, self.answerer = rewriter, router, retriever, answerer
        self.analyzer, self.lookups = analyzer, lookups or LookupRegistry()
        self.threshold, self.chain, self.max_steps = threshold, chain, max_steps
        self.judge = judge or Judge()
        self.today = today  # for "takes effect only on …" caveats
        self.read_depth = read_depth

    def retrieve(self, query: str, k: int | None = None, channel: str | None = None,
                 prior: tuple[str, ...] = (), principals: frozenset[str] = frozenset(),
                 depth: int = 1) -> tuple[list[Hit], list[str]]:
        """Hits this channel (and, in a direct message, this asker: `principals`) may see, through the chain
        when the query has several parts; and the steps.

        `prior`: documents the previous answer cited, favoured when the follow-up points back at them.
        `depth`: the top k hits and, of their documents, the other passages among the top k × depth.
        """
        k = k or self.retriever.k
        steps = decompose(query, self.analyzer, self.max_steps) if self.chain != "off" else [query]
        if len(steps) < 2:
            return of_top_documents(self.retriever.search(query, k * depth, prior, channel, principals), k), []
        per_step: list[list[Hit]] = []
        for step in steps:
            earlier = per_step[-1] if per_step else []
            refined = refine(step, earlier, self.analyzer)
            per_step.append(self.retriever.search(refined, k * depth, channel=channel, principals=principals))
            if refined != step:  # the borrowed title can outweigh the step's own subject: search both
                per_step.append(self.retriever.search(step, k * depth, channel=channel, principals=principals))
        # The whole question still runs: it finds passages that answer both parts at once.
        per_step.append(self.retriever.search(query, k * depth, prior, channel, principals))
        return of_top_documents(merge(per_step, k * 2 * depth), k * 2), steps

    async def prepare(self, question: str, history: list[HistoryTurn], channel: str | None = None,
                      principals: frozenset[str] = frozenset()) -> Prepared:
        """Rewrite with the history, route, and search when the route needs documents (visible in `channel`
        and, in a direct message, to the asker's `principals`)."""
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
            # The answer reads its documents' other passages too: a fact is often in a document's third
            # passage while only its first ranks among the top five.
            prepared.hits, prepared.steps = await asyncio.to_thread(self.retrieve, rewrite.text, None, channel,
                                                                    rewrite.prior, principals, self.read_depth)
            prepared.searched = True
            await self._judge(prepared, clipped)
            timings["retrieve_ms"] = _ms(started)
            if prepared.steps:
                timings["chain_steps"] = len(prepared.steps)
                log.info("chain-of-retrieval: %d steps, %d searches, %.0f ms", len(prepared.steps),
                         len(prepared.steps) + 1, timings["retrieve_ms"])
        elif route.intent == Intent.REALTIME_LOOKUP:
            prepared.reply = await self.lookups.answer(clipped, is_korean(clipped))
            timings["lookup_ms"] = _ms(started)
        return prepared

    async def _judge(self, prepared: Prepared, question: str) -> None:
        """Answered, hedged or not found, on the sentence-level evidence; the hits reordered so the document
        the answer quotes first is [1]."""
        hits = prepared.hits
        reading = await asyncio.to_thread(self.answerer.judge, question, prepared.rewrite.text, hits) if hits else None
        verdict = self.judge.verdict(reading, question, hits) if reading else Verdict.NOT_FOUND
        prepared.reading = reading
        prepared.verdict = verdict
        if verdict == Verdict.NOT_FOUND:
            # Nothing answers it: say so plainly, and offer the closest documents as "maybe related" (with a fitted
            # reader, only those whose best line clears its floor: an off-topic question gets no references).
            prepared.related, prepared.hits = related(hits, reading), []
            prepared.reply = not_found_reply(question, prepared.related)
            return
        prepared.hedged = verdict == Verdict.HEDGED
        if reading:  # the first line's document is [1] (its choice runs regexes over the user's words: off the loop)
            first = await asyncio.to_thread(self.answerer.first_quoted, reading, question, prepared.hedged)
            prepared.hits = by_evidence(hits, reading, first)

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
        said: list[str] = []
        async for piece in self.answerer.answer(question, prepared.rewrite.text, prepared.hits, history,
                                                hedged=prepared.hedged):
            said.append(piece)
            yield piece
        warnings = self.caveats("".join(said), prepared.hits, question)
        if warnings:
            yield "\n" + "\n".join(warnings) + "\n"

    def caveats(self, answer: str, hits: list[Hit], question: str) -> list[str]:
        """What the answer must say about the documents it cites: repealed, superseded, a draft, or not yet
        in force (read from each document's metadata)."""
        cited = {int(n) for n in _CITED.findall(answer)}
        chunks = [s.hits[0].chunk for s in number_sources(hits) if s.number in cited]
        return caveats(chunks, self.today(), "ko" if is_korean(question) else "en")


_CITED = re.compile(r"\[(\d{1,3})\]")


def of_top_documents(hits: list[Hit], k: int) -> list[Hit]:
    """The first k hits, and the later hits that are passages of the same documents (in rank order: the
    documents keep their citation order)."""
    top = {h.chunk.path for h in hits[:k]}
    return [h for h in hits if h.chunk.path in top]


def by_evidence(hits: list[Hit], reading: Reading, first: str | None = None) -> list[Hit]:
    """The hits with `first` (the document the answer quotes first) and then the other documents in the order
    of their best sentence (so [1] holds the lead); documents the reading did not reach keep their place after
    those."""
    rank: dict[str, int] = {first: 0} if first else {}
    for candidate in reading.candidates:
        rank.setdefault(candidate.path, len(rank))
    return sorted(hits, key=lambda h: rank.get(h.chunk.path, len(rank)))


def related(hits: list[Hit], reading: Reading | None) -> list[Hit]:
    """The hits of documents close enough to list as "maybe related" under "not found"."""
    if reading is None or reading.model is None:
        return hits
    floor = reading.model.related_at
    best: dict[str, float] = {}
    for c in reading.candidates:
        best[c.path] = max(best.get(c.path, 0.0), c.probability or 0.0)
    return [h for h in hits if best.get(h.chunk.path, 0.0) >= floor]


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
