"""Indexing throughput per format: reading (load + chunk) against embedding, files/s and chunks/s.

    .venv/bin/python scripts/bench_documents.py [FOLDER ...] [--repeat 3] [--embed-sample 40]

Defaults to the fixture corpus (tests/fixtures/documents) and the Solbit corpus (eval/solbit/docs).
Reading is timed over every file (`--repeat` times, best run kept: the machine is shared); embedding
with the configured default embedder (e5) over a sample of each format's chunks, scaled to all of them.
The parsing share is read / (read + embed): what reading adds to an indexing run at the embedder's speed.
Both are CPU time of this process (all its threads), not wall time: on a shared machine wall time measures
the neighbours. `--embed-sample 0` skips embedding and prices it at e5's measured 0.2-0.3 CPU-s a chunk
(ARCHITECTURE.md).
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
            started = time.process_time()
            try:
                found = chunker.chunk(load(path.name, raw))
            except DocumentError:
                found = []
            elapsed = time.process_time() - started
            best = elapsed if best is None else min(best, elapsed)
        read_s[fmt] += best or 0.0
        counts[fmt] += 1
        chunks[fmt].extend(found)

    if args.embed_sample <= 0:
        print(f"{'format':7} {'files':>5} {'chunks':>6} {'read CPU-s':>10} {'ms/chunk':>9} {'share at e5 0.3-0.2':>20}")
        for fmt in sorted(counts) + ["all"]:
            n = sum(counts.values()) if fmt == "all" else counts[fmt]
            pool_n = sum(len(v) for v in chunks.values()) if fmt == "all" else len(chunks[fmt])
            read = sum(read_s.values()) if fmt == "all" else read_s[fmt]
            low, high = read / (read + 0.3 * pool_n or 1), read / (read + 0.2 * pool_n or 1)
            print(f"{fmt:7} {n:>5} {pool_n:>6} {read:>10.2f} {1000 * read / max(pool_n, 1):>9.1f} "
                  f"{low:>10.1%} - {high:.1%}")
        return

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
        started = time.process_time()
        if sample:
            embedder.embed_passages([c.embedding_text() for c in sample])
        per_chunk = (time.process_time() - started) / max(len(sample), 1)
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
