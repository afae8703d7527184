"""The index write path against embedding, and Kiwi's memory against its smaller configurations.

    python scripts/bench_write_path.py [--chunks 120] [--rounds 2]

1. Write path: the handbook's chunks (900 characters, as `docbot index` cuts them) are embedded with
   e5 (docbot's indexing threads) and written with `replace_file` (Kiwi analysis of title and body,
   term counts, the chunk and vector rows in one transaction per file). Each part is timed apart in
   the same process, alternating which runs first per round; reported: seconds per chunk for
   embedding, analysis and storage, and analysis + storage as a share of embedding (target <= 10%).
2. Kiwi memory: a fresh process per configuration loads Kiwi, analyses the handbook, and reports its
   RSS growth and whether its index terms equal the default configuration's (a different term list
   would change BM25 and so search quality).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import docbot  # noqa: E402, F401  (the threading policy, before NumPy loads)

CONFIGS = {
    "default": {},
    "no typo dictionary": {"load_typo_dict": False},
    "no multi-word dictionary": {"load_multi_dict": False},
    "no typo or multi-word dictionary": {"load_typo_dict": False, "load_multi_dict": False},
    "no dictionaries": {"load_typo_dict": False, "load_multi_dict": False, "load_default_dict": False},
}


def handbook_chunks():
    from rag.ingest.chunking import OverlapChunker
    from rag.ingest.loaders import load, supported

    chunker = OverlapChunker(900, 150)
    folder = ROOT / "samples" / "handbook"
    return [c for p in sorted(folder.iterdir()) if supported(p) for c in chunker.chunk(load(p.name, p.read_bytes()))]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def kiwi_worker(name: str) -> dict:
    import warnings

    from kiwipiepy import Kiwi

    texts = [c.text for c in handbook_chunks()]
    before = rss_mb()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        kiwi = Kiwi(num_workers=0, **CONFIGS[name])
    started = time.perf_counter()
    tokens = [[(t.form, t.tag) for t in kiwi.tokenize(text)] for text in texts]
    seconds = time.perf_counter() - started
    return {"rss_mb": round(rss_mb() - before), "analyse_s": round(seconds, 2), "tokens": tokens}


def write_path(chunks, rounds: int) -> dict:
    import tempfile

    import numpy as np

    from docbot import threads
    from rag.documents import Chunk
    from rag.index.embedded import SqliteSearchIndex
    from rag.index.port import FileRecord
    from rag.models.embeddings import E5Embedder
    from rag.text.analysis import Analyzer

    embedder = E5Embedder(passage_threads=threads.INDEX_THREADS)
    analyzer = Analyzer(workers=threads.KIWI_WORKERS)
    embedder.embed_passages(["warm up"])
    analyzer.terms("준비 warm up")
    results = []
    for round_ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            index = SqliteSearchIndex(Path(tmp) / "index.sqlite3", analyzer)
            index.bind_model(embedder.name, embedder.dim)
            def embed():
                return embedder.embed_passages([c.embedding_text() for c in chunks])

            def analyse():
                analyzer.terms_many(f"{c.title} {c.heading}" for c in chunks)
                analyzer.terms_many(c.text for c in chunks)

            timings = {}
            for part, work in ([("embed", embed), ("analyse", analyse)] if round_ % 2 == 0
                               else [("analyse", analyse), ("embed", embed)]):
                started = time.perf_counter()
                out = work()
                timings[part] = time.perf_counter() - started
                if part == "embed":
                    vectors = out
            started = time.perf_counter()  # replace_file analyses again: storage = its time minus analysis
            for n, chunk in enumerate(chunks):
                path = f"f{n}.md"
                index.replace_file("/bench", FileRecord(path, path, chunk.title, 1),
                                   [Chunk(path, 0, chunk.title, chunk.heading, chunk.text)], np.asarray(vectors[n : n + 1]))
            index.flush()
            timings["storage"] = max(0.0, time.perf_counter() - started - timings["analyse"])
            index.close()
        per = {k: round(v / len(chunks) * 1000, 1) for k, v in timings.items()}
        results.append({"ms_per_chunk": per,
                        "write_share_of_embedding": round((timings["analyse"] + timings["storage"]) / timings["embed"], 3)})
    return {"chunks": len(chunks), "rounds": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kiwi-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.kiwi_worker:
        print(json.dumps(kiwi_worker(args.kiwi_worker)))
        return
    import os

    report: dict = {"load_average_at_start": round(os.getloadavg()[0], 1),
                    "write_path": write_path(handbook_chunks()[: args.chunks], args.rounds), "kiwi": {}}
    reference = None
    for name in CONFIGS:
        done = subprocess.run([sys.executable, __file__, "--kiwi-worker", name], capture_output=True, text=True,
                              check=True, cwd=ROOT)
        figure = json.loads(done.stdout.strip().splitlines()[-1])
        tokens = figure.pop("tokens")
        reference = reference if reference is not None else tokens
        changed = sum(a != b for a, b in zip(tokens, reference))
        report["kiwi"][name] = {**figure, "chunks_analysed_differently": changed, "of": len(tokens)}
        print(name, report["kiwi"][name], file=sys.stderr, flush=True)
    report["load_average_at_end"] = round(os.getloadavg()[0], 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
