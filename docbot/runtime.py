"""Assembly: turn Settings into the running parts. The only place that knows every concrete class."""
from __future__ import annotations

import logging
import socket
import sqlite3
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from bot.actions import ActionHandler, ActionService, ReindexAction, WebhookAction
from bot.conversation import ConversationService
from bot.indexing import IndexJob
from bot.observability import Metrics
from bot.ratelimit import RateLimiter
from bot.storage import Store
from rag.answer import model as reader_model
from rag.answer.answerers import Answerer, ExtractiveAnswerer, LLMAnswerer
from rag.answer.lookups import HttpJsonLookup, LookupRegistry
from rag.answer.reading import Reader
from rag.errors import ConfigurationError
from rag.index.embedded import SqliteSearchIndex
from rag.index.indexer import BATCH_CHUNKS, LOCAL_BATCH_CHUNKS, Indexer
from rag.index.port import RebuildableIndex
from rag.index.sentences import SentenceFiller
from rag.ingest.chunking import Chunker, OverlapChunker, SemanticChunker
from rag.ingest.connectors.confluence import ConfluenceSource
from rag.ingest.connectors.gdrive import GoogleDriveSource, service_account_token
from rag.ingest.connectors.git import GitSource, mirror_path
from rag.ingest.connectors.graph import GraphSource, msal_token
from rag.ingest.sources import FolderSource, Source, narrowed, overlaps, with_owners
from rag.models.embeddings import E5Embedder, Embedder, OpenAIEmbedder, USEEmbedder, VectorCache
from rag.models.llm import OpenAIChat
from rag.models.stored import StoredVectors
from rag.pipeline import Pipeline
from rag.resilience import RetryPolicy
from rag.retrieve.ranking import Ranker
from rag.retrieve.retriever import Retriever
from rag.text.analysis import Analyzer
from rag.text.bilingual import Bilingual
from rag.understand.intent import ClassifierRouter, IntentClassifier
from rag.understand.rewrite import LLMRewriter, OfflineRewriter, Rewriter
from rag.understand.routing import Router

from . import threads
from .settings import COSINE_GAPS, ConfluenceSpec, DriveSpec, GitSpec, GraphSpec, Settings, SourceSpec, secret

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """Lazily built components for one process; heavy ones (Kiwi, the model) load on first use."""

    settings: Settings

    @cached_property
    def analyzer(self) -> Analyzer:
        """Kiwi-backed analyzer, shared by the index, rewriter and answerer."""
        return Analyzer(workers=threads.KIWI_WORKERS)

    @cached_property
    def retry_policy(self) -> RetryPolicy:
        """The one retry and timeout policy every outside call follows."""
        s = self.settings
        return RetryPolicy(attempts=s.retry_attempts, max_wait=s.retry_max_wait, timeout=s.http_timeout)

    @cached_property
    def embedder(self) -> Embedder:
        """The configured embedder."""
        s = self.settings
        if s.embedder == "openai":
            key = s.openai_api_key.get_secret_value() if s.openai_api_key else "unused"
            return OpenAIEmbedder(s.embedding_model, s.embedding_dim, key, s.openai_base_url, self.retry_policy)
        if s.embedder == "use":
            return USEEmbedder()
        return E5Embedder(query_threads=s.embed_query_threads, passage_threads=s.embed_index_threads)

    @cached_property
    def turn_embedder(self) -> Embedder:
        """The embedder a turn uses (classifier, search, extractive answer): recent vectors remembered,
        so a text is embedded once however many steps ask for it. Indexing uses `embedder` itself."""
        size = self.settings.vector_cache
        inner = self.embedder.at_query_time() if isinstance(self.embedder, E5Embedder) else self.embedder
        return VectorCache(inner, size, self.sentence_vectors) if size else inner

    @cached_property
    def index(self) -> RebuildableIndex:
        """The configured search backend: the embedded index under the data dir, or Elasticsearch."""
        s = self.settings
        if s.index == "elasticsearch":
            from rag.index.elastic import ElasticsearchIndex

            return ElasticsearchIndex(self.es_client_factory(), self.analyzer, alias=s.es_alias,
                                      korean=s.es_korean, index_options=s.es_index_options, shards=s.es_shards,
                                      replicas=s.es_replicas)
        return SqliteSearchIndex(s.index_path, self.analyzer)

    def es_client_factory(self, **overrides):
        """Builds the AsyncElasticsearch client (on the index's own event loop) from settings."""
        s = self.settings
        if not s.elasticsearch_url:
            raise ConfigurationError("DOCBOT_INDEX=elasticsearch needs ELASTICSEARCH_URL")

        def make():
            from elasticsearch import AsyncElasticsearch

            auth: dict = {"ca_certs": s.elasticsearch_ca_certs} if s.elasticsearch_ca_certs else {}
            if s.elasticsearch_api_key:
                auth["api_key"] = s.elasticsearch_api_key.get_secret_value()
            elif s.elasticsearch_username:
                auth["basic_auth"] = (s.elasticsearch_username,
                                      s.elasticsearch_password.get_secret_value() if s.elasticsearch_password else "")
            policy = self.retry_policy
            return AsyncElasticsearch(s.elasticsearch_url,
                                      request_timeout=policy.timeout, max_retries=policy.retries,
                                      retry_on_status=(429, 502, 503, 504), retry_on_timeout=True,
                                      retry_backoff_base=policy.base_wait, retry_backoff_cap=policy.max_wait,
                                      **auth, **overrides)

        return make

    @cached_property
    def chunker(self) -> Chunker:
        """The configured chunker."""
        s = self.settings
        if s.chunker == "semantic":
            return SemanticChunker(self.embedder, size=s.chunk_size)
        return OverlapChunker(s.chunk_size, s.chunk_overlap)

    @cached_property
    def indexer(self) -> Indexer:
        """Folder-to-index synchroniser."""
        s = self.settings
        return Indexer(self.index, self.embedder, self.chunker, s.chunker_signature(),
                       batch_chunks=BATCH_CHUNKS if s.embedder == "openai" else LOCAL_BATCH_CHUNKS,
                       max_file_bytes=int(s.max_file_mb * 1_048_576),
                       sentences=self.sentence_vectors if s.sentence_vectors else None)

    @cached_property
    def sentence_vectors(self) -> StoredVectors | None:
        """The answer's sentence vectors: a turn looks them up, embeds (and keeps) those missing; the indexer
        lists each passage's for the second pass (None: the file cannot be opened, turns embed them each time)."""
        s = self.settings
        path = s.data_dir / "sentences.sqlite3"
        try:
            return StoredVectors(path, self.embedder.name, self.embedder.dim)
        except (OSError, sqlite3.Error) as exc:  # a speed-up only: never the reason docbot does not start
            log.warning("sentence vectors unavailable at %s (%s); turns will embed their sentences", path, exc)
            return None

    @cached_property
    def sentence_filler(self) -> SentenceFiller | None:
        """The second pass that embeds the listed sentences while the server is idle (DOCBOT_SENTENCE_VECTORS)."""
        if not self.settings.sentence_vectors or self.sentence_vectors is None:
            return None
        return SentenceFiller(self.sentence_vectors, lambda: self.embedder, busy=self.busy)

    def busy(self) -> bool:
        """Whether a turn or an index run is going on in this process (the second pass waits while so)."""
        conversations, job = self.__dict__.get("conversations"), self.__dict__.get("index_job")
        return bool((conversations is not None and conversations.busy()) or (job is not None and job.running))

    @cached_property
    def sources(self) -> list[Source]:
        """Configured sources: DOCBOT_SOURCES (folders and connectors), else one folder per DOCBOT_DOCS entry."""
        s = self.settings
        connectors: list[Source] = [self._git_source(spec) for spec in s.sources if isinstance(spec, GitSpec)]
        connectors += [self._confluence_source(spec) for spec in s.sources if isinstance(spec, ConfluenceSpec)]
        connectors += [self._graph_source(spec) for spec in s.sources if isinstance(spec, GraphSpec)]
        connectors += [self._drive_source(spec) for spec in s.sources if isinstance(spec, DriveSpec)]
        return [*self.folder_sources, *connectors]

    @cached_property
    def folder_sources(self) -> list[FolderSource]:
        """The configured folders.

        A source with `channels` is visible only there; a folder inside another configured folder
        belongs to the inner source alone (its visibility wins), and the overlap is logged.
        """
        s = self.settings
        if s.sources:
            sources = [FolderSource(spec.path, spec.name,
                                    **spec.model_dump(include={"include", "exclude", "include_hidden"}, exclude_none=True),
                                    visibility=frozenset(spec.channels) if spec.channels else None,
                                    setting="DOCBOT_SOURCES")
                       for spec in s.sources if isinstance(spec, SourceSpec)]
        else:
            sources = [FolderSource(path, setting="DOCBOT_DOCS") for path in s.docs]
        for outer, inner in overlaps(sources):
            log.warning("source %s lies inside source %s: its files are indexed once, under %s, visible %s",
                        inner.name, outer.name, inner.name,
                        "everywhere" if inner.visibility is None else f"only in {sorted(inner.visibility)}")
        return with_owners(sources)

    def _git_source(self, spec: GitSpec) -> GitSource:
        return GitSource(spec.repository, mirror_path(self.settings.data_dir, spec.repository, spec.branch),
                         spec.branch, spec.name, **spec.model_dump(include={"include", "exclude"}, exclude_none=True),
                         visibility=frozenset(spec.channels) if spec.channels else None, link=spec.link or "",
                         token=secret(spec.token_env, spec.token_file, f"the Git source {spec.repository}"),
                         username=spec.username)

    def _confluence_source(self, spec: ConfluenceSpec) -> ConfluenceSource:
        return ConfluenceSource(spec.base_url, list(spec.spaces), spec.edition, spec.name,
                                visibility=frozenset(spec.channels) if spec.channels else None, email=spec.email or "",
                                token=secret(spec.token_env, spec.token_file, f"the Confluence source {spec.base_url}"),
                                listing_every=spec.listing_every, permissions=spec.permissions,
                                policy=self.retry_policy)

    def _graph_source(self, spec: GraphSpec) -> GraphSource:
        client_secret = secret(spec.client_secret_env, spec.client_secret_file, f"the {spec.kind} source {spec.drive}")
        if not client_secret:
            raise ConfigurationError(f"the {spec.kind} source {spec.drive} needs client_secret_env or client_secret_file")
        return GraphSource(spec.drive, msal_token(spec.tenant_id, spec.client_id, client_secret), spec.folder,
                           spec.name, visibility=frozenset(spec.channels) if spec.channels else None,
                           policy=self.retry_policy, kind=spec.kind, permissions=spec.permissions,
                           pages=spec.pages)

    def _drive_source(self, spec: DriveSpec) -> GoogleDriveSource:
        token, account = service_account_token(spec.service_account_file)
        return GoogleDriveSource(token, account, spec.folder, spec.drive_id, spec.name,
                                 visibility=frozenset(spec.channels) if spec.channels else None,
                                 api_url=spec.api_url, policy=self.retry_policy)

    def source_for(self, path: Path) -> FolderSource:
        """The source an ad hoc `docbot index <path>` runs: the configured source it lies in, narrowed
        (same key and visibility), else the folder itself."""
        return narrowed(path, self.folder_sources)

    @cached_property
    def index_job(self) -> IndexJob:
        """The one indexing job: CLI, scheduler and the re-index action all run it."""
        s = self.settings
        return IndexJob(self.store, self.indexer, self.sources, lease_ttl=s.index_lease_seconds,
                        lease=self.lease_name, metrics=self.metrics, configured=True,
                        missing_grace=s.source_missing_grace_hours * 3600, stall_seconds=s.index_stall_seconds)

    @property
    def lease_name(self) -> str:
        """One lease per index: processes sharing this index file take turns; replicas with their
        own embedded index each keep theirs current (a shared backend would get one lease for all)."""
        s = self.settings
        if s.index == "elasticsearch":
            return f"index:es:{s.elasticsearch_url}:{s.es_alias}"
        return f"index:sqlite:{socket.gethostname()}:{s.index_path.resolve().as_posix()}"

    @cached_property
    def retriever(self) -> Retriever:
        """Embedder plus index."""
        s = self.settings
        gap = s.cosine_gap if s.cosine_gap is not None else COSINE_GAPS[s.embedder]
        ranker = Ranker(keyword_weight=s.keyword_weight, translation_weight=s.translation_weight, z_gap=s.z_gap,
                        cosine_gap=gap, prior_weight=s.prior_weight, hub_weight=s.hub_weight,
                        hub_margin=s.hub_margin, stale_penalty=s.stale_penalty)
        return Retriever(self.index, self.turn_embedder, s.top_k, ranker=ranker, candidates=s.candidates,
                         bilingual=self.bilingual)

    @cached_property
    def bilingual(self) -> Bilingual:
        """Dictionary translation of a query's keywords, shared by retrieval and the answer's reading."""
        return Bilingual(self.analyzer)

    def _chat(self, model: str) -> OpenAIChat:
        s = self.settings
        key = s.openai_api_key.get_secret_value() if s.openai_api_key else "not-needed"
        return OpenAIChat(model, key, s.openai_base_url, max_retries=self.retry_policy.retries)

    @cached_property
    def rewriter(self) -> Rewriter:
        """LLM rewriter when an endpoint is configured, the offline one otherwise."""
        s = self.settings
        if s.llm_configured:
            return LLMRewriter(self._chat(s.rewrite_model), self.analyzer, turns=s.rewrite_turns,
                               timeout=s.rewrite_timeout, max_chars=s.rewrite_max_chars, classify=True)
        return OfflineRewriter(self.analyzer, turns=s.rewrite_turns)

    @cached_property
    def answerer(self) -> Answerer:
        """Streaming LLM answers when configured, extractive answers otherwise."""
        s = self.settings
        extractive = ExtractiveAnswerer(self.analyzer, self.turn_embedder,
                                        reader=Reader(self.analyzer, self.turn_embedder, bilingual=self.bilingual,
                                                      model=reader_model.load() if s.reader_model else None))
        if s.llm_configured:
            return LLMAnswerer(self._chat(s.answer_model), extractive, history_turns=s.history_turns,
                               timeout=s.answer_timeout)
        return extractive

    @cached_property
    def router(self) -> Router:
        """Rules plus the embedding classifier (the LLM routes follow-ups when configured)."""
        classifier = IntentClassifier(self.turn_embedder, cache_dir=self.settings.data_dir / "cache")
        return ClassifierRouter(classifier, self.analyzer)

    @cached_property
    def lookups(self) -> LookupRegistry:
        """Configured live-state lookups."""
        return LookupRegistry([HttpJsonLookup(**spec.model_dump(), policy=self.retry_policy) for spec in self.settings.lookups])

    @cached_property
    def pipeline(self) -> Pipeline:
        """Rewrite, route, retrieve or look up, answer."""
        s = self.settings
        return Pipeline(self.rewriter, self.router, self.retriever, self.answerer, analyzer=self.analyzer,
                        lookups=self.lookups, threshold=s.intent_threshold, chain=s.chain,
                        max_steps=s.chain_max_steps)

    @cached_property
    def actions(self) -> ActionService:
        """Re-index and configured webhooks, behind confirmation."""
        s = self.settings
        handlers: list[ActionHandler] = [ReindexAction(self.index_job)]
        handlers += [WebhookAction(**spec.model_dump()) for spec in s.webhooks]
        return ActionService(self.store, handlers, set(s.action_admins), s.action_ttl_seconds)

    @cached_property
    def store(self) -> Store:
        """The conversation database."""
        return Store(self.settings.db_url)

    @cached_property
    def metrics(self) -> Metrics:
        """This process's Prometheus metrics."""
        return Metrics()

    @cached_property
    def conversations(self) -> ConversationService:
        """The conversation service the adapters talk to."""
        s = self.settings
        limiter = RateLimiter(s.rate_limit_per_user, s.rate_limit_per_channel) \
            if (s.rate_limit_per_user or s.rate_limit_per_channel) else None
        return ConversationService(self.store, self.pipeline, s.history_turns, self.actions, self.metrics,
                                   limiter=limiter, answer_apps=s.slack_answer_bots)

    def warm_up(self) -> None:
        """Load what a first turn needs (Kiwi and its first analysis, the model, the classifier, the index
        snapshot), so the first answer does not pay for it. The chat runs this behind its prompt."""
        self.analyzer.terms("문서 준비 warm-up")  # Kiwi's first analysis costs more than loading it
        self.router.route("warm up", "warm up")
        self.retriever.search("warm up")
        self.bilingual.telling_words("문서")  # the dictionary, with the English lemma and spelling tables, and the
        # sense-word counts the reading's concepts use (~0.6 s once)

    def executed_actions(self) -> int:
        """Actions that ran (or started to): what the eval counts as executed."""
        return self.store.count_actions({"running", "done", "failed"})

    def close(self) -> None:
        """Release the index and database connections that were opened."""
        if (filler := self.__dict__.get("sentence_filler")) is not None:
            filler.stop()
        if "index" in self.__dict__:
            self.index.close()
        if "store" in self.__dict__:
            self.store.engine.dispose()
        if (sentences := self.__dict__.get("sentence_vectors")) is not None:
            sentences.close()
