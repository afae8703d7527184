"""What one turn costs the model: each distinct text is embedded once, whichever steps need it."""
import numpy as np

from docbot.runtime import Runtime
from docbot.settings import Settings
from rag.understand.rewrite import HistoryTurn


class ModelCalls:
    """The real embedder, recording every text the model is asked to embed."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.queries: list[str] = []
        self.passages: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return self.inner.embed_query(text)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        self.queries += texts
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.passages += texts
        return self.inner.embed_passages(texts)


async def test_a_follow_up_embeds_each_of_its_texts_once(tmp_path, docs, analyzer, embedder):
    runtime = Runtime(Settings(data_dir=tmp_path / "data", docs=[docs], _env_file=None))
    calls = ModelCalls(embedder)
    runtime.__dict__.update(analyzer=analyzer, embedder=calls)
    runtime.indexer.run(docs)
    pipeline = runtime.pipeline
    calls.queries.clear()

    first = "배포 절차 알려줘"
    prepared = await pipeline.prepare(first, [])
    answer = "".join([piece async for piece in pipeline.answer(prepared, [])])
    history = [HistoryTurn("user", first, rewritten=prepared.rewrite.text, intent=prepared.route.intent),
               HistoryTurn("assistant", answer, [h.chunk.title for h in prepared.hits],
                           [h.chunk.path for h in prepared.hits])]
    follow_up = await pipeline.prepare("그럼 승인은 누가 해?", history)
    assert follow_up.searched and follow_up.rewrite.text != "그럼 승인은 누가 해?"
    "".join([piece async for piece in pipeline.answer(follow_up, history)])

    # The classifier, the search and the extractive answer all ask for the message and its rewrite.
    assert sorted(calls.queries) == sorted(set(calls.queries))
    assert {first, "그럼 승인은 누가 해?", follow_up.rewrite.text} <= set(calls.queries)
