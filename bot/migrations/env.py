"""Alembic's entry: migrate the connection `Store` hands over (or the URL of alembic.ini, by hand)."""
from alembic import context
from sqlalchemy import engine_from_config, pool
from sqlmodel import SQLModel

import bot.storage  # noqa: F401  (registers the models on SQLModel.metadata, for --autogenerate)

config = context.config
target_metadata = SQLModel.metadata


def _ours(name, kind, parent_names) -> bool:
    """Whether --autogenerate compares a table: slack_sdk's OAuth tables (0005) follow slack_sdk's layout, not a
    model of docbot's, so they are not proposed for dropping."""
    return not (kind == "table" and name and name.startswith("slack_"))


def _run(connection) -> None:
    # render_as_batch: SQLite cannot ALTER most things in place; batch mode copies the table instead.
    context.configure(connection=connection, target_metadata=target_metadata, include_name=_ours,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    engine = engine_from_config(config.get_section(config.config_ini_section, {}), prefix="sqlalchemy.",
                                poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)
