"""Conversation storage on SQLite and (when reachable) PostgreSQL."""
from bot.storage import Message, Store


def test_conversation_is_created_once_per_session_key(db_url):
    store = Store(db_url)
    a = store.conversation("slack", "T1", "C1", "111.1")
    b = store.conversation("slack", "T1", "C1", "111.1")
    c = store.conversation("slack", "T1", "C1", "222.2")
    assert a.id == b.id != c.id


def test_history_is_the_last_n_oldest_first(db_url):
    store = Store(db_url)
    conv = store.conversation("console", "local", "me", "t")
    for n in range(5):
        store.add(Message(conversation_id=conv.id, role="user" if n % 2 == 0 else "assistant", text=f"m{n}"))
    assert [m.text for m in store.history(conv.id, 3)] == ["m2", "m3", "m4"]


def test_sources_and_timings_round_trip_as_json(db_url):
    store = Store(db_url)
    conv = store.conversation("console", "local", "me", "t")
    msg = store.add(Message(conversation_id=conv.id, role="assistant", text="", status="partial"))
    store.update(msg.id, text="답", status="complete", sources=[{"path": "a.md", "score": 0.1}],
                 timings={"retrieve_ms": 12.5})
    stored = store.history(conv.id, 1)[0]
    assert (stored.text, stored.status) == ("답", "complete")
    assert stored.sources == [{"path": "a.md", "score": 0.1}] and stored.timings == {"retrieve_ms": 12.5}


def test_drop_last_exchange_checks_roles_from_the_end(db_url):
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
