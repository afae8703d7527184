"""One threading policy, set at the entry point: nothing spins, query-time work stays on its thread."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from docbot import threads
from docbot.runtime import Runtime
from docbot.settings import Settings
from rag.models.embeddings import E5Embedder, VectorCache

ROOT = Path(__file__).resolve().parent.parent
POLICY_NAMES = ("OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _python(code: str, **env: str) -> dict:
    """Run `code` in a fresh interpreter (thread pools read their policy once, when they load)."""
    clean = {k: v for k, v in os.environ.items() if k not in POLICY_NAMES}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**clean, **env}, timeout=240, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_docbot_sets_the_policy_before_numpy_loads():
    seen = _python("import sys, os, json, docbot; "
                   "print(json.dumps({'numpy_loaded': 'numpy' in sys.modules, "
                   "**{k: os.environ.get(k) for k in %r}}))" % (POLICY_NAMES,))
    assert seen == {"numpy_loaded": False, "OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_NUM_THREADS": "1",
                    "MKL_NUM_THREADS": "1"}


def test_an_operators_own_values_win():
    seen = _python("import os, json, docbot; print(json.dumps({k: os.environ.get(k) for k in %r}))" % (POLICY_NAMES,),
                   OMP_WAIT_POLICY="ACTIVE", OPENBLAS_NUM_THREADS="4")
    assert seen["OMP_WAIT_POLICY"] == "ACTIVE" and seen["OPENBLAS_NUM_THREADS"] == "4"
    assert seen["MKL_NUM_THREADS"] == "1"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads through /proc")
def test_kiwi_analyses_on_the_calling_thread():
    """The runtime's analyzer starts no Kiwi pool: the process has as many threads after analysing
    (several texts at once, as the index writes them) as before loading Kiwi."""
    seen = _python(
        "import os, json\n"
        "from docbot.runtime import Runtime\n"
        "from docbot.settings import Settings\n"
        "analyzer = Runtime(Settings(_env_file=None)).analyzer\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "terms = analyzer.terms_many(['프로젝트를 배포한다', 'the deployments were approved'])\n"
        "print(json.dumps({'added': len(os.listdir('/proc/self/task')) - before, 'terms': terms}))\n")
    assert seen["added"] == 0
    assert seen["terms"] == [["프로젝트", "배포"], ["deploy", "approv"]]


def test_a_turn_embeds_its_passages_on_the_query_threads(tmp_path, embedder):
    """Indexing may use several threads; the extractive answer's sentences, embedded inside a turn, do not."""
    runtime = Runtime(Settings(data_dir=tmp_path, embed_index_threads=2, _env_file=None))
    runtime.__dict__["embedder"] = E5Embedder(passage_threads=2)
    calls: list[int] = []
    for model in (runtime.embedder, runtime.turn_embedder.inner if isinstance(runtime.turn_embedder, VectorCache)
                  else runtime.turn_embedder):
        model._set_threads = calls.append
    runtime.embedder.embed_passages(["indexing a chunk"])
    turn = runtime.turn_embedder.embed_passages(["a sentence the answer weighs"])
    assert calls == [2, threads.QUERY_THREADS]
    assert np.allclose(turn[0], embedder.embed_passages(["a sentence the answer weighs"])[0], atol=1e-6)


def test_the_default_index_threads_come_from_the_policy():
    assert Settings(_env_file=None).embed_index_threads == threads.INDEX_THREADS
    assert Settings(_env_file=None).embed_query_threads == threads.QUERY_THREADS == 1
