"""The platform-agnostic RAG core, one package per pipeline stage, imported in pipeline order.

    ingest/      sources, loaders, chunking            files -> documents -> chunks
    index/       the search-index port and backends    chunks -> candidates for a query
    understand/  rewrite, routing, intents             message + history -> standalone query, route
    retrieve/    retriever, ranking, chain             query -> ranked hits
    answer/      answerers, evidence, lookups          hits + the user's words -> a cited answer
    pipeline.py  one turn through the stages above
    eval/        replay datasets through the pipeline  -> a report

Below every stage: `models/` (embedding and chat-model ports), `text/` (language, analysis,
masking), and the shared modules `documents` (value types), `messages` (what docbot says),
`errors` (the one exception tree), `resilience` (timeouts and retries). No stage imports a later
one; `lint-imports` enforces it (pyproject.toml).
"""
