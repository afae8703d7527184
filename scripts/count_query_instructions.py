"""Machine instructions one search costs, counted by valgrind's callgrind: the same on a loaded machine as on
an idle one, where CPU milliseconds of a sub-millisecond query move with whatever else shares the cores.

    python scripts/count_query_instructions.py [--chunks 1000] [--queries 100]
        [--modes none floor fresh warm300 repeat]     # needs valgrind (apt-get install valgrind)

Each mode runs in its own process under `valgrind --tool=callgrind --instr-atstart=no`; the process
opens `scripts/bench_scale.py`'s index of `--chunks` chunks (built there when missing), runs its
untimed queries, then counts only the `--queries` measured ones (`callgrind_control -i on/off` around
them) and the report divides by `--queries` after subtracting `none` (the toggling alone):
  none     no query: what switching the counter on and off costs
  floor    the NumPy exact scan (product + argpartition for the top 10), as bench_scale.py's floor
  fresh    docbot's candidates(query, 40) in a process that has just opened the index (3 other
           queries first, as bench_scale.py's default warm-up)
  warm300  the same after 300 other queries (a process that has served a while)
  repeat   the same queries twice, the second pass counted (every row and stem remembered)
Under valgrind NumPy and OpenBLAS pick the kernels valgrind supports (no AVX-512), so the floor's count is
that code path's; docbot's product is a small share of its count at 1k.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import docbot  # noqa: E402, F401  (the threading policy, before NumPy loads)

# isort: split
import bench_scale  # noqa: E402
import numpy as np  # noqa: E402

MODES = ["none", "floor", "fresh", "warm300", "repeat"]


def worker(mode: str, n: int, count: int, work: Path) -> None:
    from rag.index.embedded import SqliteSearchIndex
    from rag.index.port import SearchQuery
    from rag.text.analysis import Analyzer

    path = work / f"index-{n}.sqlite3"
    analyzer = Analyzer()
    analyzer.terms("warm up 준비")
    index = SqliteSearchIndex(path, analyzer)
    index._current()
    vectors, words = bench_scale.corpus_vectors(n), bench_scale.corpus_words(n)
    measured = bench_scale.queries(vectors, words, count)
    untimed = bench_scale.queries(vectors, words, 300 if mode == "warm300" else 3, seed=10)
    if mode == "repeat":
        untimed = untimed + measured
    for text, q in untimed:
        index.candidates(SearchQuery(text, q, bench_scale.TOP), 40)
    subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True, check=True)
    for text, q in measured:
        if mode == "floor":
            scores = vectors @ q
            top = np.argpartition(-scores, bench_scale.TOP)[: bench_scale.TOP]
            top[np.argsort(-scores[top])]
        elif mode != "none":
            index.candidates(SearchQuery(text, q, bench_scale.TOP), 40)
    subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True, check=True)


def counted(mode: str, args) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={tmp}/out",
             sys.executable, __file__, "--worker", mode, "--chunks", str(args.chunks), "--queries",
             str(args.queries), "--work", str(args.work)], capture_output=True, text=True, cwd=ROOT, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or not found:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--modes", nargs="+", default=MODES, choices=MODES)
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "docbot-bench-scale")
    parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.chunks, args.queries, args.work)
        return
    if not (args.work / f"index-{args.chunks}.done").exists():
        args.work.mkdir(parents=True, exist_ok=True)
        built = bench_scale.build(args.work / f"index-{args.chunks}.sqlite3", args.chunks)
        (args.work / f"index-{args.chunks}.done").write_text(json.dumps(built))
    totals = {mode: counted(mode, args) for mode in dict.fromkeys(["none", *args.modes])}
    per_query = {mode: round((total - totals["none"]) / args.queries) for mode, total in totals.items() if mode != "none"}
    report = {"chunks": args.chunks, "queries": args.queries, "instructions_per_query": per_query}
    if "floor" in per_query:
        report["over_floor"] = {m: round(v / per_query["floor"], 2) for m, v in per_query.items() if m != "floor"}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
