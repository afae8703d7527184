"""Ingestion: incremental by content hash, deletion-aware, broken files skipped and reported."""
import pytest

from rag.retrieve.retriever import Retriever

from conftest import CountingEmbedder, PassageMemo, make_indexer


@pytest.fixture(scope="module")
def embedder(embedder):
    """The same handbook files indexed test after test: each passage embedded once here."""
    return PassageMemo(embedder)


def test_second_run_on_an_unchanged_folder_embeds_nothing(tmp_path, docs, analyzer, counting):
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, counting)
    first = indexer.run(docs)
    assert first.added == 4 and first.chunks > 0 and counting.passages == first.chunks
    counting.passages = 0
    second = indexer.run(docs)
    assert (second.added, second.updated, second.unchanged, second.deleted) == (0, 0, 4, 0)
    assert counting.passages == 0


def test_changed_file_is_reembedded_and_deleted_file_is_never_served(tmp_path, docs, analyzer, counting, embedder):
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, counting)
    indexer.run(docs)
    (docs / "glossary.txt").write_text("Glossary\n\nQuokka: the new onboarding bot.\n", encoding="utf-8")
    (docs / "database-options.md").unlink()
    counting.passages = 0
    report = indexer.run(docs)
    assert (report.updated, report.deleted, report.unchanged) == (1, 1, 2)
    assert counting.passages == report.chunks == 1
    query = "Which database is best for production? PostgreSQL"
    hits = Retriever(indexer.index, embedder).search(query, 10)
    assert all(h.chunk.path != "database-options.md" for h in hits)
    quokka = Retriever(indexer.index, embedder).search("Quokka", 3)
    assert quokka[0].chunk.path == "glossary.txt"


def test_broken_and_empty_files_are_reported_and_skipped(tmp_path, docs, analyzer, embedder):
    (docs / "empty.md").write_text("")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 garbage")
    (docs / "notes.bin.txt").write_bytes(b"\x00\x00\x00")
    report = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder).run(docs)
    assert report.added == 4
    assert {path for path, _ in report.errors} == {"empty.md", "broken.pdf", "notes.bin.txt"}


def test_changing_the_chunker_rechunks_every_file(tmp_path, docs, analyzer, embedder):
    from rag.index.indexer import Indexer
    from rag.ingest.chunking import OverlapChunker

    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder)
    indexer.run(docs)
    smaller = Indexer(indexer.index, embedder, OverlapChunker(300, 50), "overlap:300:50")
    assert smaller.run(docs).updated == 4


def test_hidden_files_are_not_indexed(tmp_path, docs, analyzer, embedder):
    (docs / ".draft.md").write_text("# Secret draft\n\nnot for indexing")
    report = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder).run(docs)
    assert report.added == 4


class BatchRecorder(CountingEmbedder):
    """The real embedder, recording each call's size; a text containing POISON breaks the call it is in."""

    def __init__(self, inner):
        super().__init__(inner)
        self.calls: list[int] = []

    def embed_passages(self, texts):
        self.calls.append(len(texts))
        if any("POISON" in t for t in texts):
            raise RuntimeError("the model choked")
        return super().embed_passages(texts)


def test_changed_files_are_embedded_together_in_batches(tmp_path, docs, analyzer, embedder):
    recorder = BatchRecorder(embedder)
    report = make_indexer(tmp_path / "i.sqlite3", analyzer, recorder, batch_chunks=64).run(docs)
    assert report.added == 4 and recorder.calls == [report.chunks]  # four files, one model call
    for n in range(5):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nQuokkas number {n} live on Rottnest island.")
    recorder.calls.clear()
    report = make_indexer(tmp_path / "i.sqlite3", analyzer, recorder, batch_chunks=2).run(docs)
    assert report.added == 5 and recorder.calls == [2, 2, 1]


def test_a_file_that_breaks_its_batch_is_reported_alone_and_the_rest_are_written(tmp_path, docs, analyzer, embedder):
    (docs / "poison.md").write_text("# Poison\n\nThis text contains POISON for the model.")
    recorder = BatchRecorder(embedder)
    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, recorder)
    report = indexer.run(docs)
    assert report.added == 4 and [path for path, _ in report.errors] == ["poison.md"]
    assert "the model choked" in report.errors[0][1]
    assert len(recorder.calls) == 1 + 5  # the batch, then each of its five files alone
    assert set(indexer.index.files(str(docs.resolve()))) == {"deployment-process.md", "vacation-policy.md",
                                                              "database-options.md", "glossary.txt"}
