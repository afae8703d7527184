"""The retriever: embed the standalone query, collect a backend's candidates, rank them once."""
from __future__ import annotations

from collections.abc import Iterable

from rag.documents import Hit
from rag.index.port import SearchIndex, SearchQuery
from rag.models.embeddings import Embedder
from rag.retrieve.ranking import Ranker
from rag.text.bilingual import Bilingual

# Search sees at most this much of a message; a 50k-character paste is not a query.
MAX_QUERY_CHARS = 1000


class Retriever:
    """Embedding, candidate search and ranking, as one call."""

    def __init__(self, index: SearchIndex, embedder: Embedder, k: int = 5, *, ranker: Ranker | None = None,
                 candidates: int = 40, bilingual: Bilingual | None = None):
        self.index, self.embedder, self.k = index, embedder, k
        self.ranker, self.candidates = ranker or Ranker(), candidates
        # Keywords in the other language too (rag.text.bilingual): BM25 alone only matches the query's own.
        self.bilingual = bilingual

    def search(self, text: str, k: int | None = None, prior: Iterable[str] = (),
               channel: str | None = None, principals: frozenset[str] = frozenset()) -> list[Hit]:
        """Top hits visible in `channel` (and to the asker's `principals`, `user:` tokens given in direct
        messages) for a query text (documents in `prior` favoured); empty for an empty query. Visibility is
        filtered by the backend inside the search, never here afterwards."""
        text = text.strip()[:MAX_QUERY_CHARS]
        if not text:
            return []
        k = k or self.k
        keywords = f"{text} {self.bilingual.expand(text)}".strip() if self.bilingual else text
        query = SearchQuery(keywords, self.embedder.embed_query(text), k, channel, frozenset(principals))
        return self.ranker.rank(self.index.candidates(query, max(self.candidates, k)), k, prior)
