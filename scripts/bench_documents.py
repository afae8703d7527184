"""Indexing throughput per format: reading (load + chunk) against embedding, files/s and chunks/s.

    .venv/bin/python scripts/bench_documents.py [FOLDER ...] [--repeat 3] [--embed-sample 40]

Defaults to the fixture corpus (tests/fixtures/documents) and the Solbit corpus (eval/solbit/docs).
Reading is timed over every file (`--repeat` times, best run kept: the machine is shared); embedding
with the configured default embedder (e5) over a sample of each format's chunks, scaled to all of them.
The parsing share is read / (read + embed): what reading adds to an indexing run at the embedder's speed.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.errors import DocumentError  # noqa: E402
from rag.ingest.chunking import OverlapChunker  # noqa: E402
from rag.ingest.loaders import load, supported  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="*", type=Path,
                        default=[ROOT / "tests" / "fixtures" / "documents", ROOT / "eval" / "solbit" / "docs"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--embed-sample", type=int, default=40, help="chunks embedded per format")
    args = parser.parse_args()
    files = sorted(p for folder in args.folders for p in folder.rglob("*") if p.is_file() and supported(p))
    chunker = OverlapChunker(900, 150)
    read_s: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    chunks: dict[str, list] = defaultdict(list)
    for path in files:
        fmt = path.suffix.lower().lstrip(".")
        raw = path.read_bytes()
        best = None
        for _ in range(args.repeat):
            started = time.perf_counter()
            try:
                found = chunker.chunk(load(path.name, raw))
            except DocumentError:
                found = []
            elapsed = time.perf_counter() - started
            best = elapsed if best is None else min(best, elapsed)
        read_s[fmt] += best or 0.0
        counts[fmt] += 1
        chunks[fmt].extend(found)

    from rag.models.embeddings import E5Embedder

    embedder = E5Embedder()
    embedder.embed_passages(["warm up"])
    rng = random.Random(7)
    print(f"{'format':7} {'files':>5} {'chunks':>6} {'read s':>8} {'files/s':>8} {'chunks/s':>9} "
          f"{'embed s':>8} {'read share':>10}")
    totals = [0, 0, 0.0, 0.0]
    for fmt in sorted(counts):
        pool = chunks[fmt]
        sample = rng.sample(pool, min(args.embed_sample, len(pool)))
        started = time.perf_counter()
        if sample:
            embedder.embed_passages([c.embedding_text() for c in sample])
        per_chunk = (time.perf_counter() - started) / max(len(sample), 1)
        embed = per_chunk * len(pool)
        read = read_s[fmt]
        share = read / (read + embed) if read + embed else 0.0
        print(f"{fmt:7} {counts[fmt]:>5} {len(pool):>6} {read:>8.2f} {counts[fmt] / read:>8.1f} "
              f"{len(pool) / read:>9.1f} {embed:>8.1f} {share:>9.1%}")
        totals = [totals[0] + counts[fmt], totals[1] + len(pool), totals[2] + read, totals[3] + embed]
    files_n, chunks_n, read, embed = totals
    print(f"{'all':7} {files_n:>5} {chunks_n:>6} {read:>8.2f} {files_n / read:>8.1f} {chunks_n / read:>9.1f} "
          f"{embed:>8.1f} {read / (read + embed):>9.1%}")


if __name__ == "__main__":
    main()
