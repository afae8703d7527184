"""docbot's hybrid search beside its peers at their best, with the NumPy exact scan as the floor.

    python scripts/bench_peers.py --chunks 10000 100000 [--rounds 3] [--queries 100]
        [--systems floor docbot hnswlib+bm25s usearch+bm25s usearch+tantivy lancedb]

Peers need `pip install -e ".[bench]"`. The corpus is `scripts/bench_scale.py`'s (synthetic chunks of
12 words from a 5,000-word vocabulary, vectors clustered around 2,000 centres; no near-duplicates) and
docbot searches the index that script builds under `--scale-work` (built here when missing).

Every system does the same work per query, as a user would set it up at its best:
  vector side   the 40 nearest chunks by cosine (k=40 for every system)
  keyword side  the 40 best BM25 matches of the query's words
  rows          the text of every chunk either side returned
  floor         NumPy float32 product over an in-memory matrix + argpartition, one thread: the vector
                side only, exact (what any in-process search pays at least)
  docbot        SqliteSearchIndex.candidates(query, 40): Kiwi/Snowball analysis, BM25 over the
                postings, the vector side (exact product up to 50k chunks, sign bits + exact rescoring
                above), chunk rows, background statistics
  hnswlib+bm25s HNSW (M 16, ef_construction 200, ef `--ef`) + bm25s (NumPy scores + argpartition,
                its own tokenizer) + texts from a Python list
  usearch+bm25s usearch HNSW (f32, connectivity 16, expansion_add 128, expansion_search `--ef`) + bm25s
  usearch+tantivy  the same vectors + tantivy's BM25 (Rust), texts stored in tantivy
  lancedb       one table (id, text, vector) with an IVF_PQ vector index (nprobes `--nprobes`,
                refine_factor 10) and its native full-text index; `select(["id", "text"])`

Query-time threads: one for docbot, the floor, hnswlib and usearch (docbot.threads; the peers'
`threads=1`), LanceDB's own pools as it ships (its CPU per query is reported beside its latency).
Each system runs in a fresh process per round, the order rotating between rounds; indexes are built
once per size under `--work` and reused. Reported per round: p50/p95 wall ms, CPU ms per query
(the process's user + system time over the timed queries: robust to the machine's other load), the
ratio of p50 to the floor's p50 in the same round, and recall@10 of the vector side's top 10 against
the exact top 10. Load average is printed with each figure.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import docbot  # noqa: E402, F401  (the threading policy before NumPy loads, for every system alike)

# isort: split
import bench_scale  # noqa: E402
import numpy as np  # noqa: E402

K, TOP = 40, 10
SYSTEMS = ["floor", "docbot", "hnswlib+bm25s", "usearch+bm25s", "usearch+tantivy", "lancedb"]


def corpus(n: int):
    vectors, words = bench_scale.corpus_vectors(n), bench_scale.corpus_words(n)
    vocab = bench_scale.vocabulary()
    texts = [" ".join(vocab[w] for w in row) for row in words]
    return vectors, words, texts


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Floor:
    def __init__(self, work: Path, n: int, vectors, texts, args):
        self.vectors = vectors

    def query(self, text: str, q: np.ndarray):
        scores = self.vectors @ q
        top = np.argpartition(-scores, K)[:K]
        return top[np.argsort(-scores[top])].tolist(), [], []


class Docbot:
    def __init__(self, work: Path, n: int, vectors, texts, args):
        from rag.index.embedded import SqliteSearchIndex
        from rag.index.port import SearchQuery
        from rag.text.analysis import Analyzer

        path = args.scale_work / f"index-{n}.sqlite3"
        if not (args.scale_work / f"index-{n}.done").exists():
            args.scale_work.mkdir(parents=True, exist_ok=True)
            (args.scale_work / f"index-{n}.done").write_text(json.dumps(bench_scale.build(path, n)))
        self.index, self.make = SqliteSearchIndex(path, Analyzer()), SearchQuery

    def query(self, text: str, q: np.ndarray):
        found = self.index.candidates(self.make(text, q, TOP), K)
        rows = [c.chunk.text for c in found.chunks.values()]
        return [i - 1 for i in found.nearest["en"]], [i - 1 for i, _ in found.keyword], rows  # ids are rows + 1


class BM25s:
    """bm25s at its fastest for one query: scores for its tokens, then the top K by argpartition."""

    def __init__(self, folder: Path, texts):
        import bm25s

        if (folder / "bm25s").exists():
            self.retriever = bm25s.BM25.load(str(folder / "bm25s"))
        else:
            self.retriever = bm25s.BM25()
            self.retriever.index(bm25s.tokenize(texts, stopwords=None, show_progress=False), show_progress=False)
            self.retriever.save(str(folder / "bm25s"))
        self.pattern = __import__("re").compile(r"(?u)\b\w\w+\b")  # bm25s.tokenize's own pattern

    def top(self, text: str) -> list[int]:
        tokens = [t for t in self.pattern.findall(text.lower()) if t in self.retriever.vocab_dict]
        if not tokens:
            return []
        scores = self.retriever.get_scores(tokens)
        top = np.argpartition(-scores, K)[:K]
        top = top[np.argsort(-scores[top])]
        return top[scores[top] > 0].tolist()


class Hnswlib:
    def __init__(self, work: Path, n: int, vectors, texts, args):
        import hnswlib

        folder = work / f"hnswlib-{n}"
        folder.mkdir(parents=True, exist_ok=True)
        self.index = hnswlib.Index(space="ip", dim=vectors.shape[1])  # unit vectors: inner product = cosine
        if (folder / "hnsw.bin").exists():
            self.index.load_index(str(folder / "hnsw.bin"), max_elements=n)
        else:
            self.index.init_index(max_elements=n, M=16, ef_construction=200, random_seed=1)
            self.index.add_items(vectors, np.arange(n), num_threads=os.cpu_count() or 1)
            self.index.save_index(str(folder / "hnsw.bin"))
        self.index.set_ef(max(args.ef, K))
        self.index.set_num_threads(1)
        self.keyword, self.texts = BM25s(folder, texts), texts

    def query(self, text: str, q: np.ndarray):
        labels, _ = self.index.knn_query(q, k=K, num_threads=1)
        nearest, keyword = labels[0].tolist(), self.keyword.top(text)
        return nearest, keyword, [self.texts[i] for i in set(nearest) | set(keyword)]


class Usearch:
    def __init__(self, work: Path, n: int, vectors, texts, args, tantivy: bool = False):
        from usearch.index import Index

        folder = work / f"usearch-{n}"
        folder.mkdir(parents=True, exist_ok=True)
        self.index = Index(ndim=vectors.shape[1], metric="cos", dtype="f32", connectivity=16, expansion_add=128,
                           expansion_search=max(args.ef, K))
        if (folder / "index.usearch").exists():
            self.index.load(str(folder / "index.usearch"))
            self.index.expansion_search = max(args.ef, K)
        else:
            self.index.add(np.arange(n), vectors, threads=os.cpu_count() or 1)
            self.index.save(str(folder / "index.usearch"))
        self.texts = texts
        self.keyword = Tantivy(work / f"tantivy-{n}", texts) if tantivy else BM25s(folder, texts)

    def query(self, text: str, q: np.ndarray):
        nearest = self.index.search(q, K, threads=1).keys.tolist()
        if isinstance(self.keyword, Tantivy):
            keyword, rows = self.keyword.top(text)
            return nearest, keyword, rows + [self.texts[i] for i in set(nearest) - set(keyword)]
        keyword = self.keyword.top(text)
        return nearest, keyword, [self.texts[i] for i in set(nearest) | set(keyword)]


class Tantivy:
    def __init__(self, folder: Path, texts):
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("id", stored=True, indexed=True, fast=True)
        builder.add_text_field("text", stored=True)
        schema = builder.build()
        fresh = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(schema, path=str(folder))
        if fresh:
            writer = self.index.writer(heap_size=100_000_000, num_threads=1)
            for n, text in enumerate(texts):
                writer.add_document(tantivy.Document(id=n, text=text))
            writer.commit()
            writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()

    def top(self, text: str) -> tuple[list[int], list[str]]:
        query = self.index.parse_query_lenient(text, ["text"])[0]
        ids, rows = [], []
        for _, address in self.searcher.search(query, K).hits:
            doc = self.searcher.doc(address)
            ids.append(doc["id"][0])
            rows.append(doc["text"][0])
        return ids, rows


class UsearchTantivy(Usearch):
    def __init__(self, work: Path, n: int, vectors, texts, args):
        super().__init__(work, n, vectors, texts, args, tantivy=True)


class Lance:
    def __init__(self, work: Path, n: int, vectors, texts, args):
        import lancedb
        import pyarrow as pa

        db = lancedb.connect(str(work / f"lancedb-{n}"))
        if "chunks" in db.table_names():
            self.table = db.open_table("chunks")
        else:
            data = pa.table({"id": pa.array(np.arange(n)), "text": pa.array(texts),
                             "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1])})
            self.table = db.create_table("chunks", data)
            partitions = max(1, int(np.sqrt(n)))
            self.table.create_index(metric="cosine", index_type="IVF_PQ", num_partitions=partitions,
                                    num_sub_vectors=vectors.shape[1] // 8)
            self.table.create_fts_index("text", use_tantivy=False)
        self.nprobes = args.nprobes

    def query(self, text: str, q: np.ndarray):
        near = (self.table.search(q).metric("cosine").nprobes(self.nprobes).refine_factor(10).limit(K)
                .select(["id", "text"]).to_list())
        words = (self.table.search(text, query_type="fts").limit(K).select(["id", "text"]).to_list())
        return [r["id"] for r in near], [r["id"] for r in words], [r["text"] for r in near + words]


CLASSES = {"floor": Floor, "docbot": Docbot, "hnswlib+bm25s": Hnswlib, "usearch+bm25s": Usearch,
           "usearch+tantivy": UsearchTantivy, "lancedb": Lance}


def run(system: str, n: int, args) -> dict:
    vectors, words, texts = corpus(n)
    queries = bench_scale.queries(vectors, words, args.queries)
    truth = []
    for _, q in queries:
        scores = vectors @ q
        truth.append(set(np.argpartition(-scores, TOP)[:TOP].tolist()))
    started = time.perf_counter()
    engine = CLASSES[system](args.work, n, vectors, texts, args)
    opened = time.perf_counter() - started
    if system != "floor":
        del vectors  # only the floor keeps the matrix in memory; the others have their own copies
    for text, q in queries[:5]:
        engine.query(text, q)
    times, recalls, before = [], [], cpu()
    for (text, q), exact in zip(queries, truth):
        started = time.perf_counter()
        nearest, _, _ = engine.query(text, q)
        times.append((time.perf_counter() - started) * 1000)
        recalls.append(len(set(nearest[:TOP]) & exact) / TOP)
    spent = cpu() - before
    return {"p50_ms": round(float(np.percentile(times, 50)), 3), "p95_ms": round(float(np.percentile(times, 95)), 3),
            "cpu_ms_per_query": round(spent / len(times) * 1000, 3), "recall_at_10": round(float(np.mean(recalls)), 4),
            "open_or_build_s": round(opened, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--systems", nargs="+", default=SYSTEMS, choices=SYSTEMS)
    parser.add_argument("--ef", type=int, default=64, help="HNSW search breadth (hnswlib ef, usearch expansion_search)")
    parser.add_argument("--nprobes", type=int, default=20, help="IVF partitions LanceDB probes")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "docbot-bench-peers")
    parser.add_argument("--scale-work", type=Path,
                        default=Path(os.environ.get("TMPDIR", "/tmp")) / "docbot-bench-scale")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.work.mkdir(parents=True, exist_ok=True)
        print(json.dumps(run(args.worker, args.n, args)))
        return
    report: dict = {}
    for n in args.chunks:
        # Builds first (a build is not a round's figure): each system once, in its own process.
        builds = {system: worker(args, system, n)["open_or_build_s"] for system in args.systems}
        print(f"{n} build or open s: {json.dumps(builds)}", file=sys.stderr, flush=True)
        rounds: list = [{"build_or_open_s": builds}]
        for round_ in range(args.rounds):
            shift = round_ % len(args.systems)
            order = args.systems[shift:] + args.systems[:shift]
            one = {system: worker(args, system, n) for system in order}
            if "floor" in one:
                for figure in list(one.values()):
                    figure["p50_over_floor"] = round(figure["p50_ms"] / one["floor"]["p50_ms"], 2)
                    figure["cpu_over_floor"] = round(figure["cpu_ms_per_query"] / one["floor"]["cpu_ms_per_query"], 2)
            one["load_average"] = round(os.getloadavg()[0], 1)
            rounds.append(one)
            print(f"{n} round {round_ + 1}: {json.dumps(one)}", file=sys.stderr, flush=True)
        report[str(n)] = rounds
    print(json.dumps(report, indent=2))


def worker(args, system: str, n: int) -> dict:
    command = [sys.executable, __file__, "--worker", system, "--n", str(n), "--queries", str(args.queries),
               "--ef", str(args.ef), "--nprobes", str(args.nprobes), "--work", str(args.work),
               "--scale-work", str(args.scale_work)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode:
        raise SystemExit(f"{system} at {n} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
