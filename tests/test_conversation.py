"""The conversation service over the real pipeline, index, model and database."""
import pytest

from bot.controls import Control, buttons
from bot.conversation import SessionKey

from conftest import build_service

KEY = SessionKey("console", "local", "me", "thread-1")


def conv_id(service):
    return service.store.conversation(*KEY.__dict__.values()).id


async def test_follow_up_is_rewritten_from_server_side_history(service):
    first = await service.ask(KEY, "프로젝트 삭제 정책 알려줘", "u1")
    await first.collect()
    second = await service.ask(KEY, "그럼 언제까지 살릴 수 있어?", "u1")
    answer = await second.collect()
    assert "프로젝트" in second.rewritten and second.prepared.rewrite.method == "offline"
    assert second.sources[0].path == "project-deletion-policy.md"
    assert "30일" in answer
    question, history = service.rewriter.seen[-1]
    assert question == "그럼 언제까지 살릴 수 있어?" and question not in history  # read before storing
    stored = service.store.history(conv_id(service), 10)
    assert [m.role for m in stored] == ["user", "assistant", "user", "assistant"]
    assert stored[2].rewritten == second.rewritten and stored[2].intent == "knowledge_search"
    assert stored[3].status == "complete" and stored[3].sources[0]["path"] == "project-deletion-policy.md"
    assert {"rewrite_ms", "retrieve_ms", "answer_ms", "total_ms"} <= set(stored[3].timings)


async def test_stop_keeps_the_partial_answer(service):
    turn = await service.ask(KEY, "How does the on-call rotation work?", "u1")
    pieces = []
    async for piece in turn.stream():
        pieces.append(piece)
        if len(pieces) == 2:
            assert (await service.press(KEY, Control.STOP, turn.run_id, "u1")).ok
    answer = service.store.history(conv_id(service), 1)[0]
    assert answer.status == "cancelled" and answer.text == "".join(pieces) and len(pieces) == 2


async def test_regenerate_replaces_the_last_exchange(service):
    first = await service.ask(KEY, "연차는 1년에 며칠이야?", "u1")
    await first.collect()
    pressed = await service.press(KEY, Control.REGENERATE, first.run_id, "u1")
    turn = pressed.turn
    assert pressed.ok and turn.user_id == "u1"
    await turn.collect()
    stored = service.store.history(conv_id(service), 10)
    assert [(m.role, m.text[:5]) for m in stored][0] == ("user", "연차는 1")
    assert len(stored) == 2 and stored[1].status == "complete"


async def test_regenerate_with_nothing_to_regenerate(service):
    pressed = await service.press(SessionKey("console", "local", "me", "empty"), Control.REGENERATE, "nope", "u1")
    assert not pressed.ok and pressed.turn is None and pressed.status == "not_here"


async def test_stop_and_regenerate_are_for_the_asker_and_admins_only(service):
    """A bystander's Stop or Regenerate is refused (and says so without naming anyone); an admin's works."""
    turn = await service.ask(KEY, "How does the on-call rotation work?", "alice")
    stop = await service.press(KEY, Control.STOP, turn.run_id, "mallory")
    assert stop.status == "denied" and not turn.cancelled.is_set() and "alice" not in stop.note
    await turn.collect()
    regen = await service.press(KEY, Control.REGENERATE, turn.run_id, "mallory")
    assert regen.status == "denied" and regen.turn is None
    assert len(service.store.history(conv_id(service), 10)) == 2  # nothing dropped
    by_admin = await service.press(KEY, Control.REGENERATE, turn.run_id, "admin")
    assert by_admin.ok and by_admin.turn.user_id == "alice"  # re-asked as the asker, not the clicker
    await by_admin.turn.collect()


async def test_a_button_acts_only_in_its_own_conversation(service):
    """A run, answer or action id pressed from another thread (a forged or stale click) does nothing."""
    other = SessionKey("console", "local", "me", "thread-2")
    turn = await service.ask(KEY, "How does the on-call rotation work?", "alice")
    assert (await service.press(other, Control.STOP, turn.run_id, "alice")).status == "not_here"
    assert not turn.cancelled.is_set()
    await turn.collect()
    await (await service.ask(other, "hello", "alice")).collect()
    for control, target in ((Control.REGENERATE, turn.run_id), (Control.HELPFUL, str(turn.answer_id))):
        assert (await service.press(other, control, target, "alice")).status == "not_here"
    assert service.store.feedback(turn.answer_id) == [] and len(service.store.history(conv_id(service), 10)) == 2
    assert (await service.press(KEY, Control.HELPFUL, str(turn.answer_id), "bob")).status == "recorded"


async def test_only_the_latest_answer_is_regenerated(service):
    """Regenerate on an earlier answer must not drop the thread's last exchange and re-ask it."""
    first = await service.ask(KEY, "연차는 1년에 며칠이야?", "u1")
    await first.collect()
    second = await service.ask(KEY, "How does the on-call rotation work?", "u1")
    await second.collect()
    pressed = await service.press(KEY, Control.REGENERATE, first.run_id, "u1")
    assert pressed.status == "not_latest" and pressed.turn is None
    stored = service.store.history(conv_id(service), 10)
    assert [m.text[:6] for m in stored if m.role == "user"] == ["연차는 1년", "How do"]


async def test_buttons_follow_the_turn_state_in_the_askers_language(service):
    turn = await service.ask(KEY, "연차는 1년에 며칠이야?", "u1")
    assert [(b.control, b.label, b.target) for b in buttons(turn, running=True)] == [
        (Control.STOP, "중단", turn.run_id)]
    await turn.collect()
    done = buttons(turn, running=False)
    assert [b.control for b in done] == [Control.REGENERATE, Control.HELPFUL, Control.NOT_HELPFUL]
    assert done[0].target == turn.run_id and done[1].target == str(turn.answer_id) and done[0].label == "다시 생성"


@pytest.mark.parametrize("text", ["", "   \n\t"])
async def test_empty_message_gets_a_prompt_and_is_stored(service, text):
    turn = await service.ask(KEY, text)
    answer = await turn.collect()
    assert "question" in answer.lower() and not turn.prepared.searched
    assert [m.role for m in service.store.history(conv_id(service), 10)] == ["user", "assistant"]


async def test_huge_message_is_answered_from_its_beginning(service):
    text = "What is the hotel limit in the United States? " + "padding words " * 7500
    assert len(text) > 100_000
    turn = await service.ask(KEY, text)
    answer = await turn.collect()
    assert "first 1000 characters" in answer and turn.sources[0].path == "travel-policy.md"
    assert service.store.history(conv_id(service), 2)[0].text == text  # stored whole


async def test_thanks_gets_a_welcome_not_a_greeting(service):
    assert "천만에요" in await (await service.ask(KEY, "고마워!")).collect()
    assert "welcome" in await (await service.ask(KEY, "thanks a lot")).collect()


async def test_small_talk_and_actions_never_search(service):
    for text, intent in [("고마워!", "chitchat"), ("테스트 프로젝트 삭제해줘", "action"), ("지금 장애 상태 어때?", "realtime_lookup")]:
        turn = await service.ask(KEY, text)
        await turn.collect()
        assert turn.prepared.route.intent == intent and not turn.prepared.searched and turn.sources == []


async def test_a_failing_stage_still_replies_and_stores(service, monkeypatch):
    from rag.errors import SearchIndexError

    def broken(*args, **kwargs):
        raise SearchIndexError("index unavailable")

    monkeypatch.setattr(service.pipeline.retriever, "search", broken)
    turn = await service.ask(KEY, "연차는 며칠이야?")
    answer = await turn.collect()
    assert "sorry" in answer.lower() or "죄송" in answer
    stored = service.store.history(conv_id(service), 2)
    assert stored[0].text == "연차는 며칠이야?" and stored[1].text == answer


async def test_two_messages_in_one_thread_are_processed_in_order(service):
    """The second question waits for the first answer to be stored, and sees it in its history."""
    import asyncio

    first = await service.ask(KEY, "프로젝트 삭제 정책 알려줘", "u1")

    async def consume_first():
        await asyncio.sleep(0.2)  # the second message arrives while the first answer is still running
        await first.collect()

    consuming = asyncio.create_task(consume_first())
    second = await service.ask(KEY, "그럼 언제까지 살릴 수 있어?", "u1")
    await consuming
    await second.collect()
    assert first.done.is_set() and first.status == "cancelled"  # superseded cleanly, partial kept
    _, history = service.rewriter.seen[-1]
    assert history[:2] == ["프로젝트 삭제 정책 알려줘", first.text]  # the stored first answer, then the new one
    stored = service.store.history(conv_id(service), 10)
    assert [m.role for m in stored] == ["user", "assistant", "user", "assistant"]


async def test_metrics_count_turns_and_stages(service):
    await (await service.ask(KEY, "What is Beacon?")).collect()
    text = service.metrics.render().decode()
    assert 'docbot_turns_total{route="knowledge_search",status="complete"} 1.0' in text
    assert 'docbot_turn_stage_seconds_count{stage="retrieve"} 1.0' in text
    assert "docbot_active_turns 0.0" in text


async def test_rate_limits_answer_politely_and_store_the_message(handbook_indexer, analyzer, classifier, tmp_path):
    from bot.ratelimit import RateLimiter

    service = build_service(handbook_indexer, analyzer, classifier, f"sqlite:///{tmp_path / 'r.sqlite3'}")
    service.limiter = RateLimiter(per_user=2, per_channel=100)
    replies = [await (await service.ask(KEY, f"What is Beacon? ({n})", "flooder")).collect() for n in range(3)]
    assert "Beacon" in replies[0] and "ask again in a minute" in replies[2]
    other = await (await service.ask(SessionKey("console", "local", "me", "t2"), "What is Beacon?", "calm")).collect()
    assert "ask again" not in other  # one user's flood does not limit another
    assert len(service.store.history(conv_id(service), 10)) == 6  # every message stored, answered or not




async def test_storage_never_runs_on_the_event_loop(service, monkeypatch):
    """Every database call of a turn and of a press runs on the store's own threads: not on the loop,
    and not on the default pool that embedding and classification use."""
    import threading

    from bot.storage import Store

    threads = []
    opened = Store._session

    def spy(self):
        threads.append(threading.current_thread().name)
        return opened(self)

    monkeypatch.setattr(Store, "_session", spy)
    turn = await service.ask(KEY, "How does the on-call rotation work?", "u1")
    await turn.collect()
    await service.press(KEY, Control.HELPFUL, str(turn.answer_id), "u1")
    regenerated = (await service.press(KEY, Control.REGENERATE, turn.run_id, "u1")).turn
    await regenerated.collect()
    assert len(threads) > 8 and all(name.startswith("docbot-store") for name in threads), set(threads)


async def test_an_answer_the_platform_stops_reading_closes_the_model_stream_at_once(tmp_path, analyzer, embedder,
                                                                                    classifier, monkeypatch):
    """A platform that fails midway (Slack's append timed out) stops reading the turn: the model's stream
    underneath was left to the garbage collector, its HTTP response open until the event loop finalised it
    (at shutdown, "aclose(): asynchronous generator is already running" tracebacks in the 50x3 load run). It
    is closed when the turn is."""
    from rag.pipeline import Pipeline

    from conftest import service_over

    service = service_over(tmp_path, analyzer, embedder, classifier,
                           {"oncall.md": "# On-call\n\nWeekly rotation.\n"})
    closed = []

    async def model_stream(self, prepared, history):
        try:
            for n in range(5):
                yield f"part {n}. "
        finally:
            closed.append("model stream closed")

    monkeypatch.setattr(Pipeline, "answer", model_stream)
    finish = service.finish

    async def finishing(turn, answer_ms):
        closed.append("answer stored")
        await finish(turn, answer_ms)

    monkeypatch.setattr(service, "finish", finishing)
    turn = await service.ask(KEY, "How does the on-call rotation work?", "u1")
    pieces = turn.stream()
    assert await pieces.__anext__() == "part 0. "
    await pieces.aclose()  # the platform gave up on the answer
    assert closed == ["model stream closed", "answer stored"]  # with the turn, not later by the loop's finaliser
    assert turn.done.is_set() and turn.text == "part 0. "
