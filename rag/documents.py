"""Plain value types that flow through the RAG core."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    """A run of text under one heading of a document."""

    heading: str
    text: str


@dataclass(frozen=True)
class Document:
    """A loaded source file: its path relative to its source root, title and sections."""

    path: str
    title: str
    sections: list[Section]

    @property
    def text(self) -> str:
        """All section text joined, for hashing-free inspection and tests."""
        return "\n\n".join(s.text for s in self.sections)


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of a document, with the metadata citations need."""

    path: str
    ordinal: int
    title: str
    heading: str
    text: str

    @property
    def chunk_id(self) -> str:
        """Deterministic id: source path plus chunk number."""
        return f"{self.path}#{self.ordinal}"

    def embedding_text(self) -> str:
        """Text the embedder sees: title and heading give a short chunk its topic."""
        same = not self.heading or self.heading == self.title
        head = self.title if same else f"{self.title} / {self.heading}"
        return f"{head}\n{self.text}" if head else self.text


@dataclass
class Hit:
    """One ranked search result."""

    chunk: Chunk
    score: float
    cosine: float | None = None
    keyword: bool = False
    source: str = ""
    relevance: float | None = None  # the cosine as a z-score within its language (rag.retrieve.ranking)
    spread: float | None = None  # the standard deviation that z-score divided by
    population: int = 0  # how many chunks that standard deviation came from

    def citation(self) -> dict:
        """A JSON-ready description of this hit for storage and rendering."""
        return {
            "path": self.chunk.path,
            "title": self.chunk.title,
            "heading": self.chunk.heading,
            "chunk": self.chunk.ordinal,
            "source": self.source,
            "score": round(self.score, 5),
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "keyword": self.keyword,
            "relevance": None if self.relevance is None else round(self.relevance, 3),
        }
