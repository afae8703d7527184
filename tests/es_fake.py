"""A fake Elasticsearch 9.x node for the real `elasticsearch` async client.

Plugged in as the transport's node class, it records every request (method, path, body) and
answers from a small in-memory cluster. It is meant to be at least as strict as a real
cluster for every request docbot sends: each rule below cites the Elasticsearch reference
page it follows (paths under https://www.elastic.co/docs/reference/ or /docs/api/). What it
models: indices with validated mappings and settings, aliases, documents with versions,
near-real-time visibility (documents are searchable only after a refresh: explicit, a
request's `refresh`, or the index's `refresh_interval`), bulk NDJSON with per-item errors,
analysed BM25 (k1 1.2, b 0.75, per-field length normalisation; `english` = lowercase +
stopwords + snowball stemming, `whitespace` tokenizer + lowercase for pre-analysed Korean),
exact cosine kNN with pre-filters, `script_score` with `cosineSimilarity`, `_msearch`,
paging with `from`/`size` and scroll, mget, count, delete/update by query on the searchable
snapshot with version conflicts, the licence and info APIs, and security refusals for the
monitoring APIs a least-privilege key may not call. Knobs script the failures tests need.

Also as strict as a cluster in (each with a test in tests/test_es_fake_rules.py):
- privileges per API, from the specification's `@cluster_privileges` / `@index_privileges` (a `role`
  set on the cluster: anything it does not grant is a 403 `security_exception`);
- a 9.x client's `compatible-with=9` headers refused by an 8.x server (400 `media_type_header_exception`);
- delete/update by query answering with the highest failure status (408 when timed out), as
  BulkIndexByScrollResponseContentListener does; a version conflict without `conflicts=proceed` is a 409;
- `function_score` combining with the query's score (`boost_mode` multiply by default; a filter-only
  `bool` scores 0, so `random_score` alone scores 0 and ties come back in index order);
- `index_options` integers (`m`, `ef_construction`) parsed as integers (`"sixteen"` is a 400);
- `_msearch` bodies parsed before anything runs: one malformed body is a 400 for the whole request;
- `exclude_vectors` in `_source` from 9.1 (refused before).
"""
from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import math
import re
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import numpy as np
import snowballstemmer
from elastic_transport import ApiResponseMeta, BaseAsyncNode, HttpHeaders
from elastic_transport._node._base import NodeApiResponse

# reference/elasticsearch/mapping-reference/dense-vector#dense-vector-index-options
INDEX_OPTION_TYPES = {"hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw", "flat", "int8_flat", "int4_flat", "bbq_flat",
                      "bbq_disk"}
INDEX_OPTION_PARAMS = {"hnsw": {"m", "ef_construction"}, "int8_hnsw": {"m", "ef_construction", "confidence_interval"},
                       "int4_hnsw": {"m", "ef_construction", "confidence_interval"},
                       "bbq_hnsw": {"m", "ef_construction", "rescore_vector"}, "flat": set(),
                       "int8_flat": {"confidence_interval"}, "int4_flat": {"confidence_interval"},
                       "bbq_flat": {"rescore_vector"}, "bbq_disk": {"rescore_vector"}}
SIMILARITIES = {"l2_norm", "dot_product", "cosine", "max_inner_product"}
# api/doc/elasticsearch/operation/operation-search (request body properties docbot could send)
SEARCH_KEYS = {"query", "knn", "size", "from", "_source", "track_total_hits", "sort", "retriever", "fields",
               "min_score", "timeout"}
ENGLISH_STOP = {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no",
                "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this",
                "to", "was", "will", "with"}  # Lucene's English stop set, used by the `english` analyzer
_WORD = re.compile(r"\w+")
_STEM = snowballstemmer.stemmer("english")


@dataclass
class Index:
    mappings: dict
    settings: dict
    docs: dict = field(default_factory=dict)  # id -> source (live: what GET and mget see)
    versions: dict = field(default_factory=dict)  # id -> version of the live document
    searchable: dict = field(default_factory=dict)  # id -> (version, source) as of the last refresh
    last_refresh: float = field(default_factory=time.monotonic)

    def __getitem__(self, key: str):  # tests read spec["docs"], spec["mappings"], spec["settings"]
        return getattr(self, key)

    def refresh(self) -> None:
        self.searchable = {i: (self.versions[i], d) for i, d in self.docs.items()}
        self.last_refresh = time.monotonic()

    @property
    def refresh_interval(self) -> float | None:
        """Seconds between automatic refreshes; None for -1 (off). Default 1s
        (reference/elasticsearch/index-settings/index-modules#index-refresh-interval-setting)."""
        value = str(self.settings["index"].get("refresh_interval", "1s"))
        if value == "-1":
            return None
        return float(value.rstrip("ms")) / (1000 if value.endswith("ms") else 1)

    def tick(self) -> None:
        """The periodic refresh a real shard does in the background."""
        interval = self.refresh_interval
        if interval is not None and time.monotonic() - self.last_refresh >= interval:
            self.refresh()


@dataclass
class Cluster:
    """State shared by every node instance of one test."""

    indices: dict = field(default_factory=dict)  # name -> Index
    aliases: dict = field(default_factory=dict)  # alias -> index
    requests: list = field(default_factory=list)  # (method, path, body)
    version: str = "9.1.0"
    product: str = "Elasticsearch"  # anything else: the client's product check refuses the server
    licence: str = "basic"
    plugins: list = field(default_factory=list)
    least_privilege: bool = False  # an API key without `monitor`: cat and nodes APIs are 403
    role: dict | None = None  # {"cluster": [...], "indices": [{"names": [...], "privileges": [...]}]}; None: superuser
    by_query_conflicts: int = 0  # the next delete/update by query runs into this many version conflicts
    by_query_timeout_once: bool = False  # the next delete/update by query times out (408)
    throttle: list = field(default_factory=list)  # paths (prefix) answered 429 once each
    bulk_item_429_once: set = field(default_factory=set)  # doc ids whose first bulk attempt gets 429
    bulk_reject: set = field(default_factory=set)  # doc ids always rejected (mapper error)
    shard_failure_once: bool = False  # the next search reports a failed shard (partial results)
    by_query_failure_once: bool = False  # the next delete/update by query reports a failure
    status_override: int | None = None  # answer everything with this status (auth failures)
    _scrolls: dict = field(default_factory=dict)
    _ids: itertools.count = field(default_factory=itertools.count)

    def of(self, path_part: str) -> list:
        return [r for r in self.requests if path_part in r[1]]


CLUSTER = Cluster()


class Refused(Exception):
    """A request the cluster answers with an error status."""

    def __init__(self, status: int, kind: str, reason: str):
        super().__init__(reason)
        self.status, self.body = status, {"error": {"type": kind, "reason": reason,
                                                    "root_cause": [{"type": kind, "reason": reason}]},
                                          "status": status}


# Privileges per API, from the specification (specification/**/…Request.ts, `@cluster_privileges` and
# `@index_privileges`; any one listed privilege suffices) and, where the specification has no annotation,
# the security reference (reference/elasticsearch/security-privileges): aliases need `manage` on the index
# and the alias; delete by query needs `read` and `delete`; bulk items need `index`/`delete` (or `write`).
CLUSTER_PRIVILEGES = {"info": {"monitor"}, "cat": {"monitor"}, "nodes": {"monitor"}}
INDEX_PRIVILEGES = {
    "indices.create": [{"create_index", "manage"}], "indices.delete": [{"delete_index", "manage"}],
    "indices.get": [{"view_index_metadata", "manage"}], "indices.get_alias": [{"view_index_metadata", "manage"}],
    "indices.get_mapping": [{"view_index_metadata", "manage"}], "indices.get_settings": [{"view_index_metadata", "manage"}],
    "indices.put_settings": [{"manage"}], "indices.refresh": [{"maintenance", "manage"}],
    "indices.update_aliases": [{"manage"}], "search": [{"read"}], "msearch": [{"read"}], "count": [{"read"}],
    "mget": [{"read"}], "get": [{"read"}], "delete_by_query": [{"read"}, {"delete"}],
    "update_by_query": [{"read"}, {"index"}], "bulk.index": [{"index", "create"}], "bulk.delete": [{"delete"}],
}
# What a privilege includes (reference/elasticsearch/security-privileges#privileges-list-indices).
IMPLIED = {"all": {"read", "write", "manage", "index", "create", "delete", "create_index", "delete_index",
                   "view_index_metadata", "maintenance", "monitor", "create_doc"},
           "write": {"index", "create", "delete", "create_doc"}, "index": {"create", "create_doc"},
           "manage": {"create_index", "delete_index", "view_index_metadata", "maintenance", "monitor"}}


def _granted(privileges) -> set:
    out = set(privileges)
    for p in privileges:
        out |= IMPLIED.get(p, set())
    return out


def _authorize(api: str, names: list[str]) -> None:
    """403 unless CLUSTER.role grants `api` on every name (the names as the request wrote them)."""
    role = CLUSTER.role
    if role is None:
        return
    from fnmatch import fnmatchcase

    if api in CLUSTER_PRIVILEGES:
        if not CLUSTER_PRIVILEGES[api] & _granted(role.get("cluster", [])):
            raise Refused(403, "security_exception", f"action [cluster:monitor/{api}] is unauthorized for API key")
        return
    for name in names:
        held = set()
        for grant in role.get("indices", []):
            if any(fnmatchcase(name, pattern) for pattern in grant["names"]):
                held |= _granted(grant["privileges"])
        for alternatives in INDEX_PRIVILEGES[api]:
            if not alternatives & held:
                raise Refused(403, "security_exception",
                              f"action [{api}] is unauthorized for API key on indices [{name}], this action is "
                              f"granted by the index privileges [{','.join(sorted(alternatives))}]")


def _resolve(name: str) -> list[str]:
    if name in CLUSTER.aliases:
        return [CLUSTER.aliases[name]]
    return [name] if name in CLUSTER.indices else []


def _index(name: str) -> tuple[str, Index]:
    found = _resolve(name)
    if not found:
        raise Refused(404, "index_not_found_exception", f"no such index [{name}]")
    return found[0], CLUSTER.indices[found[0]]


# --- analysis -----------------------------------------------------------------------------

def _field_spec(index: Index, field_name: str) -> dict:
    """A field's mapping; `parent.sub` is a multi-field (mapping-reference/multi-fields)."""
    props = index.mappings.get("properties", {})
    parent, _, sub = field_name.partition(".")
    spec = props.get(parent, {})
    return spec.get("fields", {}).get(sub, {}) if sub else spec


def _field_value(doc: dict, field_name: str):
    """A multi-field indexes its parent's value from `_source`."""
    return doc.get(field_name.partition(".")[0])


def _analyzer_of(index: Index, field_name: str) -> str:
    return _field_spec(index, field_name).get("analyzer", "standard")


def analyse(index: Index, analyzer: str, text) -> list[str]:
    """reference/text-analysis/analysis-lang-analyzer#english-analyzer; custom analyzers by their tokenizer."""
    text = str(text)
    if analyzer == "english":
        return [_STEM.stemWord(w) for w in (t.lower() for t in _WORD.findall(text)) if w not in ENGLISH_STOP]
    custom = index.settings.get("analysis", {}).get("analyzer", {}).get(analyzer)
    if custom and custom.get("tokenizer") == "whitespace":
        return [t.lower() for t in text.split()]
    return [t.lower() for t in _WORD.findall(text)]  # standard; nori approximated by word splitting


# --- queries ------------------------------------------------------------------------------

def _matches(doc: dict, query: dict | None) -> bool:
    """reference/query-languages/query-dsl: term, terms, ids, bool (filter/must/must_not), match_all."""
    if not query:
        return True
    (kind, spec), = query.items()
    if kind == "match_all":
        return True
    if kind in ("term", "terms"):
        (name, value), = spec.items()
        wanted = [value["value"] if isinstance(value, dict) else value] if kind == "term" else value
        present = doc.get(name)
        present = present if isinstance(present, list) else [present]
        return any(v in present for v in wanted)
    if kind == "ids":
        return doc.get("_id") in spec["values"]
    if kind == "function_score":
        return _matches(doc, spec.get("query"))
    if kind == "script_score":
        return _matches(doc, spec.get("query"))
    if kind == "bool":
        unknown = set(spec) - {"filter", "must", "must_not", "should", "minimum_should_match"}
        if unknown:
            raise Refused(400, "parsing_exception", f"[bool] query does not support [{sorted(unknown)[0]}]")
        clauses = lambda key: spec.get(key, []) if isinstance(spec.get(key, []), list) else [spec[key]]  # noqa: E731
        # query-dsl-bool-query: with should clauses and no must/filter at least one should must match,
        # otherwise none need to, unless minimum_should_match says so.
        needed = int(spec.get("minimum_should_match", 0 if clauses("filter") + clauses("must") else 1))
        should = clauses("should")
        return all(_matches(doc, q) for q in clauses("filter") + clauses("must")) and \
            not any(_matches(doc, q) for q in clauses("must_not")) and \
            (not should or sum(_matches(doc, q) for q in should) >= needed)
    if kind == "match":
        return True  # scored by _bm25; a match clause inside must/filter is not something docbot sends
    raise Refused(400, "parsing_exception", f"unknown query [{kind}]")


def _bm25(index: Index, pool: dict, query: dict) -> dict[str, float]:
    """reference/elasticsearch/index-settings/similarity: BM25 (k1 1.2, b 0.75) per field, summed over the
    bool query's should-clauses, each times its boost. Each field is analysed once per query."""
    scores = dict.fromkeys(pool, 0.0)
    for clause in query["bool"].get("should", []):
        (name, spec), = clause["match"].items()
        text, boost = (spec["query"], spec.get("boost", 1.0)) if isinstance(spec, dict) else (spec, 1.0)
        analyzer = _analyzer_of(index, name)
        terms = set(analyse(index, analyzer, text))
        if not _field_spec(index, name):  # an unmapped field matches nothing
            continue
        words = {i: analyse(index, analyzer, _field_value(d, name)) for i, d in pool.items()
                 if _field_value(d, name) is not None}
        if not terms or not words:
            continue
        avg = sum(len(w) for w in words.values()) / len(words)
        for term in terms:
            holders = {i: w.count(term) for i, w in words.items() if term in w}
            idf = math.log(1 + (len(words) - len(holders) + 0.5) / (len(holders) + 0.5))
            for i, tf in holders.items():
                norm = 1 - 0.75 + 0.75 * len(words[i]) / max(avg, 1e-9)
                scores[i] += boost * idf * tf * 2.2 / (tf + 1.2 * norm)
    return scores


def _vector_problem(index: Index, vector, name: str = "vector") -> str | None:
    spec = index.mappings.get("properties", {}).get(name, {})
    if len(vector) != spec.get("dims"):
        return (f"The [dense_vector] field [{name}] in doc has a different number of dimensions "
                f"[{len(vector)}] than defined in the mapping [{spec.get('dims')}]")
    if spec.get("similarity") == "cosine" and not np.any(np.asarray(vector, np.float32)):
        # reference/elasticsearch/mapping-reference/dense-vector (cosine: "vectors with zero magnitude" refused)
        return "The [cosine] similarity does not support vectors with zero magnitude."
    return None


def _knn_problem(index: Index, knn: dict | None) -> str | None:
    """reference/elasticsearch/rest-apis/knn-search: k <= num_candidates <= 10,000; query_vector dims."""
    if not knn:
        return None
    props = index.mappings["properties"]
    field_spec = props.get(knn.get("field"))
    if not field_spec or field_spec.get("type") != "dense_vector":
        return f"[knn] field [{knn.get('field')}] is not a dense_vector field"
    k, candidates = knn.get("k", 10), knn.get("num_candidates", 10)
    if not 1 <= k <= candidates:
        return "[num_candidates] cannot be less than [k]"
    if candidates > 10_000:
        return "[num_candidates] cannot exceed [10000]"
    problem = _vector_problem(index, knn.get("query_vector", []), knn["field"])
    if problem:
        return problem
    for clause in knn.get("filter", []):
        (kind, spec), = clause.items()
        if kind in ("term", "terms"):
            (name, _), = spec.items()
            if name not in props:  # a filter on an unmapped field matches nothing: docbot must never send one
                return f"[knn] filter on unmapped field [{name}]"
    return None


def _ranked(index: Index, body: dict) -> list[tuple[str, float]]:
    pool = {i: {**d, "_id": i} for i, (_, d) in index.searchable.items()}
    if "knn" in body:
        knn = body["knn"]
        q = np.asarray(knn["query_vector"], np.float32)
        filters = {"bool": {"filter": knn.get("filter", [])}}
        scored = []
        for i, d in pool.items():
            if knn["field"] in d and _matches(d, filters):
                v = np.asarray(d[knn["field"]], np.float32)
                scored.append((i, (1 + float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q)))) / 2))
        return sorted(scored, key=lambda p: -p[1])[: knn["k"]]
    query = body.get("query")
    if query and "function_score" in query:
        return _function_scored(pool, query)
    if query and "script_score" in query:
        return _script_scored(pool, query["script_score"])
    if query and "bool" in query and "should" in query["bool"]:
        scores = _bm25(index, pool, query)
        scored = [(i, scores[i]) for i, d in pool.items() if _matches(d, query)]
        return sorted([p for p in scored if p[1] > 0], key=lambda p: -p[1])
    return [(i, 1.0) for i, d in pool.items() if _matches(d, query)]


BOOST_MODES = {"multiply", "replace", "sum", "avg", "max", "min"}


def _query_score(query: dict | None) -> float:
    """The score a query gives a matching document, for the shapes docbot nests in function_score: none or
    match_all 1.0; a `bool` of filters only 0.0 (filters do not score: query-dsl/query-filter-context)."""
    if not query or "match_all" in query:
        return 1.0
    if "bool" in query and not any(query["bool"].get(k) for k in ("must", "should")):
        return 0.0
    return 1.0


def _function_scored(pool: dict, query: dict) -> list[tuple[str, float]]:
    """reference/query-languages/query-dsl/query-dsl-function-score-query: the function's value combined
    with the query's score by `boost_mode` (multiply by default); `random_score` with a seed and field is
    uniform in [0, 1). Ties keep index order, as Lucene's doc ids do."""
    spec = query["function_score"]
    mode = spec.get("boost_mode", "multiply")
    if mode not in BOOST_MODES:
        raise Refused(400, "parsing_exception", f"function_score illegal boost_mode [{mode}]")
    base = _query_score(spec.get("query"))
    random = spec.get("random_score")
    scored = []
    for i, d in pool.items():
        if not _matches(d, spec.get("query")):
            continue
        value = 1.0
        if random is not None:
            salt = f"{random.get('seed', 0)}\0{d.get(random.get('field', '_id'), i) if random.get('field') != '_seq_no' else i}"
            value = int(hashlib.sha1(salt.encode()).hexdigest()[:8], 16) / 2**32
        combined = {"multiply": base * value, "replace": value, "sum": base + value, "avg": (base + value) / 2,
                    "max": max(base, value), "min": min(base, value)}[mode]
        scored.append((i, combined))
    return sorted(scored, key=lambda p: -p[1])  # stable: equal scores stay in index order


_COSINE_SCRIPT = re.compile(r"cosineSimilarity\(params\.(\w+), '(\w+)'\) \+ 1\.0")


def _script_scored(pool: dict, spec: dict) -> list[tuple[str, float]]:
    """reference/elasticsearch/rest-apis/query-dsl/script-score-query#vector-functions-cosine: the one
    painless form docbot sends; any other script is a 400 here (a cluster would compile it)."""
    script = spec.get("script", {})
    found = _COSINE_SCRIPT.fullmatch(script.get("source", "").strip())
    if not found:
        raise Refused(400, "script_exception", "fake cannot run this script")
    q = np.asarray(script["params"][found.group(1)], np.float32)
    out = []
    for i, d in pool.items():
        if _matches(d, spec.get("query")) and found.group(2) in d:
            v = np.asarray(d[found.group(2)], np.float32)
            out.append((i, float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q))) + 1.0))
    return sorted(out, key=lambda p: -p[1])


def _source_of(name: str, index: Index, doc: dict, spec) -> dict:
    """Source filtering (reference/elasticsearch/rest-apis/retrieve-selected-fields); from 9.2 new indices
    leave vectors out of `_source` unless `exclude_vectors: false` (mapping-reference/dense-vector)."""
    drop_vectors = _version() >= (9, 2) and \
        str(index.settings["index"].get("mapping.exclude_source_vectors", "true")) != "false"
    if isinstance(spec, dict) and "exclude_vectors" in spec:
        if _version() < (9, 1):  # in the 9.1 specification's SourceFilter; earlier servers refuse the key
            raise Refused(400, "parsing_exception", "Unknown key [exclude_vectors] in [_source]")
        drop_vectors = bool(spec["exclude_vectors"])
    excludes = set(spec.get("excludes", [])) if isinstance(spec, dict) else set()
    includes = spec if isinstance(spec, list) else (spec.get("includes") if isinstance(spec, dict) else None)
    props = index.mappings.get("properties", {})
    return {k: v for k, v in doc.items() if k not in excludes and (includes is None or k in includes)
            and not (drop_vectors and props.get(k, {}).get("type") == "dense_vector")}


def _hits(name: str, index: Index, pairs: list[tuple[str, float]], body: dict) -> dict:
    start, size = int(body.get("from", 0)), int(body.get("size", 10))
    spec = body.get("_source")
    hits = [{"_index": name, "_id": i, "_score": s,
             **({} if spec is False else {"_source": _source_of(name, index, index.searchable[i][1], spec)})}
            for i, s in pairs[start:start + size]]
    shards = {"total": 1, "successful": 1, "skipped": 0, "failed": 0}
    if CLUSTER.shard_failure_once:
        CLUSTER.shard_failure_once = False
        shards = {"total": 2, "successful": 1, "skipped": 0, "failed": 1,
                  "failures": [{"shard": 1, "index": name, "reason": {"type": "node_disconnected_exception"}}]}
    return {"took": 1, "timed_out": False, "_shards": shards,
            "hits": {"total": {"value": len(pairs), "relation": "eq"}, "hits": hits}}


QUERY_KINDS = {"match_all", "term", "terms", "ids", "function_score", "script_score", "bool", "match"}


def _parse_query(query) -> None:
    """What SearchSourceBuilder.fromXContent refuses while parsing: unknown query types and bool keys."""
    if not isinstance(query, dict) or len(query) != 1:
        raise Refused(400, "parsing_exception", "[_na] query malformed, must start with start_object")
    (kind, spec), = query.items()
    if kind not in QUERY_KINDS:
        raise Refused(400, "parsing_exception", f"unknown query [{kind}]")
    if kind == "bool":
        unknown = set(spec) - {"filter", "must", "must_not", "should", "minimum_should_match", "boost"}
        if unknown:
            raise Refused(400, "parsing_exception", f"[bool] query does not support [{sorted(unknown)[0]}]")
        for key in ("filter", "must", "must_not", "should"):
            clauses = spec.get(key, [])
            for clause in clauses if isinstance(clauses, list) else [clauses]:
                _parse_query(clause)
    if kind in ("function_score", "script_score") and spec.get("query"):
        _parse_query(spec["query"])


def _parse_search(body) -> None:
    """The parse-time checks of a search body (request-level 400s, also inside `_msearch`)."""
    if not isinstance(body, dict):
        raise Refused(400, "parsing_exception", "Expected [START_OBJECT] but found [VALUE_STRING]")
    unknown = set(body) - SEARCH_KEYS
    if unknown:
        raise Refused(400, "parsing_exception", f"Unknown key for a START_OBJECT in [{sorted(unknown)[0]}].")
    if isinstance(body.get("_source"), dict) and "exclude_vectors" in body["_source"] and _version() < (9, 1):
        raise Refused(400, "parsing_exception", "Unknown key [exclude_vectors] in [_source]")
    if body.get("query") is not None:
        _parse_query(body["query"])
    knn = body.get("knn")
    if knn:  # KnnSearchBuilder validates k and num_candidates as it is built
        k, candidates = knn.get("k", 10), knn.get("num_candidates", 10)
        if not 1 <= k <= candidates:
            raise Refused(400, "illegal_argument_exception", "[num_candidates] cannot be less than [k]")
        if candidates > 10_000:
            raise Refused(400, "illegal_argument_exception", "[num_candidates] cannot exceed [10000]")


def _search(index_name: str, body: dict) -> dict:
    _parse_search(body)
    name, index = _index(index_name)
    index.tick()
    if "retriever" in body:
        return _rrf(name, index, body)
    problem = _knn_problem(index, body.get("knn"))
    if problem:
        raise Refused(400, "illegal_argument_exception", problem)
    return _hits(name, index, _ranked(index, body), body)


def _rrf(name: str, index: Index, body: dict) -> dict:
    """reference/elasticsearch/rest-apis/retrievers#rrf-retriever: Enterprise licence (403 for the whole
    request otherwise); rank_window_size >= size."""
    if CLUSTER.licence not in ("enterprise", "trial"):
        raise Refused(403, "security_exception",
                      "current license is non-compliant for [Reciprocal Rank Fusion (RRF)]")
    rrf = body["retriever"]["rrf"]
    if rrf.get("rank_window_size", 10) < body.get("size", 10):
        raise Refused(400, "illegal_argument_exception", "[rank_window_size] must be greater than or equal to [size]")
    standard = _ranked(index, {"query": rrf["retrievers"][0]["standard"]["query"]})
    knn = _ranked(index, {"knn": rrf["retrievers"][1]["knn"]})
    fused: dict[str, float] = {}
    for ranking in (standard, knn):
        for rank, (i, _) in enumerate(ranking, 1):
            fused[i] = fused.get(i, 0) + 1 / (rrf.get("rank_constant", 60) + rank)
    return _hits(name, index, sorted(fused.items(), key=lambda p: -p[1]), body)


# --- writes -------------------------------------------------------------------------------

def _validate_mapping(body: dict) -> None:
    """reference/elasticsearch/mapping-reference/dense-vector: index_options types and their parameters."""
    for name, spec in body.get("mappings", {}).get("properties", {}).items():
        if spec.get("type") != "dense_vector":
            continue
        if not 1 <= int(spec.get("dims", 0)) <= 4096:
            raise Refused(400, "mapper_parsing_exception", f"[dims] of [{name}] must be in [1, 4096]")
        if spec.get("similarity", "cosine") not in SIMILARITIES:
            raise Refused(400, "mapper_parsing_exception", f"Unknown vector similarity [{spec['similarity']}]")
        options = spec.get("index_options")
        if options:
            kind = options.get("type")
            if kind not in INDEX_OPTION_TYPES:
                raise Refused(400, "mapper_parsing_exception", f"Unknown vector index options type [{kind}]")
            extra = set(options) - {"type"} - INDEX_OPTION_PARAMS[kind]
            if extra:
                raise Refused(400, "mapper_parsing_exception", f"Unknown index_options parameter {sorted(extra)}")
            for key in ("m", "ef_construction"):  # XContentMapValues.nodeIntegerValue: a number, or digits
                value = options.get(key)
                if value is not None and not (isinstance(value, int) and not isinstance(value, bool)
                                              or isinstance(value, str) and value.strip().lstrip("-").isdigit()):
                    raise Refused(400, "mapper_parsing_exception",
                                  f"Failed to parse mapping: For input string: \"{value}\"")
    analyzers = body.get("settings", {}).get("analysis", {}).get("analyzer", {})
    for name, spec in analyzers.items():
        if spec.get("tokenizer") == "nori_tokenizer" and "analysis-nori" not in CLUSTER.plugins:
            # reference/elasticsearch-plugins/analysis-nori: the tokenizer exists only with the plugin
            raise Refused(400, "illegal_argument_exception", f"Unknown tokenizer type [nori_tokenizer] for [{name}]")


def _item_refusal(op: str, written_name: str, doc_id: str, source: dict | None,
                  index: Index) -> tuple[int, str, str] | None:
    """Why one bulk item is refused, if it is: privileges, scripted 429s and rejections, bad vectors."""
    try:
        _authorize("bulk.delete" if op == "delete" else "bulk.index", [written_name])
    except Refused as refused:
        return 403, "security_exception", refused.body["error"]["reason"]
    if doc_id in CLUSTER.bulk_item_429_once:
        CLUSTER.bulk_item_429_once.discard(doc_id)
        return 429, "es_rejected_execution_exception", "queue full"
    if doc_id in CLUSTER.bulk_reject:
        return 400, "document_parsing_exception", "failed to parse field [vector]"
    problem = _vector_problem(index, source["vector"]) if source is not None and "vector" in source else None
    return (400, "document_parsing_exception", problem) if problem else None


def _bulk(lines: list[dict], touched: set) -> dict:
    """api/doc/elasticsearch/operation/operation-bulk: per-item results; the request itself succeeds."""
    items, errors = [], False
    pairs = iter(lines)
    for header in pairs:
        (op, meta), = header.items()
        source = next(pairs) if op in ("index", "create") else None
        name, index = _index(meta["_index"])
        touched.add(name)
        doc_id = meta["_id"]
        failure = _item_refusal(op, meta["_index"], doc_id, source, index)
        if failure:
            items.append({op: {"_index": name, "_id": doc_id, "status": failure[0],
                               "error": {"type": failure[1], "reason": failure[2]}}})
            errors = True
            continue
        if op == "delete":
            found = index.docs.pop(doc_id, None) is not None
            index.versions.pop(doc_id, None)
            items.append({op: {"_index": name, "_id": doc_id, "status": 200 if found else 404,
                               "result": "deleted" if found else "not_found"}})
        else:
            created = doc_id not in index.docs
            index.docs[doc_id] = source
            index.versions[doc_id] = index.versions.get(doc_id, 0) + 1
            items.append({op: {"_index": name, "_id": doc_id, "status": 201 if created else 200,
                               "result": "created" if created else "updated", "_version": index.versions[doc_id]}})
    return {"took": 1, "errors": errors, "items": items}


_ASSIGNMENT = re.compile(r"ctx\._source\.(\w+) = params\.(\w+)")


def _by_query(index: Index, body: dict, params: dict, update: bool) -> dict:
    """api/doc/elasticsearch/operation/operation-delete-by-query (and update-by-query): they act on the
    searchable snapshot; a document changed since (a newer version) is a version conflict, skipped with
    `conflicts=proceed` and a failure otherwise."""
    index.tick()
    found = None
    if update:
        script = body.get("script") or {}
        found = _ASSIGNMENT.fullmatch(script.get("source", "").strip().rstrip(";"))
        if not found or found.group(2) not in script.get("params", {}):
            raise Refused(400, "script_exception", "fake cannot run this script")
    done, conflicts, failures = 0, 0, []
    for doc_id, (version, doc) in list(index.searchable.items()):
        if not _matches({**doc, "_id": doc_id}, body.get("query")):
            continue
        if CLUSTER.by_query_conflicts > 0:  # another writer got there since the snapshot
            CLUSTER.by_query_conflicts -= 1
            index.versions[doc_id] = index.versions.get(doc_id, 0) + 1
        if index.versions.get(doc_id) != version:
            conflicts += 1
            # `conflicts` may come as a query parameter or in the body (the 9.x client sends it there)
            if body.get("conflicts", params.get("conflicts", ["abort"])[0]) != "proceed":
                failures.append({"id": doc_id, "status": 409, "cause": {"type": "version_conflict_engine_exception"}})
            continue
        if update:
            index.docs[doc_id] = {**index.docs[doc_id], found.group(1): body["script"]["params"][found.group(2)]}
            index.versions[doc_id] += 1
        else:
            del index.docs[doc_id]
            del index.versions[doc_id]
        done += 1
    if CLUSTER.by_query_failure_once:
        CLUSTER.by_query_failure_once = False
        failures.append({"id": "x", "status": 500, "cause": {"type": "shard_failure", "reason": "node left"}})
    timed_out = CLUSTER.by_query_timeout_once
    CLUSTER.by_query_timeout_once = False
    return {"took": 1, "timed_out": timed_out, "total": done + conflicts, ("updated" if update else "deleted"): done,
            "version_conflicts": conflicts, "failures": failures}


def _by_query_status(result: dict) -> int:
    """BulkIndexByScrollResponseContentListener: the highest failure status, 408 when timed out, else 200."""
    status = 408 if result["timed_out"] else 200
    return max([status, *(f.get("status", 500) for f in result["failures"])])


async def _apply_refresh(index: Index, params: dict) -> None:
    """The `refresh` request parameter: true refreshes now; wait_for waits for the next scheduled refresh
    (reference/elasticsearch/rest-apis/refresh-parameter)."""
    value = params.get("refresh", ["false"])[0]
    if value in ("true", ""):
        index.refresh()
    elif value == "wait_for":
        interval = index.refresh_interval
        if interval is not None:
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - index.last_refresh)))
        index.refresh()  # with refresh_interval -1 a waiting request forces one (max_refresh_listeners)


# --- the HTTP surface ---------------------------------------------------------------------

def _version() -> tuple[int, int]:
    major, minor, *_ = CLUSTER.version.split(".")
    return int(major), int(minor)


async def handle(method: str, target: str, body: bytes | None, headers=None):
    """(status, json) for one request."""
    accept = str((headers or {}).get("accept", ""))
    if CLUSTER.product == "Elasticsearch" and _version() < (9, 0) and "compatible-with=9" in accept:
        # An 8.x server refuses the 9.x client's compatibility headers on every request (RestCompatibleVersionHelper).
        reason = "Invalid media-type value on headers [Accept, Content-Type]"
        return 400, {"error": {"type": "media_type_header_exception", "reason": reason,
                               "root_cause": [{"type": "media_type_header_exception", "reason": reason}],
                               "caused_by": {"type": "status_exception", "reason": "Accept version must be either "
                                             f"version 8 or 7, but found 9. Accept={accept}"}}, "status": 400}
    url = urlsplit(target)
    path, params = url.path, parse_qs(url.query, keep_blank_values=True)
    text = body.decode() if body else ""
    parsed = [json.loads(line) for line in text.splitlines() if line.strip()] if "_bulk" in path or "_msearch" in path \
        else (json.loads(text) if text else None)
    CLUSTER.requests.append((method, path, parsed))
    if CLUSTER.status_override:
        return CLUSTER.status_override, {"error": {"type": "security_exception", "reason": "unable to authenticate"},
                                          "status": CLUSTER.status_override}
    for prefix in list(CLUSTER.throttle):
        if path.startswith(prefix):
            CLUSTER.throttle.remove(prefix)
            return 429, {"error": {"type": "es_rejected_execution_exception"}, "status": 429}
    try:
        return await _route(method, path, params, parsed)
    except Refused as refused:
        return refused.status, refused.body


async def _route(method: str, path: str, params: dict, parsed):
    parts = [p for p in path.split("/") if p]
    if path == "/":
        _authorize("info", [])
        return 200, {"name": "node-1", "cluster_name": "fake", "version": {"number": CLUSTER.version,
                                                                           "build_flavor": "default"},
                     "tagline": "You Know, for Search"}
    if path == "/_license":
        return 200, {"license": {"type": CLUSTER.licence, "status": "active"}}
    if parts[:1] in (["_cat"], ["_nodes"]):
        if CLUSTER.least_privilege:  # reference/elasticsearch/security-privileges: cat and nodes need `monitor`
            raise Refused(403, "security_exception", "action [cluster:monitor/nodes/info] is unauthorized")
        _authorize(parts[0].lstrip("_"), [])
        return 200, [{"name": "node-1", "component": c, "version": CLUSTER.version} for c in CLUSTER.plugins]
    if parts[:1] == ["_alias"]:
        alias = parts[1]
        _authorize("indices.get_alias", [alias])
        if alias not in CLUSTER.aliases:
            return 404, {"error": "alias [%s] missing" % alias, "status": 404}
        return 200, {CLUSTER.aliases[alias]: {"aliases": {alias: {}}}}
    if path == "/_aliases":
        for action in parsed["actions"]:
            (verb, spec), = action.items()
            _authorize("indices.update_aliases", [spec["index"], spec["alias"]])
        for action in parsed["actions"]:
            (verb, spec), = action.items()
            if verb == "add":
                CLUSTER.aliases[spec["alias"]] = spec["index"]
            elif verb == "remove" and CLUSTER.aliases.get(spec["alias"]) == spec["index"]:
                del CLUSTER.aliases[spec["alias"]]
        return 200, {"acknowledged": True}
    if path == "/_bulk":
        touched: set = set()
        result = _bulk(parsed, touched)
        for name in touched:
            await _apply_refresh(CLUSTER.indices[name], params)
        return 200, result
    if path == "/_msearch":
        # RestMultiSearchAction parses every body before running any: a malformed one fails the request.
        if len(parsed) % 2:
            raise Refused(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;")
        for search in parsed[1::2]:
            _parse_search(search)
        responses = []
        for header, search in zip(parsed[::2], parsed[1::2]):
            try:
                _authorize("msearch", [header["index"]])
                result = _search(header["index"], search)
                responses.append({**result, "status": 200})
            except Refused as refused:
                responses.append(refused.body)
        return 200, {"took": 1, "responses": responses}
    if path.startswith("/_search/scroll"):
        return _scroll_page(method, params, parsed)
    name = parts[0]
    if len(parts) == 1:
        api = {"PUT": "indices.create", "DELETE": "indices.delete"}.get(method, "indices.get")
        _authorize(api, [name])
        if method == "GET":  # get index (wildcards allowed): settings, mappings and aliases of each match
            from fnmatch import fnmatchcase

            found = {n: i for n, i in CLUSTER.indices.items() if fnmatchcase(n, name)}
            if not found and "*" not in name:
                raise Refused(404, "index_not_found_exception", f"no such index [{name}]")
            return 200, {n: {"aliases": {a: {} for a, t in CLUSTER.aliases.items() if t == n},
                             "mappings": i.mappings, "settings": {"index": i.settings["index"]}}
                         for n, i in found.items()}
        if method == "PUT":
            _validate_mapping(parsed or {})
            settings = dict((parsed or {}).get("settings") or {})
            flat = {k.removeprefix("index."): v for k, v in settings.items() if k != "analysis"}
            CLUSTER.indices[name] = Index(parsed.get("mappings", {}), {**settings, "index": flat})
            return 200, {"acknowledged": True, "shards_acknowledged": True, "index": name}
        if method == "DELETE":
            if name not in CLUSTER.indices and not params.get("ignore_unavailable"):
                raise Refused(404, "index_not_found_exception", f"no such index [{name}]")
            CLUSTER.indices.pop(name, None)
            return 200, {"acknowledged": True}
        if method == "HEAD":
            return (200 if _resolve(name) else 404), {}
    action = parts[1]
    api = {"_mapping": "indices.get_mapping", "_refresh": "indices.refresh", "_doc": "get", "_search": "search",
           "_mget": "mget", "_count": "count"}.get(action)
    if action == "_settings":
        api = "indices.put_settings" if method == "PUT" else "indices.get_settings"
    if api:
        _authorize(api, [name])
    real, index = _index(name)
    if action == "_mapping":
        return 200, {real: {"mappings": index.mappings}}
    if action == "_settings":
        if method == "PUT":  # reference/elasticsearch/rest-apis/update-settings: dynamic settings only
            for key, value in (parsed.get("index") or parsed).items():
                if value is None:  # null resets a setting to its default
                    index.settings["index"].pop(key, None)
                else:
                    index.settings["index"][key] = value
            return 200, {"acknowledged": True}
        return 200, {real: {"settings": index.settings}}
    if action == "_refresh":
        index.refresh()
        return 200, {"_shards": {"total": 1, "successful": 1, "failed": 0}}
    if action == "_doc":
        doc_id = parts[2]
        if doc_id not in index.docs:  # GET is real-time: the live document, refreshed or not
            return 404, {"_index": real, "_id": doc_id, "found": False}
        return 200, {"_index": real, "_id": doc_id, "found": True, "_version": index.versions[doc_id],
                     "_source": index.docs[doc_id]}
    if action == "_search":
        body = dict(parsed or {})
        for key in ("size", "from"):
            if key in params:
                body[key] = int(params[key][0])
        if "_source_includes" in params:
            body["_source"] = params["_source_includes"][0].split(",")
        result = _search(name, body)
        if "scroll" in params:
            return 200, _open_scroll(real, index, body, result)
        return 200, result
    if action == "_mget":
        out = []
        for doc_id in parsed["ids"]:
            d = index.docs.get(doc_id)
            spec = params["_source_includes"][0].split(",") if "_source_includes" in params else None
            out.append({"_index": real, "_id": doc_id, "found": d is not None,
                        **({"_source": _source_of(real, index, d, spec)} if d else {})})
        return 200, {"docs": out}
    if action == "_count":
        index.tick()
        query = (parsed or {}).get("query")
        return 200, {"count": sum(1 for i, (_, d) in index.searchable.items() if _matches({**d, "_id": i}, query)),
                     "_shards": {"total": 1, "successful": 1, "failed": 0}}
    if action in ("_delete_by_query", "_update_by_query"):
        _authorize(action.lstrip("_"), [name])
        result = _by_query(index, parsed or {}, params, update=action == "_update_by_query")
        await _apply_refresh(index, params)
        return _by_query_status(result), result
    return 400, {"error": f"fake node does not know {method} {path}"}


def _open_scroll(real: str, index: Index, body: dict, first: dict) -> dict:
    """Scrolling pages through a point-in-time copy of the hits, `size` at a time."""
    everything = _hits(real, index, _ranked(index, body), {**body, "from": 0, "size": 10**9})["hits"]["hits"]
    size = int(body.get("size", 10))
    scroll_id = f"scroll-{next(CLUSTER._ids)}"
    CLUSTER._scrolls[scroll_id] = (everything[size:], size)
    first["hits"]["hits"] = everything[:size]
    first["_scroll_id"] = scroll_id
    return first


def _scroll_page(method: str, params: dict, parsed) -> tuple[int, dict]:
    scroll_id = (parsed or {}).get("scroll_id") or params.get("scroll_id", [""])[0]
    if method == "DELETE":
        ids = scroll_id if isinstance(scroll_id, list) else [scroll_id]
        for i in ids:
            CLUSTER._scrolls.pop(i, None)
        return 200, {"succeeded": True, "num_freed": len(ids)}
    if scroll_id not in CLUSTER._scrolls:
        raise Refused(404, "search_context_missing_exception", "No search context found")
    rest, size = CLUSTER._scrolls[scroll_id]
    page = rest[:size]
    CLUSTER._scrolls[scroll_id] = (rest[size:], size)
    return 200, {"_scroll_id": scroll_id, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                 "hits": {"total": {"value": len(page), "relation": "eq"}, "hits": page}}


class FakeNode(BaseAsyncNode):
    """The transport node the real client talks to."""

    _CLIENT_META_HTTP_CLIENT = ("fk", "1.0")

    async def perform_request(self, method, target, body=None, headers=None, request_timeout=None):
        started = time.perf_counter()
        status, payload = await handle(method, target, body, headers)
        raw = b"" if method == "HEAD" else json.dumps(payload).encode()
        product = {"x-elastic-product": CLUSTER.product} if CLUSTER.product == "Elasticsearch" else {}
        meta = ApiResponseMeta(status=status, http_version="1.1",
                               headers=HttpHeaders({"content-type": "application/json", **product}),
                               duration=time.perf_counter() - started, node=self.config)
        return NodeApiResponse(meta, raw)

    async def close(self) -> None:
        return None
