"""Whether the documents answer the question: answered, hedged ("the closest I found") or "not found".

BM25's top hits are always kept and retrieval's relevance floor is relative, so a question about an absent
topic still gets passages. The judgement is made on the sentence-level reading (`rag.answer.reading`),
on evidence that does not depend on shared words, so it holds across languages:

- strength: the best sentence's z-score on retrieval's cross-language scale, or, in an index too small
  for a z-score (a newcomer's five-document folder), its lift over generic company text;
- the question's slot filled (an amount for "how much"), and its numbers and Latin-script names present;
- for same-language evidence only, the share of the question's topic words its document holds.

Strong evidence that fills the slot answers; nothing above generic text, or same-language evidence
sharing no topic word, is "not found"; everything between is quoted and cited under a hedge, so a right
document is never hidden behind "not found" and a near-topic passage is never presented as the answer.
Thresholds were chosen on the dev sets only (eval/solbit/dev.jsonl, eval/*-dev.jsonl); see docs/answers.md.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from rag.documents import Hit
from rag.text.language import languages, main_language

from .questions import Kind, anchors, is_summary, mentions
from .reading import Candidate, Reading


class Verdict(StrEnum):
    """How a searched turn ends: quoted as an answer, quoted under a hedge, or "not found"."""

    ANSWERED = "answered"
    HEDGED = "hedged"
    NOT_FOUND = "not_found"


@dataclass(frozen=True)
class Judge:
    """Answerability from the sentence-level reading, in three outcomes.

    `strength` is the best sentence's z-score on retrieval's cross-language scale; in an index too small
    for a z-score (a five-document folder) it is the sentence's lift over generic company text instead,
    which needs no population. The lead must also fill the question's slot and carry the question's
    numbers and names; evidence that misses either is quoted under a hedge, never as the answer.
    """

    answer_at: float = 3.0  # strength at or above which a slot-filling lead answers
    summary_at: float = 2.0  # the same for "summarise X"
    generic_at: float = 2.2  # a generic-level lift with strength under this is "not found"
    weak_at: float = 2.5  # near-topic evidence with strength under this is "not found"
    lift_floor: float = 1.0  # lift over generic text below which the best sentence is generic
    # Same-language evidence must hold this share of the question's topic words to be called the answer. At half,
    # "night-shift premium at the Tuas Hub" was answered by the Tuas shift times (4 of 6 words, not the one
    # asked about); at three quarters Solbit dev false answers 0.122 -> 0.049, handbook 0.013 -> 0.000, and the
    # answered turns' leads are right 83 % / 74 % of the time (71 % / 73 % before); the 46 answerable turns moved
    # to a hedge quote the same sentences (24 of them were wrong).
    min_coverage: float = 0.75
    min_population: int = 30
    near_depth: int = 5  # "not found" only when none of this many best sentences is near the question
    across_floor: float = 0.5  # ... or the lead, in the other language, says the topic this far above generic text

    def verdict(self, reading: Reading, question: str, hits: list[Hit]) -> Verdict:
        lead = reading.best
        if reading.model is not None:
            return calibrated(reading)

        # The lead is chosen on retrieval's order and the slot; whether anything at all is near is asked of
        # the best few: a welfare table's row can lead on its slot while a sentence below it is far above
        # generic text, and then the documents are quoted (under a hedge), not hidden behind "not found".
        if lead is None or self._near_topic(reading, question, lead) or \
                (all(self._generic(reading, c) for c in reading.candidates[: self.near_depth])
                 and not self._on_thread(reading, lead) and not self._says_across(reading, question, lead)):
            return Verdict.NOT_FOUND
        # A summary has no one sentence much closer than the rest: the document being on topic is enough.
        bar = self.summary_at if is_summary(question) else self.answer_at
        if self.strength(reading, lead) >= bar and (lead.fills or reading.kind == Kind.OTHER) and \
                not missing_anchors(question, lead, hits) and self._covers(reading, question, lead) and \
                not self._other_entity(reading, question, lead, hits):
            return Verdict.ANSWERED
        return Verdict.HEDGED

    @staticmethod
    def _on_thread(reading: Reading, lead: Candidate) -> bool:
        """A follow-up whose lead document says the thread's topic (two of the words its rewrite brought in): its
        lines are what the thread was about, however generic "and per purchase?" makes them look. The card
        policy's limit rows sit at generic text's level against that question; "not found" hung on an unrelated
        API page's row happening to be among the five best."""
        concepts = reading.thread_concepts
        return reading.follow_up and bool(concepts) and \
            reading.concepts_said(lead.path, concepts) >= min(2, len(concepts))

    def _generic(self, reading: Reading, candidate: Candidate) -> bool:
        """Whether a sentence is no better than generic company text."""
        strength, lift = self.strength(reading, candidate), reading.lift(candidate)
        if candidate.hit.population < self.min_population:  # a small index: only the lift speaks
            return lift < self.lift_floor or (lift < 2 * self.lift_floor and not candidate.fills)
        return lift < self.lift_floor and strength < self.generic_at

    def _near_topic(self, reading: Reading, question: str, lead: Candidate) -> bool:
        """Every document in the question's own language shares none of its topic words, the best evidence is
        weak, and it is not a document in the other language that says the question's topic (two of its topic
        words, translated or as loanwords): a near topic ("회사 주식 옵션" against per-diem rules). Without that last
        condition an English question about a Korean welfare table ("does the company cover the whole
        dental scaling?") was "not found" with the table listed under "maybe related"."""
        if lead.hit.population < self.min_population:
            return False
        if not self._same_language(question, lead) and self._says_topic(reading, lead):
            return False  # the lead's document, in the other language, says the question's topic
        strength, lift = self.strength(reading, lead), reading.lift(lead)
        near_topic = bool(reading.same_language) and reading.same_language <= reading.off_topic
        weak = strength < self.weak_at or not lead.fills
        # A lead from such a document is itself the near topic ("팀 회식: 1인당 분기 10만 원" for a stock option's
        # price): its lift over generic text says it is company text about money, not that it answers. Not on a
        # follow-up: its own words may not name its topic at all ("and usually?").
        off_topic_lead = lead.path in reading.off_topic and not reading.follow_up
        return near_topic and weak and (lift < 1.5 * self.lift_floor or off_topic_lead)

    def _says_across(self, reading: Reading, question: str, lead: Candidate) -> bool:
        """A lead in the other language than the question, from a document that says the question's topic, not far
        below generic text: e5 puts a sentence lower against a question in the other language, so such a lead
        looks generic ("where do I request a fuel card?" against "발급 신청은 솔빛페이에서 한다.", lift 0.9), and
        the right document was listed under "maybe related" behind "not found". It is quoted under a hedge."""
        return not self._same_language(question, lead) and self._says_topic(reading, lead) and \
            reading.lift(lead) >= self.across_floor * self.lift_floor

    @staticmethod
    def _says_topic(reading: Reading, lead: Candidate) -> bool:
        """The lead's document says two of the question's topic words (its only one, if it has one), in either
        language: one can be chance ("company" in a travel policy for "우리사주 매입 단가는?"), two is the topic.
        A follow-up's own words name little ("and per purchase?"): the words its rewrite brought from the
        thread (corporate card, limit, executives) count too."""
        concepts = reading.concepts + reading.thread_concepts
        return bool(concepts) and reading.concepts_said(lead.path, concepts) >= min(2, len(concepts))

    def _covers(self, reading: Reading, question: str, lead: Candidate) -> bool:
        """Same-language evidence shares the question's topic words ("부산 사무실" against a Seoul guide does
        not); across languages no word can be shared, so only the anchors and the vectors judge."""
        return not self._same_language(question, lead) or reading.coverage(lead.path) >= self.min_coverage

    def _other_entity(self, reading: Reading, question: str, lead: Candidate, hits: list[Hit]) -> bool:
        """Same-language evidence whose document never names the place or office the question names: "이천 허브
        셔틀버스 시간표" against the Busan shuttle timetable shares every other word, and is not the answer.
        (Latin-script names are anchors already; across languages a Korean name cannot be looked for.)"""
        if not reading.names or not self._same_language(question, lead):
            return False
        text = lead_document(lead, hits)
        return any(name not in text for name in reading.names)

    @staticmethod
    def _same_language(question: str, lead: Candidate) -> bool:
        return main_language(question) in languages(lead.hit.chunk.text)

    def strength(self, reading: Reading, lead: Candidate) -> float:
        population = lead.hit.population
        return lead.z if population >= self.min_population else reading.lift(lead)


def calibrated(reading: Reading) -> Verdict:
    """The verdict of a fitted reader: the lead line's probability of answering against the model's two bars,
    chosen leave-one-corpus-out for the precision of confident answers and the share of false "not found"
    (rag.answer.model, docs/answers.md)."""
    lead, model = reading.best, reading.model
    assert model is not None
    if lead is None or lead.probability is None:
        return Verdict.NOT_FOUND
    p = model.answers(lead, reading.candidates[1] if len(reading.candidates) > 1 else None)
    if p < model.not_found_at:
        return Verdict.NOT_FOUND
    return Verdict.ANSWERED if p >= model.answer_at else Verdict.HEDGED


def reason(reading: Reading | None, verdict: Verdict) -> str:
    """Why the turn ended as it did, in one line (traces and `--explain`)."""
    lead = reading.best if reading else None
    if lead is None or reading is None:
        return f"{verdict}: nothing was read"
    if reading.model is None or lead.probability is None:
        return f"{verdict}: hand-set weights (lead score {lead.score:.2f}, z {lead.z:.2f})"
    model = reading.model
    p = model.answers(lead, reading.candidates[1] if len(reading.candidates) > 1 else None)
    return (f"{verdict}: the lead answers with p={p:.2f} (answered at {model.answer_at:.2f}, "
            f"not found below {model.not_found_at:.2f})")


def explanation(reading: Reading | None, verdict: Verdict | None, lines: int = 4) -> list[str]:
    """What decided a turn, for a person reading why an answer is wrong: the question's kind, the verdict and its
    reason, and the most likely lines with their probability and the features that moved them most."""
    return described(explanation_record(reading, verdict, lines))


def explanation_record(reading: Reading | None, verdict: Verdict | None, lines: int = 4,
                       mask: Callable[[str], str] = lambda text: text) -> dict:
    """The explanation as data for the turn's trace (`mask` hides personal data in quoted lines)."""
    if reading is None or verdict is None:
        return {}
    model = reading.model
    return {"kind": str(reading.kind), "follow_up": reading.follow_up, "verdict": str(verdict),
            "reason": reason(reading, verdict),
            "lines": [{"path": c.path, "sentence": mask(c.sentence[:200]),
                       "probability": None if c.probability is None else round(c.probability, 3),
                       "features": [[n, round(v, 3)] for n, v in model.contributions(c.features, 3)] if model else []}
                      for c in reading.candidates[:lines]]}


def described(record: dict) -> list[str]:
    """A stored explanation as the lines `docbot chat --explain` prints."""
    if not record:
        return ["no search: nothing was read"]
    out = [f"question kind: {record['kind']}; {'follow-up' if record['follow_up'] else 'first turn'}", record["reason"]]
    for line in record["lines"]:
        p = "—" if line["probability"] is None else f"{line['probability']:.2f}"
        out.append(f"p={p} {line['path']}: {line['sentence'][:90]}")
        if line["features"]:
            out.append("    " + ", ".join(f"{n} {v:+.2f}" for n, v in line["features"]))
    return out


def missing_anchors(question: str, lead: Candidate, hits: list[Hit]) -> list[str]:
    """The question's numbers and Latin-script names that the lead's document passages do not contain."""
    text = lead_document(lead, hits)
    return [a for a in anchors(question) if not mentions(text, a)]


def lead_document(lead: Candidate, hits: list[Hit]) -> str:
    """What was read of the lead's document: its passages' titles, headings and text."""
    return " ".join(f"{h.chunk.title} {h.chunk.heading} {h.chunk.text}" for h in hits if h.chunk.path == lead.path)
