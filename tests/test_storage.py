"""The conversation store's contract, run on SQLite and (when reachable) PostgreSQL."""
import pytest

from bot.storage import Message, Store

from conftest import postgres_schema


class StoreContract:
    """What the store must do on every database. A database's test class provides `db_url`."""

    def test_conversation_is_created_once_per_session_key(self, db_url):
        store = Store(db_url)
        a = store.conversation("slack", "T1", "C1", "111.1")
        b = store.conversation("slack", "T1", "C1", "111.1")
        c = store.conversation("slack", "T1", "C1", "222.2")
        assert a.id == b.id != c.id

    def test_history_is_the_last_n_oldest_first(self, db_url):
        store = Store(db_url)
        conv = store.conversation("console", "local", "me", "t")
        for n in range(5):
            store.add(Message(conversation_id=conv.id, role="user" if n % 2 == 0 else "assistant", text=f"m{n}"))
        assert [m.text for m in store.history(conv.id, 3)] == ["m2", "m3", "m4"]

    def test_sources_and_timings_round_trip_as_json(self, db_url):
        store = Store(db_url)
        conv = store.conversation("console", "local", "me", "t")
        msg = store.add(Message(conversation_id=conv.id, role="assistant", text="", status="partial"))
        store.update(msg.id, text="답", status="complete", sources=[{"path": "a.md", "score": 0.1}],
                     timings={"retrieve_ms": 12.5})
        stored = store.history(conv.id, 1)[0]
        assert (stored.text, stored.status) == ("답", "complete")
        assert stored.sources == [{"path": "a.md", "score": 0.1}] and stored.timings == {"retrieve_ms": 12.5}

    def test_drop_last_exchange_checks_roles_from_the_end(self, db_url):
        store = Store(db_url)
        conv = store.conversation("console", "local", "me", "t")
        for role, text in [("user", "q1"), ("assistant", "a1"), ("user", "q2"), ("assistant", "a2")]:
            store.add(Message(conversation_id=conv.id, role=role, text=text))
        assert store.drop_last_exchange(conv.id).text == "q2"
        assert [m.text for m in store.history(conv.id, 10)] == ["q1", "a1"]
        store.add(Message(conversation_id=conv.id, role="user", text="q3"))  # interrupted: no answer
        assert store.drop_last_exchange(conv.id).text == "q3"
        assert [m.text for m in store.history(conv.id, 10)] == ["q1", "a1"]
        store.drop_last_exchange(conv.id)
        assert store.drop_last_exchange(conv.id) is None

    def test_delivery_ids_are_forgotten_after_a_while(self, db_url):
        """The duplicate-delivery table is pruned: redeliveries come within minutes, not days."""
        store = Store(db_url)
        assert store.first_sighting("slack:Ev1") and not store.first_sighting("slack:Ev1")
        assert store.forget_sightings(3600) == 0 and not store.first_sighting("slack:Ev1")
        assert store.forget_sightings(-1) == 1 and store.first_sighting("slack:Ev1")

    def test_migrations_build_exactly_the_models_schema(self, db_url):
        """The Alembic history and the SQLModel models agree, and slack_sdk's OAuth tables are slack_sdk's own
        layout: a model (or a slack_sdk upgrade) changed without a migration fails here."""
        from alembic.autogenerate import compare_metadata
        from alembic.migration import MigrationContext

        store = Store(db_url)
        with store.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), _expected_schema())
            version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        assert diff == [] and version == _migration_head()
        Store(db_url)  # opening again is a no-op

    def test_slack_oauth_stores_work_on_the_migrated_schema_alone(self, db_url):
        """The installation and state tables come from the migrations: slack_sdk's stores save and find an
        install and issue and consume a state without creating anything themselves."""
        from slack_sdk.oauth.installation_store import Installation
        from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
        from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

        store = Store(db_url)
        installations = SQLAlchemyInstallationStore(client_id="c1", engine=store.engine)
        installations.save(Installation(app_id="A1", team_id="T2", user_id="U1", bot_token="xoxb-t2",
                                        bot_id="B1", bot_user_id="UB1", bot_scopes=["chat:write"]))
        assert installations.find_bot(enterprise_id=None, team_id="T2").bot_token == "xoxb-t2"
        states = SQLAlchemyOAuthStateStore(expiration_seconds=60, engine=store.engine)
        state = states.issue()
        assert states.consume(state) and not states.consume(state)

    def test_tables_slack_sdk_made_before_the_migration_are_adopted(self, db_url):
        """A database where slack_sdk's `create_all` made the OAuth tables (here an older slack_sdk's, without
        the refresh-token columns) upgrades without failing, keeps its installs and gains the columns."""
        import sqlalchemy as sa
        from alembic import command
        from alembic.config import Config
        from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
        from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

        from bot.storage import MIGRATIONS, make_engine

        engine = make_engine(db_url)
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as connection:  # docbot before this migration
            config.attributes["connection"] = connection
            command.upgrade(config, "0004")
        old = sa.MetaData()
        bots = SQLAlchemyInstallationStore.build_bots_table(old, "slack_bots")
        for column in ("bot_refresh_token", "bot_token_expires_at"):  # slack_sdk before 3.8
            bots._columns.remove(bots.c[column])
        SQLAlchemyInstallationStore.build_installations_table(old, "slack_installations")
        SQLAlchemyOAuthStateStore.build_oauth_states_table(old, "slack_oauth_states")
        old.create_all(engine)
        with engine.begin() as connection:
            connection.execute(bots.insert().values(client_id="c1", app_id="A1", team_id="T9", bot_token="xoxb-t9",
                                                    is_enterprise_install=False, installed_at=sa.func.now()))
        engine.dispose()
        store = Store(db_url)
        found = SQLAlchemyInstallationStore(client_id="c1", engine=store.engine).find_bot(enterprise_id=None,
                                                                                           team_id="T9")
        assert found is not None and found.bot_token == "xoxb-t9"
        with store.engine.connect() as conn:
            assert {"bot_refresh_token", "bot_token_expires_at"} <= {
                c["name"] for c in sa.inspect(conn).get_columns("slack_bots")}


def _expected_schema():
    """docbot's models and slack_sdk's OAuth tables as slack_sdk defines them (the `bot` layer writes those out
    in its migration because it never imports a chat SDK)."""
    import sqlalchemy as sa
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
    from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
    from sqlmodel import SQLModel

    expected = sa.MetaData()
    for table in SQLModel.metadata.tables.values():
        table.to_metadata(expected)
    SQLAlchemyInstallationStore.build_installations_table(expected, "slack_installations")
    SQLAlchemyInstallationStore.build_bots_table(expected, "slack_bots")
    SQLAlchemyOAuthStateStore.build_oauth_states_table(expected, "slack_oauth_states")
    return expected


def _migration_head() -> str:
    """The one head of the migration history (two heads mean two branches added migrations unmerged)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from bot.storage import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    heads = ScriptDirectory.from_config(config).get_heads()
    assert len(heads) == 1, f"several migration heads: {heads}"
    return heads[0]


class TestSqliteStore(StoreContract):
    """The embedded default: one file in the data folder."""

    @pytest.fixture
    def db_url(self, tmp_path):
        return f"sqlite:///{tmp_path / 'docbot.sqlite3'}"

    def test_a_database_from_before_migrations_gains_the_columns_it_lacks(self, tmp_path):
        """`create_all` never added a column to an existing table: a database from an early docbot (no
        status, run ids or timings on messages; no alembic_version) is brought up to date, rows kept."""
        import sqlite3

        path = tmp_path / "old.sqlite3"
        with sqlite3.connect(path) as old:
            old.executescript("""
                CREATE TABLE conversation (id INTEGER PRIMARY KEY, platform VARCHAR NOT NULL, tenant VARCHAR NOT NULL,
                    channel VARCHAR NOT NULL, thread VARCHAR NOT NULL, created_at DATETIME NOT NULL,
                    UNIQUE (platform, tenant, channel, thread));
                CREATE TABLE message (id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER NOT NULL,
                    role VARCHAR NOT NULL, text VARCHAR NOT NULL, user_id VARCHAR NOT NULL,
                    rewritten VARCHAR, intent VARCHAR, created_at DATETIME NOT NULL);
                INSERT INTO conversation VALUES (1, 'slack', 'T1', 'C1', '1.1', '2026-01-01 00:00:00');
                INSERT INTO message (conversation_id, role, text, user_id, created_at)
                    VALUES (1, 'user', '연차는 며칠?', 'U1', '2026-01-01 00:00:01');
            """)
        store = Store(f"sqlite:///{path}")
        conv = store.conversation("slack", "T1", "C1", "1.1")
        old_question, = store.history(conv.id, 5)
        assert old_question.text == "연차는 며칠?" and conv.id == 1
        answer = store.add(Message(conversation_id=conv.id, role="assistant", text="15일", status="complete",
                                   run_id="r1", timings={"total_ms": 1.0}))
        assert [m.status for m in store.history(conv.id, 5)][-1] == "complete" and answer.id == 2
        assert store.question_of_run("r1") is None and store.traces(conv.id) == []  # new tables exist too


@pytest.mark.postgres
class TestPostgresStore(StoreContract):
    """PostgreSQL, each test in a private schema (skipped when no server is reachable)."""

    @pytest.fixture
    def db_url(self):
        yield from postgres_schema()
