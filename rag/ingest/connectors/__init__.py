"""Connectors: sources that live in another system (Git today) and sync incrementally from a stored cursor.

Each connector is a `Source` (rag.ingest.sources) that also answers `changes(cursor)`: what changed since
the cursor the last successful run stored, and the cursor to store once those changes are applied.
"""
