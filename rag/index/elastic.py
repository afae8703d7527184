"""The Elasticsearch search index: BM25 and one kNN per language over one alias, in one `_msearch`.

Behind the same `SearchIndex` port as the embedded index: it finds candidates and their
cosines, and `rag.retrieve.ranking` ranks them exactly as it ranks the embedded index's. (The
server-side `rrf` retriever is not used: it cannot normalise cosines per language, and it
needs an Enterprise licence.) Each language's background statistics come from a random
sample of its chunk vectors, refreshed every few minutes and after this process writes. Writes go through the async bulk
helpers with deterministic ids (source + path + chunk number) and no per-request refresh: a
file's stale chunks (any other content hash, from any earlier version or failed attempt) are
removed by query, and `flush()` refreshes once per run. A full rebuild fills a new versioned
index with refreshes off and no replicas, restores both, refreshes, and swaps the alias
atomically, so searches never see a half-built index; a half-built index a crashed rebuild left
behind is deleted by the next run. Only Elasticsearch 9.x is supported: an older server refuses the
9.x client's compatibility headers, which is reported as such. Nothing here needs a cluster privilege
(`GET /`, `_cat` and `_nodes` need `monitor`): see docs/elasticsearch.md for the minimal role.
The port is synchronous (callers run it off the event loop), so the async client lives on a
private event-loop thread.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections.abc import Coroutine
from typing import Any

import numpy as np

from rag.documents import Chunk, Metadata
from rag.errors import EmbeddingModelMismatch, SearchIndexError, SearchIndexUnavailable, VisibilityNotApplied
from rag.index.port import ALL_LANGUAGES, Background, Candidate, Candidates, FileRecord, SearchQuery, Visibility
from rag.text.analysis import Analyzer
from rag.text.language import LANGUAGES, languages

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3  # 2: chunks carry a `lang` keyword; 3: and a `channels` keyword (who may see them)
EVERYONE = "*"  # the `channels` value of a chunk every channel may see
SAMPLE_SIZE = 1000  # chunk vectors per language behind the background statistics
SAMPLE_TTL = 300.0  # seconds before another process's writes are sampled again
RESTAMP_ATTEMPTS = 4  # update-by-query passes (each after a refresh) before a visibility change is given up


class _LoopThread:
    """One event loop on a daemon thread; coroutines are submitted from any other thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="docbot-es", daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)


def _doc_id(source: str, path: str, ordinal: int | str) -> str:
    """Deterministic ids: the same chunk always overwrites itself."""
    return hashlib.sha1(f"{source}\0{path}\0{ordinal}".encode()).hexdigest()


def mapping(model: str, dim: int, *, nori: bool, index_options: str = "int8_hnsw", shards: int = 1,
            replicas: int | None = None, loading: bool = False) -> dict:
    """Index settings and mappings. `index_options` is explicit: 9.1+ would otherwise pick bbq for 384+ dims.
    `loading`: a rebuild target (no refreshes, no replicas until `finish_rebuild` restores them)."""
    korean = {"type": "custom", "tokenizer": "nori_tokenizer",
              "filter": ["nori_part_of_speech", "lowercase"]} if nori else \
        {"type": "custom", "tokenizer": "whitespace", "filter": ["lowercase"]}  # Kiwi terms, as in the embedded index
    return {
        "settings": {"number_of_shards": shards, "analysis": {"analyzer": {"docbot_ko": korean}},
                     **({"number_of_replicas": replicas} if replicas is not None else {}),
                     **({"refresh_interval": "-1", "number_of_replicas": 0} if loading else {})},
        "mappings": {
            # body_ko: where Korean BM25 looks. With nori it is a multi-field of body_en (the text is stored
            # once); Kiwi's terms are a field of their own. `text` is no longer written (body_en holds it).
            "_meta": {"model": model, "dim": dim, "schema": SCHEMA_VERSION, "korean": "nori" if nori else "kiwi",
                      "body_ko": "body_en.ko" if nori else "body_ko"},
            "properties": {
                "kind": {"type": "keyword"}, "source": {"type": "keyword"}, "path": {"type": "keyword"},
                "lang": {"type": "keyword"}, "channels": {"type": "keyword"},
                "ordinal": {"type": "integer"}, "hash": {"type": "keyword"}, "chunks": {"type": "integer"},
                "updated_at": {"type": "date", "format": "epoch_second"},
                "title": {"type": "text", "analyzer": "english"},
                "title_ko": {"type": "text", "analyzer": "docbot_ko"},
                "heading": {"type": "text", "analyzer": "english"},
                "body_en": {"type": "text", "analyzer": "english",
                            **({"fields": {"ko": {"type": "text", "analyzer": "docbot_ko"}}} if nori else {})},
                "body_ko": {"type": "text", "analyzer": "docbot_ko"},
                "text": {"type": "text", "index": False},
                "meta": {"type": "text", "index": False},  # rag.documents.Metadata as JSON, stored for citations
                "vector": {"type": "dense_vector", "dims": dim, "index": True, "similarity": "cosine",
                           "index_options": {"type": index_options}},
            },
        },
    }


class ElasticsearchIndex:
    """Hybrid search on an Elasticsearch alias; one instance per process, safe to share between threads."""

    def __init__(self, client_factory, analyzer: Analyzer, *, alias: str = "docbot-chunks",
                 korean: str = "auto", index_options: str = "int8_hnsw", shards: int = 1,
                 replicas: int | None = None):
        self._loop = _LoopThread()
        self.client = self._loop.run(self._make(client_factory))
        self.analyzer, self.alias = analyzer, alias
        self.korean, self.index_options = korean, index_options
        self.shards, self.replicas = shards, replicas
        self._exclude_vectors: bool | None = None  # does the server know `_source.exclude_vectors`? (learned)
        self._meta: dict | None = None
        self._write_index: str | None = None  # set while a rebuild fills a new index
        self._samples: tuple[float, dict[str, _Sample]] | None = None  # (taken at, per language)
        self._sampling: asyncio.Task | None = None  # the background refresh of the samples, when one runs
        self._swept = False  # orphaned rebuild indices looked for (once per process)

    @staticmethod
    async def _make(factory):
        return factory()

    # --- plumbing --------------------------------------------------------------------------

    def _run(self, coroutine: Coroutine) -> Any:
        """Run a coroutine on the client's loop; errors become ours."""
        return self._call(coroutine)

    def _call(self, coroutine: Coroutine) -> Any:
        from elasticsearch import (
            ApiError,
            AuthenticationException,
            AuthorizationException,
            ConnectionError,
            UnsupportedProductError,
        )

        try:
            return self._loop.run(coroutine)
        except UnsupportedProductError as exc:
            raise SearchIndexError("the server is not Elasticsearch (OpenSearch and other forks are not "
                                   "supported); docbot needs Elasticsearch 9") from exc
        except ConnectionError as exc:
            raise SearchIndexUnavailable(f"Elasticsearch is unreachable: {exc.message}") from exc
        except (AuthenticationException, AuthorizationException) as exc:
            if exc.meta.status == 403:
                raise SearchIndexUnavailable(
                    f"Elasticsearch refused an action to docbot's credentials (403: {exc.message}); the role "
                    "docbot needs is in docs/elasticsearch.md") from exc
            raise SearchIndexUnavailable(
                f"Elasticsearch refused the credentials ({exc.meta.status}): check ELASTICSEARCH_API_KEY or "
                "ELASTICSEARCH_USERNAME/PASSWORD") from exc
        except ApiError as exc:
            if exc.error == "media_type_header_exception":  # an 8.x (or older) server refuses compatible-with=9
                raise SearchIndexError("docbot needs Elasticsearch 9: the server refused the 9.x client's "
                                       "compatibility headers, so it runs an older version") from exc
            raise SearchIndexError(f"Elasticsearch error {exc.meta.status}: {exc.message}") from exc

    @property
    def _target(self) -> str:
        return self._write_index or self.alias

    async def _alias_index(self) -> str | None:
        if not await self.client.indices.exists_alias(name=self.alias):
            return None
        aliases = await self.client.indices.get_alias(name=self.alias)
        return next(iter(aliases.body))

    async def _create(self, model: str, dim: int, loading: bool = False) -> str:
        """A new versioned index. With `korean="auto"` nori is tried first and a cluster without the plugin
        refuses the tokenizer, so the Kiwi analyzer is used instead: no monitoring privilege is needed
        to find out (the `_cat`/`_nodes` APIs need `monitor`, which a least-privilege key lacks)."""
        name = f"{self.alias}-v{int(time.time() * 1000)}"
        options: dict[str, Any] = {"index_options": self.index_options, "shards": self.shards, "replicas": self.replicas,
                   "loading": loading}
        if self.korean in ("auto", "nori"):
            from elasticsearch import BadRequestError

            try:
                await self.client.indices.create(index=name, **mapping(model, dim, nori=True, **options))
                return name
            except BadRequestError as exc:
                if self.korean == "nori" or "nori_tokenizer" not in str(exc.message) + str(exc.body):
                    raise
                log.info("the cluster has no analysis-nori plugin; Korean is analysed by Kiwi before indexing")
        await self.client.indices.create(index=name, **mapping(model, dim, nori=False, **options))
        return name

    # --- SearchIndex port ------------------------------------------------------------------

    def bind_model(self, model: str, dim: int) -> None:
        """Create the first index for this model, or refuse another model's index."""
        self._meta = self._run(self._bind(model, dim))

    async def _bind(self, model: str, dim: int) -> dict:
        await self._sweep_orphans()
        current = self._write_index or await self._alias_index()
        if current is None:
            name = await self._create(model, dim)
            await self.client.indices.update_aliases(actions=[{"add": {"index": name, "alias": self.alias}}])
            current = name
        meta = (await self.client.indices.get_mapping(index=current)).body[current]["mappings"].get("_meta", {})
        _check_schema(current, meta)
        if meta.get("model") != model or int(meta.get("dim", 0)) != dim:
            raise EmbeddingModelMismatch(
                f"the Elasticsearch index {current} was built with {meta.get('model')} ({meta.get('dim')} dims) "
                f"but the configured embedder is {model} ({dim} dims); run `docbot index --rebuild`")
        return meta

    async def _current_meta(self) -> dict | None:
        index = await self._alias_index()
        if index is None:
            return None
        return (await self.client.indices.get_mapping(index=index)).body[index]["mappings"].get("_meta") or None

    def files(self, source: str) -> dict[str, FileRecord]:
        """File records of one source."""
        return self._run(self._files(source))

    async def _files(self, source: str) -> dict[str, FileRecord]:
        from elasticsearch.helpers import async_scan

        query = {"query": {"bool": {"filter": [{"term": {"kind": "file"}}, {"term": {"source": source}}]}},
                 "_source": ["path", "hash", "title", "chunks", "channels"]}
        records = {}
        async for doc in async_scan(self.client, index=self._target, query=query):
            s = doc["_source"]
            records[s["path"]] = FileRecord(s["path"], s["hash"], s.get("title", ""), s.get("chunks", 0),
                                            _visibility(s.get("channels")))
        return records

    def indexed_sources(self) -> dict[str, int]:
        """Source keys with their indexed file counts (a scan over the file records)."""
        return self._run(self._indexed_sources())

    async def _indexed_sources(self) -> dict[str, int]:
        from elasticsearch.helpers import async_scan

        counts: dict[str, int] = {}
        query = {"query": {"bool": {"filter": [{"term": {"kind": "file"}}]}}, "_source": ["source"]}
        async for doc in async_scan(self.client, index=self._target, query=query):
            counts[doc["_source"]["source"]] = counts.get(doc["_source"]["source"], 0) + 1
        return counts

    def replace_file(self, source: str, record: FileRecord, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """New chunks overwrite old ids, leftovers are deleted, and the file record is written last."""
        failed = self.replace_files(source, [(record, chunks, vectors)])
        if failed:
            raise SearchIndexError(failed[record.path])

    def replace_files(self, source: str, files: list[tuple[FileRecord, list[Chunk], np.ndarray]]) -> dict[str, str]:
        """`replace_file` for many files in three requests in all (chunks, stale chunks, records), not three
        per file; returns the files that failed, with why (a failed file leaves none of its new chunks)."""
        failed: dict[str, str] = {}
        actions: list[dict] = []
        owner: dict[str, str] = {}  # doc id -> path
        records = []
        for record, chunks, vectors in files:
            if len(chunks) != len(vectors):
                failed[record.path] = f"{record.path}: {len(chunks)} chunks but {len(vectors)} vectors"
                continue
            records.append(record)
            for action in self._chunk_actions(source, record, chunks, vectors):
                actions.append(action)
                owner[action["_id"]] = record.path
        if records:
            failed.update(self._run(self._replace(source, records, actions, owner)))
        return failed

    def _chunk_actions(self, source: str, record: FileRecord, chunks: list[Chunk], vectors: np.ndarray) -> list[dict]:
        heads = self.analyzer.terms_many(f"{c.title} {c.heading}" for c in chunks)
        bodies = self.analyzer.terms_many(c.text for c in chunks)
        nori = (self._meta or {}).get("korean") == "nori"
        once = (self._meta or {}).get("body_ko") == "body_en.ko"  # nori analyses body_en's text itself
        now = int(time.time())
        channels = _channels(record.visibility)
        actions = []
        for chunk, vector, head, body in zip(chunks, vectors, heads, bodies):
            actions.append({"_op_type": "index", "_index": self._target, "_id": _doc_id(source, chunk.path, chunk.ordinal),
                            "_source": {"kind": "chunk", "source": source, "path": chunk.path, "ordinal": chunk.ordinal,
                                        "hash": record.content_hash, "updated_at": now, "title": chunk.title,
                                        "lang": list(languages(chunk.embedding_text())), "channels": channels,
                                        "title_ko": chunk.title if nori else " ".join(head), "heading": chunk.heading,
                                        "body_en": chunk.text, **({} if once else {"body_ko": chunk.text if nori
                                                                                   else " ".join(body)}),
                                        "meta": chunk.meta.to_json(),
                                        "vector": np.asarray(vector, np.float32).tolist()}})
        return actions

    async def _replace(self, source: str, records: list[FileRecord], actions: list[dict],
                       owner: dict[str, str]) -> dict[str, str]:
        """New chunks first (they overwrite their own ids), then every chunk of these files with another
        hash is deleted by one query (stale ones from earlier versions *and* from attempts that failed
        midway), then the file records. A chunk just overwritten is a version conflict for the delete, so
        it stays. A file any of whose items failed is reported and gets no record: the next run retries it."""
        self._stale()
        failed = await self._bulk(actions, owner)
        written = [r for r in records if r.path not in failed]
        if not written:
            return failed
        stale = [{"bool": {"filter": [{"term": {"path": r.path}}], "must_not": [{"term": {"hash": r.content_hash}}]}}
                 for r in written]
        try:
            await self._delete_by_query(written[0].path if len(written) == 1 else f"{len(written)} files", {"bool": {
                "filter": [{"term": {"kind": "chunk"}}, {"term": {"source": source}},
                           {"terms": {"path": [r.path for r in written]}}],
                "should": stale, "minimum_should_match": 1}})
        except SearchIndexError as exc:
            return {**failed, **{r.path: str(exc) for r in written}}
        now = int(time.time())
        records_actions: list[dict[str, Any]] = [{"_op_type": "index", "_index": self._target, "_id": _doc_id(source, r.path, "file"),
                            "_source": {"kind": "file", "source": source, "path": r.path, "hash": r.content_hash,
                                        "title": r.title, "chunks": r.chunks, "channels": _channels(r.visibility),
                                        "updated_at": now}} for r in written]
        failed.update(await self._bulk(records_actions, {a["_id"]: a["_source"]["path"] for a in records_actions},
                                       undo=False))
        return failed

    async def _delete_by_query(self, what: str, query: dict) -> None:
        """Delete by query on the searchable snapshot; a failure (not a version conflict) is an error. A
        cluster answers failures with their status (>200), so they arrive as an ApiError too."""
        from elasticsearch import ApiError

        try:
            response = await self.client.delete_by_query(index=self._target, conflicts="proceed", refresh=False,
                                                          query=query)
            body = response.body
        except ApiError as exc:
            if not isinstance(exc.body, dict) or "failures" not in exc.body and "timed_out" not in exc.body:
                raise
            body = exc.body
        if body.get("failures") or body.get("timed_out"):
            reason = (body.get("failures") or ["timed out"])[0]
            raise SearchIndexError(f"{what}: deleting old chunks failed ({reason})")

    async def _bulk(self, actions: list[dict], owner: dict[str, str], *, undo: bool = True) -> dict[str, str]:
        """Bulk write; 429 items are retried with backoff; returns the files (by `owner`: id -> path) with
        failed items, and why.

        `undo`: a failed file's items this request did write are deleted again (by id, which needs no
        refresh), so a half-written file leaves nothing a later rewrite could miss.
        """
        from elasticsearch.helpers import async_bulk

        # No refresh here: a refresh per request costs up to the refresh interval each (1 s; 5 s on
        # Serverless); `flush()` refreshes once per run.
        _, errors = await async_bulk(self.client, actions, raise_on_error=False, raise_on_exception=True,
                                     max_retries=3, initial_backoff=0.5, max_backoff=8)
        errors = errors if isinstance(errors, list) else []  # a list with raise_on_error=False
        failed_items = [next(iter(e.values())) for e in errors
                        if not (next(iter(e.values())).get("status") == 404 and next(iter(e)) == "delete")]
        failed: dict[str, str] = {}
        for item in failed_items:
            path = owner.get(item.get("_id"), "?")
            count = sum(1 for i in failed_items if owner.get(i.get("_id")) == path)
            total = sum(1 for p in owner.values() if p == path)
            reason = (item.get("error") or {}).get("reason") or item.get("error") or item.get("status")
            failed.setdefault(path, f"{path}: {count} of {total} bulk items failed ({reason})")
        if failed and undo:
            refused = {i.get("_id") for i in failed_items}
            rollback = [{"_op_type": "delete", "_index": a["_index"], "_id": a["_id"]} for a in actions
                        if a["_op_type"] == "index" and owner.get(a["_id"]) in failed and a["_id"] not in refused]
            await async_bulk(self.client, rollback, raise_on_error=False, raise_on_exception=False, max_retries=3)
        return failed

    def delete_file(self, source: str, path: str) -> None:
        """Remove the file's chunks and its record."""
        self._run(self._delete(source, path))

    async def _delete(self, source: str, path: str) -> None:
        self._stale()
        await self._delete_by_query(path, {"bool": {"filter": [{"term": {"source": source}},
                                                               {"term": {"path": path}}]}})

    def flush(self) -> None:
        """Make every write so far searchable: one refresh (called once per index run, not per file)."""
        self._run(self.client.indices.refresh(index=self._target))

    def set_visibility(self, source: str, path: str, visibility: Visibility) -> None:
        """Restamp a file's chunks, then its record, in place (`_update_by_query`, no re-embedding).

        Update by query works on the last refreshed snapshot and skips (`conflicts=proceed`) what changed
        since, reporting it in `version_conflicts`: a skipped chunk would keep its old audience, and as
        the record already said the new one, no later run would look again. So each pass is checked, a
        pass with conflicts is repeated after a refresh, and only a consistent file gets its record
        restamped; if it cannot be made consistent the run fails (VisibilityNotApplied), leaving the
        record unchanged so the next run tries again."""
        channels = _channels(visibility)
        where = [{"term": {"source": source}}, {"term": {"path": path}}]
        self._run(self._restamp(path, [{"term": {"kind": "chunk"}}, *where], channels))
        self._run(self._restamp(path, [{"term": {"kind": "file"}}, *where], channels))

    async def _restamp(self, path: str, filters: list[dict], channels: list[str]) -> None:
        from elasticsearch import ApiError

        skipped = 0
        for attempt in range(RESTAMP_ATTEMPTS):
            if attempt:  # what changed since the snapshot becomes visible to the next pass
                await self.client.indices.refresh(index=self._target)
            try:
                response = await self.client.update_by_query(
                    index=self._target, refresh=False, conflicts="proceed", query={"bool": {"filter": filters}},
                    script={"source": "ctx._source.channels = params.channels", "lang": "painless",
                            "params": {"channels": channels}})
                body = response.body
            except ApiError as exc:  # failures arrive with their status (>200), the response in the body
                if not isinstance(exc.body, dict) or "failures" not in exc.body and "timed_out" not in exc.body:
                    raise
                body = exc.body
            if body.get("failures") or body.get("timed_out"):
                reason = (body.get("failures") or [{"cause": "timed out"}])[0]
                raise VisibilityNotApplied(f"{path}: restamping its visibility failed ({reason})")
            skipped = int(body.get("version_conflicts") or 0)
            if not skipped:
                return
        raise VisibilityNotApplied(f"{path}: {skipped} chunk(s) kept changing under {RESTAMP_ATTEMPTS} attempts to "
                                   "restamp their visibility; the run stops so none stays visible by mistake")

    def candidates(self, query: SearchQuery, limit: int) -> Candidates:
        """BM25 matches and each language's nearest chunks visible in the query's channel, from one
        `_msearch`, with background statistics."""
        if self._meta is None:  # a serving process never bound a model: read what the indexer recorded
            self._meta = self._run(self._current_meta())
            if self._meta is None:
                return Candidates()
            _check_schema(self.alias, self._meta)
        terms = " ".join(self.analyzer.terms(query.text))
        return self._run(self._candidates(query, terms, limit))

    def bodies(self, query: SearchQuery, terms: str, limit: int) -> tuple[dict, dict[str, dict]]:
        """The BM25 body and one kNN body per language (public for the benchmark and tests)."""
        chunk, audience = _filters(query)
        bm25 = self._bm25(query.text, terms, [chunk, audience], limit)
        vector = np.asarray(query.vector, np.float32).tolist()
        # The filters sit inside kNN: a pre-filter keeps k results per language (and per channel), a
        # post-filter would not.
        knn = {lang: {"size": limit, "_source": {"excludes": ["vector"]},
                      "knn": {"field": "vector", "query_vector": vector, "k": limit, "num_candidates": limit * 4,
                              "filter": [chunk, audience, {"term": {"lang": lang}}]}}
               for lang in LANGUAGES}
        return bm25, knn

    def translated_body(self, query: SearchQuery, limit: int) -> dict | None:
        """The BM25 body of the query's translated keywords alone (None without them): a list of its own."""
        if not query.translated:
            return None
        terms = " ".join(self.analyzer.terms(query.translated))
        return self._bm25(query.translated, terms, list(_filters(query)), limit)

    def _bm25(self, text: str, terms: str, filters: list[dict], limit: int) -> dict:
        """BM25 over titles, headings and bodies: English fields read `text`, Korean ones Kiwi's `terms`
        (or `text` itself where the cluster has nori)."""
        ko = text if (self._meta or {}).get("korean") == "nori" else terms
        return {"size": limit, "_source": {"excludes": ["vector"]},
                "query": {"bool": {"filter": filters, "should": [
                    {"match": {"title": {"query": text, "boost": 3}}},
                    {"match": {"title_ko": {"query": ko, "boost": 3}}},
                    {"match": {"heading": {"query": text, "boost": 2}}},
                    {"match": {"body_en": text}}, {"match": {(self._meta or {}).get("body_ko", "body_ko"): ko}}],
                    "minimum_should_match": 1}}}

    async def _candidates(self, query: SearchQuery, terms: str, limit: int) -> Candidates:
        bm25, knn = self.bodies(query, terms, limit)
        translated = self.translated_body(query, limit)
        searches: list[dict] = [{"index": self.alias}, bm25]
        for body in knn.values():
            searches += [{"index": self.alias}, body]
        if translated is not None:  # last, so the kNN parts keep their places
            searches += [{"index": self.alias}, translated]
        response = await self.client.msearch(searches=searches)
        parts = response.body["responses"]
        for part in parts:
            if "error" in part:
                raise SearchIndexError(f"Elasticsearch search failed: {part['error']}")
            _check_shards(part)
        keyword_hits = parts[0]["hits"]["hits"]
        translated_hits = parts[1 + len(knn)]["hits"]["hits"] if translated is not None else []
        docs = {h["_id"]: h["_source"] for part in parts for h in part["hits"]["hits"]}
        # Elasticsearch's cosine similarity score is (1 + cos) / 2.
        cosines = {h["_id"]: 2 * h["_score"] - 1 for part in parts[1:1 + len(knn)] for h in part["hits"]["hits"]}
        samples = await self._language_samples()
        centroid = _centroid(samples)
        # The BM25-only hits' cosines and every candidate's hub term: two small scripted searches at once.
        missing, hubs = await asyncio.gather(self._cosines([i for i in docs if i not in cosines], query.vector),
                                             self._hubs(list(docs), centroid))
        cosines.update(missing)
        nearest = {lang: [h["_id"] for h in part["hits"]["hits"]] for lang, part in zip(knn, parts[1:])}
        chunks = {i: _candidate(d, cosines[i], hubs.get(i)) for i, d in docs.items() if i in cosines}
        keyword = [(h["_id"], float(h["_score"])) for h in keyword_hits if h["_id"] in chunks]
        q = np.asarray(query.vector, np.float64)
        return Candidates(keyword, nearest, chunks, {lang: s.background(q, centroid) for lang, s in samples.items()},
                          [(h["_id"], float(h["_score"])) for h in translated_hits if h["_id"] in chunks])

    async def _hubs(self, ids: list[str], centroid: np.ndarray | None) -> dict[str, float]:
        """Each candidate's hub term (its dot product with the sampled centroid, as the embedded index
        stores it per chunk), computed by the cluster at query time from the indexed vectors: a stored
        field would be measured against the corpus as it was when the chunk was written (see
        docs/retrieval.md). `cosineSimilarity` normalises the centroid, so its length scales it back."""
        if not ids or centroid is None or not (norm := float(np.linalg.norm(centroid))):
            return {}
        return {i: cosine * norm for i, cosine in (await self._cosines(ids, centroid)).items()}

    async def _cosines(self, ids: list[str], vector: np.ndarray) -> dict[str, float]:
        """Cosines of hits that came without a vector score (BM25-only hits), computed by the cluster from
        the indexed vectors (`script_score`), so nothing depends on vectors being kept in `_source`."""
        if not ids:
            return {}
        response = await self.client.search(index=self.alias, size=len(ids), source=False, query={"script_score": {
            "query": {"bool": {"filter": [{"ids": {"values": ids}}]}},
            "script": {"source": "cosineSimilarity(params.query_vector, 'vector') + 1.0",
                       "params": {"query_vector": np.asarray(vector, np.float32).tolist()}}}})
        _check_shards(response.body)
        return {h["_id"]: float(h["_score"]) - 1.0 for h in response.body["hits"]["hits"]}

    async def _language_samples(self) -> dict[str, "_Sample"]:
        """Per-language (and overall) vector statistics from a random sample. Taken in the background: a
        query uses the samples at hand (stale ones too, while fresh ones are taken after SAMPLE_TTL or a
        write); only a process's very first query waits for them, having nothing to rank with otherwise."""
        fresh = self._samples is not None and time.monotonic() - self._samples[0] < SAMPLE_TTL
        if not fresh and (self._sampling is None or self._sampling.done()):
            self._sampling = asyncio.ensure_future(self._take_samples())
        if self._samples is None:
            await asyncio.shield(self._sampling)  # type: ignore[arg-type]
        return self._samples[1] if self._samples else {}

    def statistics_settled(self) -> None:
        """Block until a background sampling (if one runs) has finished (tests and the benchmark)."""
        task = self._sampling
        if task is not None and not task.done():
            self._loop.run(asyncio.wait([task]))

    def _stale(self) -> None:
        """This process wrote: sample again, in the background, at the next query."""
        if self._samples is not None:
            self._samples = (float("-inf"), self._samples[1])

    async def _take_samples(self) -> None:
        try:
            samples: dict[str, _Sample] = {}
            for lang in (*LANGUAGES, ALL_LANGUAGES):
                sample = await self._sample(lang)
                if sample is not None:
                    samples[lang] = sample
            self._samples = (time.monotonic(), samples)
        except Exception:  # the stale samples (or none) stay; the next query tries again
            log.warning("could not sample the index's vectors for background statistics", exc_info=True)

    async def _sample(self, lang: str) -> "_Sample | None":
        """A uniform random sample of one language's chunk vectors. `boost_mode: replace`: a filter-only
        query scores 0 and function_score multiplies by default, so random_score alone would score every
        chunk 0 and return the first SAMPLE_SIZE in index order."""
        from elasticsearch import BadRequestError

        filters: list[dict] = [{"term": {"kind": "chunk"}}]
        if lang != ALL_LANGUAGES:
            filters.append({"term": {"lang": lang}})
        query = {"function_score": {"query": {"bool": {"filter": filters}}, "boost_mode": "replace",
                                    "random_score": {"seed": 7, "field": "_seq_no"}}}
        try:
            response = await self.client.search(index=self.alias, size=SAMPLE_SIZE, source=self._vector_source,
                                                track_total_hits=True, query=query)
        except BadRequestError as exc:
            if self._exclude_vectors is not None or "exclude_vectors" not in str(exc.message) + str(exc.body):
                raise
            self._exclude_vectors = False  # a 9.x before the option: vectors are in _source anyway
            return await self._sample(lang)
        if self._exclude_vectors is None:
            self._exclude_vectors = True
        _check_shards(response.body)
        hits = response.body["hits"]
        vectors = [h["_source"]["vector"] for h in hits["hits"] if "vector" in h.get("_source", {})]
        return _Sample.of(np.asarray(vectors, np.float64), hits["total"]["value"]) if vectors else None

    @property
    def _vector_source(self) -> dict | list:
        """Source filtering that returns the vector: from 9.2 vectors leave `_source` unless asked for; a
        server that does not know `exclude_vectors` keeps them there (learned, no version check: `GET /`
        needs the `monitor` privilege)."""
        if self._exclude_vectors is False:
            return ["vector"]
        return {"includes": ["vector"], "exclude_vectors": False}

    def stats(self) -> dict:
        """Counts and the bound model."""
        return self._run(self._stats())

    async def _stats(self) -> dict:
        index = await self._alias_index()
        if index is None:
            return {"backend": "elasticsearch", "alias": self.alias, "index": None, "files": 0, "chunks": 0,
                    "model": None}
        count = lambda kind: self.client.count(index=self.alias, query={"term": {"kind": kind}})  # noqa: E731
        files, chunks = (await count("file")).body["count"], (await count("chunk")).body["count"]
        meta = (await self.client.indices.get_mapping(index=index)).body[index]["mappings"].get("_meta", {})
        return {"backend": "elasticsearch", "alias": self.alias, "index": index, "files": files, "chunks": chunks,
                "model": meta.get("model"), "dim": meta.get("dim"), "korean": meta.get("korean")}

    # --- rebuilds --------------------------------------------------------------------------

    def begin_rebuild(self, model: str, dim: int) -> None:
        """Start filling a new versioned index; searches keep using the alias until `finish_rebuild`."""
        self._run(self._sweep_orphans())
        self._write_index = self._run(self._create(model, dim, loading=True))
        self._meta = self._run(self._mapping_meta(self._write_index))

    async def _mapping_meta(self, index: str) -> dict:
        return (await self.client.indices.get_mapping(index=index)).body[index]["mappings"]["_meta"]

    async def _sweep_orphans(self) -> None:
        """Delete versioned indices the alias does not point at: what a crashed rebuild left half-built
        (refreshes off, no replicas), or an old index whose deletion after a swap failed. Index runs hold
        the lease, so no other runner is filling one; once per process is enough."""
        if self._swept:
            return
        found = (await self.client.indices.get(index=f"{self.alias}-v*", expand_wildcards="all")).body
        live = await self._alias_index()
        for name in sorted(found):
            if name not in (live, self._write_index):
                log.warning("deleting %s: a versioned index the alias %s does not point at (left by a crashed "
                            "rebuild)", name, self.alias)
                await self.client.indices.delete(index=name, ignore_unavailable=True)
        self._swept = True

    def finish_rebuild(self) -> None:
        """Restore refreshes and replicas, refresh, point the alias at the new index in one atomic call,
        then drop the old one."""
        new, self._write_index = self._write_index, None
        if new:
            self._run(self._swap(new))

    async def _swap(self, new: str) -> None:
        # null resets a setting to its default: refreshes back on, replicas as configured (or the default)
        await self.client.indices.put_settings(index=new, settings={"index": {
            "refresh_interval": None, "number_of_replicas": self.replicas}})
        await self.client.indices.refresh(index=new)
        old = await self._alias_index()
        actions = [{"add": {"index": new, "alias": self.alias}}]
        if old:
            actions.insert(0, {"remove": {"index": old, "alias": self.alias}})
        await self.client.indices.update_aliases(actions=actions)
        if old:
            await self.client.indices.delete(index=old)

    def abort_rebuild(self) -> None:
        """Drop a half-built index; the alias never pointed at it."""
        new, self._write_index = self._write_index, None
        if new:
            self._run(self.client.indices.delete(index=new, ignore_unavailable=True))

    def clear(self) -> None:
        """Delete the current index and unbind the model: the next `bind_model` creates an empty one. (A
        rebuild, unlike this, keeps the old index searchable until the new one is complete.)"""
        self._run(self._clear())
        self._meta = None
        self._samples = None

    async def _clear(self) -> None:
        old = await self._alias_index()
        if old:
            await self.client.indices.update_aliases(actions=[{"remove": {"index": old, "alias": self.alias}}])
            await self.client.indices.delete(index=old)

    def close(self) -> None:
        """Close the client and its loop."""
        try:
            self._loop.run(self.client.close())
        finally:
            self._loop.stop()


def _filters(query: SearchQuery) -> tuple[dict, dict]:
    """What every search of a query is filtered by: chunks only, and only those visible to its audience."""
    return {"term": {"kind": "chunk"}}, {"terms": {"channels": [EVERYONE, *query.tokens]}}


def _check_shards(response: dict) -> None:
    """A search some shards failed answers with partial results: an error here, never a silent subset."""
    shards = response.get("_shards") or {}
    if shards.get("failed"):
        reasons = [f.get("reason") for f in shards.get("failures", [])][:1]
        raise SearchIndexError(f"Elasticsearch answered from {shards.get('successful')} of {shards.get('total')} "
                               f"shards (failed: {reasons})")


def _check_schema(index: str, meta: dict) -> None:
    """An index built by an older docbot lacks fields searches filter on (`lang`, `channels`): rebuild it."""
    if int(meta.get("schema", 1)) < SCHEMA_VERSION:
        raise SearchIndexError(f"the Elasticsearch index {index} was built by an older docbot (schema "
                               f"{meta.get('schema', 1)}, need {SCHEMA_VERSION}: per-language search and per-chunk "
                               "visibility); run `docbot index --rebuild`")


def _channels(visibility: Visibility) -> list[str]:
    """The `channels` keyword values: EVERYONE, the allowed ids, or none (nobody matches)."""
    return [EVERYONE] if visibility is None else sorted(visibility)


def _visibility(channels: list[str] | None) -> Visibility:
    return None if channels == [EVERYONE] else frozenset(channels or ())


def _candidate(doc: dict, cosine: float, hub: float | None = None) -> Candidate:
    text = doc.get("body_en", doc.get("text", ""))  # indices built before text was stored once also have `text`
    chunk = Chunk(doc["path"], doc["ordinal"], doc.get("title", ""), doc.get("heading", ""), text,
                  Metadata.from_json(doc.get("meta")))
    return Candidate(chunk, doc["source"], tuple(doc.get("lang") or LANGUAGES), cosine, hub)


def _centroid(samples: dict[str, "_Sample"]) -> np.ndarray | None:
    """The corpus centroid as the embedded index defines it (rag.index.snapshot.hub_terms): the mean of each
    language's mean vector, here from the samples; the whole index's when no language has one."""
    means = [samples[lang].mean for lang in LANGUAGES if lang in samples]
    if means:
        return np.mean(means, axis=0)
    return samples[ALL_LANGUAGES].mean if ALL_LANGUAGES in samples else None


class _Sample:
    """Mean vector and covariance of a sample of chunk vectors: q·mean and sqrt(qᵀ·cov·q) are the mean
    and spread of a query's cosines over the whole population the sample came from."""

    def __init__(self, mean: np.ndarray, covariance: np.ndarray, count: int):
        self.mean, self.covariance, self.count = mean, covariance, count

    @classmethod
    def of(cls, vectors: np.ndarray, count: int) -> "_Sample":
        mean = vectors.mean(axis=0)
        centred = vectors - mean
        return cls(mean, centred.T @ centred / len(vectors), count)

    def background(self, query: np.ndarray, centroid: np.ndarray | None = None) -> Background:
        """The query's cosine statistics over the population, and the mean and spread of its hub terms
        (x·centroid averages to mean·centroid, with variance centroidᵀ·cov·centroid)."""
        variance = float(query @ self.covariance @ query)
        hub, spread = 0.0, 0.0
        if centroid is not None:
            hub, spread = float(self.mean @ centroid), float(np.sqrt(max(float(centroid @ self.covariance @ centroid), 0.0)))
        return Background(float(query @ self.mean), float(np.sqrt(max(variance, 0.0))), self.count, hub, spread)
