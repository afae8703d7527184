"""Split a `docbot eval --json` report by the format of the file holding each turn's fact, and by where
in that file the fact sits (a table row or prose), as issue 25's "Done means" asks.

    docbot eval eval/solbit/dev.jsonl eval/solbit/holdout.jsonl --docs eval/solbit/docs --json /tmp/solbit.json
    .venv/bin/python scripts/eval_by_format.py /tmp/solbit.json eval/solbit/dev.jsonl eval/solbit/holdout.jsonl \
        --docs eval/solbit/docs

With several datasets the report holds one report per file name (`docbot eval` with several datasets);
each dataset is split on its own. The dataset's turns carry a `format` field (eval/solbit/README.md), one
format or a list (a fact spread over files of two formats: counted under "mixed", never twice); the
report's per-turn rows are matched to them by conversation and turn number. With `--docs`, each turn's
relevant files are read by docbot's own loaders and the turn is also counted under "FORMAT-table" when a
gold alternative sits in a table row, "FORMAT-prose" otherwise, plus "office" (docx, pptx, xlsx together).

Per group: turns, retrieval recall@k, and over the turns that carry a gold fact (`answer_contains` or
`answer_contains_all`; turns without one are not counted as misses) the share whose fact is shown,
grounded and leads, and the false "not found" rate.
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

FIGURES = ("recall", "fact_shown", "fact_grounded", "fact_leads", "not_found")
OFFICE = ("docx", "pptx", "xlsx")


def turn_format(turn: dict) -> str:
    """The turn's format as one group name: a single format, or "mixed" for a list of two or more."""
    fmt = turn.get("format")
    if isinstance(fmt, list):
        fmt = fmt[0] if len(set(fmt)) == 1 else "mixed"
    return str(fmt or "")


def has_gold(turn: dict) -> bool:
    return bool(turn.get("answer_contains") or turn.get("answer_contains_all"))


def fact_place(turn: dict, docs: Path, cache: dict) -> str:
    """"table" when a gold alternative is in a table row of a relevant file as docbot reads it, else "prose"."""
    from rag.eval.answers import contains, gold_groups
    from rag.ingest.loaders import load

    alternatives = [a for group in gold_groups(turn) or [] for a in group]
    for rel in turn.get("relevant", []):
        if rel not in cache:
            try:
                doc = load(rel, (docs / rel).read_bytes())
                cache[rel] = [b for s in doc.sections for b in s.blocks]
            except Exception:  # a file docbot cannot read: its facts sit nowhere
                cache[rel] = []
        for block in cache[rel]:
            if block.kind == "row" and any(contains(block.text, a) for a in alternatives):
                return "table"
    return "prose"


def split(report: dict, dataset: Path, docs: Path | None,
          languages: bool = False) -> dict[str, dict[str, list[float]]]:
    """Per group, per figure, the per-turn values. With `languages`, every format group is also split into
    "GROUP/same" and "GROUP/xl" by the turn's `cross_language` (no relevant document in the question's
    language)."""
    turns: dict[tuple[str, int], dict] = {}
    for line in dataset.read_text().splitlines():
        if line.strip():
            conv = json.loads(line)
            for number, turn in enumerate(conv["turns"], 1):
                if turn.get("format"):
                    turns[(conv["id"], number)] = turn
    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    cache: dict = {}
    for row in report["per_turn"]:
        turn = turns.get((row["conversation"], row["turn"]))
        if turn is None or row.get("recall") is None:
            continue
        fmt = turn_format(turn)
        names = [fmt, "all"] + (["office"] if fmt in OFFICE else [])
        if docs is not None and has_gold(turn):
            place = fact_place(turn, docs, cache)
            names += [f"{fmt}-{place}"] + ([f"office-{place}"] if fmt in OFFICE else [])
        if languages and "cross_language" in turn:
            side = "xl" if turn["cross_language"] else "same"
            names += [f"{name}/{side}" for name in names if "-" not in name]
        for name in names:
            values = groups[name]
            values["turns"].append(1.0)
            values["recall"].append(float(row["recall"]))
            if has_gold(turn):
                for figure in ("fact_shown", "fact_grounded", "fact_leads"):
                    values[figure].append(float(bool(row.get(figure))))
                values["not_found"].append(float(bool(row.get("not_found"))))
    return groups


def table(groups: dict[str, dict[str, list[float]]]) -> str:
    lines = [f"{'group':14} {'turns':>5} {'gold':>5} " + " ".join(f"{f:>13}" for f in FIGURES)]
    for name in sorted(groups, key=lambda g: (g == "all", g)):
        values = groups[name]
        cells = [f"{sum(v) / len(v):>13.2f}" if (v := values.get(f)) else f"{'-':>13}" for f in FIGURES]
        lines.append(f"{name:14} {len(values['turns']):>5} {len(values.get('fact_shown', [])):>5} " + " ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("datasets", type=Path, nargs="+")
    parser.add_argument("--docs", type=Path, help="the documents, to tell facts in table rows from prose")
    parser.add_argument("--languages", action="store_true",
                        help="also split each format into same-language and cross-language turns")
    args = parser.parse_args(argv)
    report = json.loads(args.report.read_text())
    for dataset in args.datasets:
        # One dataset: the report itself; several: reports keyed by file name (docbot eval --json).
        one = report if "per_turn" in report else report[dataset.name]
        print(f"== {dataset}")
        print(table(split(one, dataset, args.docs, args.languages)))


if __name__ == "__main__":
    main()
