"""Split a `docbot eval --json` report by the format of the file holding each turn's fact.

    docbot eval eval/solbit/dev.jsonl --docs eval/solbit/docs --json /tmp/solbit-dev.json
    .venv/bin/python scripts/eval_by_format.py /tmp/solbit-dev.json eval/solbit/dev.jsonl

The dataset's turns carry a `format` field (eval/solbit/README.md); the report's per-turn rows are
matched to them by conversation and turn number. Prints, per format, retrieval recall@k and, when the
report has them (answer-level scoring), the share of turns whose gold fact is shown, grounded and leads.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

FIGURES = ("recall", "fact_shown", "fact_grounded", "fact_leads")


def main() -> None:
    report = json.loads(Path(sys.argv[1]).read_text())
    formats = {}
    for line in Path(sys.argv[2]).read_text().splitlines():
        conv = json.loads(line)
        for number, turn in enumerate(conv["turns"], 1):
            if turn.get("format"):
                formats[(conv["id"], number)] = turn["format"]
    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in report["per_turn"]:
        fmt = formats.get((row["conversation"], row["turn"]))
        if not fmt:
            continue
        for figure in FIGURES:
            if isinstance(row.get(figure), (int, float, bool)) and row.get(figure) is not None:
                groups[fmt][figure].append(float(row[figure]))
        groups[fmt]["not_found"].append(float(bool(row.get("not_found"))))
    print(f"{'format':10} {'turns':>5} " + " ".join(f"{f:>13}" for f in (*FIGURES, "not_found")))
    for fmt in sorted(groups):
        values = groups[fmt]
        n = len(values["not_found"])
        cells = [f"{sum(v) / len(v):>13.2f}" if (v := values.get(f)) else f"{'-':>13}" for f in (*FIGURES, "not_found")]
        print(f"{fmt:10} {n:>5} " + " ".join(cells))


if __name__ == "__main__":
    main()
