"""Shared fixtures: the real Kiwi analyzer, the real e5 model, a real SQLite index of the handbook."""
from __future__ import annotations

import shutil
import socket
import uuid
from pathlib import Path

import numpy as np
import pytest

from bot.actions import ActionService
from bot.conversation import ConversationService
from bot.storage import Store
from rag.answer.answerers import ExtractiveAnswerer
from rag.index.embedded import SqliteSearchIndex
from rag.index.indexer import Indexer
from rag.ingest.chunking import OverlapChunker
from rag.models.embeddings import E5Embedder
from rag.pipeline import Pipeline
from rag.retrieve.retriever import Retriever
from rag.text.analysis import Analyzer
from rag.understand.intent import ClassifierRouter
from rag.understand.rewrite import OfflineRewriter

ROOT = Path(__file__).resolve().parent.parent
HANDBOOK = ROOT / "samples" / "handbook"
PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


class CountingEmbedder:
    """The real embedder, counting how many passages it was asked to embed."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.passages = 0

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.passages += len(texts)
        return self.inner.embed_passages(texts)


class PassageMemo:
    """The real embedder, each passage's vector computed once: for a test module that indexes the same files
    in nearly every test to check what the indexer or the job does with them (e5 on them was most of the
    module's CPU). The vectors are e5's own, and a wrapper a test puts above it (counting, failing,
    recording batches) still sees every call. A module opts in with a module-scoped `embedder` fixture."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.vectors: dict[str, np.ndarray] = {}

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.inner.embed_passages(missing)))
        return np.vstack([self.vectors[t] for t in texts])


@pytest.fixture(scope="session")
def analyzer() -> Analyzer:
    return Analyzer()


@pytest.fixture(scope="session")
def embedder() -> E5Embedder:
    return E5Embedder()


@pytest.fixture(scope="session")
def classifier(embedder, tmp_path_factory):
    from rag.understand.intent import IntentClassifier

    return IntentClassifier(embedder, cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture
async def connector():
    """The strict Bot Framework connector stand-in (tests/connector_standin.py), for the Teams tests."""
    from connector_standin import ConnectorStandIn

    standin = await ConnectorStandIn().start()
    yield standin
    await standin.close()


@pytest.fixture
def warm(analyzer, embedder, classifier):
    """Give a Runtime the session's loaded analyzer, model and classifier (building them again costs
    seconds a test; the composition itself is still the Runtime's)."""
    from rag.understand.intent import ClassifierRouter

    def warmed(runtime):
        runtime.__dict__.update(analyzer=analyzer, embedder=embedder, router=ClassifierRouter(classifier, analyzer))
        return runtime

    return warmed


@pytest.fixture
def counting(embedder) -> CountingEmbedder:
    return CountingEmbedder(embedder)


def make_indexer(path, analyzer, embedder, **options) -> Indexer:
    index = SqliteSearchIndex(path, analyzer)
    return Indexer(index, embedder, OverlapChunker(900, 150), "overlap:900:150", **options)


@pytest.fixture(scope="session")
def handbook_indexer(tmp_path_factory, analyzer, embedder) -> Indexer:
    """The bundled handbook indexed once for the whole session (read-only for tests)."""
    indexer = make_indexer(tmp_path_factory.mktemp("hb") / "index.sqlite3", analyzer, embedder)
    report = indexer.run(HANDBOOK)
    assert not report.errors, report.errors
    return indexer


@pytest.fixture
def docs(tmp_path) -> Path:
    """A private copy of a few handbook files that a test may edit."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("deployment-process.md", "vacation-policy.md", "database-options.md", "glossary.txt"):
        shutil.copy(HANDBOOK / name, folder / name)
    return folder


def postgres_reachable() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    """Each storage test runs on SQLite and, when reachable, on PostgreSQL in a private schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'docbot.sqlite3'}"
        return
    yield from postgres_schema()


def postgres_schema():
    """A PostgreSQL URL whose search path is a fresh private schema, dropped afterwards (a generator for
    fixtures); skips the test when no server answers."""
    if not postgres_reachable():
        pytest.skip("PostgreSQL is not reachable on 127.0.0.1:5432")
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:10]}"
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


class RecordingRewriter(OfflineRewriter):
    """The offline rewriter, remembering the history each call saw."""

    seen: list

    async def rewrite(self, question, history):
        self.seen.append((question, [t.text for t in history]))
        return await super().rewrite(question, history)


def build_service(indexer, analyzer, classifier, db_url, handlers=(), lookups=None, threshold=0.65):
    """The conversation service over the real parts, with the given action handlers."""
    rewriter = RecordingRewriter(analyzer)
    rewriter.seen = []
    retriever = Retriever(indexer.index, indexer.embedder, 5)
    pipeline = Pipeline(rewriter, ClassifierRouter(classifier, analyzer), retriever,
                        ExtractiveAnswerer(analyzer, indexer.embedder), analyzer=analyzer, lookups=lookups,
                        threshold=threshold)
    store = Store(db_url)
    svc = ConversationService(store, pipeline, actions=ActionService(store, list(handlers), {"admin"}))
    svc.rewriter = rewriter
    return svc


@pytest.fixture
def service(handbook_indexer, analyzer, classifier, tmp_path):
    return build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'c.sqlite3'}")


def slow_answers(monkeypatch, parts: int, delay: float = 0.05) -> None:
    """Every answer becomes `parts` pieces "part 0. ", "part 1. ", ... one each `delay` seconds."""
    import asyncio

    async def slow_answer(self, prepared, history):
        for n in range(parts):
            await asyncio.sleep(delay)
            yield f"part {n}. "

    monkeypatch.setattr(Pipeline, "answer", slow_answer)


def index_files(tmp_path, analyzer, embedder, files: dict[str, str]) -> Indexer:
    """An index of just these files (name -> text), written under tmp_path/docs; every file must load."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder)
    assert not indexer.run(docs).errors
    return indexer


def service_over(tmp_path, analyzer, embedder, classifier, files: dict[str, str]):
    """The conversation service over an index of just these files (name -> text)."""
    indexer = index_files(tmp_path, analyzer, embedder, files)
    return build_service(indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'x.sqlite3'}")
