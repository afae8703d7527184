"""Indexing throughput: first index of N files, then a re-run with nothing changed.

    python scripts/bench_reindex.py [--files 1000]

Files are Markdown documents made from the bundled handbook's sentences (a title and
4-8 sentences each, about 500-900 characters, one or two chunks), written to a temporary
folder and indexed by the real job (lease, run record, Kiwi, e5, SQLite). The re-run must
embed nothing; the script counts the passages the embedder was asked for.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.indexing import IndexJob  # noqa: E402
from bot.storage import Store  # noqa: E402
from rag.index.embedded import SqliteSearchIndex  # noqa: E402
from rag.index.indexer import Indexer  # noqa: E402
from rag.ingest.chunking import OverlapChunker, sentences  # noqa: E402
from rag.ingest.loaders import load, supported  # noqa: E402
from rag.ingest.sources import FolderSource  # noqa: E402
from rag.models.embeddings import E5Embedder  # noqa: E402
from rag.text.analysis import Analyzer  # noqa: E402


def corpus_sentences() -> list[tuple[str, str]]:
    """(document title, sentence) for every handbook sentence longer than 15 characters."""
    out = []
    for path in sorted((ROOT / "samples" / "handbook").iterdir()):
        if supported(path):
            doc = load(path.name, path.read_bytes())
            out += [(doc.title, s) for sec in doc.sections for s in sentences(sec.text) if len(s) > 15]
    return out


class Counting(E5Embedder):
    """The real embedder, counting passages."""

    passages = 0

    def embed_passages(self, texts):
        Counting.passages += len(texts)
        return super().embed_passages(texts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(11)
    pool = corpus_sentences()
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for n in range(args.files):
            picks = rng.sample(pool, rng.randint(4, 8))
            body = " ".join(s for _, s in picks)
            (docs / f"doc-{n:04d}.md").write_text(f"# {picks[0][0]} {n}\n\n{body}\n", encoding="utf-8")
        embedder = Counting()
        indexer = Indexer(SqliteSearchIndex(Path(tmp) / "index.sqlite3", Analyzer()), embedder,
                          OverlapChunker(900, 150), "overlap:900:150")
        job = IndexJob(Store(f"sqlite:///{tmp}/docbot.sqlite3"), indexer, [FolderSource(docs, "bench")])
        started = time.perf_counter()
        first = job.run("cli")
        first_s = time.perf_counter() - started
        embedded_first, Counting.passages = Counting.passages, 0
        started = time.perf_counter()
        second = job.run("cli")
        second_s = time.perf_counter() - started
        print(json.dumps({
            "files": args.files,
            "first_run": {"seconds": round(first_s, 1), "files_per_second": round(first.added / first_s, 1),
                          "chunks": first.chunks, "embedded": embedded_first},
            "unchanged_rerun": {"seconds": round(second_s, 2), "unchanged": second.unchanged,
                                "embedded": Counting.passages},
        }, indent=2))


if __name__ == "__main__":
    main()
