"""Rules the core applies for every platform, so no adapter has to (bot/inbound.py, bot/controls.py)."""
from bot.controls import Control, pressed, stopped_note, stopped_suffix, target_of
from bot.conversation import Pressed, SessionKey
from bot.inbound import Incoming

KEY = SessionKey("teams", "t1", "19:general", "19:general;messageid=1")


async def test_a_redelivered_edit_is_recognised_by_the_core_and_a_new_revision_is_not(service):
    original = Incoming(KEY, "연차는 며칠이야?", "u1", delivery_id="m1", message_id="m1", reply=True)
    assert (await service.receive(original)).reason == "not_for_docbot"  # docbot not in this thread yet
    # The adapter names neither the edit's delivery nor its revision: the core keys it by original and text.
    edit = Incoming(KEY, "  연차는 며칠이야?  ", "u1", message_id="m1", edit_of="m1", mentioned=True, reply=True)
    answered = await service.receive(edit)
    assert answered.outcome == "answered"
    await answered.turn.collect()
    again = await service.receive(edit)
    assert (again.outcome, again.reason) == ("ignored", "duplicate")
    revised = await service.receive(Incoming(KEY, "연차는 1년에 며칠이야?", "u1", message_id="m1", edit_of="m1",
                                             mentioned=True, reply=True))
    assert (revised.outcome, revised.reason) == ("ignored", "edit_of_answered")  # a new revision, decided on


async def test_the_core_trims_what_the_platform_delivered(service):
    received = await service.receive(Incoming(KEY, "\n  재택근무는 일주일에 몇 번 가능해? \n", "u1", mentioned=True))
    await received.turn.collect()
    assert received.turn.prepared.question == "재택근무는 일주일에 몇 번 가능해?"


async def test_a_click_id_is_counted_per_platform(service):
    slack = SessionKey("slack", "T1", "C1", "1.0")
    first = await service.press(slack, Control.HELPFUL, "999999", "u1", delivery_id="a1")
    assert first.status != "duplicate"
    assert (await service.press(slack, Control.HELPFUL, "999999", "u1", delivery_id="a1")).status == "duplicate"
    # Another platform's click that happens to carry the same id is a different click.
    assert (await service.press(KEY, Control.HELPFUL, "999999", "u1", delivery_id="a1")).status != "duplicate"


def test_old_buttons_name_their_target_by_kind_on_every_platform():
    assert target_of({"run": "r1"}) == "r1" and target_of({"action": 7}) == "7" and target_of({}) == ""
    assert target_of({"target": "t", "run": "r"}) == "t"
    assert pressed("feedback", {"helpful": True, "message": 5}) == (Control.HELPFUL, "5")
    assert pressed("feedback", {"message": 5}) == (Control.NOT_HELPFUL, "5")
    assert pressed("stop", {"target": "r1"}) == (Control.STOP, "r1")
    assert pressed("reboot", {"target": "r1"}) is None


def test_only_acknowledgements_may_go_unsaid_where_everyone_would_see_them():
    assert Pressed(True, "recorded", "thanks").courtesy
    assert not Pressed(False, "denied", "only the asker").courtesy
    assert not Pressed(True, "done", "Done: restarted", public=True).courtesy


async def test_a_stopped_answer_says_so_in_the_askers_language(service):
    turn = await service.ask(KEY, "재택근무 규정 알려줘", "u1")
    turn.cancelled.set()
    await turn.collect()
    assert turn.status == "cancelled" and stopped_note(turn) == "(중단됨)"
    assert stopped_suffix(turn) == "\n\n_(중단됨)_"  # one rule for Slack's updated message and a Teams card
    done = await service.ask(SessionKey("teams", "t1", "19:general", "other"), "What is the VPN policy?", "u1")
    await done.collect()
    assert stopped_note(done) == "" and stopped_suffix(done) == ""
