"""Alembic migrations of the conversation database; `Store` applies them when it opens.

Add one with `alembic -c bot/migrations/alembic.ini revision --autogenerate -m "..."` after
changing a model in `bot/storage.py`; `tests/test_storage.py` fails while models and migrations
disagree.
"""
