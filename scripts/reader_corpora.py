"""The evaluation corpora the reader model is fitted and measured on: each corpus's documents and its dev and
holdout conversation sets (eval/FORMAT.md). Shared by scripts/collect_readings.py and scripts/train_reader.py."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name: (documents, dev sets, holdout sets). The handbook and Solbit were written by this team (the handbook's
# sets by the same hands as its documents); the three under eval/corpora are real organisations' pages with
# questions written blind by people who never saw docbot's code or output.
CORPORA: dict[str, tuple[str, list[str], list[str]]] = {
    "handbook": ("samples/handbook",
                 ["eval/conversations-dev.jsonl", "eval/dev.jsonl", "eval/unanswerable-dev.jsonl"],
                 ["eval/conversations-holdout.jsonl", "eval/holdout.jsonl", "eval/unanswerable-holdout.jsonl"]),
    "solbit": ("eval/solbit/docs", ["eval/solbit/dev.jsonl", "eval/solbit/extra/extra-dev.jsonl",
                                    "eval/solbit/extra/extra-dev2.jsonl"], ["eval/solbit/holdout.jsonl"]),
    "18f": ("eval/corpora/18f/docs", ["eval/corpora/18f/dev.jsonl"], ["eval/corpora/18f/holdout.jsonl"]),
    "react-ko": ("eval/corpora/react-ko/docs", ["eval/corpora/react-ko/dev.jsonl"],
                 ["eval/corpora/react-ko/holdout.jsonl"]),
    "sourcegraph": ("eval/corpora/sourcegraph/docs", ["eval/corpora/sourcegraph/dev.jsonl"],
                    ["eval/corpora/sourcegraph/holdout.jsonl"]),
}


def readings_file(corpus: str, split: str) -> Path:
    return ROOT / "eval" / "reader" / f"{corpus}-{split}.jsonl.gz"
