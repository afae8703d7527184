"""The embedded index from 1k to 1M chunks: latency against the NumPy exact-scan floor, recall, RSS, open.

    python scripts/bench_scale.py --chunks 1000 10000 100000 1000000 [--rounds 2] [--queries 100] [--warmup 3]
                                  [--neighbours 1]

Corpus: `--chunks` synthetic chunks of 12 words from a 5,000-word vocabulary (no near-duplicates),
vectors precomputed (not embedded): 2,000 random unit centres and each chunk a centre plus Gaussian
noise, renormalised, so neighbourhoods are dense as in real embeddings. Queries are chunk vectors plus
noise, with three of the chunk's words as text. The index is bulk-loaded into the tables docbot's
write path fills (chunks with term counts, chunks_vec; the FTS5 table, which no query reads, is left
empty), then `flush()` writes the snapshot files once, as an index run does.

Each figure runs in a fresh process, alternating floor / docbot for `--rounds` rounds:
  floor    NumPy over an in-memory float32 matrix of the same vectors: one product + argpartition for
           the top 10, single-threaded (what any exact in-process search must at least pay)
  docbot   SqliteSearchIndex.candidates() as the retriever calls it (40 candidates a side): Kiwi
           analysis, BM25 over the postings, sign-bit scan (above 50k chunks) with exact rescoring of
           the shortlist, chunk rows fetched from SQLite; open = constructor + first snapshot (mapped);
           RSS after the queries (VmRSS, with its anonymous and file-backed parts)
Before the timed queries, `--warmup` other queries (another seed: other chunks, other words) run
untimed: 3 by default (a process that has just opened the index), a few hundred for a process that
has served a while (Snowball stems and chunk rows it has seen are remembered; see docs/performance.md).
Reported per round: p50/p95 ms of each (wall clock, and CPU time of the calling thread: on a shared
machine the CPU figure is what the query costs, the wall figure what the load adds), docbot / floor
ratios, recall@10 of docbot's nearest chunks against the exact top 10, open seconds, RSS MB. Load
average is printed with each figure. Built corpora stay under --work (`index-N.done` marks one
finished), so a rerun only measures.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import docbot  # noqa: E402, F401  (the threading policy, before NumPy loads: the floor runs on one thread too)

# isort: split
import numpy as np  # noqa: E402

DIM, WORDS, CENTRES, TOP = 384, 5000, 2000, 10


def vocabulary() -> list[str]:
    """Pronounceable lowercase words Kiwi tags as foreign words (SL) and Snowball leaves alone."""
    rng = np.random.default_rng(1)
    consonants, vowels = list("bcdfgklmnprstvz"), list("aeiou")
    words: dict[str, None] = {}
    while len(words) < WORDS:
        words["".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(3))] = None
    return list(words)


def corpus_vectors(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(CENTRES, DIM)).astype(np.float32)
    out = np.empty((n, DIM), np.float32)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        block = centres[rng.integers(0, CENTRES, stop - start)] + rng.normal(0, 0.6, (stop - start, DIM)).astype(np.float32)
        out[start:stop] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def corpus_words(n: int) -> np.ndarray:
    return np.random.default_rng(8).integers(0, WORDS, (n, 12))


def queries(vectors: np.ndarray, words: np.ndarray, count: int, seed: int = 9):
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(vectors), count)
    q = vectors[picks] + rng.normal(0, 0.03, (count, DIM)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    vocab = vocabulary()
    return [(" ".join(vocab[w] for w in words[p][:3]), q[i]) for i, p in enumerate(picks)]


def build(path: Path, n: int) -> dict:
    """Bulk-load n chunks into the index tables, then write the snapshot files (flush)."""
    from rag.index import postings
    from rag.index.embedded import SqliteSearchIndex
    from rag.text.analysis import Analyzer

    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    vocab = vocabulary()
    keys = np.array([int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little") for w in vocab], np.uint64)
    vectors, words = corpus_vectors(n), corpus_words(n)
    started = time.perf_counter()
    index = SqliteSearchIndex(path, Analyzer())
    index.bind_model("bench/random", DIM)
    db = index._db
    db.execute("BEGIN")
    for start in range(0, n, 10_000):
        rows, vecs = [], []
        for i in range(start, min(n, start + 10_000)):
            uniq, counts = np.unique(words[i], return_counts=True)
            entries = np.zeros(len(uniq), postings.ENTRY)
            entries["key"], entries["body"] = keys[uniq], counts
            entries.sort(order="key")
            rows.append((i + 1, "/bench", f"f{i // 50}.md", i % 50, "", "", " ".join(vocab[w] for w in words[i]), "en", "*",
                         entries.tobytes()))
            vecs.append((i + 1, vectors[i].tobytes()))
        db.executemany("INSERT INTO chunks (id, source, path, ordinal, title, heading, text, langs, channels, terms) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
        db.executemany("INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)", vecs)
    index._renew_generation()
    db.execute("COMMIT")
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    index.flush()
    snapshot_seconds = time.perf_counter() - started
    index.close()
    return {"bulk_load_s": round(loaded, 1), "first_snapshot_s": round(snapshot_seconds, 1)}


def prepare(path: Path) -> dict:
    from rag.index.embedded import SqliteSearchIndex
    from rag.text.analysis import Analyzer

    started = time.perf_counter()
    index = SqliteSearchIndex(path, Analyzer())
    index.flush()
    index.close()
    return {"migrate_and_snapshot_s": round(time.perf_counter() - started, 1)}


def rss() -> dict:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    mb = {k: round(int(fields[k].split()[0]) / 1024) for k in ("VmRSS", "RssAnon", "RssFile") if k in fields}
    return mb


def run_floor(path: Path, n: int, count: int) -> dict:
    vectors = corpus_vectors(n)
    qs = queries(vectors, corpus_words(n), count)
    times, cpu = [], []
    for _, q in qs[:3]:
        vectors @ q
    for _, q in qs:
        started, thread = time.perf_counter(), time.thread_time()
        scores = vectors @ q
        top = np.argpartition(-scores, TOP)[:TOP]
        top[np.argsort(-scores[top])]
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - thread) * 1000)
    return {**percentiles(times), **percentiles(cpu, "cpu_")}


def percentiles(values: list[float], prefix: str = "") -> dict:
    return {f"{prefix}p50_ms": round(float(np.percentile(values, 50)), 3),
            f"{prefix}p95_ms": round(float(np.percentile(values, 95)), 3)}


def run_docbot(path: Path, n: int, count: int, warmup: int = 3) -> dict:
    from rag.index.embedded import SqliteSearchIndex
    from rag.index.port import SearchQuery
    from rag.text.analysis import Analyzer

    analyzer = Analyzer()
    analyzer.terms("warm up 준비")  # Kiwi loaded before the clock starts: its memory is reported apart
    kiwi_rss = rss()
    started = time.perf_counter()
    index = SqliteSearchIndex(path, analyzer)
    snapshot = index._current()
    opened = time.perf_counter() - started
    vectors, words = corpus_vectors(n), corpus_words(n)
    qs, warm = queries(vectors, words, count), queries(vectors, words, warmup, seed=10)
    exact = []
    for _, q in qs:
        scores = vectors @ q
        top = np.argpartition(-scores, TOP)[:TOP]
        exact.append(set((top + 1).tolist()))  # chunk ids are row + 1
    del vectors
    for text, q in warm:
        index.candidates(SearchQuery(text, q, TOP), 40)
    times, cpu, recalls = [], [], []
    for (text, q), truth in zip(qs, exact):
        started, thread = time.perf_counter(), time.thread_time()
        found = index.candidates(SearchQuery(text, q, TOP), 40)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - thread) * 1000)
        recalls.append(len(set(found.nearest["en"][:TOP]) & truth) / TOP)
    return {**percentiles(times), **percentiles(cpu, "cpu_"),
            "recall_at_10": round(float(np.mean(recalls)), 4), "open_s": round(opened, 3),
            "sign_bits": not snapshot.exact_scan, "rss_mb": rss(), "rss_mb_after_kiwi_before_open": kiwi_rss}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=3, help="untimed queries (other ones) docbot answers first")
    parser.add_argument("--neighbours", type=int, default=0,
                        help="CPU-bound processes spinning beside each floor and docbot measurement")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "docbot-bench-scale")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        path = args.work / f"index-{args.n}.sqlite3"
        result = {"floor": run_floor, "docbot": lambda p, n, c: run_docbot(p, n, c, args.warmup),
                  "build": lambda p, n, c: build(p, n),
                  "prepare": lambda p, n, c: prepare(p)}[args.worker](
            path, args.n, args.queries)
        print(json.dumps(result))
        return

    args.work.mkdir(parents=True, exist_ok=True)
    report = {}
    for n in args.chunks:
        figure: dict = {"rounds": []}
        done = args.work / f"index-{n}.done"
        if not done.exists():
            figure["build"] = worker(args, "build", n)
            done.write_text(json.dumps(figure["build"]))
        else:
            figure["build"] = json.loads(done.read_text())
        # An index built by an older docbot is migrated and its snapshot files written here, once, so the
        # rounds time what a serving process pays on an index an index run left behind.
        figure["prepare"] = worker(args, "prepare", n)
        for round_ in range(args.rounds):
            order = ["floor", "docbot"] if round_ % 2 == 0 else ["docbot", "floor"]
            one = {name: worker(args, name, n, args.neighbours) for name in order}
            one["p50_ratio"] = round(one["docbot"]["p50_ms"] / one["floor"]["p50_ms"], 2)
            one["p95_ratio"] = round(one["docbot"]["p95_ms"] / one["floor"]["p95_ms"], 2)
            one["cpu_p50_ratio"] = round(one["docbot"]["cpu_p50_ms"] / one["floor"]["cpu_p50_ms"], 2)
            one["cpu_p95_ratio"] = round(one["docbot"]["cpu_p95_ms"] / one["floor"]["cpu_p95_ms"], 2)
            one["overhead_cpu_p50_ms"] = round(one["docbot"]["cpu_p50_ms"] - one["floor"]["cpu_p50_ms"], 3)
            one["load_average"] = round(os.getloadavg()[0], 1)
            one["neighbours"] = args.neighbours
            figure["rounds"].append(one)
            print(f"{n}: {json.dumps(one)}", file=sys.stderr, flush=True)
        report[str(n)] = figure
    print(json.dumps(report, indent=2))


def worker(args, name: str, n: int, neighbours: int = 0) -> dict:
    command = [sys.executable, __file__, "--worker", name, "--n", str(n), "--queries", str(args.queries),
               "--warmup", str(args.warmup), "--work", str(args.work)]
    # CPU-bound neighbours (as scripts/bench_contention.py runs them) beside this measurement only.
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(neighbours)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    finally:
        for proc in spinning:
            proc.kill()
            proc.wait()
    if done.returncode:
        raise SystemExit(f"{name} at {n} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
