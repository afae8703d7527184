"""Bulk throughput against the Elasticsearch fake (tests/es_fake.py): per-file writes (three requests a
file, as before issue 29) against bulk across files (three requests a batch). Random unit vectors stand in
for embeddings, so only the write path is measured; the fake does not model network latency, so the
request count is the figure that carries over to a real cluster, the seconds only roughly.

    .venv/bin/python scripts/bench_es_bulk.py [files] [chunks-per-file] [files-per-batch]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from elasticsearch import AsyncElasticsearch  # noqa: E402

from rag.documents import Chunk  # noqa: E402
from rag.index.elastic import ElasticsearchIndex  # noqa: E402
from rag.index.port import FileRecord  # noqa: E402
from rag.text.analysis import Analyzer  # noqa: E402

import es_fake  # noqa: E402

DIM = 384


def files(count: int, chunks: int, rng) -> list[tuple[FileRecord, list[Chunk], np.ndarray]]:
    out = []
    for n in range(count):
        path = f"doc-{n:05}.md"
        vectors = rng.normal(size=(chunks, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        body = [Chunk(path, i, f"Doc {n}", "Section", f"Deployment note {n}.{i}: verify on staging first.")
                for i in range(chunks)]
        out.append((FileRecord(path, f"h{n}", f"Doc {n}", chunks), body, vectors))
    return out


def run(mode: str, work, batch: int, analyzer) -> tuple[float, int]:
    es_fake.CLUSTER.__init__()
    index = ElasticsearchIndex(lambda: AsyncElasticsearch("http://es.test:9200", node_class=es_fake.FakeNode),
                               analyzer)
    index.bind_model("bench", DIM)
    es_fake.CLUSTER.requests.clear()
    started = time.perf_counter()
    if mode == "per-file":
        for record, chunks, vectors in work:
            index.replace_file("/src", record, chunks, vectors)
    else:
        for start in range(0, len(work), batch):
            failed = index.replace_files("/src", work[start:start + batch])
            assert not failed, failed
    index.flush()
    seconds = time.perf_counter() - started
    writes = sum(1 for _, path, _ in es_fake.CLUSTER.requests if path.endswith(("_bulk", "_delete_by_query")))
    index.close()
    return seconds, writes


def main() -> None:
    count, chunks, batch = (int(a) for a in (sys.argv[1:] + ["400", "8", "16"][len(sys.argv[1:]):]))
    analyzer = Analyzer()
    work = files(count, chunks, np.random.default_rng(7))
    print(f"{count} files x {chunks} chunks ({count * chunks} chunks, {DIM} dims), batches of {batch} files")
    for mode in ("per-file", "bulk across files"):
        seconds, writes = run(mode, work, batch, analyzer)
        print(f"{mode:>18}: {writes:5d} write requests, {seconds:6.1f} s, {count * chunks / seconds:7.0f} chunks/s")


if __name__ == "__main__":
    main()
