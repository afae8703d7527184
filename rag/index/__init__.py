"""Index, the second stage: the search-index port, its two backends and the indexer that fills them.

Takes chunks from ingest and vectors from the embedding model; gives candidates for a query (BM25
matches and the nearest chunks per language, with visibility enforced inside the query). The
embedded backend (SQLite + in-memory postings and vectors) and Elasticsearch pass one contract.
"""
