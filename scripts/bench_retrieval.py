"""Retrieval latency on a 10k-chunk embedded index (BM25 + in-memory vectors + the ranker).

    python scripts/bench_retrieval.py [--chunks 10000] [--queries 300]

Chunks are made from the bundled handbook's sentences, recombined at random so the index
holds realistic Korean/English text at the requested size; every chunk is embedded with the
real e5 model (the build takes a few minutes on 2 cores). Queries are the dev set's user
turns. Reports p50/p95 of the full retrieval (query embedding + hybrid search) and of the
search alone, plus the index build rate.
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
from rag.chunking import sentences  # noqa: E402
from rag.documents import Chunk  # noqa: E402
from rag.embedded_index import SqliteSearchIndex  # noqa: E402
from rag.embeddings import E5Embedder  # noqa: E402
from rag.loaders import load, supported  # noqa: E402
from rag.ranking import Ranker  # noqa: E402
from rag.search_index import FileRecord, SearchQuery  # noqa: E402


def corpus_sentences() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "samples" / "handbook").iterdir()):
        if supported(path):
            doc = load(path.name, path.read_bytes())
            out += [(doc.title, s) for sec in doc.sections for s in sentences(sec.text) if len(s) > 15]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    pool = corpus_sentences()
    analyzer, embedder = Analyzer(), E5Embedder()
    with tempfile.TemporaryDirectory() as tmp:
        index = SqliteSearchIndex(Path(tmp) / "bench.sqlite3", analyzer)
        index.bind_model(embedder.name, embedder.dim)
        started = time.perf_counter()
        per_file = 10
        for f in range(args.chunks // per_file):
            picks = [rng.sample(pool, 5) for _ in range(per_file)]
            chunks = [Chunk(f"f{f}.md", n, p[0][0], "", " ".join(s for _, s in p)) for n, p in enumerate(picks)]
            vectors = embedder.embed_passages([c.embedding_text() for c in chunks])
            index.replace_file("/bench", FileRecord(f"f{f}.md", str(f), chunks[0].title, per_file), chunks, vectors)
            if f % 100 == 0:
                print(f"  built {f * per_file} chunks ({time.perf_counter() - started:.0f}s)", file=sys.stderr)
        build = time.perf_counter() - started
        turns = [t["user"] for line in (ROOT / "eval" / "dev.jsonl").read_text().splitlines()
                 for t in json.loads(line)["turns"]]
        queries = [turns[i % len(turns)] for i in range(args.queries)]
        ranker = Ranker()
        full, search_only = [], []
        for q in queries:
            t0 = time.perf_counter()
            vector = embedder.embed_query(q)
            t1 = time.perf_counter()
            ranker.rank(index.candidates(SearchQuery(q, vector, 5), 40), 5)
            t2 = time.perf_counter()
            full.append((t2 - t0) * 1000)
            search_only.append((t2 - t1) * 1000)
        stats = index.stats()
        index.close()
    pct = lambda xs, p: float(np.percentile(xs, p))  # noqa: E731
    print(json.dumps({
        "chunks": stats["chunks"], "queries": len(queries),
        "build_seconds": round(build, 1), "chunks_per_second": round(stats["chunks"] / build, 1),
        "retrieval_ms": {"p50": round(pct(full, 50), 1), "p95": round(pct(full, 95), 1),
                         "mean": round(statistics.mean(full), 1)},
        "search_only_ms": {"p50": round(pct(search_only, 50), 1), "p95": round(pct(search_only, 95), 1)},
    }, indent=2))


if __name__ == "__main__":
    main()
