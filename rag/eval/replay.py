"""`docbot eval`: replay conversations through the real pipeline and measure what rewriting buys.

Format: eval/FORMAT.md. Retrieval is scored per document: chunks map to their
file, duplicates go, the top k distinct files are compared with the gold `relevant` files.
Every gold knowledge_search turn is scored on retrieval with the query the pipeline built,
whatever the router decided; routing mistakes show in the intent metrics instead.
"""
from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from rag.answer.answerers import number_sources
from rag.errors import DatasetError
from rag.text.language import main_language
from rag.pipeline import Pipeline, Prepared
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


async def run_eval(pipeline: Pipeline, conversations: list[dict], k: int = 5, respond: Respond | None = None,
                   executed_actions: Callable[[], int] | None = None,
                   doc_languages: dict[str, tuple[str, ...]] | None = None) -> dict:
    """Replay every conversation turn by turn, the bot's own answers kept in the history.

    `executed_actions` counts actions that ran; the replay never clicks Confirm, so any
    count above zero is an action executed without confirmation. `doc_languages` (file ->
    languages) splits retrieval into same- and cross-language turns.
    """
    respond = respond or pipeline_responder(pipeline)
    doc_languages = doc_languages or {}
    buckets: dict[str, list[Scored]] = {name: [] for name in BUCKETS}
    per_turn: list[dict] = []
    intents: list[tuple[str, str]] = []
    latency: dict[str, dict[str, list[float]]] = {kind: {stage: [] for stage in STAGES}
                                                   for kind in ("first_turn", "follow_up")}
    needless, non_knowledge, clarified, documents = 0, 0, 0, 0
    unanswerable, false_answers, answerable, false_not_found = 0, 0, 0, 0
    for conv in conversations:
        history: list[HistoryTurn] = []
        for number, turn in enumerate(conv["turns"]):
            started = time.perf_counter()
            prepared, answer = await respond(conv.get("id", ""), turn["user"], history)
            _record(latency["first_turn" if number == 0 else "follow_up"], prepared.timings,
                    (time.perf_counter() - started) * 1000)
            history += history_of(turn["user"], prepared, answer)
            gold = turn.get("intent", "knowledge_search")
            intents.append((gold, prepared.route.intent))
            if gold != "knowledge_search":
                non_knowledge += 1
                needless += prepared.searched
            else:
                documents += 1
                clarified += prepared.route.intent == AMBIGUOUS
                if turn.get("answerable") is False:  # nothing in the documents answers it (eval/FORMAT.md)
                    unanswerable += 1
                    false_answers += prepared.searched and not prepared.not_found
                elif turn.get("relevant"):
                    answerable += 1
                    false_not_found += prepared.not_found
            row = {"conversation": conv.get("id", ""), "turn": number + 1, "user": turn["user"],
                   "rewritten": prepared.rewrite.text, "intent": prepared.route.intent, "gold_intent": gold,
                   "confidence": round(prepared.route.confidence, 3), "retrieved": [],
                   "relevant": turn.get("relevant", []), "recall": None}
            if prepared.steps:
                row["steps"] = prepared.steps
            if prepared.route.scores:
                row["scores"] = prepared.route.scores
            if prepared.not_found:
                row["not_found"] = True
            relevant = turn.get("relevant") or []
            if gold == "knowledge_search" and relevant:
                multi = bool(turn.get("multi_hop"))
                main = score(pipeline, prepared.rewrite.text, relevant, k, multi, prepared.rewrite.prior)
                row["retrieved"], row["recall"] = main.files, main.recall
                buckets["all"].append(main)
                if multi:
                    buckets["multi_hop"].append(main)
                cross = is_cross_language(turn["user"], relevant, doc_languages)
                if cross is not None:
                    row["cross_language"] = cross
                    buckets["cross_language" if cross else "same_language"].append(main)
                if number == 0:
                    buckets["first_turn"].append(main)
                else:
                    buckets["followup"].append(main)
                    baseline = score(pipeline, turn["user"], relevant, k, multi)
                    buckets["followup_baseline"].append(baseline)
                    row["baseline_recall"] = baseline.recall
                    oracle = score(pipeline, turn["standalone"], relevant, k, multi) if turn.get("standalone") else None
                    if oracle:
                        buckets["followup_oracle"].append(oracle)
                        row["oracle_recall"] = oracle.recall
                    if turn.get("history_dependent"):
                        # The same split for baseline and oracle, where rewriting matters.
                        buckets["followup_dependent"].append(main)
                        buckets["followup_dependent_baseline"].append(baseline)
                        if oracle:
                            buckets["followup_dependent_oracle"].append(oracle)
                    elif turn.get("history_dependent") is False:
                        # Self-contained follow-ups must lose nothing to the rewrite.
                        buckets["followup_self_contained"].append(main)
                        buckets["followup_self_contained_baseline"].append(baseline)
            per_turn.append(row)
    return {
        "k": k,
        "conversations": len(conversations),
        "turns": len(per_turn),
        "retrieval": {name: _bucket(scores) for name, scores in buckets.items()},
        "intent": intent_metrics(intents),
        "unnecessary_retrieval_rate": round(needless / non_knowledge, 4) if non_knowledge else 0.0,
        "clarify_rate_on_document_questions": round(clarified / documents, 4) if documents else 0.0,
        "not_found": {"unanswerable": unanswerable, "answerable": answerable,
                      "false_answer_rate": round(false_answers / unanswerable, 4) if unanswerable else 0.0,
                      "false_not_found_rate": round(false_not_found / answerable, 4) if answerable else 0.0},
        "actions_executed_without_confirmation": executed_actions() if executed_actions else 0,
        "latency_ms": {kind: {"turns": len(stages["total"]),
                              **{stage: _percentiles(values) for stage, values in stages.items()}}
                       for kind, stages in latency.items()},
        "per_turn": per_turn,
    }


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
    console.print(f"not found: false answers {nf['false_answer_rate']:.3f} of {nf['unanswerable']} unanswerable  "
                  f"false 'not found' {nf['false_not_found_rate']:.3f} of {nf['answerable']} answerable")
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
