


"""Contract tests for the search-index port, run against every backend available here."""

import numpy as np
import pytest

from rag.documents import Chunk, Metadata
from rag.errors import EmbeddingModelMismatch
from rag.index.embedded import SqliteSearchIndex
from rag.index.port import FileRecord, SearchQuery
from rag.retrieve.ranking import Ranker


def make_es_index(analyzer, live_allowed: bool = True, **options):
    """The Elasticsearch backend over the real async client, a fake node underneath (or a live cluster)."""
    import os

    from elasticsearch import AsyncElasticsearch

    from rag.index.elastic import ElasticsearchIndex

    live = os.environ.get("ELASTICSEARCH_URL") if live_allowed else None
    if live:
        factory = lambda: AsyncElasticsearch(live, api_key=os.environ.get("ELASTICSEARCH_API_KEY"))  # noqa: E731
        options.setdefault("alias", f"docbot-test-{os.getpid()}")
    else:
        import es_fake

        es_fake.CLUSTER.__init__()
        factory = lambda: AsyncElasticsearch("http://es.test:9200", node_class=es_fake.FakeNode,  # noqa: E731
                                             max_retries=2, retry_on_status=(429,), retry_backoff_base=0.01)
    return ElasticsearchIndex(factory, analyzer, **options)

def put(index, embedder, path, texts, title="Doc", source="/src"):
    chunks = [Chunk(path, n, title, "", t) for n, t in enumerate(texts)]
    vectors = embedder.embed_passages([c.embedding_text() for c in chunks])
    index.replace_file(source, FileRecord(path, f"h-{path}-{len(texts)}", title, len(chunks)), chunks, vectors)
    index.flush()  # writes are searchable once flushed (Elasticsearch: a refresh), as after an index run

def search(index, embedder, text, k=5, prior=()):
    """What the retriever does: the backend's candidates, ranked by the one ranker."""
    return Ranker().rank(index.candidates(SearchQuery(text, embedder.embed_query(text), k), 40), k, prior)

@pytest.fixture(scope="session")
def handbook_files(handbook_indexer):
    """The bundled handbook's chunks and vectors as the embedded index stored them (embedded once)."""
    db = handbook_indexer.index._db
    files = []
    for source, path, digest, title in db.execute("SELECT source, path, hash, title FROM files ORDER BY path"):
        rows = db.execute("SELECT c.ordinal, c.title, c.heading, c.text, v.embedding FROM chunks c "
                          "JOIN chunks_vec v ON v.rowid = c.id WHERE c.source=? AND c.path=? ORDER BY c.ordinal",
                          (source, path)).fetchall()
        chunks = [Chunk(path, r[0], r[1], r[2], r[3]) for r in rows]
        vectors = np.vstack([np.frombuffer(r[4], np.float32) for r in rows])
        files.append((FileRecord(path, digest, title, len(chunks)), chunks, vectors))
    return files

@pytest.fixture
def handbook(index, handbook_files):
    """This backend holding the whole handbook: Korean and English documents on many subjects."""
    for record, chunks, vectors in handbook_files:
        index.replace_file("/handbook", record, chunks, vectors)
    index.flush()
    return index

def _visible(index, embedder, text, channel, limit=3):
    found = index.candidates(SearchQuery(text, embedder.embed_query(text), 5, channel=channel), limit)
    return {c.chunk.path for c in found.chunks.values()}


class SearchIndexContract:
    """What every SearchIndex backend must do. A backend's test class inherits this, provides an `index`
    fixture (empty, bound to the real e5 model) and `reject_one_chunk_write` (its own way a write fails)."""

    def reject_one_chunk_write(self, index, source: str, path: str, ordinal: int):
        """Make the backend refuse one chunk of the next write; returns the undo."""
        raise NotImplementedError

    def test_korean_bm25_matches_across_particles(self, index, embedder):
        put(index, embedder, "del.md", ["프로젝트를 삭제하면 30일 동안 휴지통에 보관됩니다."], "삭제 정책")
        put(index, embedder, "vac.md", ["연차는 매년 15일이 주어집니다."], "휴가")
        hits = search(index, embedder, "프로젝트는 어떻게 지워?")
        assert hits[0].chunk.path == "del.md" and hits[0].keyword

    def test_keyword_hits_survive_the_cosine_floor(self, index, embedder):
        put(index, embedder, "codes.md", ["Error code ZX-4471 means the billing export stalled."], "Codes")
        for i in range(4):
            put(index, embedder, f"leave{i}.md", [f"Annual leave rule {i}: employees get fifteen days."], "Leave")
        hits = search(index, embedder, "annual leave days ZX-4471")
        code = [h for h in hits if h.chunk.path == "codes.md"]
        assert code and code[0].keyword

    def test_the_translated_keywords_are_a_bm25_list_of_their_own(self, index, embedder):
        put(index, embedder, "shift.md", ["야간조 교대 근무 시간은 22시부터 07시까지다."], "교대 근무")
        put(index, embedder, "hours.md", ["Office hours are 09:00 to 18:00."], "Office")
        text = "night shift hours"
        found = index.candidates(SearchQuery(text, embedder.embed_query(text), 5, translated="야간 교대"), 10)
        assert [found.chunks[key].chunk.path for key, _ in found.translated] == ["shift.md"]
        assert "shift.md" not in [found.chunks[key].chunk.path for key, _ in found.keyword]  # its own words only
        plain = index.candidates(SearchQuery(text, embedder.embed_query(text), 5), 10)
        assert plain.translated == []

    def test_relative_floor_drops_unrelated_vector_hits(self, index, embedder):
        put(index, embedder, "db.md", ["PostgreSQL is the default database for production services."], "Databases")
        put(index, embedder, "lunch.md", ["Fruit is served in the lounge every Wednesday afternoon."], "Snacks")
        hits = search(index, embedder, "which database for production")
        assert [h.chunk.path for h in hits] == ["db.md"]

    def test_replace_file_swaps_chunks_and_delete_removes_them(self, index, embedder):
        put(index, embedder, "a.md", ["Old fact about zeppelins.", "Another old fact about zeppelins."])
        put(index, embedder, "a.md", ["New fact about submarines."])
        assert index.stats()["chunks"] == 1
        assert all("zeppelin" not in h.chunk.text for h in search(index, embedder, "zeppelins"))
        index.delete_file("/src", "a.md")
        index.flush()
        assert index.stats()["chunks"] == 0 and index.files("/src") == {}
        assert search(index, embedder, "submarines") == []

    def test_a_second_embedding_model_is_refused(self, index, embedder):
        with pytest.raises(EmbeddingModelMismatch):
            index.bind_model("other/model", embedder.dim)
        with pytest.raises(EmbeddingModelMismatch):
            index.bind_model(embedder.name, 768)

    def test_clear_unbinds_the_model(self, index, embedder):
        put(index, embedder, "a.md", ["text"])
        index.clear()
        index.bind_model("other/model", 16)
        chunk = Chunk("b.md", 0, "B", "", "hello")
        index.replace_file("/src", FileRecord("b.md", "h", "B", 1), [chunk], np.ones((1, 16), np.float32) / 4)
        index.flush()
        assert index.stats()["model"] == "other/model" and index.stats()["chunks"] == 1

    def test_a_documents_metadata_comes_back_with_its_chunks(self, index, embedder):
        meta = Metadata(title="Remote work", author="HR", status="repealed", effective="2021-03-01",
                        url="https://wiki.example.com/remote", tags=("hr",))
        chunks = [Chunk("remote.md", 0, "Remote work", "Rules", "Employees may work remotely two days a week.", meta)]
        vectors = embedder.embed_passages([c.embedding_text() for c in chunks])
        index.replace_file("/src", FileRecord("remote.md", "h1", "Remote work", 1), chunks, vectors)
        index.flush()
        hit = search(index, embedder, "work remotely days")[0]
        assert hit.chunk.meta == meta and hit.citation()["url"] == "https://wiki.example.com/remote"

    def test_a_hub_chunk_stops_outranking_a_specific_one(self, index, embedder):
        """A chunk close to the whole corpus (a glossary, a bilingual rate card) is close to every query.
        Ten specific chunks and one hub, vectors made by hand: the hub's raw cosine beats the specific
        chunk's; its hub term (computed at index time on the embedded backend, by the cluster on
        Elasticsearch) takes it back below."""
        dim, basis = 16, np.eye(16, dtype=np.float32)
        unit = lambda v: (v / np.linalg.norm(v)).astype(np.float32)  # noqa: E731
        index.clear()
        index.bind_model("test/hand-made", dim)
        words = ["apples", "bridges", "candles", "dolphins", "engines", "forests", "glaciers", "harbours",
                 "islands", "jungles"]
        for n, word in enumerate(words, 1):
            chunk = Chunk(f"{word}.md", 0, word.title(), "", f"Everything about {word} in the company.")
            index.replace_file("/src", FileRecord(chunk.path, f"h{n}", chunk.title, 1), [chunk],
                               unit(basis[n] + 0.3 * basis[0])[None, :])
        hub = Chunk("glossary.md", 0, "Glossary", "", "Words the company uses, with their meanings.")
        index.replace_file("/src", FileRecord("glossary.md", "hg", "Glossary", 1), [hub],
                           unit(basis[0] + 0.25 * basis[1:11].sum(axis=0))[None, :])
        index.flush()
        query = SearchQuery("qqq", unit(basis[1] + 2.0 * basis[0]), 5)
        found = index.candidates(query, 20)
        assert found.chunks and all(c.hub is not None for c in found.chunks.values())
        raw = max(found.chunks.values(), key=lambda c: c.cosine)
        assert raw.chunk.path == "glossary.md"  # the control: by cosine alone the hub wins
        assert Ranker(hub_weight=0.0).rank(found, 2)[0].chunk.path == "glossary.md"
        assert Ranker().rank(found, 2)[0].chunk.path == "apples.md"

    def test_a_repealed_version_loses_to_the_current_one(self, index, embedder):
        old = Metadata(title="Overtime meals (2022)", status="repealed", effective="2022-03-01")
        new = Metadata(title="Overtime meals", status="current", effective="2026-01-01")
        for path, meta, text in [
                ("meals-2022.md", old, "Overtime meal allowance: employees working late get a meal allowance of up "
                                       "to 10,000 won per overtime evening."),
                ("meals.md", new, "Overtime meal allowance: up to 12,000 won per evening for late work.")]:
            chunks = [Chunk(path, 0, meta.title, "", text, meta)]
            index.replace_file("/src", FileRecord(path, f"h-{path}", meta.title, 1), chunks,
                               embedder.embed_passages([c.embedding_text() for c in chunks]))
        for n, topic in enumerate(["parking permits", "printer toner", "laptop refresh", "visitor badges",
                                   "meeting rooms", "fire drills", "office plants", "coffee machines"]):
            put(index, embedder, f"other{n}.md", [f"How {topic} work at the office."], topic.title())
        question = "overtime meal allowance for employees working late evening"
        found = index.candidates(SearchQuery(question, embedder.embed_query(question), 5), 40)
        assert Ranker(stale_penalty=0.0).rank(found, 2)[0].chunk.path == "meals-2022.md"  # the control
        assert Ranker().rank(found, 2)[0].chunk.path == "meals.md"
        # Asked what the old version said, the repealed page is the answer (it was below the current one).
        assert Ranker().rank(found, 2, earlier=True)[0].chunk.path == "meals-2022.md"

    def test_files_are_scoped_by_source(self, index, embedder):
        put(index, embedder, "a.md", ["alpha"], source="/one")
        put(index, embedder, "a.md", ["beta"], source="/two")
        assert set(index.files("/one")) == {"a.md"} and index.stats()["files"] == 2
        assert index.indexed_sources() == {"/one": 1, "/two": 1}

    def test_chunks_record_their_language_and_each_language_has_its_own_neighbours(self, handbook, embedder):
        text = "How many approvals does a pull request need before merging?"
        found = handbook.candidates(SearchQuery(text, embedder.embed_query(text), 5), 10)
        by_path = {c.chunk.path: c for c in found.chunks.values()}
        assert by_path["code-review-guidelines.md"].languages == ("ko",)
        assert all(found.chunks[i].languages[0] == "en" for i in found.nearest["en"])
        assert len(found.nearest["ko"]) == 10 and all("ko" in found.chunks[i].languages for i in found.nearest["ko"])
        assert found.background["ko"].count > 50 and found.background["en"].count > 50

    @pytest.mark.parametrize("question,expected", [
        ("How many approvals does a pull request need before merging?", "code-review-guidelines.md"),
        ("How much is the monthly wellness allowance?", "benefits-overview.html"),
        ("출장은 출발 몇 주 전에 승인받아야 해?", "travel-policy.md"),
        ("온콜 수당은 주말에 얼마야?", "on-call-handbook.md"),
    ])
    def test_a_question_finds_the_document_written_in_the_other_language(self, handbook, embedder, question, expected):
        hits = search(handbook, embedder, question, k=5)
        assert expected in [h.chunk.path for h in hits]

    def test_documents_the_previous_answer_cited_are_favoured(self, handbook, embedder):
        text = "지원금은 얼마야?"  # education, clubs, remote work and benefits all pay something
        plain = [h.chunk.path for h in search(handbook, embedder, text, k=10)]
        favoured = [h.chunk.path for h in search(handbook, embedder, text, k=10, prior=("club-support.md",))]
        assert favoured.index("club-support.md") < plain.index("club-support.md")

    def test_visibility_is_enforced_inside_the_candidate_search(self, index, embedder):
        """Restricted chunks crowd the top for this query, yet a channel that may not see them still gets
        the public one: the filter runs inside the search, not on a short list afterwards."""
        secret = [f"Executive hotel allowance rule {n}: the hotel allowance for executives is {900 + n} USD."
                  for n in range(6)]
        for n, text in enumerate(secret):
            put(index, embedder, f"secret-{n}.md", [text], "Executive travel", source="/finance")
            index.set_visibility("/finance", f"secret-{n}.md", frozenset({"C-FINANCE"}))
        index.flush()
        put(index, embedder, "travel.md", ["Travel policy: book hotels through the portal; allowance varies."],
            "Travel policy", source="/public")
        question = "What is the hotel allowance for executives?"
        general = _visible(index, embedder, question, "C-GENERAL")
        assert general == {"travel.md"}
        assert _visible(index, embedder, question, None) == {"travel.md"}  # no channel: public chunks only
        finance = _visible(index, embedder, question, "C-FINANCE", limit=10)
        assert {f"secret-{n}.md" for n in range(6)} <= finance
        assert index.files("/finance")["secret-0.md"].visibility == frozenset({"C-FINANCE"})
        assert index.files("/public")["travel.md"].visibility is None

    def test_visibility_change_needs_no_rewrite_and_empty_means_nobody(self, index, embedder):
        put(index, embedder, "a.md", ["Beacon is the staging dashboard."], "Beacon")
        assert _visible(index, embedder, "What is Beacon?", "C1") == {"a.md"}
        index.set_visibility("/src", "a.md", frozenset())
        index.flush()
        assert _visible(index, embedder, "What is Beacon?", "C1") == set()
        index.set_visibility("/src", "a.md", None)
        index.flush()
        assert _visible(index, embedder, "What is Beacon?", "C1") == {"a.md"}

    def test_a_failed_write_leaves_nothing_stale_once_the_file_is_written_again(self, index, embedder):
        """A file's first write fails on one chunk; rewritten later with fewer chunks, none of the first
        attempt's chunks may stay searchable (they were once counted by a recorded chunk total)."""
        from rag.errors import SearchIndexError

        put(index, embedder, "a.md", ["Zeppelins were first flown in 1900."])
        restore = self.reject_one_chunk_write(index, "/src", "a.md", 1)
        with pytest.raises(SearchIndexError):
            put(index, embedder, "a.md", ["Airships carried mail in 1910.", "Airships carried mail in 1911.",
                                          "Airships carried mail in 1912."])
        restore()
        put(index, embedder, "a.md", ["Submarines are newer."])
        assert index.stats()["chunks"] == 1
        assert {h.chunk.text for h in search(index, embedder, "airships carried mail zeppelins")} == \
            {"Submarines are newer."}

    def test_a_rebuild_serves_the_old_contents_until_it_finishes(self, index, embedder):
        """One rebuild behaviour for every backend: searches never see an empty or half-built index."""
        put(index, embedder, "old.md", ["Zeppelins are kept in hangar seven."], title="Old")
        index.begin_rebuild(embedder.name, embedder.dim)
        assert index.files("/src") == {}  # the indexer sees the new, empty contents and writes everything
        put(index, embedder, "new.md", ["Submarines are kept in dock three."], title="New")
        assert {h.chunk.path for h in search(index, embedder, "where are zeppelins kept")} == {"old.md"}
        assert index.stats()["files"] == 1  # the live contents
        index.finish_rebuild()
        assert {h.chunk.path for h in search(index, embedder, "where are submarines kept")} == {"new.md"}
        assert set(index.files("/src")) == {"new.md"} and index.stats()["chunks"] == 1

    def test_an_aborted_rebuild_leaves_the_index_as_it_was(self, index, embedder):
        put(index, embedder, "old.md", ["Zeppelins are kept in hangar seven."], title="Old")
        index.begin_rebuild(embedder.name, embedder.dim)
        put(index, embedder, "new.md", ["Submarines are kept in dock three."], title="New")
        index.abort_rebuild()
        assert set(index.files("/src")) == {"old.md"} and index.stats()["chunks"] == 1
        assert {h.chunk.path for h in search(index, embedder, "zeppelins hangar")} == {"old.md"}
        put(index, embedder, "more.md", ["Balloons are kept in the barn."], title="More")  # writes go live again
        assert index.stats()["files"] == 2


class TestSqliteIndex(SearchIndexContract):
    """The embedded default."""

    @pytest.fixture
    def index(self, tmp_path, analyzer, embedder):
        idx = SqliteSearchIndex(tmp_path / "index.sqlite3", analyzer)
        idx.bind_model(embedder.name, embedder.dim)
        yield idx
        idx.close()

    def reject_one_chunk_write(self, index, source: str, path: str, ordinal: int):
        """An aborted statement inside the file's transaction."""
        index._db.execute(f"CREATE TEMP TRIGGER reject BEFORE INSERT ON chunks WHEN NEW.path = '{path}' AND "
                          f"NEW.ordinal = {ordinal} BEGIN SELECT RAISE(ABORT, 'rejected'); END")
        return lambda: index._db.execute("DROP TRIGGER reject")

    def test_another_process_sees_the_rebuild_when_it_is_swapped_in(self, index, embedder, analyzer):
        """`docbot serve` keeps its connection open while `docbot index --rebuild` runs in another process."""
        serving = SqliteSearchIndex(index.path, analyzer)
        put(index, embedder, "old.md", ["Zeppelins are kept in hangar seven."], title="Old")
        assert {h.chunk.path for h in search(serving, embedder, "zeppelins hangar")} == {"old.md"}
        index.begin_rebuild(embedder.name, embedder.dim)
        put(index, embedder, "new.md", ["Submarines are kept in dock three."], title="New")
        assert {h.chunk.path for h in search(serving, embedder, "zeppelins hangar")} == {"old.md"}
        index.finish_rebuild()
        assert {h.chunk.path for h in search(serving, embedder, "submarines dock")} == {"new.md"}
        serving.close()


class TestElasticsearchIndex(SearchIndexContract):
    """Elasticsearch over the real async client: the strict fake node, or a live cluster when
    ELASTICSEARCH_URL is set."""

    @pytest.fixture
    def index(self, analyzer, embedder):
        idx = make_es_index(analyzer)
        idx.bind_model(embedder.name, embedder.dim)
        yield idx
        idx.clear()
        idx.close()

    def reject_one_chunk_write(self, index, source: str, path: str, ordinal: int):
        """A rejected bulk item."""
        import hashlib

        import es_fake

        doc_id = hashlib.sha1(f"{source}\0{path}\0{ordinal}".encode()).hexdigest()
        es_fake.CLUSTER.bulk_reject.add(doc_id)
        return lambda: es_fake.CLUSTER.bulk_reject.discard(doc_id)
