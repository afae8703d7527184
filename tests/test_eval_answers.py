"""Answer-level scoring (rag.eval.answers): the gold matcher and what counts as shown, grounded, leading."""
import pytest

from rag.eval.answers import contains, gold_groups, lead_of, normalise, read_answer, score_answer


@pytest.mark.parametrize("text, alternative", [
    ("The limit is **₩150,000** per night.", "150000"),  # emphasis and digit grouping go
    ("The limit is 150000 per night.", "150,000"),
    ("ＰｏｓｔｇｒｅＳＱＬ is the default", "PostgreSQL"),  # width (NFKC) and case
    ("연차는 1년에 15일입니다.", "15일"),
    ("Use the `deploy-bot` command", "deploy-bot"),
    ("Approval from  two\nreviewers", "approval from two reviewers"),  # whitespace collapsed
    ("Costs rose 5%.", "5%"),
    ("the CTO approves", "cto"),
    ("Version 2.5 ships", "2.5"),
])
def test_matches(text, alternative):
    assert contains(text, alternative)


@pytest.mark.parametrize("text, alternative", [
    ("Costs rose 95%.", "5%"),  # a longer number
    ("all CTOs approve", "CTO"),  # a longer word
    ("휴가는 115일", "15일"),
    ("version 11.5 ships", "1.5"),  # a decimal continues the number
    ("version 1.55 ships", "1.5"),
    ("the limit is 1,500,000", "500,000"),
    ("PostgreSQLs", "PostgreSQL"),
    ("", "x"),
])
def test_does_not_match_inside_a_longer_word_or_number(text, alternative):
    assert not contains(text, alternative)


def test_korean_particles_may_follow_a_korean_fact():
    assert contains("승인은 2명에게 받아야 합니다", "2명")
    assert contains("PostgreSQL을 씁니다", "PostgreSQL")  # a Hangul particle is not an ASCII continuation


def test_normalise_keeps_snake_case_words():
    assert normalise("use data_retention and __init__") == "use data_retention and init"


def test_gold_groups():
    assert gold_groups({"answer_contains": ["a", "b"]}) == [["a", "b"]]
    assert gold_groups({"answer_contains_all": [["a"], ["b", "c"]]}) == [["a"], ["b", "c"]]
    assert gold_groups({"answer_contains": None}) is None and gold_groups({}) is None


ANSWER = ("Here is what the documents say:\n"
          "• Hotels are reimbursed up to ₩150,000 per night. [2]\n"
          "• Document owner: Finance team. [1]\n"
          "• Overseas trips follow the overseas policy. [2]\n")
NUMBERED = {1: "domestic.md", 2: "overseas.md"}


def test_reads_lines_with_their_cited_documents():
    lines = read_answer(ANSWER, NUMBERED)
    assert [line.cited for line in lines] == [(), ("overseas.md",), ("domestic.md",), ("overseas.md",)]
    assert lead_of(lines).startswith("• Hotels")
    assert lead_of(read_answer("No citations here. A second sentence.", {})) == "No citations here."


def test_shown_grounded_leads_junk_and_first_citation():
    scored = score_answer(ANSWER, NUMBERED, ["overseas.md"], [["150000", "15만 원"]])
    assert (scored.shown, scored.grounded, scored.leads) == (True, True, True)
    assert (scored.bullets, scored.junk) == (3, 1)
    assert scored.first_cited == "overseas.md" and scored.first_cited_relevant


def test_a_fact_in_a_line_citing_another_document_is_shown_not_grounded():
    scored = score_answer(ANSWER, NUMBERED, ["domestic.md"], [["150,000"]])
    assert scored.shown and not scored.grounded and scored.leads
    assert scored.first_cited_relevant is False and scored.junk == 2


def test_a_fact_after_the_first_bullet_does_not_lead():
    scored = score_answer(ANSWER, NUMBERED, ["domestic.md", "overseas.md"], [["Finance team"]])
    assert scored.shown and scored.grounded and not scored.leads


def test_every_group_must_be_shown_and_the_lead_holds_one():
    both = score_answer(ANSWER, NUMBERED, ["domestic.md", "overseas.md"], [["150,000"], ["Finance"]])
    assert both.shown and both.grounded and both.leads
    missing = score_answer(ANSWER, NUMBERED, ["domestic.md", "overseas.md"], [["150,000"], ["Legal"]])
    assert not missing.shown and not missing.grounded and missing.missing == [["Legal"]]


def test_no_gold_scores_only_lines():
    scored = score_answer(ANSWER, NUMBERED, ["overseas.md"], None)
    assert not scored.shown and scored.junk == 1 and scored.bullets == 3


def test_a_hedged_turn_is_neither_a_false_answer_nor_a_false_not_found():
    from types import SimpleNamespace

    from rag.documents import Chunk, Hit
    from rag.eval.replay import Replay
    from rag.pipeline import Prepared
    from rag.understand.rewrite import Rewrite
    from rag.understand.routing import Intent, Route

    hits = [Hit(Chunk("a.md", 0, "A", "", "Bicycles go in the basement rack."), 1.0)]
    stub = SimpleNamespace(retrieve=lambda query, k, prior=(): (hits, []))
    replay = Replay(stub, 5, {"a.md": ("en",)})

    def turn(question, answer, gold):
        prepared = Prepared(question, Rewrite(question, "none"), Route(Intent.KNOWLEDGE_SEARCH, 0.9), hits=list(hits),
                            searched=True, hedged=True)
        replay.turn("c1", 0, {"user": question, "intent": "knowledge_search", **gold}, prepared, answer)

    hedge = "The closest I found — it may not answer exactly:\n"
    turn("Where do dogs go?", hedge + "• Bicycles go in the basement rack. [1]\n", {"answerable": False})
    turn("Where do bicycles go?", hedge + "• Bicycles go in the basement rack. [1]\n",
         {"relevant": ["a.md"], "answer_contains": ["basement rack"]})
    turn("Which floor is the rack on?", hedge + "• Bicycles go in the basement rack. [1]\n",
         {"relevant": ["a.md"], "answer_contains": ["B2"]})
    report = replay.report(1, 0)
    assert report["not_found"]["false_answer_rate"] == 0.0
    assert report["not_found"]["hedged_on_unanswerable_rate"] == 1.0
    assert report["not_found"]["false_not_found_rate"] == 0.0
    answers = report["answers"]["all"]
    assert answers["hedged_rate"] == 1.0 and answers["fact_shown"] == 0.5 and answers["fact_grounded"] == 0.5
