"""Replay every corpus's conversations and keep each read line's features and label (the reader's training data).

    python scripts/collect_readings.py [--corpus NAME ...] [--index-root DIR]

For each corpus of scripts/reader_corpora.py and each split (dev, holdout), runs `docbot eval --readings` on
the corpus's documents (the index is kept under --index-root, so a second run re-indexes nothing) and writes
eval/reader/<corpus>-<split>.jsonl.gz plus the eval report beside it. Slow (the real pipeline, turn by turn);
`make train` only reads what this wrote. Sentence vectors are embedded by the turns, not while indexing.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reader_corpora import CORPORA, ROOT, readings_file


def collect(corpus: str, split: str, index_root: Path) -> None:
    docs, dev, holdout = CORPORA[corpus]
    sets = [s for s in (dev if split == "dev" else holdout) if (ROOT / s).exists()]
    if not sets or not (ROOT / docs).exists():
        print(f"{corpus} {split}: no data, skipped", flush=True)
        return
    out = readings_file(corpus, split)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        lines = Path(tmp) / "readings.jsonl"
        report = out.with_name(f"{corpus}-{split}.report.json")
        # The lines are read and answered by the hand-set reader, whatever model ships: the training data must not
        # depend on the model being fitted (its answers become the next turn's history).
        env = {**os.environ, "DOCBOT_SENTENCE_VECTORS": "false", "DOCBOT_READER_MODEL": "false", "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "docbot", "eval", *sets, "--docs", docs, "--index-dir",
                        str(index_root / corpus), "--readings", str(lines), "--json", str(report)],
                       cwd=ROOT, env=env, check=True)
        rows = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=9) as f:
        for row in rows:
            row["sentence"] = row["sentence"][:120]  # for reading a row, not for fitting
            f.write(json.dumps({"corpus": corpus, "split": split, **row}, ensure_ascii=False) + "\n")
    print(f"{corpus} {split}: {len(rows)} lines -> {out.relative_to(ROOT)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", default=list(CORPORA))
    parser.add_argument("--split", nargs="*", default=["dev", "holdout"])
    parser.add_argument("--index-root", type=Path, default=ROOT / "data" / "eval-index")
    args = parser.parse_args()
    for corpus in args.corpus:
        for split in args.split:
            collect(corpus, split, args.index_root)


if __name__ == "__main__":
    main()
