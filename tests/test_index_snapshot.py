"""The embedded index's snapshot: sign bits shortlisting rows rescored exactly, files named by generation."""
import json

import numpy as np
import pytest
import sqlean

import rag.index.embedded as embedded
import rag.index.snapshot as snapshot_module
from rag.documents import Chunk
from rag.index.embedded import SCHEMA_VERSION, SqliteSearchIndex
from rag.index.port import FileRecord, SearchQuery
from rag.index.snapshot import Snapshot, SnapshotFiles, SnapshotWriter, build, sign_bits

DIM = 48
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def _corpus(index, rng, files=40, per_file=40, channels=("C1", "C2")):
    """Random unit vectors (ties at the k-th place are as close as int8 codes ever make them) in files
    of `per_file` English chunks; every fourth file visible in one channel only."""
    index.bind_model("test/random", DIM)
    vectors = {}
    for f in range(files):
        path = f"f{f}.md"
        chunks = [Chunk(path, n, f"Note {f}", "", " ".join(rng.choice(WORDS, 6))) for n in range(per_file)]
        matrix = rng.normal(size=(per_file, DIM)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        visibility = frozenset({channels[f % len(channels)]}) if f % 4 == 3 else None
        index.replace_file("/src", FileRecord(path, f"h{f}", f"Note {f}", per_file, visibility), chunks, matrix)
        for n in range(per_file):
            vectors[(path, n)] = (matrix[n], visibility)
    index.flush()
    return vectors


def _exact_top(vectors, query, channel, limit):
    visible = [(key, v) for key, (v, seen) in vectors.items() if seen is None or (channel and channel in seen)]
    cosines = np.array([v @ query for _, v in visible])
    return [visible[n][0] for n in np.argsort(-cosines, kind="stable")[:limit]]


def test_quantised_search_returns_the_exact_top_k_with_exact_cosines(tmp_path, analyzer):
    rng = np.random.default_rng(11)
    index = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer, exact_rows=0)  # sign bits at any size
    vectors = _corpus(index, rng)
    assert not index._current().exact_scan
    for n in range(25):
        query = rng.normal(size=DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        channel = [None, "C1", "C2"][n % 3]
        found = index.candidates(SearchQuery("alpha", query, 10, channel=channel), 10)
        ranked = [(found.chunks[i].chunk.path, found.chunks[i].chunk.ordinal) for i in found.nearest["en"]]
        assert ranked == _exact_top(vectors, query, channel, 10)
        for candidate in found.chunks.values():
            exact = vectors[(candidate.chunk.path, candidate.chunk.ordinal)][0] @ query
            assert candidate.cosine == pytest.approx(float(exact), abs=1e-6)
    index.close()


def test_sign_bits_count_agreeing_signs_of_the_centred_vectors():
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(100, 70)).astype(np.float32)  # 70 dims: two 64-bit words, the second padded
    centre = rng.normal(size=70).astype(np.float32)
    bits = sign_bits(vectors, centre)
    assert bits.shape == (100, 2) and bits.dtype == np.uint64
    query = rng.normal(size=70).astype(np.float32)
    qbits = sign_bits(query[None, :], centre)[0]
    hamming = np.bitwise_count(bits ^ qbits).sum(axis=1)
    assert hamming.tolist() == ((vectors > centre) != (query > centre)).sum(axis=1).tolist()


def _clustered(rng, rows, dim=384, centres=40):
    """Unit vectors around a few centres (as real embeddings crowd), and queries near some rows."""
    middle = rng.normal(size=(centres, dim)).astype(np.float32)
    vectors = middle[rng.integers(0, centres, rows)] + rng.normal(0, 0.6, (rows, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _snapshot(tmp_path, vectors, exact_rows):
    """The tables of an index holding these vectors (one English chunk each) and its SnapshotFiles."""
    from rag.text.analysis import Analyzer

    index = SqliteSearchIndex(tmp_path / "index.sqlite3", Analyzer(), exact_rows=exact_rows)
    index.bind_model("test/clustered", vectors.shape[1])
    chunks = [Chunk("a.md", n, "Note", "", "alpha") for n in range(len(vectors))]
    index.replace_file("/src", FileRecord("a.md", "h", "Note", len(chunks)), chunks, vectors)
    return index


def test_rows_read_from_the_file_give_the_same_hits_and_cosines_as_rows_in_memory(tmp_path):
    """The serving path (float32 rows read with preadv, never mapped) against the same snapshot built in
    memory (rows gathered from an array): identical nearest chunks, cosines and background figures."""
    rng = np.random.default_rng(21)
    vectors = _clustered(rng, 3000)
    index = _snapshot(tmp_path, vectors, exact_rows=0)
    in_memory = build(index._db, 384, SnapshotWriter(None), 3.0, exact_rows=0)
    index.flush()
    generation = index._db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0]
    from_files = SnapshotFiles(index.path).open(generation, exact_rows=0)
    assert from_files is not None and from_files._rows is not None and from_files.vectors.size == 0
    assert in_memory._rows is None
    for n in range(10):
        query = vectors[n * 7] + rng.normal(0, 0.05, 384).astype(np.float32)
        query /= np.linalg.norm(query)
        mask = in_memory.masks["en"]
        ids, cosines = in_memory.nearest(in_memory.scores(query), query, mask, 20)
        read_ids, read_cosines = from_files.nearest(from_files.scores(query), query, mask, 20)
        assert read_ids == ids
        assert read_cosines == pytest.approx(cosines, abs=1e-6)
        assert from_files.background(from_files.scores(query), query, "en") == \
            pytest.approx(in_memory.background(in_memory.scores(query), query, "en"))
    from_files.close()
    index.close()


def test_sign_bits_shortlist_finds_the_exact_neighbours_of_clustered_vectors(tmp_path, monkeypatch):
    """With a shortlist far smaller than the index (64 rows of 3,000), the re-ranked nearest chunks are the
    exact top 10 (recall, not identity: a row's sign bits only approximate its angle), every cosine exact,
    and the background's mean and spread equal those of every exact cosine."""
    monkeypatch.setattr(snapshot_module, "SHORTLIST", 64)
    monkeypatch.setattr(snapshot_module, "RESCORE", 4)
    rng = np.random.default_rng(22)
    vectors = _clustered(rng, 3000)
    index = _snapshot(tmp_path, vectors, exact_rows=0)
    index.flush()
    snapshot = index._current()
    assert not snapshot.exact_scan
    found = 0
    for n in range(20):
        query = vectors[n * 11] + rng.normal(0, 0.05, 384).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = vectors @ query
        truth = set((np.argsort(-exact)[:10] + 1).tolist())  # chunk ids are rows + 1
        ids, cosines = snapshot.nearest(snapshot.scores(query), query, snapshot.masks["en"], 10)
        found += len(set(ids) & truth)
        assert cosines.tolist() == pytest.approx([float(exact[i - 1]) for i in ids], abs=1e-6)
        mean, std, count = snapshot.background(snapshot.scores(query), query, "en")
        assert (mean, std, count) == (pytest.approx(float(exact.mean()), abs=1e-6),
                                      pytest.approx(float(exact.std()), abs=1e-5), 3000)
    assert found >= 0.98 * 200
    index.close()


def test_a_snapshot_of_another_layout_is_rebuilt_not_served(tmp_path, analyzer):
    """Files an older docbot wrote (int8 codes, no sign bits) sit under another name and are never read;
    a large index builds its own."""
    path = tmp_path / "index.sqlite3"
    index = SqliteSearchIndex(path, analyzer, exact_rows=0)
    _corpus(index, np.random.default_rng(4), files=2, per_file=10)
    generation = index._db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()[0]
    index.close()
    root = tmp_path / "index.sqlite3.snapshot"
    current = next(root.iterdir())
    assert current.name == f"gen-{generation}.{snapshot_module.FORMAT}"
    current.rename(root / f"gen-{generation}")  # as format 1 named it
    reopened = SqliteSearchIndex(path, analyzer, exact_rows=0)
    query = np.random.default_rng(5).normal(size=DIM).astype(np.float32)
    assert len(reopened.candidates(SearchQuery("alpha", query, 5), 40).nearest["en"]) == 20
    assert [p.name for p in root.iterdir()] == [current.name]  # rebuilt, and the old layout's folder gone
    reopened.close()


def test_another_process_maps_the_snapshot_instead_of_reading_the_tables(tmp_path, analyzer, monkeypatch):
    path = tmp_path / "index.sqlite3"
    rng = np.random.default_rng(5)
    writer = SqliteSearchIndex(path, analyzer, exact_rows=0)
    _corpus(writer, rng, files=8, per_file=10)  # flush() at the end writes the snapshot files
    assert [p.name.startswith("gen-") for p in (tmp_path / "index.sqlite3.snapshot").iterdir()] == [True]
    query = rng.normal(size=DIM).astype(np.float32)
    expected = writer.candidates(SearchQuery("alpha", query, 5), 10)

    def refuse(*args, **kwargs):
        raise AssertionError("the tables were read again")

    monkeypatch.setattr(embedded, "build", refuse)
    serving = SqliteSearchIndex(path, analyzer, exact_rows=0)
    found = serving.candidates(SearchQuery("alpha", query, 5), 10)
    mapped = serving._current()
    assert not mapped.bits.flags.owndata  # a view of the mapped file
    assert mapped._rows is not None and mapped.vectors.size == 0  # float32 rows read, never mapped
    assert found.nearest == expected.nearest and found.keyword == expected.keyword
    monkeypatch.undo()

    # A write renews the generation: the files mapped so far are never served again, and go.
    writer.delete_file("/src", "f0.md")
    writer.flush()
    paths = {c.chunk.path for c in serving.candidates(SearchQuery("alpha", query, 5), 80).chunks.values()}
    assert "f0.md" not in paths and paths
    assert len(list((tmp_path / "index.sqlite3.snapshot").iterdir())) == 1
    serving.close()
    writer.close()


def test_a_schema_4_index_opens_gains_a_generation_and_keeps_its_chunks(tmp_path, analyzer):
    path = tmp_path / "index.sqlite3"
    rng = np.random.default_rng(9)
    index = SqliteSearchIndex(path, analyzer)
    _corpus(index, rng, files=3, per_file=5, channels=("C1",))
    index.close()
    db = sqlean.connect(str(path))
    db.execute("DELETE FROM meta WHERE key='generation'")
    db.execute("UPDATE meta SET value='4' WHERE key='schema'")
    db.commit()
    db.close()

    reopened = SqliteSearchIndex(path, analyzer)
    meta = dict(reopened._db.execute("SELECT key, value FROM meta").fetchall())
    assert meta["schema"] == SCHEMA_VERSION and len(meta["generation"]) == 32
    assert reopened.stats()["chunks"] == 15
    found = reopened.candidates(SearchQuery("alpha", rng.normal(size=DIM).astype(np.float32), 5), 40)
    assert len(found.nearest["en"]) == 15
    reopened.close()


def test_an_empty_snapshot_answers_nothing():
    writer = SnapshotWriter(None)
    writer.array("ids", np.int64, (0,))
    writer.array("vectors", np.float32, (0, DIM))
    writer.array("channel_of", np.int32, (0,))
    from rag.index import postings

    for name, array in postings.Postings([], 3.0).arrays().items():
        writer.put(f"postings_{name}", array)
    snapshot = writer.finish([])
    assert isinstance(snapshot, Snapshot) and snapshot.size == 0 and snapshot.positions([1, 2]) == {}


def _hubs(index, query):
    return {c.chunk.path: c.hub for c in index.candidates(SearchQuery("zzz", query, 5), 10).chunks.values()}


def test_hub_terms_are_renewed_when_an_index_run_moves_the_centroid(tmp_path, analyzer):
    """Each chunk's hub term is its dot product with the corpus centroid; a later run that adds chunks
    elsewhere moves the centroid, and the old chunks' terms follow it (not the corpus they were written in)."""
    index = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
    index.bind_model("test/hand-made", 4)
    basis = np.eye(4, dtype=np.float32)
    for n in range(2):
        chunk = Chunk(f"a{n}.md", 0, "Note", "", "alpha bravo")
        index.replace_file("/src", FileRecord(chunk.path, f"h{n}", "Note", 1), [chunk], basis[n][None, :])
    index.flush()
    assert _hubs(index, basis[0]) == pytest.approx({"a0.md": 0.5, "a1.md": 0.5})  # centroid (½, ½, 0, 0)
    chunk = Chunk("b.md", 0, "Note", "", "charlie delta")
    index.replace_file("/src", FileRecord("b.md", "hb", "Note", 1), [chunk], basis[2][None, :])
    index.flush()
    assert _hubs(index, basis[0]) == pytest.approx({"a0.md": 1 / 3, "a1.md": 1 / 3, "b.md": 1 / 3})
    assert index.candidates(SearchQuery("zzz", basis[0], 5), 10).background["en"].hub == pytest.approx(1 / 3)
    index.close()


def test_a_snapshot_written_before_hub_terms_existed_computes_them_when_mapped(tmp_path, analyzer):
    index = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
    index.bind_model("test/hand-made", 4)
    basis = np.eye(4, dtype=np.float32)
    for n in range(2):
        chunk = Chunk(f"a{n}.md", 0, "Note", "", "alpha bravo")
        index.replace_file("/src", FileRecord(chunk.path, f"h{n}", "Note", 1), [chunk], basis[n][None, :])
    index.flush()
    index.close()
    folder = next((tmp_path / "index.sqlite3.snapshot").glob("gen-*"))
    (folder / "hubs.npy").unlink()  # as an older docbot wrote it
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "arrays": [a for a in meta["arrays"] if a != "hubs"]}))
    reopened = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
    assert _hubs(reopened, basis[0]) == pytest.approx({"a0.md": 0.5, "a1.md": 0.5})
    reopened.close()


def _reads_rows(statement: str) -> bool:
    """Whether an SQL statement reads chunks' text (the candidates' rows, not the snapshot's build)."""
    return "c.text" in statement


def test_a_fresh_snapshot_reads_each_chunk_row_once_and_a_write_reads_them_again(tmp_path, analyzer):
    """Hits of an unchanged index come from rows kept with the snapshot (no SELECT on chunks); after any
    write the next query reads the tables again, so an edit, a deletion or a restriction shows at once."""
    index = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
    rng = np.random.default_rng(8)
    _corpus(index, rng, files=6, per_file=10)
    statements: list[str] = []
    index._db.set_trace_callback(statements.append)
    query = SearchQuery("alpha bravo", rng.normal(size=DIM).astype(np.float32), 5)
    first = index.candidates(query, 20)
    assert sum(_reads_rows(s) for s in statements) == 1
    statements.clear()
    again = index.candidates(query, 20)
    assert not any(_reads_rows(s) for s in statements)
    assert again == first and list(again.chunks) == sorted(again.chunks)

    public = next(c.chunk.path for c in first.chunks.values() if c.chunk.path != "f3.md")
    index.set_visibility("/src", public, frozenset({"C1"}))
    index.delete_file("/src", "f0.md")
    statements.clear()
    after = index.candidates(query, 20)
    assert sum(_reads_rows(s) for s in statements) == 1
    assert {c.chunk.path for c in after.chunks.values()}.isdisjoint({public, "f0.md"})
    index.close()


def test_a_small_fresh_snapshot_reads_every_row_at_its_first_query_and_none_after(tmp_path, analyzer, monkeypatch):
    """A small index's first query reads every chunk row in one statement; other queries (other chunks,
    other audiences) read none while the tables are unchanged, and a restricted chunk still reaches only
    its channel. Above the preload size each query reads the rows it lacks, as before."""
    index = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
    rng = np.random.default_rng(9)
    vectors = _corpus(index, rng, files=8, per_file=10)
    statements: list[str] = []
    index._db.set_trace_callback(statements.append)
    queries = [SearchQuery(" ".join(rng.choice(WORDS, 2)), rng.normal(size=DIM).astype(np.float32), 5, channel)
               for channel in (None, "C1", "C2", None, "C1")]
    found = [index.candidates(q, 10) for q in queries]
    assert sum(_reads_rows(s) for s in statements) == 1
    assert len(index._current().chunk_rows) == 80
    for query, result in zip(queries, found):
        paths = {c.chunk.path for c in result.chunks.values()}
        restricted = {f"f{f}.md" for f in range(8) if f % 4 == 3}
        allowed = {p for p in restricted if vectors[(p, 0)][1] and query.channel in vectors[(p, 0)][1]}
        assert paths.isdisjoint(restricted - allowed)
    index.close()

    monkeypatch.setattr(embedded, "PRELOAD_ROWS", 79)
    reopened = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
    reopened._db.set_trace_callback(statements.append)
    statements.clear()
    assert [reopened.candidates(q, 10) for q in queries] == found
    assert sum(_reads_rows(s) for s in statements) > 1 and len(reopened._current().chunk_rows) < 80
    reopened.close()


def test_row_file_reads_the_rows_asked_for_with_or_without_preadv(tmp_path, monkeypatch):
    rng = np.random.default_rng(30)
    matrix = rng.normal(size=(500, 20)).astype(np.float32)
    np.save(tmp_path / "vectors.npy", matrix)
    rows = np.array([499, 3, 3, 0, 250])
    reader = snapshot_module.RowFile(tmp_path / "vectors.npy")
    assert reader.shape == (500, 20) and np.array_equal(reader.read(rows), matrix[rows])
    monkeypatch.setattr(snapshot_module, "_read_into", snapshot_module._pread_copy)  # a platform without preadv
    assert np.array_equal(reader.read(rows), matrix[rows])
    reader.close()
    np.save(tmp_path / "ints.npy", np.zeros((3, 4), np.int64))
    with pytest.raises(ValueError):
        snapshot_module.RowFile(tmp_path / "ints.npy")
