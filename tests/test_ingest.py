"""Ingestion: incremental by content hash, deletion-aware, broken files skipped and reported."""
from rag.retrieval import Retriever

from conftest import make_indexer


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
    from rag.chunking import OverlapChunker
    from rag.ingest import Indexer

    indexer = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder)
    indexer.run(docs)
    smaller = Indexer(indexer.index, embedder, OverlapChunker(300, 50), "overlap:300:50")
    assert smaller.run(docs).updated == 4


def test_hidden_files_are_not_indexed(tmp_path, docs, analyzer, embedder):
    (docs / ".draft.md").write_text("# Secret draft\n\nnot for indexing")
    report = make_indexer(tmp_path / "i.sqlite3", analyzer, embedder).run(docs)
    assert report.added == 4
