"""Ingest, the first stage: where files come from, how each format is read, how text is chunked.

Takes a source (a folder today); gives `SourceFile`s, `Document`s (title, sections) and `Chunk`s.
Nothing here knows about a search index.
"""
