"""The retriever: embed the standalone query and run a hybrid search on the index."""
from __future__ import annotations

from .documents import Hit
from .embeddings import Embedder
from .search_index import SearchIndex, SearchQuery

# Search sees at most this much of a message; a 50k-character paste is not a query.
MAX_QUERY_CHARS = 1000


class Retriever:
    """Embedding plus hybrid search, as one call."""

    def __init__(self, index: SearchIndex, embedder: Embedder, k: int = 5):
        self.index, self.embedder, self.k = index, embedder, k

    def search(self, text: str, k: int | None = None) -> list[Hit]:
        """Top hits for a query text; empty for an empty query."""
        text = text.strip()[:MAX_QUERY_CHARS]
        if not text:
            return []
        vector = self.embedder.embed_query(text)
        return self.index.search(SearchQuery(text, vector, k or self.k))
