"""The retriever: embed the standalone query, collect a backend's candidates, rank them once."""
from __future__ import annotations

from collections.abc import Hashable, Iterable

from rag.documents import Hit
from rag.index.port import Candidates, SearchIndex, SearchQuery
from rag.models.embeddings import Embedder
from rag.retrieve.ranking import Ranker
from rag.text.bilingual import Bilingual, Senses, concepts_said, keywords
from rag.understand.earlier import asks_for_an_earlier_version

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
        senses = self.bilingual.senses(text) if self.bilingual else []
        translated = " ".join(keywords(senses))
        # The translation is searched twice: beside the query's words (a small tie-breaking bonus among
        # the same list) and alone (the ranker's translation bonus, on that list's own scale).
        query = SearchQuery(f"{text} {translated}".strip(), self.embedder.embed_query(text), k, channel,
                            frozenset(principals), translated)
        found = self.index.candidates(query, max(self.candidates, k))
        found.translated = self._saying_enough(found, senses)
        return self.ranker.rank(found, k, prior, earlier=asks_for_an_earlier_version(text))

    @staticmethod
    def _saying_enough(found: Candidates, senses: Senses) -> list[tuple[Hashable, float]]:
        """The translated matches that say half of the query's dictionary words, and at least two (its only
        one, if it has one): one translated word alone is chance ("데이터베이스" in an access-request page for
        "which database does the payroll one use?"), a rewritten follow-up brings more words to be chance
        with, and the translation bonus is large enough to put chance first."""
        need = max(min(2, len(senses)), (len(senses) + 1) // 2)
        return [(key, score) for key, score in found.translated
                if concepts_said(found.chunks[key].chunk.embedding_text(), senses) >= need]
