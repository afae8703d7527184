"""Fit the reader model on labelled lines and choose its outcome thresholds (`make train`).

    python scripts/train_reader.py [--check] [--report docs/reader-model.md]

Reads eval/reader/<corpus>-<split>.jsonl.gz (written by scripts/collect_readings.py: every line the reader
scored on every searched turn, its features and whether it holds the turn's gold fact in a relevant
document) and:

1. fits, on the dev splits of every corpus (all five: two written here, three real organisations' pages), a
   standardised logistic regression (scikit-learn) over each line's signals, and a second one, the verdict,
   over the lead line's signals and log-odds, stacked on leave-one-corpus-out line probabilities; writes
   rag/answer/data/reader.json (deterministic: lbfgs from zeros, rows in file order);
2. chooses the thresholds on the verdict's probability from nested leave-one-corpus-out predictions of the dev
   splits: `answer_at`, the lowest bar at which the answered turns' leads are right for the precision target;
   `not_found_at`, the highest bar that calls at most the allowed share of answerable turns "not found";
3. reports, per corpus, the holdout figures (the shipped model on the corpus's holdout split) and the
   leave-one-corpus-out figures (a model and thresholds fitted on the other corpora only, measured on all of
   the left-out corpus's turns), with the reliability table, into --report.

`--check` fits again and fails when the shipped weights differ (tests/test_reader_model.py runs it).
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reader_corpora import CORPORA, ROOT, readings_file

from rag.answer.model import turn_features, turn_relative

WEIGHTS = ROOT / "rag" / "answer" / "data" / "reader.json"
PRECISION_TARGET = 0.90  # answered turns whose lead holds the fact (unanswerable turns answered count as wrong)
MAX_FALSE_NOT_FOUND = 0.03  # answerable turns called "not found"
C = 0.5  # inverse regularisation strength (chosen leave-one-corpus-out: docs/answers.md)
# The verdict model reads every signal of the lead (about fifty) from a few thousand turns: held tighter than the
# line model. 0.1 against 0.5 leave-one-corpus-out: precision 0.92 / 0.91 at 0.85, coverage the same (2026-12).
VERDICT_C = 0.1
LINE_AT = 0.35  # another line beside the lead: as likely to answer as this
RELATED_AT = 0.10  # "maybe related" under "not found": a document whose best line is at least this likely


@dataclass
class Data:
    """Rows of read lines, their turn, and labels."""

    names: list[str]
    x: np.ndarray
    y: np.ndarray
    turn: list[tuple]  # (corpus, split, conversation, turn) of each row
    answerable: np.ndarray
    corpus: np.ndarray
    split: np.ndarray
    relevant: np.ndarray  # the line's document is one of the turn's relevant documents


def load(corpora: list[str]) -> Data:
    rows: list[dict] = []
    for corpus in corpora:
        for split in ("dev", "holdout"):
            path = readings_file(corpus, split)
            if path.exists():
                with gzip.open(path, "rt", encoding="utf-8") as f:
                    rows.extend(json.loads(line) for line in f)
    if not rows:
        raise SystemExit("no readings: run scripts/collect_readings.py first")
    by_turn: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        by_turn[(r["corpus"], r["split"], r["conversation"], r["turn"])].append(r)
    for group in by_turn.values():  # the same turn-relative features the reader adds at run time
        turn_relative([(r["path"], r["features"]) for r in group])
    names = sorted(rows[0]["features"])
    x = np.array([[r["features"].get(n, 0.0) for n in names] for r in rows], dtype=np.float64)
    return Data(names, x, np.array([bool(r["label"]) for r in rows]),
                [(r["corpus"], r["split"], r["conversation"], r["turn"]) for r in rows],
                np.array([bool(r["answerable"]) for r in rows]), np.array([r["corpus"] for r in rows]),
                np.array([r["split"] for r in rows]), np.array([bool(r["relevant"]) for r in rows]))


def fit(x: np.ndarray, y: np.ndarray, c: float | None = None):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 1e-9, scaler.scale_, 1.0)
    model = LogisticRegression(C=C if c is None else c, max_iter=5000, tol=1e-8).fit((x - scaler.mean_) / scale, y)
    return scaler.mean_, scale, model.coef_[0], float(model.intercept_[0])


def predict(params, x: np.ndarray) -> np.ndarray:
    mean, scale, coef, intercept = params
    return 1.0 / (1.0 + np.exp(-np.clip(((x - mean) / scale) @ coef + intercept, -30, 30)))


@dataclass
class Turn:
    """One searched turn as the model would end it: its lead's probability and what the lines hold."""

    corpus: str
    answerable: bool
    lead_p: float
    lead_right: bool
    shown_right: bool  # a line shown (lead, or another at LINE_AT or more) holds the fact
    any_right: bool  # some read line holds the fact at all (the reader's ceiling)
    shown: int
    junk: int  # shown lines from a document that is not one of the turn's relevant documents


def groups_of(data: Data, mask: np.ndarray) -> dict[tuple, list[int]]:
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i in np.flatnonzero(mask):
        groups[data.turn[i]].append(int(i))
    return groups


def leads(data: Data, p: np.ndarray, mask: np.ndarray) -> tuple[list[tuple], np.ndarray, np.ndarray, np.ndarray]:
    """Per turn: its key, the verdict model's features of its lead (by the line probabilities `p`), whether the
    lead is right, and the turn's corpus."""
    keys, rows, right, corpus = [], [], [], []
    logit = np.log(np.clip(p, 1e-9, 1 - 1e-9) / np.clip(1 - p, 1e-9, 1))
    for key, members in groups_of(data, mask).items():
        order = sorted(members, key=lambda i: -p[i])
        lead, second = order[0], (order[1] if len(order) > 1 else None)
        features = turn_features(dict(zip(data.names, data.x[lead])), float(logit[lead]),
                                 float(logit[second]) if second is not None else None)
        keys.append(key)
        rows.append([features[n] for n in turn_names(data)])
        right.append(bool(data.answerable[lead] and data.y[lead]))
        corpus.append(key[0])
    return keys, np.array(rows), np.array(right), np.array(corpus)


def turn_names(data: Data) -> tuple[str, ...]:
    """The verdict model's feature names: the line model's and the lead's log-odds and margin."""
    return tuple(turn_features(dict.fromkeys(data.names, 0.0), 0.0, None))


def verdict_probabilities(data: Data, p: np.ndarray, mask: np.ndarray, params) -> dict[tuple, float]:
    keys, x, _, _ = leads(data, p, mask)
    return dict(zip(keys, predict(params, x))) if len(keys) else {}


def fit_verdict(data: Data, corpora: list[str], splits: tuple[str, ...]):
    """The verdict model, fitted on leads chosen by line probabilities that no model of the lead's corpus saw
    (stacking on leave-one-corpus-out predictions), so it learns how far an unseen corpus's leads can be trusted."""
    mask = np.isin(data.split, splits)
    oof = leave_one_out(data, corpora, splits)
    _, x, y, _ = leads(data, oof, mask)
    return fit(x, y, VERDICT_C)


def turns_of(data: Data, p: np.ndarray, mask: np.ndarray, verdict: dict[tuple, float] | None = None) -> list[Turn]:
    out = []
    for key, rows in groups_of(data, mask).items():
        order = sorted(rows, key=lambda i: -p[i])
        lead = order[0]
        shown = [lead] + [i for i in order[1:] if p[i] >= LINE_AT][:3]
        right_docs = {i for i in rows if data.y[i]}
        lead_p = verdict[key] if verdict is not None else float(p[lead])
        out.append(Turn(data.turn[lead][0], bool(data.answerable[lead]), lead_p, bool(data.y[lead]),
                        any(data.y[i] for i in shown), bool(right_docs), len(shown),
                        sum(1 for i in shown if not data.relevant[i])))
    return out


def outcomes(turns: list[Turn], answer_at: float, not_found_at: float) -> dict:
    """The figures of ../shared/EVAL_FORMAT.md (fourth round) from the simulated outcomes."""
    ans = [t for t in turns if t.answerable]
    una = [t for t in turns if not t.answerable]

    def ended(t: Turn) -> str:
        return "answered" if t.lead_p >= answer_at else "not_found" if t.lead_p < not_found_at else "hedged"

    answered = [t for t in ans if ended(t) == "answered"]
    rate = lambda part, whole: round(part / whole, 3) if whole else None  # noqa: E731
    return {
        "answerable": len(ans), "unanswerable": len(una),
        "coverage": rate(len(answered), len(ans)),
        "precision": rate(sum(t.lead_right for t in answered), len(answered) + sum(ended(t) == "answered" for t in una)),
        "hedged": rate(sum(ended(t) == "hedged" for t in ans), len(ans)),
        "false_not_found": rate(sum(ended(t) == "not_found" for t in ans), len(ans)),
        "fact_leads": rate(sum(t.lead_right and ended(t) != "not_found" for t in ans), len(ans)),
        "fact_shown": rate(sum(t.shown_right and ended(t) != "not_found" for t in ans), len(ans)),
        "reader_ceiling": rate(sum(t.any_right for t in ans), len(ans)),
        "unanswerable_answered": rate(sum(ended(t) == "answered" for t in una), len(una)),
        "unanswerable_not_found": rate(sum(ended(t) == "not_found" for t in una), len(una)),
        "lines_per_answer": rate(sum(t.shown for t in ans), len(ans)),
        "junk_per_answer": rate(sum(t.junk for t in ans), len(ans)),
    }


def thresholds(turns: list[Turn]) -> tuple[float, float]:
    """answer_at: the lowest bar whose answered leads are right PRECISION_TARGET of the time; not_found_at: the
    highest bar that calls at most MAX_FALSE_NOT_FOUND of the answerable turns "not found"."""
    grid = [round(v, 3) for v in np.arange(0.05, 0.96, 0.01)]
    answer_at = 0.95
    for bar in grid:
        answered = [t for t in turns if t.lead_p >= bar]
        right = sum(t.answerable and t.lead_right for t in answered)
        if answered and right / len(answered) >= PRECISION_TARGET:
            answer_at = bar
            break
    ans = [t for t in turns if t.answerable]
    not_found_at = 0.0
    for bar in grid:
        if bar > answer_at:
            break
        if sum(t.lead_p < bar for t in ans) <= MAX_FALSE_NOT_FOUND * len(ans):
            not_found_at = bar
    return answer_at, not_found_at


def leave_one_out(data: Data, corpora: list[str], splits: tuple[str, ...]) -> np.ndarray:
    """Each row's probability from a model fitted on the other corpora's `splits` rows."""
    p = np.zeros(len(data.y))
    for corpus in corpora:
        train = (data.corpus != corpus) & np.isin(data.split, splits)
        test = data.corpus == corpus
        if train.any() and test.any():
            p[test] = predict(fit(data.x[train], data.y[train]), data.x[test])
    return p


def reliability(turns: list[Turn]) -> list[tuple[str, int, float, float]]:
    bins = [(0.0, 0.1), (0.1, 0.2), (0.2, 0.35), (0.35, 0.5), (0.5, 0.65), (0.65, 0.8), (0.8, 1.01)]
    out = []
    for lo, hi in bins:
        inside = [t for t in turns if lo <= t.lead_p < hi]
        if inside:
            out.append((f"{lo:.2f}-{min(hi, 1.0):.2f}", len(inside),
                        round(sum(t.answerable and t.lead_right for t in inside) / len(inside), 3),
                        round(float(np.mean([t.lead_p for t in inside])), 3)))
    return out


def chosen(data: Data, corpora: list[str], splits: tuple[str, ...]) -> tuple[tuple, tuple, float, float]:
    """Everything chosen on `corpora`'s `splits`: the line model, the verdict model, and the two bars (set on the
    verdict model's leave-one-corpus-out predictions: nested, so no bar sees the corpus it is applied to)."""
    mask = np.isin(data.split, splits)
    line = fit(data.x[mask], data.y[mask])
    verdict = fit_verdict(data, corpora, splits)
    oof_turns: list[Turn] = []
    for corpus in corpora:
        others = [c for c in corpora if c != corpus]
        inner = _subset(data, data.corpus != corpus)
        if not others or not (mask & (data.corpus == corpus)).any():
            continue
        line_p = predict(fit(inner.x[np.isin(inner.split, splits)], inner.y[np.isin(inner.split, splits)]), data.x)
        inner_verdict = fit_verdict(inner, others, splits)
        test = mask & (data.corpus == corpus)
        oof_turns += turns_of(data, line_p, test, verdict_probabilities(data, line_p, test, inner_verdict))
    answer_at, not_found_at = thresholds(oof_turns)
    return line, verdict, answer_at, not_found_at


def _linear(params, names) -> dict:
    mean, scale, coef, intercept = params
    return {"features": list(names), "mean": [round(float(v), 8) for v in mean],
            "scale": [round(float(v), 8) for v in scale], "coef": [round(float(v), 8) for v in coef],
            "intercept": round(float(intercept), 8)}


def shipped(data: Data, corpora: list[str]) -> dict:
    """The models fitted on every corpus's dev split, with bars from nested leave-one-corpus-out predictions."""
    line, verdict, answer_at, not_found_at = chosen(data, corpora, ("dev",))
    return {**_linear(line, data.names), "C": C, "trained_on": sorted(set(data.corpus[data.split == "dev"])),
            "verdict": _linear(verdict, turn_names(data)),
            "thresholds": {"answer_at": answer_at, "not_found_at": not_found_at, "line_at": LINE_AT,
                           "related_at": RELATED_AT}}


def report(data: Data, corpora: list[str], weights: dict) -> str:
    names = weights["features"]
    params = _params(weights)
    verdict = _params(weights["verdict"])
    assert names == data.names
    p_ship = predict(params, data.x)
    th = weights["thresholds"]
    lines = ["# The reader model's figures", "",
             "Written by `make train` (scripts/train_reader.py) from eval/reader/*.jsonl.gz. Outcomes are simulated",
             "from the lines the pipeline read: the lead is the most probable line; answered at "
             f"p ≥ {th['answer_at']}, \"not found\" below {th['not_found_at']}, hedged between.", ""]
    header = ("| corpus | set | answerable | coverage | precision | hedged | false NF | fact leads | fact shown | "
              "ceiling | unanswerable answered / NF | lines | junk lines |")
    rule = "|" + "---|" * 13
    lines += ["## Holdout (the shipped model, fitted on every corpus's dev split)", "", header, rule]
    for corpus in corpora:
        mask = (data.corpus == corpus) & (data.split == "holdout")
        if mask.any():
            turns = turns_of(data, p_ship, mask, verdict_probabilities(data, p_ship, mask, verdict))
            lines.append(_row(corpus, "holdout", outcomes(turns, th["answer_at"], th["not_found_at"])))
    lines += ["", "## Leave one corpus out (fitted and thresholded on the other corpora, all turns of this one)",
              "", header, rule]
    all_oof = []
    for corpus in corpora:
        others = [c for c in corpora if c != corpus]
        train = data.corpus != corpus
        if not train.any() or not (data.corpus == corpus).any():
            continue
        sub = _subset(data, train)
        line, verdict_model, answer_at, not_found_at = chosen(sub, others, ("dev", "holdout"))
        p = predict(line, data.x)
        test = data.corpus == corpus
        turns = turns_of(data, p, test, verdict_probabilities(data, p, test, verdict_model))
        all_oof += turns
        lines.append(_row(corpus, f"left out (bars {answer_at}/{not_found_at})", outcomes(turns, answer_at, not_found_at)))
    lines += ["", "## Coverage against precision (leave one corpus out, all corpora pooled)", "",
              "| answered at p ≥ | coverage | precision | unanswerable answered |", "|---|---|---|---|"]
    ans = [t for t in all_oof if t.answerable]
    una = [t for t in all_oof if not t.answerable]
    for bar in (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95):
        answered = [t for t in all_oof if t.lead_p >= bar]
        precision = sum(t.answerable and t.lead_right for t in answered) / max(1, len(answered))
        lines.append(f"| {bar} | {sum(t.lead_p >= bar for t in ans) / max(1, len(ans)):.3f} | {precision:.3f} | "
                     f"{sum(t.lead_p >= bar for t in una) / max(1, len(una)):.3f} |")
    lines += ["", "| \"not found\" below p | false \"not found\" | unanswerable \"not found\" |", "|---|---|---|"]
    for bar in (0.05, 0.1, 0.15, 0.2, 0.3):
        lines.append(f"| {bar} | {sum(t.lead_p < bar for t in ans) / max(1, len(ans)):.3f} | "
                     f"{sum(t.lead_p < bar for t in una) / max(1, len(una)):.3f} |")
    lines += ["", "## Reliability of the lead's probability (leave one corpus out, all corpora)", "",
              "| p | turns | lead right | mean p |", "|---|---|---|---|"]
    lines += [f"| {b} | {n} | {r} | {m} |" for b, n, r, m in reliability(all_oof)]
    lines += ["", "## Model choice (leave one corpus out; the coverage column's bars are chosen on the pooled "
              "left-out predictions, so it only compares the models)", ""]
    lines += model_choice(data, corpora)
    lines += ["", "## Weights (standardised features, log-odds)", "", "| feature | weight |", "|---|---|"]
    lines += [f"| {n} | {w:+.3f} |" for n, w in sorted(zip(names, weights["coef"]), key=lambda t: -abs(t[1]))]
    return "\n".join(lines) + "\n"


def model_choice(data: Data, corpora: list[str]) -> list[str]:
    """Candidate models compared leave-one-corpus-out: the lead's accuracy on answerable turns, the line-level
    ROC AUC, and the coverage of confident answers at the precision target with bars chosen on the other corpora."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score

    def gbm(x, y):
        model = HistGradientBoostingClassifier(max_depth=3, learning_rate=0.05, max_iter=300, random_state=0).fit(x, y)
        return lambda z: model.predict_proba(z)[:, 1]

    def logistic(c):
        def make(x, y):
            params = fit(x, y, c)
            return lambda z: predict(params, z)
        return make

    out = ["| model | lead right (answerable, LOCO) | line ROC AUC (LOCO) | coverage at target |", "|---|---|---|---|"]
    for name, make in [("logistic C=0.1", logistic(0.1)), ("logistic C=0.5", logistic(0.5)),
                       ("logistic C=2", logistic(2.0)), ("gradient boosting (depth 3)", gbm)]:
        p = np.zeros(len(data.y))
        for corpus in corpora:
            train, test = data.corpus != corpus, data.corpus == corpus
            if train.any() and test.any() and data.y[train].any():
                p[test] = make(data.x[train], data.y[train])(data.x[test])
        turns = turns_of(data, p, np.ones(len(data.y), bool))
        ans = [t for t in turns if t.answerable]
        answer_at, not_found_at = thresholds(turns)
        o = outcomes(turns, answer_at, not_found_at)
        auc = roc_auc_score(data.y, p) if data.y.any() and not data.y.all() else float("nan")
        out.append(f"| {name} | {sum(t.lead_right for t in ans) / max(1, len(ans)):.3f} | {auc:.3f} | {o['coverage']} |")
    return out


def _params(weights: dict) -> tuple:
    return (np.array(weights["mean"]), np.array(weights["scale"]), np.array(weights["coef"]), weights["intercept"])


def _subset(data: Data, mask: np.ndarray) -> Data:
    idx = np.flatnonzero(mask)
    return Data(data.names, data.x[idx], data.y[idx], [data.turn[i] for i in idx], data.answerable[idx],
                data.corpus[idx], data.split[idx], data.relevant[idx])


def _row(corpus: str, label: str, o: dict) -> str:
    return (f"| {corpus} | {label} | {o['answerable']} | {o['coverage']} | {o['precision']} | {o['hedged']} | "
            f"{o['false_not_found']} | {o['fact_leads']} | {o['fact_shown']} | {o['reader_ceiling']} | "
            f"{o['unanswerable_answered']} / {o['unanswerable_not_found']} | {o['lines_per_answer']} | "
            f"{o['junk_per_answer']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the shipped weights are not what a fit gives")
    parser.add_argument("--report", type=Path, default=ROOT / "docs" / "reader-model.md")
    parser.add_argument("--weights", type=Path, default=WEIGHTS, help="where to write (or --check) the weights")
    args = parser.parse_args()
    present = [c for c in CORPORA if readings_file(c, "dev").exists() or readings_file(c, "holdout").exists()]
    data = load(present)
    weights = shipped(data, present)
    if args.check:
        current = json.loads(args.weights.read_text(encoding="utf-8"))
        # Bars come from a 0.01 grid by counting turns: a float's last digits on another CPU may move one step.
        bars = [current["thresholds"][k] - weights["thresholds"][k] for k in weights["thresholds"]]
        same = current["features"] == weights["features"] and all(abs(b) <= 0.0101 for b in bars) and \
            np.allclose(current["coef"], weights["coef"], rtol=1e-3, atol=1e-4) and \
            np.allclose(current["verdict"]["coef"], weights["verdict"]["coef"], rtol=1e-3, atol=1e-4)
        print("shipped weights match the fit" if same else "shipped weights differ from the fit: run make train")
        return 0 if same else 1
    args.weights.parent.mkdir(parents=True, exist_ok=True)
    args.weights.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    args.report.write_text(report(data, present, weights), encoding="utf-8")
    print(f"weights -> {args.weights}; figures -> {args.report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
