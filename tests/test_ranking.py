"""The one ranker, on candidates built by hand: language normalisation, BM25's bounded bonus, the floor,
hub centring and documents no longer in force."""
from dataclasses import replace

import pytest

from rag.documents import Chunk, Metadata
from rag.index.port import ALL_LANGUAGES, Background, Candidate, Candidates
from rag.retrieve.ranking import Ranker


def candidates(rows, keyword=(), background=None):
    """rows: (key, language, cosine)."""
    chunks = {key: Candidate(Chunk(f"{key}.md", 0, key, "", key), "/src", (lang,), cos) for key, lang, cos in rows}
    nearest = {}
    for key, lang, _cos in sorted(rows, key=lambda r: -r[2]):
        nearest.setdefault(lang, []).append(key)
    background = background or {"ko": Background(0.80, 0.02, 100), "en": Background(0.70, 0.02, 100),
                                ALL_LANGUAGES: Background(0.75, 0.05, 200)}
    return Candidates(list(keyword), nearest, chunks, background)


def test_a_cross_language_match_beats_same_language_noise():
    # Korean chunks run 0.10 higher for this (Korean) question; the English one stands out in its language.
    found = candidates([("ko-noise", "ko", 0.83), ("en-answer", "en", 0.78), ("ko-other", "ko", 0.81)])
    hits = Ranker().rank(found, 3)
    assert hits[0].chunk.path == "en-answer.md" and hits[0].relevance == (0.78 - 0.70) / 0.02


def test_bm25_helps_same_language_near_ties_but_cannot_bury_a_clear_match():
    found = candidates([("a", "ko", 0.86), ("b", "ko", 0.859), ("en", "en", 0.80)], keyword=[("b", 12.0), ("a", 1.0)])
    order = [h.chunk.path for h in Ranker().rank(found, 3)]
    assert order == ["en.md", "b.md", "a.md"]  # b passes a on BM25; the English chunk (z 5) stays first


def test_the_translated_keywords_lift_the_other_language_on_their_own_scale():
    # An English question: the Korean answer is ordinary among Korean cosines, and its translated words'
    # BM25 score is small beside the English words' best; on the translated list's own scale it is the best.
    found = candidates([("en-near", "en", 0.74), ("ko-answer", "ko", 0.82), ("ko-other", "ko", 0.815)],
                       keyword=[("en-near", 20.0), ("ko-answer", 2.0)])
    found.translated = [("ko-answer", 2.0), ("ko-other", 0.5)]
    assert Ranker(translation_weight=0.0).rank(found, 3)[0].chunk.path == "en-near.md"
    assert [h.chunk.path for h in Ranker().rank(found, 3)] == ["ko-answer.md", "en-near.md", "ko-other.md"]


def test_the_floor_drops_far_hits_but_keeps_bm25_top_hits_and_the_previous_answers_documents():
    rows = [("best", "en", 0.80), ("near", "en", 0.77), ("far", "en", 0.705), ("code", "en", 0.60),
            ("cited", "en", 0.69)]
    found = candidates(rows, keyword=[("code", 5.0)])
    kept = {h.chunk.path for h in Ranker(z_gap=2.5).rank(found, 10)}
    assert kept == {"best.md", "near.md", "code.md"}
    kept = {h.chunk.path for h in Ranker(z_gap=2.5).rank(found, 10, prior=("cited.md",))}
    assert "cited.md" in kept and "far.md" not in kept


def test_the_cosine_gap_applies_within_a_language():
    # Both within z_gap of the best, but "weak" is 0.09 under the best *English* cosine.
    background = {"en": Background(0.60, 0.10, 100)}
    found = candidates([("strong", "en", 0.90), ("weak", "en", 0.81)], background=background)
    assert [h.chunk.path for h in Ranker(z_gap=5, cosine_gap=0.08).rank(found, 5)] == ["strong.md"]


def test_a_language_without_statistics_falls_back_to_the_whole_index():
    background = {"ko": Background(0.8, 0.02, 3), ALL_LANGUAGES: Background(0.75, 0.05, 200)}
    found = candidates([("ko", "ko", 0.85)], background=background)
    assert Ranker().rank(found, 1)[0].relevance == (0.85 - 0.75) / 0.05


def test_the_z_gap_alone_drops_a_hit_far_below_the_best_across_languages():
    """A Korean hit that is the best of its language (the cosine gap cannot touch it) but whose z is far under
    the best hit's: only the z-gap half of the floor drops it; a wide z-gap keeps it (the control)."""
    background = {"en": Background(0.70, 0.02, 100), "ko": Background(0.80, 0.10, 100)}
    found = candidates([("best", "en", 0.80), ("ko-only", "ko", 0.85)], background=background)  # z 5.0 and 0.5
    assert [h.chunk.path for h in Ranker(z_gap=2.5, cosine_gap=1.0).rank(found, 5)] == ["best.md"]
    assert {h.chunk.path for h in Ranker(z_gap=10.0, cosine_gap=1.0).rank(found, 5)} == {"best.md", "ko-only.md"}


def test_a_hub_loses_its_lead_but_a_chunk_farther_than_average_from_the_corpus_gains_nothing():
    """Centring subtracts how much closer than its language's average a chunk sits to the corpus centroid;
    only hubs move (a chunk far from everything is not promoted for being odd)."""
    background = {"en": Background(0.70, 0.02, 100, hub=0.75)}
    found = candidates([("hub", "en", 0.80), ("specific", "en", 0.78), ("odd", "en", 0.74)], background=background)
    found.chunks["hub"] = replace(found.chunks["hub"], hub=0.85)  # 0.10 closer to everything than average
    found.chunks["specific"] = replace(found.chunks["specific"], hub=0.74)
    found.chunks["odd"] = replace(found.chunks["odd"], hub=0.50)
    assert [h.chunk.path for h in Ranker(hub_weight=0.0, z_gap=10).rank(found, 3)] == ["hub.md", "specific.md", "odd.md"]
    hits = Ranker(z_gap=10).rank(found, 3)
    assert [h.chunk.path for h in hits] == ["specific.md", "odd.md", "hub.md"]
    assert hits[1].relevance == pytest.approx((0.74 - 0.70) / 0.02)  # the odd chunk's z is its raw one
    assert hits[0].cosine == 0.78  # hits keep their raw cosine (the answer's thresholds read it)


def test_an_unknown_hub_term_leaves_the_cosine_alone():
    background = {"en": Background(0.70, 0.02, 100, hub=0.75)}
    found = candidates([("a", "en", 0.80)], background=background)
    assert Ranker().rank(found, 1)[0].relevance == pytest.approx((0.80 - 0.70) / 0.02)


@pytest.mark.parametrize("status", ["repealed", "superseded", "archived", "draft"])
def test_a_document_no_longer_in_force_loses_to_the_current_one(status):
    found = candidates([("old", "ko", 0.845), ("new", "ko", 0.84)])
    found.chunks["old"] = replace(found.chunks["old"], chunk=replace(found.chunks["old"].chunk,
                                                                     meta=Metadata(status=status)))
    assert Ranker(stale_penalty=0.0).rank(found, 2)[0].chunk.path == "old.md"
    assert Ranker().rank(found, 2)[0].chunk.path == "new.md"


def test_a_repealed_document_still_leads_when_it_is_clearly_what_was_asked():
    """The penalty is bounded: a question whose best match by far is the old version still finds it."""
    found = candidates([("old", "ko", 0.90), ("new", "ko", 0.82)])
    found.chunks["old"] = replace(found.chunks["old"], chunk=replace(found.chunks["old"].chunk,
                                                                     meta=Metadata(status="repealed")))
    assert Ranker().rank(found, 2)[0].chunk.path == "old.md"


def test_a_hub_term_within_a_spread_of_its_mean_is_no_hub():
    """Ordinary chunks scatter around their language's mean hub term; moving them only reshuffles
    near-ties, so the discount starts `hub_margin` spreads above the mean."""
    background = {"en": Background(0.70, 0.02, 100, hub=0.75, hub_spread=0.01)}
    found = candidates([("a", "en", 0.80), ("b", "en", 0.79)], background=background)
    found.chunks["a"] = replace(found.chunks["a"], hub=0.758)  # 0.8 spreads above the mean: ordinary
    found.chunks["b"] = replace(found.chunks["b"], hub=0.75)
    assert [h.chunk.path for h in Ranker().rank(found, 2)] == ["a.md", "b.md"]
    found.chunks["a"] = replace(found.chunks["a"], hub=0.78)  # 3 spreads above: 0.02 of it is discounted
    assert [h.chunk.path for h in Ranker().rank(found, 2)] == ["b.md", "a.md"]


def test_a_chunk_written_in_both_languages_is_judged_on_the_mean_of_its_two_z_scores():
    """A bilingual rate-card row against a Korean question: its cosine (0.82) is ordinary among Korean chunks
    (z 1.0) but far above the English ones (z 6.0). Taking the better z put it over an English policy that
    answers the question (z 4.0); the mean (3.5) no longer does."""
    found = candidates([("policy-en", "en", 0.78), ("korean-near", "ko", 0.82)])
    bilingual = Candidate(Chunk("rate-card.xlsx", 0, "rate card", "", "row"), "/src", ("ko", "en"), 0.82)
    found.chunks["rate-card"] = bilingual
    ranked = [h.chunk.path for h in Ranker().rank(found, 3)]
    assert ranked[0] == "policy-en.md"
    assert "rate-card.xlsx" in ranked  # second, not dropped


@pytest.mark.parametrize("question, earlier", [
    ("what was it in the old 2022 policy?", True),
    ("and the old taxi cap per ride?", True),
    ("how did you request remote days back then?", True),
    ("예전 규정에서는 택시비 얼마였어?", True),
    ("개정 전에는 며칠이었어?", True),
    ("야근 식대 얼마야?", False),
    ("what do I do with my old laptop?", False),  # an old thing, not an old rule
    ("이전 답변 다시 보여줘", False),
    # "예전에" alone narrates the asker's own past; the rule asked about is today's unless asked in the past tense
    ("예전에 노트북 지원금 받았는데 또 받을 수 있어?", False),
    ("예전에 쓰던 비밀번호로 바꿔도 돼?", False),
    ("예전에 야근 식대 한도가 얼마였어?", True),
    ("예전에는 며칠 전에 신청했어?", True),
])
def test_a_question_about_an_earlier_version_of_a_rule_is_told_apart(question, earlier):
    from rag.understand.earlier import asks_for_an_earlier_version

    assert asks_for_an_earlier_version(question) is earlier
