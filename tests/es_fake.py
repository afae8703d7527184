"""A fake Elasticsearch node for the real `elasticsearch` async client.

Plugged in as the transport's node class, it records every request (method, path, body)
and answers from a small in-memory cluster: indices with mappings, an alias, documents,
bulk NDJSON, a crude term-overlap "BM25", exact cosine kNN, _msearch, mget, count,
delete_by_query, scroll, the licence API. Knobs script the failures the tests need.
"""
from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import numpy as np
from elastic_transport import ApiResponseMeta, BaseAsyncNode, HttpHeaders
from elastic_transport._node._base import NodeApiResponse


@dataclass
class Cluster:
    """State shared by every node instance of one test."""

    indices: dict = field(default_factory=dict)  # name -> {"mappings": ..., "docs": {id: source}}
    aliases: dict = field(default_factory=dict)  # alias -> index
    requests: list = field(default_factory=list)  # (method, path, body)
    licence: str = "basic"
    plugins: list = field(default_factory=list)
    rrf_forbidden: bool = False  # the licence says enterprise, but rrf answers 403 (withdrawn)
    throttle: list = field(default_factory=list)  # paths (prefix) answered 429 once each
    bulk_item_429_once: set = field(default_factory=set)  # doc ids whose first bulk attempt gets 429
    bulk_reject: set = field(default_factory=set)  # doc ids always rejected (mapper error)
    status_override: int | None = None  # answer everything with this status (auth failures)

    def of(self, path_part: str) -> list:
        return [r for r in self.requests if path_part in r[1]]


CLUSTER = Cluster()


def _resolve(name: str) -> list[str]:
    if name in CLUSTER.aliases:
        return [CLUSTER.aliases[name]]
    return [name] if name in CLUSTER.indices else []


def _matches(doc: dict, query: dict | None) -> bool:
    """term / bool.filter / bool.must evaluation, enough for docbot's filters."""
    if not query:
        return True
    if "terms" in query:  # docs: query-dsl-terms-query (any of the values; arrays match on any element)
        (name, values), = query["terms"].items()
        field_value = doc.get(name)
        present = field_value if isinstance(field_value, list) else [field_value]
        return any(v in present for v in values)
    if "term" in query:
        (name, value), = query["term"].items()
        wanted = value["value"] if isinstance(value, dict) else value
        field_value = doc.get(name)
        # A term query on an array field matches when any element equals the term (keyword arrays).
        return wanted in field_value if isinstance(field_value, list) else field_value == wanted
    if "function_score" in query:
        return _matches(doc, query["function_score"].get("query"))
    if "bool" in query:
        b = query["bool"]
        return all(_matches(doc, q) for q in b.get("filter", []) + b.get("must", []))
    if "match_all" in query:
        return True
    # A query type this fake does not evaluate must not silently match everything.
    raise ValueError(f"es_fake cannot evaluate the query {json.dumps(query)[:200]}")


def _words(text) -> set[str]:
    return {w.strip(".,:;!?()[]\"'") for w in str(text).lower().split()} - {""}


def _bm25(doc: dict, query: dict, docs: dict) -> float:
    """Matched terms weighted by IDF and boost over the should-clauses' fields (a stand-in for BM25)."""
    score = 0.0
    for clause in query["bool"].get("should", []):
        (name, spec), = clause["match"].items()
        text, boost = (spec["query"], spec.get("boost", 1)) if isinstance(spec, dict) else (spec, 1)
        for term in _words(text) & _words(doc.get(name, "")):
            df = sum(1 for d in docs.values() if term in _words(d.get(name, "")))
            score += boost * np.log(1 + len(docs) / df)
    return score


def _hits(index: str, pairs: list[tuple[str, float]], size: int, source_spec) -> dict:
    excludes = (source_spec or {}).get("excludes", []) if isinstance(source_spec, dict) else []
    includes = source_spec if isinstance(source_spec, list) else None
    docs = CLUSTER.indices[index]["docs"]
    hits = [{"_index": index, "_id": i, "_score": s,
             **({} if source_spec is False else {"_source": {k: v for k, v in docs[i].items()
                                                             if k not in excludes and (includes is None or k in includes)}})}
            for i, s in pairs[:size]]
    return {"took": 1, "timed_out": False, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
            "hits": {"total": {"value": len(pairs), "relation": "eq"}, "hits": hits}}


def _search(index_name: str, body: dict) -> dict:
    indices = _resolve(index_name)
    if not indices:
        return {"error": {"type": "index_not_found_exception"}, "status": 404}
    index = indices[0]
    docs = CLUSTER.indices[index]["docs"]
    size = body.get("size", 10)
    if "retriever" in body:
        if CLUSTER.licence not in ("enterprise", "trial") or CLUSTER.rrf_forbidden:
            return {"error": {"type": "security_exception",
                              "reason": "current license is non-compliant for [Reciprocal Rank Fusion (RRF)]"},
                    "status": 403}
        rrf = body["retriever"]["rrf"]
        standard = _ranked(docs, {"query": rrf["retrievers"][0]["standard"]["query"]})
        knn = _ranked(docs, {"knn": rrf["retrievers"][1]["knn"]})
        k = rrf.get("rank_constant", 60)
        fused: dict[str, float] = {}
        for ranking in (standard, knn):
            for rank, (i, _) in enumerate(ranking, 1):
                fused[i] = fused.get(i, 0) + 1 / (k + rank)
        return _hits(index, sorted(fused.items(), key=lambda p: -p[1]), size, body.get("_source"))
    problem = _knn_problem(index, body.get("knn"))
    if problem:
        return {"error": {"type": "illegal_argument_exception", "reason": problem}, "status": 400}
    return _hits(index, _ranked(docs, body), size, body.get("_source"))


def _knn_problem(index: str, knn: dict | None) -> str | None:
    """What a 9.x cluster rejects in a kNN section (docs: elasticsearch/reference/.../knn-search,
    "k ... must be less than or equal to num_candidates", "num_candidates ... cannot exceed 10,000";
    query_vector must have the field's dims)."""
    if not knn:
        return None
    props = CLUSTER.indices[index]["mappings"]["properties"]
    field_spec = props.get(knn.get("field"))
    if not field_spec or field_spec.get("type") != "dense_vector":
        return f"[knn] field [{knn.get('field')}] is not a dense_vector field"
    k, candidates = knn.get("k", 10), knn.get("num_candidates", 10)
    if not 1 <= k <= candidates:
        return "[num_candidates] cannot be less than [k]"
    if candidates > 10_000:
        return "[num_candidates] cannot exceed [10000]"
    if len(knn.get("query_vector", [])) != field_spec["dims"]:
        return (f"The query vector has a different number of dimensions [{len(knn.get('query_vector', []))}] "
                f"than the document vectors [{field_spec['dims']}]")
    for clause in knn.get("filter", []):
        (kind, spec), = clause.items()
        if kind == "term":
            (name, _), = spec.items()
            if name not in props:  # a term on an unmapped field matches nothing: docbot must never send one
                return f"[knn] filter on unmapped field [{name}]"
    return None


def _ranked(docs: dict, body: dict) -> list[tuple[str, float]]:
    if "knn" in body:
        knn = body["knn"]
        q = np.asarray(knn["query_vector"], np.float32)
        filters = {"bool": {"filter": knn.get("filter", [])}}
        scored = [(i, (1 + float(np.asarray(d[knn["field"]], np.float32) @ q)) / 2)
                  for i, d in docs.items() if knn["field"] in d and _matches(d, filters)]
        return sorted(scored, key=lambda p: -p[1])[: knn["k"]]
    query = body.get("query")
    if query and "function_score" in query:
        # random_score with a seed: a stable pseudo-random order of the matching documents.
        seed = str(query["function_score"].get("random_score", {}).get("seed", 0))
        matching = [i for i, d in docs.items() if _matches(d, query)]
        return [(i, 1.0) for i in sorted(matching, key=lambda i: hashlib.sha1((seed + i).encode()).hexdigest())]
    if query and "bool" in query and "should" in query["bool"]:
        scored = [(i, _bm25(d, query, docs)) for i, d in docs.items() if _matches(d, query)]
        return sorted([p for p in scored if p[1] > 0], key=lambda p: -p[1])
    return [(i, 1.0) for i, d in docs.items() if _matches(d, query)]


def _bulk(lines: list[dict]) -> dict:
    items, errors = [], False
    pairs = iter(lines)
    for header in pairs:
        (op, meta), = header.items()
        source = next(pairs) if op in ("index", "create") else None
        index = _resolve(meta["_index"])[0]
        doc_id = meta["_id"]
        if doc_id in CLUSTER.bulk_item_429_once:
            CLUSTER.bulk_item_429_once.discard(doc_id)
            items.append({op: {"_index": index, "_id": doc_id, "status": 429,
                               "error": {"type": "es_rejected_execution_exception", "reason": "queue full"}}})
            errors = True
            continue
        if doc_id in CLUSTER.bulk_reject:
            items.append({op: {"_index": index, "_id": doc_id, "status": 400,
                               "error": {"type": "document_parsing_exception", "reason": "failed to parse field [vector]"}}})
            errors = True
            continue
        docs = CLUSTER.indices[index]["docs"]
        if op == "delete":
            found = docs.pop(doc_id, None) is not None
            items.append({op: {"_index": index, "_id": doc_id, "status": 200 if found else 404,
                               "result": "deleted" if found else "not_found"}})
        else:
            docs[doc_id] = source
            items.append({op: {"_index": index, "_id": doc_id, "status": 201, "result": "created"}})
    return {"took": 1, "errors": errors, "items": items}


def handle(method: str, target: str, body: bytes | None):
    """(status, json) for one request."""
    url = urlsplit(target)
    path, params = url.path, parse_qs(url.query)
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
    parts = [p for p in path.split("/") if p]
    if path == "/_license":
        return 200, {"license": {"type": CLUSTER.licence, "status": "active"}}
    if path == "/_cat/plugins":
        return 200, [{"name": "node-1", "component": c, "version": "9.1.0"} for c in CLUSTER.plugins]
    if parts[:1] == ["_alias"]:
        alias = parts[1]
        if alias not in CLUSTER.aliases:
            return 404, {"error": "alias [%s] missing" % alias, "status": 404}
        return 200, {CLUSTER.aliases[alias]: {"aliases": {alias: {}}}}
    if path == "/_aliases":
        for action in parsed["actions"]:
            (verb, spec), = action.items()
            if verb == "add":
                CLUSTER.aliases[spec["alias"]] = spec["index"]
            elif verb == "remove" and CLUSTER.aliases.get(spec["alias"]) == spec["index"]:
                del CLUSTER.aliases[spec["alias"]]
        return 200, {"acknowledged": True}
    if path == "/_bulk":
        return 200, _bulk(parsed)
    if path == "/_msearch":
        responses = []
        for header, search in zip(parsed[::2], parsed[1::2]):
            result = _search(header["index"], search)
            responses.append({**result, "status": result.get("status", 200)})
        return 200, {"took": 1, "responses": responses}
    if path.startswith("/_search/scroll"):
        if method == "DELETE":
            return 200, {"succeeded": True, "num_freed": 1}
        return 200, {"_scroll_id": "s1", "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                     "hits": {"total": {"value": 0, "relation": "eq"}, "hits": []}}
    index = parts[0]
    if len(parts) == 1:
        if method == "PUT":
            CLUSTER.indices[index] = {"mappings": parsed["mappings"], "settings": parsed.get("settings"), "docs": {}}
            return 200, {"acknowledged": True, "shards_acknowledged": True, "index": index}
        if method == "DELETE":
            CLUSTER.indices.pop(index, None)
            return 200, {"acknowledged": True}
    resolved = _resolve(index)
    if not resolved:
        return 404, {"error": {"type": "index_not_found_exception", "reason": f"no such index [{index}]"},
                     "status": 404}
    real = resolved[0]
    docs = CLUSTER.indices[real]["docs"]
    action = parts[1]
    if action == "_mapping":
        return 200, {real: {"mappings": CLUSTER.indices[real]["mappings"]}}
    if action == "_doc":
        doc_id = parts[2]
        if doc_id not in docs:
            return 404, {"_index": real, "_id": doc_id, "found": False}
        return 200, {"_index": real, "_id": doc_id, "found": True, "_source": docs[doc_id]}
    if action == "_search":
        body = dict(parsed or {})
        if "_source_includes" in params:
            body["_source"] = params["_source_includes"][0].split(",")
        if "size" in params:
            body["size"] = int(params["size"][0])
        result = _search(index, body)
        if "scroll" in params:
            result["_scroll_id"] = "s1"
            result["hits"]["hits"] = result["hits"]["hits"][:10000]
        return 200, result
    if action == "_mget":
        includes = params.get("_source_includes", [""])[0].split(",")
        out = []
        for doc_id in parsed["ids"]:
            d = docs.get(doc_id)
            out.append({"_index": real, "_id": doc_id, "found": d is not None,
                        **({"_source": {k: v for k, v in d.items() if k in includes}} if d else {})})
        return 200, {"docs": out}
    if action == "_count":
        return 200, {"count": sum(1 for d in docs.values() if _matches(d, parsed.get("query"))), "_shards": {}}
    if action == "_update_by_query":
        return _update_by_query(docs, parsed)
    if action == "_delete_by_query":
        gone = [i for i, d in docs.items() if _matches(d, parsed.get("query"))]
        for i in gone:
            del docs[i]
        return 200, {"deleted": len(gone), "failures": []}
    return 400, {"error": f"fake node does not know {method} {path}"}


_ASSIGNMENT = re.compile(r"ctx\._source\.(\w+) = params\.(\w+)")


def _update_by_query(docs: dict, body: dict):
    """docs: docs-update-by-query. The fake runs only the painless form docbot sends,
    `ctx._source.<field> = params.<name>`; any other script is a 400 here (a cluster would compile it)."""
    script = body.get("script") or {}
    found = _ASSIGNMENT.fullmatch(script.get("source", "").strip().rstrip(";"))
    if not found or found.group(2) not in script.get("params", {}):
        return 400, {"error": {"type": "script_exception", "reason": "fake cannot run this script"}, "status": 400}
    updated = 0
    for doc in docs.values():
        if _matches(doc, body.get("query")):
            doc[found.group(1)] = script["params"][found.group(2)]
            updated += 1
    return 200, {"updated": updated, "failures": []}


class FakeNode(BaseAsyncNode):
    """The transport node the real client talks to."""

    _CLIENT_META_HTTP_CLIENT = ("fk", "1.0")

    async def perform_request(self, method, target, body=None, headers=None, request_timeout=None):
        started = time.perf_counter()
        status, payload = handle(method, target, body)
        raw = b"" if method == "HEAD" else json.dumps(payload).encode()
        meta = ApiResponseMeta(status=status, http_version="1.1",
                               headers=HttpHeaders({"content-type": "application/json",
                                                    "x-elastic-product": "Elasticsearch"}),
                               duration=time.perf_counter() - started, node=self.config)
        return NodeApiResponse(meta, raw)

    async def close(self) -> None:
        return None
