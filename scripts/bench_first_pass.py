"""A real handbook's first pass: how soon it answers, how long it takes, and a re-index with nothing changed.

    python scripts/bench_first_pass.py [FOLDER] [--sample 200] [--second-pass 256] [--json out.json]

FOLDER defaults to eval/corpora/sourcegraph/docs (853 pages of a real organisation's handbook), or
samples/handbook where that is absent. The folder is indexed by the real job (lease, run record, Kiwi, e5,
the embedded SQLite index) into a temporary data dir, as `docbot index` does, with the configured settings
(DOCBOT_EMBED_INDEX_THREADS and the rest; only the data dir and DOCBOT_DOCS are set here). Reported:

- first searchable: seconds from the start until the first finished file is found by a search on another
  connection to the index (what a serving process sees), with the pages done by then;
- the whole first pass: wall and CPU seconds (this process, every thread), files, chunks, chunks/s;
- peak RSS of the process;
- a re-index with nothing changed: wall seconds in this process and as a fresh `docbot index` process
  (start-up included), and the passages it embedded (none expected);
- the raw model on the same chunks: `--sample` chunks of the index embedded directly (passages/s, the
  same threads), the first pass's ceiling;
- sentences the first pass listed for the second pass, and the model's rate on `--second-pass` of them
  (sentences/s; the whole second pass is the count over the rate, done while the server is idle).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)

import docbot  # noqa: E402,F401  (the threading policy, before NumPy and the model load)
from docbot.runtime import Runtime  # noqa: E402
from docbot.settings import Settings  # noqa: E402
from rag.index.embedded import SqliteSearchIndex  # noqa: E402
from rag.retrieve.retriever import Retriever  # noqa: E402

DEFAULT = ROOT / "eval" / "corpora" / "sourcegraph" / "docs"
FALLBACK = ROOT / "samples" / "handbook"


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Counting:
    """The indexer's embedder, counting the passages it was asked for (the re-index must ask for none)."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.passages = 0

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        self.passages += len(texts)
        return self.inner.embed_passages(texts)


class HashVectors:
    """Unit vectors from a hash of the text, under the real model's name and size (`--hash-vectors`)."""

    def __init__(self, real):
        self.name, self.dim = real.name, real.dim

    def embed_passages(self, texts):
        import numpy as np

        rows = np.array([np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(self.dim) for t in texts],
                        np.float32).reshape(-1, self.dim)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    embed_queries = embed_passages

    def embed_query(self, text):
        return self.embed_passages([text])[0]

    def at_query_time(self):
        return self


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--sample", type=int, default=200, help="chunks the raw model embeds (passages/s)")
    parser.add_argument("--second-pass", type=int, default=256, help="listed sentences embedded to time the second pass")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--hash-vectors", action="store_true",
                        help="vectors from a hash of the text under e5's name, not e5: for the re-index and "
                             "first-searchable figures of a large folder on a loaded machine (a re-index with "
                             "nothing changed embeds nothing, so its cost does not depend on the vectors)")
    args = parser.parse_args()
    folder = (args.folder or (DEFAULT if DEFAULT.is_dir() else FALLBACK)).resolve()
    data = Path(tempfile.mkdtemp(prefix="docbot-first-pass-"))
    settings = Settings(data_dir=data, docs=[folder], database_url=None, _env_file=None)
    runtime = Runtime(settings)
    print(f"folder: {folder}\ndata dir: {data}\nindex threads: {settings.embed_index_threads}, cores: {os.cpu_count()}",
          flush=True)
    if args.hash_vectors:
        runtime.__dict__["embedder"] = HashVectors(runtime.embedder)
    runtime.analyzer.terms("준비 warm-up")  # Kiwi and the model load before the clock starts, as in a server
    counting = Counting(runtime.embedder)
    runtime.indexer.embedder = counting
    job = runtime.index_job
    job.progress_every = 0.0
    other = SqliteSearchIndex(settings.index_path, runtime.analyzer)  # a serving process's view of the index
    probe = Retriever(other, runtime.turn_embedder, 5)
    first: dict = {}
    written: list[str] = []
    started = time.perf_counter()
    cpu0 = cpu_seconds()

    def on_file(path: str) -> None:
        written.append(path)
        if first or counting.passages == 0:
            return
        title = other.files(job.sources[0].key).get(path)
        if title is None:  # skipped, not written
            return
        hits = probe.search(title.title or Path(path).stem, 5)
        if hits:
            first.update(seconds=round(time.perf_counter() - started, 1), pages_done=len(written), path=path,
                         found=hits[0].chunk.path == path)
            print(f"first searchable after {first['seconds']} s ({path}; top hit {hits[0].chunk.path})", flush=True)

    def report_progress(stop: threading.Event) -> None:
        while not stop.wait(30):
            progress = runtime.store.indexing_progress()
            if progress:
                print(f"  {time.perf_counter() - started:6.0f} s: indexing {progress[0]} of {progress[1]} pages, "
                      f"{counting.passages} chunks embedded", flush=True)

    stop = threading.Event()
    threading.Thread(target=report_progress, args=(stop,), daemon=True).start()
    run = job.run("cli", on_file=on_file)
    stop.set()
    assert run is not None, "another run holds the lease"
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu0
    figures: dict = {
        "vectors": "hash (not e5)" if args.hash_vectors else runtime.embedder.name,
        "load_average_1min_at_end": round(os.getloadavg()[0], 1),
        "folder": str(folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder),
        "index_threads": settings.embed_index_threads, "cores": os.cpu_count(),
        "files_added": run.added, "files_skipped": len(run.errors), "chunks": run.chunks,
        "first_searchable_s": first.get("seconds"), "first_searchable_pages_done": first.get("pages_done"),
        "first_pass_wall_s": round(wall, 1), "first_pass_cpu_s": round(cpu, 1),
        "first_pass_chunks_per_s": round(run.chunks / wall, 2) if wall else None,
    }
    print(json.dumps(figures, indent=1), flush=True)

    counting.passages = 0
    started = time.perf_counter()
    again = job.run("cli")
    assert again is not None
    figures["reindex_unchanged_s"] = round(time.perf_counter() - started, 2)
    figures["reindex_unchanged_embedded"] = counting.passages
    figures["reindex_unchanged_files"] = again.unchanged
    # The same as a scheduled or scripted `docbot index` runs it: a fresh process, start-up included.
    env = {**os.environ, "DOCBOT_DATA_DIR": str(data), "DOCBOT_DOCS": json.dumps([str(folder)])}
    started, children = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "docbot", "index"], env=env, capture_output=True, text=True)
    figures["reindex_unchanged_cli_s"] = round(time.perf_counter() - started, 2)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures["reindex_unchanged_cli_cpu_s"] = round(after.ru_utime + after.ru_stime - children.ru_utime
                                                   - children.ru_stime, 2)
    if done.returncode != 0 or " 0 embedded" not in done.stdout:
        print(f"docbot index (unchanged) said:\n{done.stdout}{done.stderr}", flush=True)

    model = runtime.embedder
    if args.sample and not args.hash_vectors:
        from rag.documents import Chunk

        rows = other._db.execute("SELECT path, ordinal, title, heading, text FROM chunks ORDER BY random() LIMIT ?",
                                 (args.sample,)).fetchall()
        texts = [Chunk(*r).embedding_text() for r in rows]
        started, cpu0 = time.perf_counter(), cpu_seconds()
        model.embed_passages(texts)
        raw_wall = time.perf_counter() - started
        figures["raw_model_passages_per_s"] = round(len(texts) / raw_wall, 2)
        figures["raw_model_cpu_s_per_passage"] = round((cpu_seconds() - cpu0) / len(texts), 4)
        figures["first_pass_share_of_raw"] = round(figures["first_pass_chunks_per_s"]
                                                   / figures["raw_model_passages_per_s"], 2)

    store = runtime.sentence_vectors
    if store is not None:
        figures["sentences_listed"] = store.wanted_count()
        sample = store.wanted(args.second_pass) if not args.hash_vectors else []
        if sample:
            started = time.perf_counter()
            model.embed_passages(sample)
            rate = len(sample) / (time.perf_counter() - started)
            figures["second_pass_sentences_per_s"] = round(rate, 1)
            figures["second_pass_estimate_s"] = round(figures["sentences_listed"] / rate)
    figures["peak_rss_mb"] = round(peak_rss_mb())
    print(json.dumps(figures, indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    other.close()
    runtime.close()


if __name__ == "__main__":
    main()
