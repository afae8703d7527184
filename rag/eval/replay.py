"""`docbot eval`: replay conversations through the real pipeline and measure what rewriting buys.

Format: eval/FORMAT.md. Retrieval is scored per document: chunks map to their
file, duplicates go, the top k distinct files are compared with the gold `relevant` files.
Every gold knowledge_search turn is scored on retrieval with the query the pipeline built,
whatever the router decided; routing mistakes show in the intent metrics instead.
"""
from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from rag.answer.answerers import number_sources
from rag.errors import DatasetError
from rag.eval.answers import AnswerScore, contains, gold_groups, score_answer
from rag.pipeline import Pipeline, Prepared
from rag.text.language import main_language
from rag.understand.rewrite import HistoryTurn
from rag.understand.routing import AMBIGUOUS, INTENTS

# Chunks fetched per query so that k distinct files survive de-duplication.
CHUNKS_PER_FILE = 4


@dataclass
class Scored:
    """Recall and reciprocal rank of one search."""

    recall: float
    rr: float
    files: list[str]


class EvalTurn(BaseModel):
    """One turn of a dataset line (eval/FORMAT.md, ../shared/EVAL_FORMAT.md); extra fields are ignored."""

    user: str
    intent: Literal["chitchat", "knowledge_search", "realtime_lookup", "action"] = "knowledge_search"
    relevant: list[str] = Field(default_factory=list)
    standalone: str | None = None
    multi_hop: bool = False
    history_dependent: bool | None = None
    answerable: bool | None = None
    answer_contains: list[str] | None = None
    answer_contains_all: list[list[str]] | None = None


class EvalConversation(BaseModel):
    """One dataset line: a conversation's id and turns."""

    id: str = ""
    turns: list[EvalTurn]


def load_dataset(path: Path) -> list[dict]:
    """Conversations from a JSONL file, every line checked before anything runs; a bad line is an error
    naming its line number and field (`dev.jsonl:12: turns[1].intent: Input should be ...`)."""
    conversations = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            conv = EvalConversation.model_validate_json(line)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
            raise DatasetError(f"{path}:{number}: {where or 'line'}: {first['msg']}") from None
        conversations.append(conv.model_dump())
    return conversations


def score(pipeline: Pipeline, query: str, relevant: list[str], k: int, multi_hop: bool,
          prior: tuple[str, ...] = ()) -> Scored:
    """Search the way the pipeline does (chain and history prior included), keep the top k distinct files."""
    files: list[str] = []
    hits, _ = pipeline.retrieve(query, k * CHUNKS_PER_FILE, prior=prior)
    for hit in hits:
        if hit.chunk.path not in files:
            files.append(hit.chunk.path)
    files = files[:k]
    found = [f for f in relevant if f in files]
    recall = len(found) / len(relevant) if multi_hop else float(bool(found))
    ranks = [files.index(f) + 1 for f in found]
    return Scored(recall, 1.0 / min(ranks) if ranks else 0.0, files)


def _bucket(scores: list[Scored]) -> dict:
    n = len(scores)
    return {"n": n, "recall_at_k": round(sum(s.recall for s in scores) / n, 4) if n else 0.0,
            "mrr": round(sum(s.rr for s in scores) / n, 4) if n else 0.0}


# Stages of a turn's latency: the pipeline's own timings; `answer` is the rest of the turn (composing and
# streaming the answer, storing it); `total` the whole turn as the user waits for it.
STAGES = ("rewrite", "route", "retrieve", "answer", "total")


def _record(stages: dict[str, list[float]], timings: dict[str, float], total: float) -> None:
    """One turn's stage timings (retrieve only when it searched)."""
    before = sum(timings.get(f"{stage}_ms", 0.0) for stage in ("rewrite", "route", "retrieve", "lookup"))
    stages["rewrite"].append(timings.get("rewrite_ms", 0.0))
    stages["route"].append(timings.get("route_ms", 0.0))
    if "retrieve_ms" in timings:
        stages["retrieve"].append(timings["retrieve_ms"])
    stages["answer"].append(max(total - before, 0.0))
    stages["total"].append(total)


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"p50": 0, "p95": 0}
    return {"p50": round(float(np.percentile(values, 50)), 2), "p95": round(float(np.percentile(values, 95)), 2)}


def intent_metrics(pairs: list[tuple[str, str]]) -> dict:
    """Accuracy, macro-F1 over the gold labels, confusion matrix and the AMBIGUOUS share."""
    labels = [str(label) for label in INTENTS if any(g == label for g, _ in pairs)]
    confusion: dict[str, dict[str, int]] = {g: {} for g in labels}
    for gold, pred in pairs:
        confusion.setdefault(gold, {})
        confusion[gold][pred] = confusion[gold].get(pred, 0) + 1
    f1s = []
    for label in labels:
        tp = sum(1 for g, p in pairs if g == label and p == label)
        fp = sum(1 for g, p in pairs if g != label and p == label)
        fn = sum(1 for g, p in pairs if g == label and p != label)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    n = len(pairs) or 1
    return {
        "accuracy": round(sum(g == p for g, p in pairs) / n, 4),
        "macro_f1": round(sum(f1s) / len(f1s), 4) if f1s else 0.0,
        "low_confidence_rate": round(sum(p == AMBIGUOUS for _, p in pairs) / n, 4),
        "confusion": confusion,
    }


Respond = Callable[[str, str, list[HistoryTurn]], Awaitable[tuple[Prepared, str]]]


def pipeline_responder(pipeline: Pipeline) -> Respond:
    """Turns answered by the bare pipeline (the application passes one that stores and acts)."""

    async def respond(conversation: str, text: str, history: list[HistoryTurn]) -> tuple[Prepared, str]:
        prepared = await pipeline.prepare(text, history)
        return prepared, "".join([piece async for piece in pipeline.answer(prepared, history)])

    return respond


def history_of(question: str, prepared: Prepared, answer: str) -> list[HistoryTurn]:
    """One exchange as the history turns the conversation service would store."""
    sources = number_sources(prepared.hits)
    return [HistoryTurn("user", question, rewritten=prepared.rewrite.text, intent=prepared.route.intent),
            HistoryTurn("assistant", answer, [s.title for s in sources], [s.path for s in sources])]


def is_cross_language(question: str, relevant: list[str], doc_languages: dict[str, tuple[str, ...]]) -> bool | None:
    """Whether no relevant document is written in the question's language; None when a file is unknown."""
    if not relevant or any(f not in doc_languages for f in relevant):
        return None
    language = main_language(question)
    return not any(language in doc_languages[f] for f in relevant)


BUCKETS = ("all", "first_turn", "followup", "followup_baseline", "followup_oracle", "followup_dependent",
           "followup_dependent_baseline", "followup_dependent_oracle", "followup_self_contained",
           "followup_self_contained_baseline", "same_language", "cross_language", "multi_hop")
ANSWER_BUCKETS = ("all", "same_language", "cross_language", "first_turn", "followup")


def outcome(prepared: Prepared) -> str:
    """How a searched turn ended for the user: answered, hedged ("the closest I found") or not found."""
    if prepared.not_found:
        return "not_found"
    return "hedged" if getattr(prepared, "hedged", False) else "answered"


@dataclass
class AnswerTally:
    """Answer-level figures of one bucket of answerable turns (rag.eval.answers)."""

    turns: int = 0  # answerable document turns
    with_gold: int = 0  # ... of which carry a gold fact
    shown: int = 0
    grounded: int = 0
    leads: int = 0
    not_found: int = 0
    hedged: int = 0
    bullets: int = 0
    junk: int = 0
    cited: int = 0  # turns whose answer cites a document
    first_relevant: int = 0

    def add(self, scored: AnswerScore, has_gold: bool, ended: str) -> None:
        self.turns += 1
        self.not_found += ended == "not_found"
        self.hedged += ended == "hedged"
        self.bullets += scored.bullets
        self.junk += scored.junk
        if scored.first_cited is not None:
            self.cited += 1
            self.first_relevant += bool(scored.first_cited_relevant)
        if has_gold:
            self.with_gold += 1
            self.shown += scored.shown
            self.grounded += scored.grounded
            self.leads += scored.leads

    def report(self) -> dict:
        return {"n": self.turns, "n_gold": self.with_gold, "fact_shown": _rate(self.shown, self.with_gold),
                "fact_grounded": _rate(self.grounded, self.with_gold), "fact_leads": _rate(self.leads, self.with_gold),
                "false_not_found_rate": _rate(self.not_found, self.turns), "hedged_rate": _rate(self.hedged, self.turns),
                "junk_line_rate": _rate(self.junk, self.bullets), "precision_at_1": _rate(self.first_relevant, self.cited)}


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


@dataclass
class Replay:
    """Everything a replay accumulates, turn by turn; `report()` turns it into the report's figures."""

    pipeline: Pipeline
    k: int
    doc_languages: dict[str, tuple[str, ...]]
    buckets: dict[str, list[Scored]] = field(default_factory=lambda: {name: [] for name in BUCKETS})
    answers: dict[str, AnswerTally] = field(default_factory=lambda: {name: AnswerTally() for name in ANSWER_BUCKETS})
    per_turn: list[dict] = field(default_factory=list)
    intents: list[tuple[str, str]] = field(default_factory=list)
    latency: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {kind: {stage: [] for stage in STAGES} for kind in ("first_turn", "follow_up")})
    needless: int = 0
    non_knowledge: int = 0
    clarified: int = 0
    documents: int = 0
    unanswerable: int = 0
    false_answers: int = 0
    hedged_unanswerable: int = 0
    readings: list[dict] | None = None  # every read line's features and label, for fitting the reader model

    def turn(self, conversation: str, number: int, turn: dict, prepared: Prepared, answer: str) -> None:
        """Score one replayed turn."""
        gold = turn.get("intent", "knowledge_search")
        self.intents.append((gold, prepared.route.intent))
        row = self._row(conversation, number, turn, prepared, gold, answer)
        if gold != "knowledge_search":
            self.non_knowledge += 1
            self.needless += prepared.searched
        else:
            self.documents += 1
            self.clarified += prepared.route.intent == AMBIGUOUS
            if turn.get("answerable") is False:  # nothing in the documents answers it (eval/FORMAT.md)
                self.unanswerable += 1
                ended = outcome(prepared) if prepared.searched else "not_searched"
                self.false_answers += ended == "answered"
                self.hedged_unanswerable += ended == "hedged"
                row["outcome"] = ended
            elif turn.get("relevant"):
                self._answer(turn, prepared, answer, row, number)
                self._retrieval(turn, prepared, row, number)
        self.per_turn.append(row)
        if self.readings is not None and gold == "knowledge_search" and prepared.reading is not None:
            self.readings.extend(reading_rows(conversation, number, turn, prepared))

    @staticmethod
    def _row(conversation: str, number: int, turn: dict, prepared: Prepared, gold: str, answer: str) -> dict:
        row = {"conversation": conversation, "turn": number + 1, "user": turn["user"],
               "rewritten": prepared.rewrite.text, "intent": prepared.route.intent, "gold_intent": gold,
               "confidence": round(prepared.route.confidence, 3), "retrieved": [],
               "relevant": turn.get("relevant", []), "recall": None, "answer": answer}
        if prepared.steps:
            row["steps"] = prepared.steps
        if prepared.route.scores:
            row["scores"] = prepared.route.scores
        if prepared.not_found:
            row["not_found"] = True
        return row

    def _answer(self, turn: dict, prepared: Prepared, answer: str, row: dict, number: int) -> None:
        """Answer-level figures of an answerable turn, in its buckets."""
        numbered = {s.number: s.path for s in number_sources(prepared.hits)}
        groups = gold_groups(turn)
        scored = score_answer(answer, numbered, turn["relevant"], groups)
        ended = outcome(prepared) if prepared.searched else "not_searched"
        row.update(scored.as_row(), outcome=ended)
        if scored.missing:
            row["fact_missing"] = scored.missing
        names = ["all", "first_turn" if number == 0 else "followup"]
        cross = is_cross_language(turn["user"], turn["relevant"], self.doc_languages)
        if cross is not None:
            row["cross_language"] = cross
            names.append("cross_language" if cross else "same_language")
        for name in names:
            self.answers[name].add(scored, groups is not None, ended)

    def _retrieval(self, turn: dict, prepared: Prepared, row: dict, number: int) -> None:
        """Document-level recall of the pipeline's query, and for follow-ups of the raw text and the oracle."""
        relevant, multi = turn["relevant"], bool(turn.get("multi_hop"))
        main = score(self.pipeline, prepared.rewrite.text, relevant, self.k, multi, prepared.rewrite.prior)
        row["retrieved"], row["recall"] = main.files, main.recall
        self.buckets["all"].append(main)
        if multi:
            self.buckets["multi_hop"].append(main)
        if "cross_language" in row:
            self.buckets["cross_language" if row["cross_language"] else "same_language"].append(main)
        if number == 0:
            self.buckets["first_turn"].append(main)
            return
        self.buckets["followup"].append(main)
        baseline = score(self.pipeline, turn["user"], relevant, self.k, multi)
        self.buckets["followup_baseline"].append(baseline)
        row["baseline_recall"] = baseline.recall
        oracle = score(self.pipeline, turn["standalone"], relevant, self.k, multi) if turn.get("standalone") else None
        if oracle:
            self.buckets["followup_oracle"].append(oracle)
            row["oracle_recall"] = oracle.recall
        if turn.get("history_dependent"):
            # The same split for baseline and oracle, where rewriting matters.
            self.buckets["followup_dependent"].append(main)
            self.buckets["followup_dependent_baseline"].append(baseline)
            if oracle:
                self.buckets["followup_dependent_oracle"].append(oracle)
        elif turn.get("history_dependent") is False:
            # Self-contained follow-ups must lose nothing to the rewrite.
            self.buckets["followup_self_contained"].append(main)
            self.buckets["followup_self_contained_baseline"].append(baseline)

    def report(self, conversations: int, executed: int) -> dict:
        answerable = self.answers["all"]
        return {
            "k": self.k,
            "conversations": conversations,
            "turns": len(self.per_turn),
            "retrieval": {name: _bucket(scores) for name, scores in self.buckets.items()},
            "answers": {name: tally.report() for name, tally in self.answers.items()},
            "intent": intent_metrics(self.intents),
            "unnecessary_retrieval_rate": _rate(self.needless, self.non_knowledge),
            "clarify_rate_on_document_questions": _rate(self.clarified, self.documents),
            "not_found": {"unanswerable": self.unanswerable, "answerable": answerable.turns,
                          "false_answer_rate": _rate(self.false_answers, self.unanswerable),
                          "hedged_on_unanswerable_rate": _rate(self.hedged_unanswerable, self.unanswerable),
                          "false_not_found_rate": _rate(answerable.not_found, answerable.turns)},
            "actions_executed_without_confirmation": executed,
            "latency_ms": {kind: {"turns": len(stages["total"]),
                                  **{stage: _percentiles(values) for stage, values in stages.items()}}
                           for kind, stages in self.latency.items()},
            "per_turn": self.per_turn,
        }


def reading_rows(conversation: str, number: int, turn: dict, prepared: Prepared) -> list[dict]:
    """One row per line the reader scored on this turn: its features, and whether it holds the turn's gold
    fact in a relevant document (the label `scripts/train_reader.py` fits on). Unanswerable turns' lines are
    all negative; turns without a gold fact (summaries) are left out."""
    groups = gold_groups(turn)
    answerable = turn.get("answerable") is not False
    if answerable and (not groups or not turn.get("relevant")):
        return []
    relevant = set(turn.get("relevant") or [])
    alternatives = [a for group in groups or [] for a in group]
    reading = prepared.reading
    assert reading is not None
    return [{"conversation": conversation, "turn": number + 1, "answerable": answerable, "rank": rank,
             "path": c.path, "relevant": c.path in relevant, "sentence": c.sentence,
             "label": answerable and c.path in relevant and any(contains(c.sentence, a) for a in alternatives),
             "features": {k: round(v, 5) for k, v in c.features.items()}}
            for rank, c in enumerate(reading.candidates)]


async def run_eval(pipeline: Pipeline, conversations: list[dict], k: int = 5, respond: Respond | None = None,
                   executed_actions: Callable[[], int] | None = None,
                   doc_languages: dict[str, tuple[str, ...]] | None = None,
                   readings: list[dict] | None = None) -> dict:
    """Replay every conversation turn by turn, the bot's own answers kept in the history.

    `executed_actions` counts actions that ran; the replay never clicks Confirm, so any
    count above zero is an action executed without confirmation. `doc_languages` (file ->
    languages) splits retrieval and answers into same- and cross-language turns.
    """
    respond = respond or pipeline_responder(pipeline)
    replay = Replay(pipeline, k, doc_languages or {}, readings=readings)
    for conv in conversations:
        history: list[HistoryTurn] = []
        for number, turn in enumerate(conv["turns"]):
            started = time.perf_counter()
            prepared, answer = await respond(conv.get("id", ""), turn["user"], history)
            _record(replay.latency["first_turn" if number == 0 else "follow_up"], prepared.timings,
                    (time.perf_counter() - started) * 1000)
            history += history_of(turn["user"], prepared, answer)
            replay.turn(conv.get("id", ""), number, turn, prepared, answer)
    return replay.report(len(conversations), executed_actions() if executed_actions else 0)


def print_table(report: dict, console) -> None:
    """The report's numbers as terminal tables."""
    from rich.table import Table

    table = Table(title=f"Retrieval (document-level, k={report['k']})")
    for col in ("bucket", "n", f"recall@{report['k']}", "MRR"):
        table.add_column(col, justify="right" if col != "bucket" else "left")
    for name, b in report["retrieval"].items():
        table.add_row(name, str(b["n"]), f"{b['recall_at_k']:.3f}", f"{b['mrr']:.3f}")
    console.print(table)
    intent = report["intent"]
    console.print(f"intent accuracy {intent['accuracy']:.3f}  macro-F1 {intent['macro_f1']:.3f}  "
                  f"low-confidence {intent['low_confidence_rate']:.3f}  "
                  f"unnecessary retrieval {report['unnecessary_retrieval_rate']:.3f}  "
                  f"clarify on document questions {report['clarify_rate_on_document_questions']:.3f}  "
                  f"actions without confirmation {report['actions_executed_without_confirmation']}")
    nf = report["not_found"]
    console.print(f"not found: false answers {nf['false_answer_rate']:.3f} "
                  f"(hedged {nf['hedged_on_unanswerable_rate']:.3f}) of {nf['unanswerable']} unanswerable  "
                  f"false 'not found' {nf['false_not_found_rate']:.3f} of {nf['answerable']} answerable")
    _print_answers(report["answers"], console)
    labels = sorted({p for row in intent["confusion"].values() for p in row} | set(intent["confusion"]))
    confusion = Table(title="Intent confusion (rows: gold, columns: predicted)")
    confusion.add_column("gold")
    for label in labels:
        confusion.add_column(label[:10], justify="right")
    for gold, row in intent["confusion"].items():
        confusion.add_row(gold, *[str(row.get(label, 0)) for label in labels])
    console.print(confusion)
    for kind, stages in report["latency_ms"].items():
        if stages["turns"]:
            console.print(f"latency ms, {kind.replace('_', ' ')}s ({stages['turns']}; p50 / p95): " + "  ".join(
                f"{stage} {stages[stage]['p50']:.1f} / {stages[stage]['p95']:.1f}" for stage in STAGES))


ANSWER_COLUMNS = (("n_gold", "gold"), ("fact_shown", "shown"), ("fact_grounded", "grounded"), ("fact_leads", "leads"),
                  ("false_not_found_rate", "false NF"), ("hedged_rate", "hedged"), ("junk_line_rate", "junk"),
                  ("precision_at_1", "P@1"))


def _print_answers(answers: dict, console) -> None:
    """What the user reads: the gold fact in the answer, per bucket of answerable turns."""
    from rich.table import Table

    table = Table(title="Answers (answerable turns; fact figures over turns with a gold fact)")
    table.add_column("bucket")
    table.add_column("n", justify="right")
    for _, label in ANSWER_COLUMNS:
        table.add_column(label, justify="right")
    for name, figures in answers.items():
        if figures["n"]:
            table.add_row(name, str(figures["n"]), *[str(figures[key]) if key == "n_gold" else f"{figures[key]:.3f}"
                                                      for key, _ in ANSWER_COLUMNS])
    console.print(table)
