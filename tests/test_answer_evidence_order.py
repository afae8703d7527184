"""Which sentence leads and what stands beside it: retrieval's order (a repealed policy's penalty, a hub's
discount) carries into the sentence scores, and a fact in the other language is quoted next to a
same-language near miss instead of being dropped."""
from rag.answer.answerers import ExtractiveAnswerer
from rag.answer.questions import Kind
from rag.answer.reading import Candidate, Reading, ranking_shift
from rag.documents import Chunk, Hit, Metadata


def _ranked(path, text, relevance, score, status="", cosine=0.85):
    """A hit as the ranker returns it: `relevance` is the uncentred z, `score` the order it decided."""
    chunk = Chunk(path, 0, path, "", text, meta=Metadata(status=status))
    return Hit(chunk, score, cosine, relevance=relevance, spread=0.02, population=200)


def test_the_ranking_shift_is_what_retrieval_added_to_the_z_score():
    assert ranking_shift(_ranked("a.md", "x", relevance=3.0, score=2.0)) == -1.0
    # Without retrieval's scale (a hand-built hit) a document no longer in force still loses.
    old = Hit(Chunk("old.md", 0, "Old", "", "x", meta=Metadata(status="repealed")), 1.0)
    assert ranking_shift(old) < 0 and ranking_shift(Hit(Chunk("new.md", 0, "New", "", "x"), 1.0)) == 0


async def test_a_repealed_policys_figure_does_not_lead_over_the_current_one(analyzer, embedder):
    """The repealed policy's passage is a little closer to the question, but retrieval put it below the
    current one: the current figure leads (it used to be the repealed one, cited as [1])."""
    hits = [
        _ranked("expense-policy.md", "21시 이후까지 근무한 경우 1인 1식 12,000원까지 실비로 지급한다.", 3.3, 3.3),
        _ranked("expense-policy-2022.md", "20시 이후까지 근무한 경우 1인 1식 9,000원까지 지급한다.", 3.8, 2.8,
                status="repealed"),
    ]
    answerer = ExtractiveAnswerer(analyzer, embedder)
    text = "".join([p async for p in answerer.answer("야근 식대 얼마까지 돼?", "야근 식대 얼마까지 돼?", hits, [])])
    assert "12,000원" in text.splitlines()[1]


def _candidate(path, sentence, score):
    hit = Hit(Chunk(path, 0, path, "", sentence), 1.0)
    return Candidate(path, 0, sentence, hit, score, 0.8, 0, True, score)


def test_a_fact_in_the_other_language_is_quoted_beside_a_same_language_near_miss(analyzer, embedder):
    """"How many days of leave when my wife gives birth?": an English row of another branch's leave table
    leads; the Korean policy's row 1.4 below it is the answer and is quoted too. A Korean-question's
    same-language document that far below is not."""
    reading = Reading(Kind.QUANTITY, [
        _candidate("sg-handbook.pdf", "Childcare leave — Entitlement: 6 days per year.", 5.2),
        _candidate("leave-policy.pdf", "배우자 출산 — 휴가 일수: 20일; 경조금: 300,000원.", 3.8),
        _candidate("onboarding.html", "Annual leave requests go through the HR portal.", 3.8),
    ])
    paths = [c.path for c in ExtractiveAnswerer(analyzer, embedder).pick(reading, "How many days of leave do I get when my wife gives birth?")]
    assert paths == ["sg-handbook.pdf", "leave-policy.pdf"]
