"""History-aware query rewriting, for retrieval only: the answer still sees the user's own words.

Rules learned the hard way: no history, no rewrite call; last few turns only; keep the first
line, cap its length; on timeout, empty, verbose or explanatory output fall back to the
original; never let the rewrite bring in a name or number that neither the history nor the
question contains.
"""
from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import Protocol

from rag.errors import LLMError
from rag.messages import quoted_part
from rag.models.llm import ChatModel
from rag.text.analysis import Analyzer
from rag.understand.routing import INTENTS, Route


@dataclass(frozen=True)
class HistoryTurn:
    """One earlier message of the thread as the core sees it."""

    role: str  # "user" or "assistant"
    text: str
    sources: list[str] = field(default_factory=list)  # titles cited by an assistant turn
    paths: list[str] = field(default_factory=list)  # the same documents' paths
    rewritten: str = ""  # a user turn's standalone query, as retrieval used it
    intent: str = ""  # a user turn's route


@dataclass(frozen=True)
class Rewrite:
    """A standalone retrieval query and how it was made."""

    text: str
    method: str  # "none" (first turn / self-contained), "llm", "offline", "fallback"
    note: str = ""
    route: Route | None = None  # set when the same LLM call also classified the message
    prior: tuple[str, ...] = ()  # documents the previous answer cited, favoured for a follow-up that points back


class Rewriter(Protocol):
    """Makes a follow-up question standalone for search."""

    async def rewrite(self, question: str, history: list[HistoryTurn]) -> Rewrite:
        """The standalone query; the original when no rewrite is needed or possible."""
        ...


_PREAMBLE = re.compile(
    r"^\s*(standalone( question| query)?|rewritten( question| query)?|query|question|검색어|질문|재작성)\s*[:：]\s*",
    re.IGNORECASE,
)
_EXPLAINING = re.compile(
    r"^(sure|okay|ok|here|i |i'm|as an|the user|this question|note|sorry|네[,. ]|물론|다음은|사용자)",
    re.IGNORECASE,
)
_ENTITY_LIKE = re.compile(r"\b(?:[A-Z][\w-]*|\w*\d[\w-]*)\b")


def invented_entities(candidate: str, sources: str, analyzer: Analyzer) -> list[str]:
    """Names, codes and numbers in the candidate that appear nowhere in history or question."""
    known_terms = set(analyzer.terms(sources))
    known_text = sources.lower()
    invented = []
    for word in _ENTITY_LIKE.findall(candidate):
        if word.lower() not in known_text and not set(analyzer.terms(word)) <= known_terms:
            invented.append(word)
    for token in analyzer.proper_nouns(candidate):
        if token not in sources:
            invented.append(token)
    return invented


# "<the query>", "<0..1>": the prompt's own placeholders, echoed by a model that did not fill them in.
# A word of ASCII letters, digits and hyphens; one with both letters and digits is a code (ERR-42, E503, Q4).
# A bare number ("after 20 minutes?") is not an entity: it usually asks about the same thing.
_ASCII_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
_PLACEHOLDER = re.compile(r"<[^<>]{0,60}>")
_PUNCT = re.compile(r"[\W_]+")


def _repeats_earlier(line: str, question: str, history: list[HistoryTurn]) -> bool:
    """Whether the rewrite is only an earlier user message said again (the follow-up itself got lost)."""
    def key(text: str) -> str:
        return _PUNCT.sub("", text.casefold())

    said = key(line)
    return said != key(question) and any(t.role == "user" and key(t.text) == said for t in history)


def accept(candidate: str | None, question: str, history: list[HistoryTurn], analyzer: Analyzer,
           max_chars: int) -> tuple[str | None, str]:
    """Clean an LLM rewrite; (None, reason) means fall back to the original question."""
    if not candidate or not candidate.strip():
        return None, "empty rewrite"
    line = next((ln.strip() for ln in candidate.strip().splitlines() if ln.strip()), "")
    line = _PREAMBLE.sub("", line).strip().strip('"“”\'`').strip()
    if not line:
        return None, "empty rewrite"
    if _EXPLAINING.match(line):
        return None, "explanatory rewrite"
    if len(line) > max_chars:
        return None, f"rewrite longer than {max_chars} chars"
    if _PLACEHOLDER.search(line):
        return None, "rewrite echoes a placeholder from the prompt"
    if _repeats_earlier(line, question, history):
        return None, "rewrite repeats an earlier user message"
    sources = "\n".join([question] + [t.text for t in history])
    invented = invented_entities(line, sources, analyzer)
    if invented:
        return None, f"rewrite invented {', '.join(invented[:3])}"
    return line, ""


SYSTEM_PROMPT = (
    "You rewrite the user's last message into one standalone search query for a document search "
    "engine. Resolve pronouns and omitted subjects from the conversation. Keep the user's language. "
    "Use only names and facts that appear in the conversation. Output the query only, on one line, "
    "with no explanation. If the message is already standalone, output it unchanged."
)


CLASSIFY_PROMPT = SYSTEM_PROMPT.replace(
    "Output the query only, on one line, with no explanation. If the message is already standalone, "
    "output it unchanged.",
    "Also classify the last message. Reply with one JSON object: "
    '{"standalone": "<the query>", "intent": "chitchat" | "knowledge_search" | "realtime_lookup" | "action", '
    '"confidence": <0..1>, "entities": ["<names, codes, documents mentioned>"]}. '
    "knowledge_search: a question the company documents answer. realtime_lookup: the current state of "
    "something (status, who is on call now, counts today). action: a request to change or trigger "
    "something. chitchat: greetings, thanks, small talk.",
)


def parse_classified(raw: str) -> tuple[str | None, Route | None]:
    """(standalone, route) from the JSON reply; Nones where the reply is unusable."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return None, None
    if not isinstance(data, dict):
        return None, None
    standalone = data.get("standalone") if isinstance(data.get("standalone"), str) else None
    intent, confidence = data.get("intent"), data.get("confidence")
    if intent not in INTENTS or not isinstance(confidence, (int, float)):
        return standalone, None
    # The prompt's own "<names, codes, documents mentioned>" echoed back is not an entity.
    entities = [str(e) for e in data.get("entities") or []
                if isinstance(e, (str, int)) and not _PLACEHOLDER.search(str(e))][:10]
    return standalone, Route(intent, max(0.0, min(1.0, float(confidence))), entities, "llm")


class LLMRewriter:
    """One small LLM call over the last few turns, guarded by `accept`.

    With `classify`, the same call also returns the intent (JSON mode), saving the router a
    round trip; the first turn of a thread makes no call at all and the caller's offline
    classifier routes it.
    """

    def __init__(self, chat: ChatModel, analyzer: Analyzer, *, turns: int = 8, timeout: float = 4.0,
                 max_chars: int = 300, classify: bool = False):
        self.chat, self.analyzer = chat, analyzer
        self.turns, self.timeout, self.max_chars, self.classify = turns, timeout, max_chars, classify

    async def rewrite(self, question: str, history: list[HistoryTurn]) -> Rewrite:
        """LLM rewrite, or the original question with the reason it was not used."""
        if not history:
            return Rewrite(question, "none")
        recent = history[-self.turns :]
        convo = "\n".join(f"{t.role}: {t.text[:600]}" for t in recent)
        messages = [
            {"role": "system", "content": CLASSIFY_PROMPT if self.classify else SYSTEM_PROMPT},
            {"role": "user", "content": f"Conversation:\n{convo}\n\nLast message: {question}\n\n"
                                        + ("JSON:" if self.classify else "Standalone query:")},
        ]
        try:
            raw = await self.chat.complete(messages, max_tokens=160 if self.classify else 96,
                                           timeout=self.timeout, json_mode=self.classify)
        except LLMError as exc:
            return Rewrite(question, "fallback", str(exc))
        route = None
        if self.classify:
            parsed, route = parse_classified(raw)
            raw = parsed or ""
        text, reason = accept(raw, question, recent, self.analyzer, self.max_chars)
        return Rewrite(text, "llm", route=route) if text else Rewrite(question, "fallback", reason, route)


class OfflineRewriter:
    """No LLM: resolve a follow-up from the last document exchange of the thread.

    - A follow-up that names its own topic (three or more topic words, no pointing back) is left
      alone, so a change of subject is not dragged back to the previous one.
    - Context comes only from the last exchange that was a document question (greetings,
      actions, live-state questions and pasted logs say nothing about "it"), and from that
      question's own standalone rewrite, so references chain across turns.
    - The follow-up's own words come first; the earlier question's topic words follow; a
      follow-up that points back ("it", "그 시스템") also borrows the names the previous
      *answer* introduced (PostgreSQL, Atlas), and favours the documents it cited (`prior`); a
      self-contained follow-up borrows nothing but still favours them, unless it names something new.
    - A follow-up that names an entity the last exchange never mentioned ("부산은?" after a Seoul answer,
      "and for ERR-42?", "what about the Enterprise plan?") has moved to another thing: the previous
      answer's documents get no prior and lend it no names, so the document about the new entity can lead.
    """

    def __init__(self, analyzer: Analyzer, *, turns: int = 8, max_terms: int = 6, own_topic_words: int = 3,
                 max_context_chars: int = 500):
        self.analyzer = analyzer
        self.turns, self.max_terms, self.own_topic_words = turns, max_terms, own_topic_words
        self.max_context_chars = max_context_chars

    async def rewrite(self, question: str, history: list[HistoryTurn]) -> Rewrite:
        """The question plus borrowed context, or the question unchanged (Kiwi runs off the event loop)."""
        if not history:
            return Rewrite(question, "none")
        return await asyncio.to_thread(self.rewrite_now, question, history)

    def rewrite_now(self, question: str, history: list[HistoryTurn]) -> Rewrite:
        """The rewrite, computed in the calling thread."""
        own = self.analyzer.topic_words(question)
        pointing = self.analyzer.anaphoric(question)
        if len(own) >= self.own_topic_words and not pointing:
            return Rewrite(question, "none", "self-contained", prior=self._thread_prior(question, history))
        asked, answered = _last_document_exchange(history[-self.turns :], self.max_context_chars)
        if asked is None:
            return Rewrite(question, "none", "no earlier document question")
        taken = {w.lower() for w in own}
        borrowed = self._fresh(self.analyzer.topic_words(asked.rewritten or asked.text), taken)
        entities = self.new_entities(question, [asked, answered])
        moved = bool(entities)
        if moved and self._asks_anew(question, own, entities, asked):
            # "OTIF 목표는?" after "크로스도킹이 뭐야?": a new thing and a new question about it; the earlier
            # question's words would only pull the search back to the old topic.
            return Rewrite(question, "none", "a new entity and a new aspect")
        if pointing and answered is not None and answered.paths and not moved:
            # Only an answer that cited documents introduced anything; a "not found" reply's
            # "maybe related" titles are not what "it" refers to.
            borrowed = self._fresh(self._introduced(answered, asked), taken) + borrowed
        borrowed = borrowed[: self.max_terms]
        # The previous answer's documents are favoured only when the follow-up clearly leans on it.
        leaning = (pointing or len(own) < self.own_topic_words - 1) and not moved
        prior = tuple(answered.paths) if answered is not None and leaning else ()
        if not borrowed:
            return Rewrite(question, "none", "nothing to borrow", prior=prior)
        return Rewrite(f"{question} {' '.join(borrowed)}", "offline", prior=prior)

    def _thread_prior(self, question: str, history: list[HistoryTurn]) -> tuple[str, ...]:
        """The documents the previous answer cited, for a self-contained follow-up that names nothing new: in a
        thread people keep asking about the document they were just shown ("how much more does a night
        shift pay?" after the Busan hub's night shift hours), though the question needs no words of it. Its words
        are searched as they are; only the ranking leans."""
        asked, answered = _last_document_exchange(history[-self.turns :], self.max_context_chars)
        if asked is None or answered is None or not answered.paths or self.new_entities(question, [asked, answered]):
            return ()
        # It must share a word with that exchange ("night", "shift"): "How long are backup tapes kept?" after a
        # leave question is another topic, and a prior would pull the leave policy back in.
        earlier = f"{asked.rewritten or asked.text} {answered.text}"
        if not set(self.analyzer.terms(question)) & set(self.analyzer.terms(earlier)):
            return ()
        return tuple(answered.paths)

    def new_entities(self, question: str, earlier: list[HistoryTurn | None]) -> list[str]:
        """Names, proper nouns and codes in the question that none of the earlier turns mentions (their
        text, rewrite or cited titles), compared case-insensitively as substrings (부산 is in 부산신항)."""
        said = " ".join(f"{t.text} {t.rewritten} {' '.join(t.sources)}" for t in earlier if t is not None).lower()
        codes = {w for w in _ASCII_WORD.findall(question) if any(c.isdigit() for c in w) and any(c.isalpha() for c in w)}
        found = set(self.analyzer.names(question)) | codes
        return sorted(word for word in found if word.lower() not in said)

    def _asks_anew(self, question: str, own: list[str], entities: list[str], asked: HistoryTurn) -> bool:
        """Whether the follow-up names a new thing and asks something new about it ("OTIF 목표는?" after
        "크로스도킹이 뭐야?"), where the earlier question named nothing this one could stand in for. "부산은?"
        after a question about Seoul, "SEV3는 보고 기한 언제까지야?" after one about SEV1, "and the Enterprise plan?"
        (an aspect already asked about) and "코어타임은 몇 시야?" (only the new thing) still borrow."""
        earlier = asked.rewritten or asked.text
        if self.analyzer.names(earlier) or any(any(c.isdigit() for c in w) and any(c.isalpha() for c in w)
                                               for w in _ASCII_WORD.findall(earlier)):
            return False
        said = f"{asked.text} {asked.rewritten}".lower()
        names = {e.lower() for e in entities}
        joined = "".join(question.lower().split())

        def of_a_name(word: str) -> bool:  # "타임" of "코어타임": the analyzer split a Korean compound name
            return any(word in n or (not n.isascii() and not word.isascii() and
                                     (f"{n}{word}" in joined or f"{word}{n}" in joined)) for n in names)

        return any(w.lower() not in said and not of_a_name(w.lower()) for w in own)

    @staticmethod
    def _fresh(words: list[str], taken: set[str]) -> list[str]:
        fresh = []
        for word in words:
            if word.lower() not in taken:
                taken.add(word.lower())
                fresh.append(word)
        return fresh

    def _introduced(self, answered: HistoryTurn, asked: HistoryTurn, limit: int = 2) -> list[str]:
        """Names the answer brought in that the question did not have: what "it" most likely is."""
        known = (asked.rewritten or asked.text).lower()
        # docbot's own opening line is not something the answer introduced ("quoted from Korean documents").
        names = {w: s for w, s in self.analyzer.names(quoted_part(answered.text)).items() if w.lower() not in known}
        return sorted(names, key=lambda w: -names[w])[:limit]


def _last_document_exchange(recent: list[HistoryTurn], max_chars: int) -> tuple[HistoryTurn | None, HistoryTurn | None]:
    """The latest user turn that was a document question, and the answer that followed it."""
    for n in range(len(recent) - 1, -1, -1):
        turn = recent[n]
        if turn.role != "user" or len(turn.text) > max_chars:
            continue
        answer = recent[n + 1] if n + 1 < len(recent) and recent[n + 1].role == "assistant" else None
        if turn.intent and turn.intent != "knowledge_search":
            continue
        if not turn.intent and answer is not None and not answer.paths:
            continue  # no route recorded: an answer without sources was not a document answer
        return turn, answer
    return None, None
