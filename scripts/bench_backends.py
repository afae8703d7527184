"""Compare what the two search backends do for one query, and time the embedded one.

    python scripts/bench_backends.py [--queries 200]

Prints, for a dev-set question: the embedded backend's two SQL statements (FTS5 bm25 and
sqlite-vec kNN) and the Elasticsearch backend's `_msearch` bodies (BM25 bool query and a
filtered kNN), as the real code builds them; then p50/p95 of the embedded backend's full
retrieval over the bundled handbook. (Elasticsearch latency depends on the cluster; measure
it against yours with ELASTICSEARCH_URL and `pytest tests/test_search_index.py`.)
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from rag.index.embedded import TITLE_WEIGHT, SqliteSearchIndex  # noqa: E402
from rag.index.indexer import Indexer  # noqa: E402
from rag.index.port import SearchQuery  # noqa: E402
from rag.ingest.chunking import OverlapChunker  # noqa: E402
from rag.models.embeddings import E5Embedder  # noqa: E402
from rag.retrieve.ranking import Ranker  # noqa: E402
from rag.text.analysis import Analyzer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    analyzer, embedder = Analyzer(), E5Embedder()
    question = "그럼 그건 언제 바뀐 거야? 배포 절차"
    query = SearchQuery(question, embedder.embed_query(question), 5)
    terms = sorted(set(analyzer.terms(question)))
    print("== embedded (SQLite tables + memory-mapped snapshot), one process, no SQL search ==")
    print(f"BM25 (FTS5's formula, column weights {TITLE_WEIGHT}:1) over the postings of {terms}")
    print("-> every cosine from one NumPy product over the snapshot's vectors (int8 codes above 50k chunks, "
          "shortlist rescored exactly); the 40 nearest per language; one ranker (rag/retrieve/ranking.py)\n")

    from elasticsearch import AsyncElasticsearch

    from rag.index.elastic import ElasticsearchIndex

    import es_fake

    es = ElasticsearchIndex(lambda: AsyncElasticsearch("http://es.test:9200", node_class=es_fake.FakeNode), analyzer)
    es.bind_model(embedder.name, embedder.dim)
    bm25, knn = es.bodies(query, " ".join(analyzer.terms(question)), 40)
    for body in knn.values():
        body["knn"]["query_vector"] = f"<{len(body['knn']['query_vector'])} floats>"
    print("== Elasticsearch, one _msearch round trip (BM25 + one kNN per language; ranked in the client) ==")
    print(json.dumps({"bm25": bm25, "knn": knn}, ensure_ascii=False, indent=1))
    es.close()

    with tempfile.TemporaryDirectory() as tmp:
        index = SqliteSearchIndex(Path(tmp) / "i.sqlite3", analyzer)
        Indexer(index, embedder, OverlapChunker(900, 150), "o").run(ROOT / "samples" / "handbook")
        turns = [t["user"] for line in (ROOT / "eval" / "dev.jsonl").read_text().splitlines()
                 for t in json.loads(line)["turns"]]
        times = []
        for n in range(args.queries):
            text = turns[n % len(turns)]
            started = time.perf_counter()
            Ranker().rank(index.candidates(SearchQuery(text, embedder.embed_query(text), 5), 40), 5)
            times.append((time.perf_counter() - started) * 1000)
        stats = index.stats()
        index.close()
    print(f"\n== embedded latency over the handbook ({stats['chunks']} chunks, {len(times)} queries, "
          f"embedding included) ==\np50 {np.percentile(times, 50):.1f} ms, p95 {np.percentile(times, 95):.1f} ms")


if __name__ == "__main__":
    main()
