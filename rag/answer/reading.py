"""Reading the top passages sentence by sentence: which sentence answers the question, from any document.

Every candidate sentence of the top few documents is put on one cross-language scale (retrieval's
within-language z-score, moved by how much closer the sentence is to the query than its passage), then
moved up when it fills the question's slot (an amount for "how much", a team for "who"), when it
shares the question's words, and by how many of the question's topic words its document, and the line
itself with its heading and title, say in either language (translated, or the same loanword in the other
script); on a follow-up, also by how many of the words its rewrite brought from the thread its document says. Asked what
an earlier version of a rule said, a document no longer in force moves up (its figure is the answer).
Boilerplate (owner lines, pointers, bylines…) is never a candidate.

The same reading decides whether the documents answer at all (`rag.answer.evidence.Judge`) and what the
extractive answer quotes, so the sentences are embedded once per turn (recent readings are kept).
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from rag.documents import Chunk, Hit
from rag.ingest.chunking import clip, framed, quotable_units
from rag.models.embeddings import Embedder
from rag.retrieve.ranking import STALE_STATUSES, Ranker
from rag.text import loanwords
from rag.text.analysis import ENGLISH_STOPWORDS, Analyzer
from rag.text.bilingual import Bilingual, glossary_headwords, tables
from rag.text.language import is_korean, languages, main_language
from rag.understand.earlier import asks_for_an_earlier_version

from .model import ReaderModel, turn_relative
from .questions import (
    QUESTION_WORDS,
    Kind,
    anchors,
    asks_about_changes,
    asks_about_document,
    asks_for_code,
    boilerplate,
    fills,
    mentions,
    question_kind,
    without_asking,
)

RECENT_READINGS = 16
# What a line of a document no longer in force adds when the question asks what an earlier version said ("what did the
# 2021 version say?"), on top of retrieval's own swing: a follow-up's thread words are the current policy's
# (its previous answer), and they kept the current figure first. 2.0 against none on the dev sets: Solbit extra-dev2
# grounded +2 (0.844 -> 0.856), leads +1; the others unchanged (1.0 gave two of the three, 3.0 the same as 2.0).
EARLIER_BONUS = 2.0
# Sentences read (and embedded) per turn, in document order. Reading the top documents whole made a first turn's
# slow tail grow (p95 +45 % at 48); 36 answered every dev turn as 48 did, 24 lost eight Solbit turns.
MAX_CANDIDATES = 36
# What each word a line shares with the question (or its rewrite, or their translations) adds, up to three: a small
# bonus, as a line in the other language can share none. 0.25 against 0.15 on the dev sets, the other weights as they
# are: leads +5 (Solbit extra-dev 0.741 -> 0.751, handbook dev.jsonl 0.817 -> 0.844), grounded +3 -1; 0.2 and 0.3
# gained less, 0.35 lost leads (the same document's near rows share as many words).
TERM_BONUS = 0.25
# What saying all of the question's topic words (in either language) adds to a sentence's score: 1.0 and 2.0
# measured alike on the dev sets (leads 0.591 -> 0.625 Solbit dev, 0.608 -> 0.647 handbook conversations-dev).
CONCEPT_WEIGHT = 1.0
# ... and what the line saying them (with its heading and title) adds on top. 1.0 against none: Solbit dev grounded
# 0.784 -> 0.818, extra-dev 0.682 -> 0.709, leads 0.508 -> 0.550 (handbook conversations-dev one turn fewer).
# With the glossary, names and whole-document reading in place, 2.0 against 1.0: leads +11 turns over the four
# dev sets (extra-dev 0.566 -> 0.598, conversations-dev 0.627 -> 0.686), grounded +2; 3.0 gave leads back on
# the handbook (docs/answers.md).
LINE_CONCEPT_WEIGHT = 2.0
# What the other-language lines' closeness to the question's translated keywords adds (`Reader._translated`, at
# most twice this). 0.5 against none on the dev sets: Solbit dev leads 0.648 -> 0.693, extra-dev 0.598 -> 0.619
# (P@1 0.723 -> 0.777), handbook conversations-dev and dev.jsonl one lead fewer each; 1.0 cost the handbook
# five grounded turns.
TRANSLATED_WEIGHT = 0.5
# On a follow-up, what its document saying the words the rewrite brought from the thread adds (at most this): the
# user's own words name little ("호출 제한 넘기면 뭐가 와?"), and a same-language page sharing one of them (호출 in the
# on-call guide) led over the API guide the thread was about. 2.0 against none on the dev sets: Solbit dev leads
# 0.773 -> 0.807, extra-dev 0.651 -> 0.677, grounded +1; handbook dev.jsonl grounded +1, leads -1 (1.0 gave half).
THREAD_CONCEPT_WEIGHT = 2.0
# A name of several capitalised words ("Busan New Port Hub", "Seoul HQ") is one thing asked about: counted word by
# word it outweighed the question's own topic (the hub directory's row said four words of "How early should the relief
# crew arrive at Daejeon New Port Hub?" and led the shift procedure's answer). Possessive, from a word's start: linear.
_NAME = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z0-9]*+(?:[ -][A-Z][A-Za-z0-9]*+)+")
# A follow-up naming this many topic words of its own has the other-language lines compared with them alone, not with
# the words its rewrite borrowed (`Reader._comparison_words`). 2 against never on the dev sets: leads +5 -1 (Solbit
# dev 0.852 -> 0.864, extra-dev2 0.700 -> 0.719), grounded +2 (extra-dev 0.873 -> 0.884); handbook unchanged. 1 (any
# word of its own) gained one lead fewer and no grounded turn: "대표번호는?" no longer said which hub.
OWN_TOPIC_WORDS = 2
MIN_CALIBRATION = 3  # sentences of each language needed before their typical shifts are compared

# What generic company text looks like to a query, in both languages: the bar a best sentence is measured
# against on any corpus size (a five-document folder has no population to take a z-score from).
BACKGROUND = (
    "The office is open on weekdays.", "Employees should follow the company guidelines.",
    "Please contact the team for more information.", "The meeting starts at ten in the morning.",
    "Our product helps customers manage their work.", "All staff must complete the annual training.",
    "The report summarises last quarter's results.", "Requests are reviewed by the responsible manager.",
    "The system will be unavailable during maintenance.", "New employees receive a laptop on their first day.",
    "Invoices are paid at the end of the month.", "The project timeline was updated last week.",
    "사무실은 평일에 운영합니다.", "모든 직원은 회사 지침을 따라야 합니다.", "자세한 내용은 담당 팀에 문의하세요.",
    "회의는 오전 10시에 시작합니다.", "우리 제품은 고객의 업무 관리를 돕습니다.", "전 직원은 연간 교육을 이수해야 합니다.",
    "보고서는 지난 분기의 결과를 요약합니다.", "요청은 담당 관리자가 검토합니다.", "점검 중에는 시스템을 사용할 수 없습니다.",
    "신규 입사자는 첫날 노트북을 받습니다.", "청구서는 매월 말에 지급됩니다.", "프로젝트 일정이 지난주에 변경되었습니다.",
)


@dataclass(frozen=True)
class Candidate:
    """One sentence that could be quoted, with what was measured about it."""

    path: str  # its document (citation numbers follow the hits' order, decided later)
    position: int  # document order across the reading (passage ordinal, then line)
    sentence: str
    hit: Hit
    z: float  # on retrieval's cross-language scale, uncalibrated: what the evidence bar was calibrated on
    cosine: float  # raw cosine to the query
    shared: int  # query terms it shares
    fills: bool  # has the shape of what the question asks for
    score: float
    said: int = 0  # the question's topic words the line says, with its heading and title, in either language
    # What the reader model reads (`rag.answer.model.FEATURES`) and its verdict: the probability that this line
    # answers the question (None without a model).
    features: dict[str, float] = field(default_factory=dict, compare=False, repr=False)
    probability: float | None = None


@dataclass
class Reading:
    """A turn's scored sentences (best first), the question's kind and the bar generic text sets."""

    kind: Kind
    candidates: list[Candidate] = field(default_factory=list)
    # Mean and spread of the query's cosine to generic text in each language (True: Korean): e5's
    # same-language cosines run higher, so a sentence is measured against text in its own language.
    background: dict[bool, tuple[float, float]] = field(default_factory=dict)
    shared_possible: int = 0  # topic terms in the query
    names: tuple[str, ...] = ()  # the question's own Korean proper nouns ("이천", "서울"): which place, which office
    topic: frozenset[str] = frozenset()  # the question's own topic terms
    doc_terms: dict[str, frozenset[str]] = field(default_factory=dict)  # each read document's terms
    same_language: frozenset[str] = frozenset()  # read documents in the question's language
    off_topic: frozenset[str] = frozenset()  # ... of which share none of its topic words
    concepts: list[frozenset[str]] = field(default_factory=list)  # each topic word's terms in either language
    follow_up: bool = False  # read for a rewritten follow-up (the search query is not the user's words)
    thread_concepts: list[frozenset[str]] = field(default_factory=list)  # ... the topic words its rewrite added
    model: ReaderModel | None = None  # what scored the lines (their `probability`); None: the hand-set weights

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    def coverage(self, path: str) -> float:
        """Share of the question's topic terms that the document's passages contain (1.0 without any)."""
        if not self.topic:
            return 1.0
        return len(self.topic & self.doc_terms.get(path, frozenset())) / len(self.topic)

    def concepts_said(self, path: str, concepts: list[frozenset[str]] | None = None) -> int:
        """How many of the question's topic words (or of `concepts`) the document says, in either language."""
        terms = self.doc_terms.get(path, frozenset())
        return sum(1 for concept in (self.concepts if concepts is None else concepts) if concept & terms)

    def concept_coverage(self, path: str) -> float:
        """Share of the question's topic words that the document says in either language (0.0 without any)."""
        return self.concepts_said(path) / len(self.concepts) if self.concepts else 0.0

    def thread_coverage(self, path: str) -> float:
        """Share of the words a follow-up's rewrite brought from the thread that the document says (0.0 on a
        first turn)."""
        if not self.thread_concepts:
            return 0.0
        return self.concepts_said(path, self.thread_concepts) / len(self.thread_concepts)

    def lift(self, candidate: Candidate) -> float:
        """How far above generic company text the sentence is, in spreads (corpus-size independent)."""
        mean, spread = self.background.get(is_korean(candidate.sentence), (0.0, 1.0))
        return (candidate.cosine - mean) / spread


class Reader:
    """Scores the sentences of the top documents for a question; keeps the last reading."""

    def __init__(self, analyzer: Analyzer, embedder: Embedder, *, max_sources: int = 4, per_source: int = 16,
                 max_candidates: int = MAX_CANDIDATES, slot_bonus: float = 0.8, slot_miss: float = 0.5,
                 term_bonus: float = TERM_BONUS, max_terms: int = 3, off_topic: float = 1.0, concept_weight: float = CONCEPT_WEIGHT,
                 line_concept_weight: float = LINE_CONCEPT_WEIGHT, translated_weight: float = TRANSLATED_WEIGHT,
                 thread_concept_weight: float = THREAD_CONCEPT_WEIGHT, earlier_bonus: float = EARLIER_BONUS,
                 own_topic_words: int = OWN_TOPIC_WORDS, bilingual: Bilingual | None = None,
                 model: ReaderModel | None = None):
        self.analyzer, self.embedder = analyzer, embedder
        self.model = model  # orders the lines by the fitted probability that they answer (None: the hand weights)
        self.bilingual = bilingual  # the question's words in the other language count as shared words too
        self.max_sources, self.per_source, self.max_candidates = max_sources, per_source, max_candidates
        self.slot_bonus, self.slot_miss, self.term_bonus, self.max_terms = slot_bonus, slot_miss, term_bonus, max_terms
        self.off_topic, self.concept_weight, self.line_concept_weight = off_topic, concept_weight, line_concept_weight
        self.translated_weight, self.thread_concept_weight = translated_weight, thread_concept_weight
        self.earlier_bonus, self.own_topic_words = earlier_bonus, own_topic_words
        # The pipeline judges on a reading and the answer quotes from it: keep a few, for concurrent turns.
        self._recent: OrderedDict[tuple, Reading] = OrderedDict()
        self._lock = threading.Lock()
        self._background: np.ndarray | None = None

    def read(self, question: str, query: str, hits: list[Hit]) -> Reading:
        """The scored reading of these hits (recomputed only when the question or the hits change)."""
        # Order-free: the pipeline reorders the hits by this reading, and the answer reads them again.
        key = (question, query, frozenset(h.chunk.chunk_id for h in hits))
        with self._lock:
            if key in self._recent:
                return self._recent[key]
        reading = self._read(question, query, hits)
        with self._lock:
            self._recent[key] = reading
            while len(self._recent) > RECENT_READINGS:
                self._recent.popitem(last=False)
        return reading

    def _read(self, question: str, query: str, hits: list[Hit]) -> Reading:
        kind = question_kind(question)
        if kind == Kind.OTHER:  # "택시비는?": the rewrite carries the earlier turn's "얼마"
            kind = question_kind(query)
        reading = Reading(kind, follow_up=question.strip() != query.strip(), model=self.model)
        earlier = asks_for_an_earlier_version(question) or asks_for_an_earlier_version(query) or \
            names_an_old_version(question, hits)
        found = self._collect(hits, kind, asks_about_changes(question) or asks_about_changes(query),
                              asks_about_document(question), asks_for_code(question) or asks_for_code(query))
        if not found:
            return reading
        # A sentence is embedded under its section heading: "오전 9시 30분까지 오세요" is about the first day.
        texts_framed = [framed(h.chunk.heading, s) for _, _, s, h in found]
        # Scored against the user's own words and the rewrite together: the rewrite carries a follow-up's
        # context ("택시비는?" + the earlier turn's words) but also pulls towards the previous answer.
        target = self.embedder.embed_query(query)
        if reading.follow_up:
            target = (target + self.embedder.embed_query(question)) / 2
        vectors = self.embedder.embed_passages(texts_framed)
        cosines = vectors @ target
        reading.background = self._background_of(target)
        passages, texts = [h for *_, h in found], [s for _, _, s, _ in found]
        topic_words = [w for w in self.analyzer.topic_words(without_asking(question)) if w.lower() not in QUESTION_WORDS]
        if self.bilingual is not None:
            topic_words = with_compounds(topic_words, self.bilingual.glossary_terms(question))
        other_words = self.bilingual.words(f"{question} {query}") if self.bilingual is not None else []
        translated = self._translated(vectors, texts, question,
                                      self._comparison_words(question, other_words, topic_words, reading.follow_up))
        # The order uses each language's calibrated shift; answerability keeps the raw one, on which its bar was
        # set: lifting a cross-language row to its language's level says it is the best of its language, not
        # that it answers ("Is there a swimming pool subsidy?" would have quoted incident timeline rows).
        relevance = sentence_relevance(passages, texts, cosines)
        raw = sentence_relevance(passages, texts, cosines, calibrate=False)
        own, wanted = set(self.analyzer.terms(question)), set(self.analyzer.terms(query))
        if self.bilingual is not None:
            # Each word analysed alone: Kiwi mis-tags words of a bare list ("달 월 상병").
            wanted.update(t for terms in self.analyzer.terms_many(other_words) for t in terms)
        reading.topic = frozenset(self.analyzer.terms(" ".join(topic_words)))
        reading.doc_terms = self._doc_terms(hits)
        # A document in the question's own language that shares none of its topic words is a near topic
        # (another compensation page for a stock-option question), whatever its cosine says.
        language = main_language(question)
        reading.same_language = frozenset(p for p in reading.doc_terms if language in languages(
            " ".join(h.chunk.text for h in hits if h.chunk.path == p)))
        reading.off_topic = off_topic = frozenset(p for p in reading.same_language
                                                  if reading.topic and reading.coverage(p) == 0)
        sentence_terms = self._terms_many(texts)
        query_words = [w for w in self.analyzer.topic_words(without_asking(query)) if w.lower() not in QUESTION_WORDS]
        asked = question if topic_words else query
        phrases = self.bilingual.phrases(asked) if self.bilingual is not None else []
        reading.concepts = self._concepts(topic_words or query_words, texts, sentence_terms, _NAME.findall(asked), phrases)
        wanted.update(t for concept in reading.concepts for t in concept)
        if reading.follow_up:  # what the search was about: the words the rewrite brought from the thread
            borrowed = [w for w in query_words if w not in topic_words]
            reading.thread_concepts = self._concepts(borrowed, texts, sentence_terms, _NAME.findall(query), [])
        reading.shared_possible = len(wanted)
        reading.names = tuple(dict.fromkeys(n for n in self.analyzer.proper_nouns(question) if is_korean(n)))
        # A line says a topic word itself or through its heading and title ("야간조 — 22:00~07:00" under
        # "부산신항 허브 교대 절차"): the document saying it elsewhere does not make this line the answer.
        frames = list(dict.fromkeys(f"{h.chunk.title} {h.chunk.heading}" for *_, h in found))
        frame_terms = dict(zip(frames, map(frozenset, self._terms_many(frames))))
        shape = _DocumentShape.of(question, hits, list(dict.fromkeys(p for p, *_ in found)), reading.names)
        for i, ((path, position, sentence, hit), terms, z, z_raw, cosine) in enumerate(zip(
                found, sentence_terms, relevance, raw, cosines)):
            # Shared words are a small, capped bonus: a sentence in the other language can share none.
            shared = len((wanted | own) & set(terms))
            filled = fills(kind, sentence, f"{question} {query}")
            score = z + ranking_shift(hit) + self.term_bonus * min(shared, self.max_terms) + translated[i]
            if kind != Kind.OTHER:
                score += self.slot_bonus if filled else -self.slot_miss
            if path in off_topic:
                score -= self.off_topic
            if earlier and _no_longer_in_force(hit):
                score += self.earlier_bonus  # asked what the old rule said: the old document answers
            score += self.concept_weight * reading.concept_coverage(path)
            score += self.thread_concept_weight * reading.thread_coverage(path)  # 0.0 on a first turn
            said = 0
            if reading.concepts:
                words = set(terms) | frame_terms[f"{hit.chunk.title} {hit.chunk.heading}"]
                said = sum(1 for c in reading.concepts if c & words)
                score += self.line_concept_weight * said / len(reading.concepts)
            candidate = Candidate(path, position, sentence, hit, z_raw, float(cosine), shared, filled, score, said)
            candidate.features.update(line_features(reading, candidate, z, translated[i], shape,
                                                    earlier and _no_longer_in_force(hit), question))
            reading.candidates.append(candidate)
        relative_features(reading.candidates)
        if self.model is not None:
            reading.candidates = [self.model.scored(c) for c in reading.candidates]
        reading.candidates.sort(key=lambda c: -c.score)
        return reading

    def _comparison_words(self, question: str, other_words: list[str], topic_words: list[str],
                          follow_up: bool) -> list[str]:
        """The dictionary-translated keywords the other-language lines are compared with (`_translated`): the user's own
        when a follow-up names its topic in `own_topic_words` words or more ("계정 점검은 얼마나 자주 해?"), since the words
        its rewrite borrowed name the previous answer's topic (만료: "… expires after 90 days" stayed first); otherwise
        `other_words`, the question's and its rewrite's (already translated for the shared words). An elliptical
        follow-up ("대표번호는?") is compared with the thread's words too: its own do not say which hub."""
        if self.bilingual is None or not follow_up or len(topic_words) < self.own_topic_words:
            return other_words
        return self.bilingual.words(question)

    def _translated(self, vectors: np.ndarray, texts: list[str], question: str, words: list[str]) -> list[float]:
        """A second opinion on the lines in the other language than the question: their cosine to the question's
        dictionary-translated keywords, `words` ("What's the weekday on-call allowance?" as "평일 호출 수당 …"), as a z-score
        among those lines, clipped to [0, 2] and weighted by `translated_weight`. e5 compares a line with a bag of
        words in its own language better than with a question in the other one; lines of the question's own
        language keep their score."""
        out = [0.0] * len(texts)
        korean = is_korean(question)
        others = [i for i, text in enumerate(texts) if is_korean(text) != korean]
        if not self.translated_weight or not words or len(others) < MIN_CALIBRATION:
            return out
        values = vectors[others] @ self.embedder.embed_query(" ".join(words))
        mean, spread = float(values.mean()), max(float(values.std()), 0.01)
        for i, value in zip(others, values):
            out[i] = self.translated_weight * min(2.0, max(0.0, (float(value) - mean) / spread))
        return out

    def _collect(self, hits: list[Hit], kind: Kind, changes: bool,
                 about_document: bool = False, code: bool = False) -> list[tuple[str, int, str, Hit]]:
        """(document path, document order, sentence, passage) of every quotable sentence of the top
        documents; each document contributes at most `per_source`, so the third document is read too."""
        groups: dict[str, list[Hit]] = {}
        for hit in hits:
            groups.setdefault(hit.chunk.path, []).append(hit)
        out: list[tuple[str, int, str, Hit]] = []
        seen: set[str] = set()
        for path, group in list(groups.items())[: self.max_sources]:
            # The budget goes to the document's best-ranked passages first: spent in document order, a long
            # opening section used it up and the passage retrieval ranked first was never read.
            taken: list[tuple[int, int, str, Hit]] = []
            for hit in group:
                for line, sentence in enumerate(quotable_units(hit.chunk.text, hit.chunk.heading)):
                    if len(taken) >= self.per_source or sentence in seen:
                        continue
                    seen.add(sentence)
                    if not boilerplate(sentence, hit.chunk.heading, kind, changes, about_document, code):
                        taken.append((hit.chunk.ordinal, line, sentence, hit))
            if about_document and (itself := document_line(group[0].chunk)) not in seen:
                taken.insert(0, (-1, 0, itself, group[0]))  # what it says about itself comes first
            for *_, sentence, hit in sorted(taken, key=lambda t: t[:2]):  # quoted in document order
                out.append((path, len(out), clip(sentence), hit))
        return out[: self.max_candidates]

    def _concepts(self, topic_words: list[str], texts: list[str], terms: list[list[str]],
                  names: list[str], phrases: list[str]) -> list[frozenset[str]]:
        """Each of the question's topic words as the index terms that say it in either language: its own, its
        dictionary translations (and those of the English phrase it is part of, `phrases`: "meeting rooms"), and the
        read sentences' words that are it in the other script ("롤백" and "rollback", "Busan" and "부산";
        rag.text.loanwords). The dictionary has no loanwords, and they are what ties a Korean question to an English
        document; words it knows are translated, not matched by sound. The words of one of `names` ("Busan New Port
        Hub") make one concept."""
        known = tables()[0]
        read_english = loanwords.latin_words(" ".join(texts))
        said_korean = {t for sentence in terms for t in sentence if is_korean(t)}
        read_korean = {t for t in said_korean if t not in known}
        concepts: list[frozenset[str]] = []
        owners: list[str] = []  # the name each concept belongs to (its own word when none)
        group = {w.lower(): name for name in names for w in re.split(r"[ -]", name)}
        headwords = glossary_headwords()
        phrase_words = {phrase: self.bilingual.telling_words(phrase) for phrase in phrases} if self.bilingual else {}
        for word in topic_words:
            alternatives = set(self.analyzer.terms(word))
            if self.bilingual is not None:
                translations = self.bilingual.telling_words(word)
                alternatives.update(t for ts in self.analyzer.terms_many(translations) for t in ts)
                # ... and a glossary compound as written, as the lines are read for it too (`_terms_many`): Kiwi
                # splits "미사용 연차는" into 미사 and 용, so the line answering "unused days" said no word of it.
                alternatives.update(w for w in (word, *translations) if w in headwords)
                # ... and the compound a phrase of the question is, for each of its words: "meeting rooms" is 회의실, which
                # neither "meeting" (면담, 회의) nor "rooms" (방, 객실) says alone; "per diem" is 일비.
                alternatives.update(t for phrase, said in phrase_words.items() if word.lower() in phrase.split()
                                    for t in said)
            if is_korean(word):  # a name in Latin letters ("Icheon"), whether or not the dictionary has the word
                alternatives.update(self.analyzer.stem(e) for _, e in loanwords.named([word], read_english))
            else:
                alternatives.update(k for k, _ in loanwords.named(said_korean, [word.lower()]))
            if is_korean(word) and word not in known:
                alternatives.update(self.analyzer.stem(e) for _, e in loanwords.matches([word], read_english))
            elif not is_korean(word) and word.lower() not in ENGLISH_STOPWORDS:
                alternatives.update(k for k, _ in loanwords.matches(read_korean, [word.lower()]))
            if alternatives:
                concepts.append(frozenset(alternatives))
                owners.append(group.get(word.lower(), word.lower()))
        merged: dict[str, set[str]] = {}  # a name's words are one concept, said when any of them is
        for owner, concept in zip(owners, concepts):
            merged.setdefault(owner, set()).update(concept)
        return [frozenset(c) for c in merged.values()]

    def _doc_terms(self, hits: list[Hit]) -> dict[str, frozenset[str]]:
        texts: dict[str, list[str]] = {}
        for hit in hits:
            texts.setdefault(hit.chunk.path, []).append(f"{hit.chunk.title} {hit.chunk.heading} {hit.chunk.text}")
        paths = list(texts)
        terms = self._terms_many([" ".join(texts[p]) for p in paths])
        return {p: frozenset(t) for p, t in zip(paths, terms)}

    def _terms_many(self, texts: list[str]) -> list[list[str]]:
        """Each text's index terms, and the glossary compounds it says as written (Kiwi splits one it does not
        know by context: "미사용 연차는" gives 미사, not 미사용)."""
        terms = self.analyzer.terms_many(texts)
        if self.bilingual is None:
            return terms
        return [t + self.bilingual.glossary_terms(text) for t, text in zip(terms, texts)]

    def _background_of(self, target: np.ndarray) -> dict[bool, tuple[float, float]]:
        if self._background is None:
            self._background = self.embedder.embed_passages(list(BACKGROUND))
        values = self._background @ target
        out = {}
        for korean in (True, False):
            mine = np.array([v for text, v in zip(BACKGROUND, values) if is_korean(text) == korean])
            out[korean] = (float(mine.mean()), max(float(mine.std()), 0.01))
        return out


@dataclass(frozen=True)
class _DocumentShape:
    """What is read once per document for the line features: its place among the read documents, the question's
    numbers and Latin names it lacks, and the question's Korean place names it never says."""

    rank: dict[str, int]
    missing_anchors: dict[str, int]
    other_entity: dict[str, bool]

    @classmethod
    def of(cls, question: str, hits: list[Hit], paths: list[str], names: tuple[str, ...]) -> _DocumentShape:
        wanted = anchors(question)
        texts = {p: " ".join(f"{h.chunk.title} {h.chunk.heading} {h.chunk.text}" for h in hits if h.chunk.path == p)
                 for p in paths}
        return cls({p: i for i, p in enumerate(paths)},
                   {p: sum(1 for a in wanted if not mentions(t, a)) for p, t in texts.items()},
                   {p: any(n not in t for n in names) for p, t in texts.items()})


_KINDS = (Kind.OTHER, Kind.HOWTO, Kind.YESNO, Kind.WHAT, Kind.QUANTITY, Kind.TIME, Kind.WHO)


def line_features(reading: Reading, c: Candidate, z_calibrated: float, translated: float, shape: _DocumentShape,
                  earlier_and_stale: bool, question: str) -> dict[str, float]:
    """The signals the reader already computes about one line, as the model's features (`rag.answer.model`).
    Each is bounded or squashed so that one corpus's scale does not decide the fit."""
    concepts = len(reading.concepts)
    features = {
        "z": c.z, "z_calibrated": z_calibrated, "cosine": c.cosine, "lift": reading.lift(c),
        "shared": min(c.shared, 3) / 3, "shared_share": c.shared / max(1, reading.shared_possible),
        "fills": float(c.fills and reading.kind != Kind.OTHER),
        "misses_slot": float(not c.fills and reading.kind != Kind.OTHER),
        "off_topic": float(c.path in reading.off_topic),
        "concept_coverage": reading.concept_coverage(c.path), "thread_coverage": reading.thread_coverage(c.path),
        "line_concepts": c.said / concepts if concepts else 0.0, "no_concepts": float(not concepts),
        "topic_coverage": reading.coverage(c.path), "translated": translated, "ranking_shift": ranking_shift(c.hit),
        "stale": float(_no_longer_in_force(c.hit)), "earlier_and_stale": float(earlier_and_stale),
        "same_language": float(is_korean(c.sentence) == is_korean(question)),
        "doc_rank": min(shape.rank.get(c.path, 3), 3) / 3,
        "missing_anchors": min(shape.missing_anchors.get(c.path, 0), 2) / 2,
        "other_entity": float(shape.other_entity.get(c.path, False)),
        "length": min(len(c.sentence), 400) / 400, "digits": float(any(ch.isdigit() for ch in c.sentence)),
        "step": float(bool(_STEP_LINE.match(c.sentence))), "labelled": float(": " in c.sentence[:60]),
        "follow_up": float(reading.follow_up), "small_index": float(c.hit.population < 30),
    }
    for kind in _KINDS:
        features[f"kind_{kind.value}"] = float(reading.kind == kind)
    return features


def relative_features(candidates: list[Candidate]) -> None:
    """Each line against the best of its reading: a line is the answer by being the closest of what was read,
    which no absolute cosine says across corpora and languages."""
    if not candidates:
        return
    best_z = max(c.features["z_calibrated"] for c in candidates)
    best_cosine = max(c.cosine for c in candidates)
    by_cosine = sorted(candidates, key=lambda c: -c.cosine)
    rank = {id(c): i for i, c in enumerate(by_cosine)}
    for c in candidates:
        c.features["z_gap"] = max(-5.0, c.features["z_calibrated"] - best_z)
        c.features["cosine_gap"] = c.cosine - best_cosine
        c.features["cosine_rank"] = min(rank[id(c)], 10) / 10
        c.features["position"] = min(c.position, 30) / 30
    turn_relative([(c.path, c.features) for c in candidates])


_STEP_LINE = re.compile(r"^\d{1,3}[.)]\s")


def document_line(chunk: Chunk) -> str:
    """What a document says about itself, as one line: its title and the owner, dates and status its front matter,
    properties or byline gave ("SOLBIT LOGISTICS - 2026 OFFICE CLOSURE CALENDAR — Owner: People Team; Updated:
    2025-12-01"). Read for a question about the document itself: ingestion keeps a byline out of the text, and
    a title may hold the answer ("셔틀버스 시간표 (2026년 3월 4일부터 적용)")."""
    meta = chunk.meta
    fields = [(label, value) for label, value in (("Owner", meta.author), ("Effective", meta.effective),
                                                 ("Updated", meta.updated), ("Status", meta.status)) if value]
    title = chunk.title or meta.title
    return f"{title} — " + "; ".join(f"{label}: {value}" for label, value in fields) if fields else title


def names_an_old_version(question: str, hits: list[Hit]) -> bool:
    """Whether the question names a number or code ("v2", "2023") that the title of a document no longer in force
    says: "what was the desk allowance in v3?" asks the superseded Remote Work Policy v2."""
    names = anchors(question)
    return bool(names) and any(_no_longer_in_force(h) and any(mentions(h.chunk.title, a) for a in names) for h in hits)


def _no_longer_in_force(hit: Hit) -> bool:
    """Repealed, superseded or archived (a draft is not yet in force, not an earlier version)."""
    return STALE_STATUSES.get(hit.chunk.meta.status or "", 0.0) >= 1.0


def with_compounds(words: list[str], compounds: list[str]) -> list[str]:
    """The topic words with each glossary compound the question says in place of its parts: "대표번호" is one
    thing asked about (a main phone number), not 대표 and 번호; "온콜", which Kiwi splits into syllables it then
    drops, is added."""
    out = [w for w in words if not any(w != c and w in c for c in compounds)]
    return out + [c for c in compounds if c not in out]


def sentence_relevance(passages: list[Hit], texts: list[str], cosines, calibrate: bool = True) -> list[float]:
    """Each sentence on retrieval's scale: its passage's z-score, moved by how much closer (or farther)
    the sentence itself is to the query than the whole passage was. That keeps sentences of
    different languages comparable; without retrieval scores, within-language z-scores stand in."""
    scales = [(h.relevance, h.spread, h.cosine) for h in passages]
    known = [(r, s, c) for r, s, c in scales if r is not None and s is not None and c is not None]
    if len(known) < len(scales):
        return _within_language(texts, cosines)
    shifts = [(float(c) - cosine) / spread for (_, spread, cosine), c in zip(known, cosines)]
    if calibrate:
        shifts = language_calibrated(texts, shifts)
    return [relevance + shift for (relevance, _, _), shift in zip(known, shifts)]


def language_calibrated(texts: list[str], shifts: list[float]) -> list[float]:
    """Sentence-over-passage shifts with each language's typical shift lifted to the higher language's.

    e5 puts a short sentence 1-2.5 spreads further below its passage when the question is in the other
    language than when it is in the sentence's own, so a cross-language fact trailed a same-language near
    miss. Each language's mean shift among this reading's sentences is measured (at least
    `MIN_CALIBRATION` sentences of each, else nothing moves) and the lower one is raised to the higher:
    the order within a language is untouched, and the question's own language keeps its values, which the
    answer's evidence bar was calibrated on. A constant bonus for the other language was tried and hurt
    English questions over Korean tables (docs/answers.md); this one moves only as far as the reading says.
    """
    groups: dict[bool, list[int]] = {}
    for i, text in enumerate(texts):
        groups.setdefault(is_korean(text), []).append(i)
    means = {korean: sum(shifts[i] for i in members) / len(members) for korean, members in groups.items()
             if len(members) >= MIN_CALIBRATION}
    if len(means) < 2:
        return shifts
    top = max(means.values())
    return [shift + top - means[is_korean(text)] for text, shift in zip(texts, shifts)]


def ranking_shift(hit: Hit) -> float:
    """What retrieval's order added to the passage's z-score: the hub discount, the penalty of a document no
    longer in force, the keyword bonus and the thread's prior, but not the translated keywords' bonus. A
    sentence is judged on the same order the passages were ranked by, so a repealed policy's figure or a
    bilingual hub's row does not win back at sentence level what its passage lost. Without retrieval's scale
    only the status penalty applies."""
    if hit.relevance is None:
        return -_STALE_PENALTY * STALE_STATUSES.get(hit.chunk.meta.status or "", 0.0)
    # The translation bonus says the passage holds the question's words, not that this sentence does (up to
    # 1.5 z, as large as a sentence's whole lead); the reading weighs those words itself (concept_coverage).
    # Kept, it put a translated passage's other sentences above a same-language fact (docs/retrieval.md).
    return hit.score - hit.relevance - hit.translation


_STALE_PENALTY = Ranker().stale_penalty


def _within_language(texts: list[str], cosines) -> list[float]:
    """Each sentence's cosine as a z-score among the candidate sentences of its own language."""
    groups: dict[bool, list[int]] = {}
    for i, text in enumerate(texts):
        groups.setdefault(is_korean(text), []).append(i)
    out = [0.0] * len(texts)
    for members in groups.values():
        values = [float(cosines[i]) for i in members]
        mean = sum(values) / len(values)
        spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
        for i, v in zip(members, values):
            out[i] = (v - mean) / max(spread, 0.02)
    return out
