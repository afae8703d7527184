"""Retrieval latency of the embedded index: BM25 + in-memory vectors + the one ranker.

Builds an index of N chunks from the handbook's real text and real e5 vectors: every handbook
chunk once, then perturbed copies (its sentences shuffled, its vector plus small Gaussian noise,
renormalised), so building 10,000 chunks takes seconds instead of an hour of embedding.
Queries are the dev conversations' user turns; query embedding is timed separately.

    python scripts/bench_retrieval.py --chunks 10000
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.analysis import Analyzer  # noqa: E402
from rag.chunking import OverlapChunker, sentences  # noqa: E402
from rag.documents import Chunk  # noqa: E402
from rag.embedded_index import SqliteSearchIndex  # noqa: E402
from rag.embeddings import E5Embedder  # noqa: E402
from rag.loaders import load, supported  # noqa: E402
from rag.ranking import Ranker  # noqa: E402
from rag.search_index import FileRecord, SearchQuery  # noqa: E402

PER_FILE = 10


def handbook_chunks(embedder) -> tuple[list[Chunk], np.ndarray]:
    """Every handbook chunk with its real passage vector."""
    chunker = OverlapChunker(900, 150)
    chunks = [c for path in sorted((ROOT / "samples" / "handbook").iterdir()) if supported(path)
              for c in chunker.chunk(load(path.name, path.read_bytes()))]
    return chunks, embedder.embed_passages([c.embedding_text() for c in chunks])


def synthetic(chunks: list[Chunk], vectors: np.ndarray, total: int, rng: random.Random):
    """`total` chunks: the originals, then perturbed copies, grouped into files of PER_FILE."""
    noise = np.random.default_rng(7)
    out = []
    for n in range(total):
        base = n % len(chunks)
        chunk, vector = chunks[base], vectors[base]
        if n >= len(chunks):
            parts = sentences(chunk.text)
            rng.shuffle(parts)
            chunk = Chunk(chunk.path, 0, chunk.title, chunk.heading, " ".join(parts))
            vector = vector + noise.normal(0, 0.02, vector.shape).astype(np.float32)
            vector /= np.linalg.norm(vector)
        out.append((chunk, vector))
    return out


def build(index, items) -> None:
    for f in range(0, len(items), PER_FILE):
        group = items[f : f + PER_FILE]
        path = f"f{f // PER_FILE}.md"
        chunks = [Chunk(path, n, c.title, c.heading, c.text) for n, (c, _) in enumerate(group)]
        vectors = np.vstack([v for _, v in group]).astype(np.float32)
        index.replace_file("/bench", FileRecord(path, path, chunks[0].title, len(chunks)), chunks, vectors)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    analyzer, embedder = Analyzer(), E5Embedder()
    chunks, vectors = handbook_chunks(embedder)
    turns = [t["user"] for line in (ROOT / "eval" / "dev.jsonl").read_text().splitlines()
             for t in json.loads(line)["turns"]]
    queries = [turns[i % len(turns)] for i in range(args.queries)]
    query_vectors = {q: embedder.embed_query(q) for q in set(queries)}
    ranker = Ranker()
    with tempfile.TemporaryDirectory() as tmp:
        index = SqliteSearchIndex(Path(tmp) / "bench.sqlite3", analyzer)
        index.bind_model(embedder.name, embedder.dim)
        started = time.perf_counter()
        build(index, synthetic(chunks, vectors, args.chunks, rng))
        built = time.perf_counter() - started
        ranker.rank(index.candidates(SearchQuery(queries[0], query_vectors[queries[0]], 5), 40), 5)  # warm
        times = []
        for q in queries:
            t0 = time.perf_counter()
            ranker.rank(index.candidates(SearchQuery(q, query_vectors[q], 5), 40), 5)
            times.append((time.perf_counter() - t0) * 1000)
        stats = index.stats()
        index.close()
    pct = lambda xs, p: round(float(np.percentile(xs, p)), 1)  # noqa: E731
    print(json.dumps({"chunks": stats["chunks"], "queries": len(queries), "write_seconds": round(built, 1),
                      "search_ms": {"p50": pct(times, 50), "p95": pct(times, 95),
                                    "mean": round(statistics.mean(times), 1)}}, indent=2))


if __name__ == "__main__":
    main()
