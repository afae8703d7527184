"""Elasticsearch write cost per index run, against the fake node with real refresh semantics.

    python scripts/bench_es_writes.py [--files 1000] [--old-files 20]

The fake refreshes every `refresh_interval` (1 s, Elasticsearch's default) and a request with
`refresh=wait_for` waits for the next refresh, as a cluster does. "before" replays the request
pattern docbot used to send (two bulk requests per file, each `refresh=wait_for`); "after" is
today's (no per-request refresh, one refresh per run). Vectors are random unit vectors: this
measures writes, not embedding. The before run is short and extrapolated per file.
"""
from __future__ import annotations

import argparse
import json
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


def run(files: int, old: bool, analyzer: Analyzer) -> float:
    es_fake.CLUSTER.__init__()
    index = ElasticsearchIndex(lambda: AsyncElasticsearch("http://es.test:9200", node_class=es_fake.FakeNode),
                               analyzer, korean="kiwi")
    if old:  # the old pattern: every bulk request waits for a refresh
        import elasticsearch.helpers as helpers

        original = helpers.async_bulk

        async def waiting(*args, **kwargs):
            return await original(*args, **{**kwargs, "refresh": "wait_for"})

        helpers.async_bulk = waiting
    try:
        index.bind_model("bench", DIM)
        rng = np.random.default_rng(7)
        started = time.perf_counter()
        for n in range(files):
            chunks = [Chunk(f"f{n}.md", k, f"File {n}", "", f"Note {n} part {k} about deployments") for k in range(3)]
            vectors = rng.normal(size=(3, DIM)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            index.replace_file("/bench", FileRecord(f"f{n}.md", f"h{n}", f"File {n}", 3), chunks, vectors)
        index.flush()
        return time.perf_counter() - started
    finally:
        if old:
            helpers.async_bulk = original
        index.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--old-files", type=int, default=20)
    args = parser.parse_args()
    analyzer = Analyzer()
    before = run(args.old_files, True, analyzer)
    after = run(args.files, False, analyzer)
    print(json.dumps({"before_seconds_per_file": round(before / args.old_files, 3),
                      "before_extrapolated_for_files": round(before / args.old_files * args.files, 1),
                      "after_seconds": round(after, 1), "after_seconds_per_file": round(after / args.files, 4),
                      "files": args.files, "refresh_interval_seconds": 1.0}, indent=2))


if __name__ == "__main__":
    main()
