"""The one ranker: turns a backend's candidates into the hits a turn cites.

Why not reciprocal-rank fusion of BM25 and raw cosines: e5's cosines run systematically
higher between texts of the same language, and BM25 only ever matches same-language text,
so in a mixed Korean/English corpus both lists push a document written in the other
language out of the top 5 (cross-language recall@5 0.35 on the dev set). Instead:

1. each candidate's cosine becomes a z-score against its own language's chunks (the query's
   mean and spread over that language); a chunk written in both languages takes the mean of its two
   (its better one made every bilingual table a hub for the other language's questions: e5 puts a Korean
   question close to any chunk with Korean in it, which is far above the English chunks' mean);
2. BM25 adds a bounded bonus (its score over the best BM25 score, times `keyword_weight`),
   enough to order same-language near-ties, too little to bury a clear cross-language match;
   the query's keywords translated by the dictionary are a BM25 list of their own
   (`Candidates.translated`), whose bonus is `translation_weight` times its score over *that* list's
   best: e5's cosines between a question and a passage in the other language are weak and close
   together (a Korean shift procedure was the eighth hit for an English question about one hub's
   night shift hours, behind five English pages that say the hub's name), while the
   translated words (야간, 교대, 시간, 부산) find it first. Measured against the old single list:
   docs/figures.md, "Translated keywords";
3. documents the previous answer cited get `prior_weight` for a follow-up that leans on it;
4. hubs are discounted: each cosine is first centred, minus `hub_weight` times how much closer the chunk
   sits to the corpus centroid than its language's chunks on average, beyond one standard deviation
   (`Candidate.hub`, computed at index time). A glossary or a bilingual rate card is close to every query, and in the other language it
   outranks the specific document (centring similarity: Suzuki et al. 2013, "Centering similarity
   measures to reduce hubs"; CSLS's neighbourhood term, with the whole corpus as the neighbourhood);
5. a document that says it is no longer in force (status repealed, superseded or archived; a draft half as
   much) loses `stale_penalty`, so the current version outranks it; a question that asks what an earlier
   version said ("what was it in the old 2021 handbook?", "예전 규정에서는?", `rag.understand.earlier`) gains
   it instead: there the old page is the answer and the current one a near miss with another figure;
6. the floor: a hit stays when its z is within `z_gap` of the best z and its cosine within
   `cosine_gap` of the best cosine *of its language*; BM25's own top hits and the previous
   answer's documents stay regardless (codes and names live in BM25; the thread is about those).

Measured in `docbot eval` (README, docs/retrieval.md); the weights were chosen on the dev sets only.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from rag.documents import Hit
from rag.index.port import ALL_LANGUAGES, Background, Candidate, Candidates

# Fewer chunks than this in a language and its mean and spread say little; the whole index is used.
MIN_BACKGROUND = 8
# How much each document status costs, as a share of `stale_penalty`: no longer in force, or not yet approved.
STALE_STATUSES = {"repealed": 1.0, "superseded": 1.0, "archived": 1.0, "draft": 0.5}


@dataclass(frozen=True)
class Ranker:
    """Language-normalised hybrid ranking with a relative floor; one instance serves every backend."""

    keyword_weight: float = 0.25
    translation_weight: float = 1.5
    keyword_top: int = 5
    prior_weight: float = 0.5
    hub_weight: float = 1.0
    hub_margin: float = 1.0  # hub terms within this many standard deviations above their mean are not hubs
    stale_penalty: float = 1.0
    z_gap: float = 2.5
    cosine_gap: float = 0.08
    min_std: float = 0.01  # a language of near-identical chunks must not blow every z-score up

    def rank(self, found: Candidates, k: int, prior: Iterable[str] = (), earlier: bool = False) -> list[Hit]:
        """The top `k` hits above the floor, best first; `earlier`: the question asks what an earlier version of a
        rule said, so a document no longer in force gains what it would lose."""
        if not found.chunks:
            return []
        stale_sign = 1.0 if earlier else -1.0  # asked about the old version, the old version is the answer
        z = {key: self._z(c, found)[0] for key, c in found.chunks.items()}
        # What a hit reports as its relevance is the uncentred z: the answer's evidence bar (rag.answer.evidence)
        # was calibrated on it, and centring only decides the order here.
        standardised = {key: self._z(c, found, centre=False) for key, c in found.chunks.items()}
        bonus = self._keyword_bonus(found.keyword, self.keyword_weight)
        translation = self._keyword_bonus(found.translated, self.translation_weight)
        preferred = set(prior)
        score = {key: z[key] + bonus.get(key, 0.0) + translation.get(key, 0.0)
                 + (self.prior_weight if c.chunk.path in preferred else 0.0)
                 + stale_sign * self.stale_penalty * STALE_STATUSES.get(c.chunk.meta.status, 0.0)
                 for key, c in found.chunks.items()}
        kept = self._above_floor(found, z, preferred)
        ranked = sorted(kept, key=lambda key: -score[key])[:k]
        keyword_top = {key for key, _ in found.keyword[: self.keyword_top]}
        return [self._hit(found.chunks[key], score[key], standardised[key], key in keyword_top,
                          translation.get(key, 0.0)) for key in ranked]

    def _z(self, candidate: Candidate, found: Candidates, centre: bool = True) -> tuple[float, float, int]:
        """(z-score, the spread it divided by, the population behind it) against the candidate's own
        language (the mean of both z-scores if it is written in two, with the better one's spread)."""
        scores = [self._standardise(candidate, found.background.get(language), MIN_BACKGROUND, centre)
                  for language in candidate.languages]
        known = [s for s in scores if s is not None]
        if len(known) > 1:  # written in both languages: the mean of its two z-scores, not the better one
            z = sum(k[0] for k in known) / len(known)
            best = max(known)
            return z, best[1], best[2]
        if known:
            return max(known)
        # A language with too few chunks for statistics of its own is judged against the whole index.
        overall = self._standardise(candidate, found.background.get(ALL_LANGUAGES), 2, centre)
        return overall if overall is not None else (candidate.cosine / self.min_std, self.min_std, 1)

    def centred(self, candidate: Candidate, background: Background | None) -> float:
        """The cosine minus the chunk's hub term beyond its population's average plus `hub_margin` spreads
        (unchanged when unknown). An ordinary chunk's term sits within a spread of the mean, and moving it
        only reshuffled near-ties; the z-score keeps the raw cosines' spread: only a few hubs move."""
        if candidate.hub is None or background is None:
            return candidate.cosine
        excess = candidate.hub - background.hub - self.hub_margin * background.hub_spread
        return candidate.cosine - self.hub_weight * max(excess, 0.0)

    def _standardise(self, candidate: Candidate, background: Background | None, minimum: int,
                     centre: bool = True) -> tuple[float, float, int] | None:
        if background is None or background.count < minimum:
            return None
        spread = max(background.std, self.min_std)
        cosine = self.centred(candidate, background) if centre else candidate.cosine
        return (cosine - background.mean) / spread, spread, background.count

    @staticmethod
    def _keyword_bonus(keyword: list[tuple[Hashable, float]], weight: float) -> dict[Hashable, float]:
        """`weight` times each BM25 score over the list's best."""
        best = max((score for _, score in keyword), default=0.0)
        if best <= 0 or not math.isfinite(best):
            return {}
        return {key: weight * score / best for key, score in keyword if score > 0}

    def _above_floor(self, found: Candidates, z: dict[Hashable, float], preferred: set[str]) -> list[Hashable]:
        best_z = max(z.values())
        # Cosines compared within a language are the centred ones, as the z-scores are.
        cosine = {(key, lang): self.centred(c, found.background.get(lang)) for key, c in found.chunks.items()
                  for lang in c.languages}
        best_cosine: dict[str, float] = {}
        for (_key, language), value in cosine.items():
            best_cosine[language] = max(best_cosine.get(language, -1.0), value)
        keyword_top = {key for key, _ in found.keyword[: self.keyword_top]}
        kept = []
        for key, c in found.chunks.items():
            near_best = z[key] >= best_z - self.z_gap
            near_language_best = any(cosine[key, lang] >= best_cosine[lang] - self.cosine_gap for lang in c.languages)
            # The thread is talking about the preferred documents: their passages are never floored away.
            if key in keyword_top or c.chunk.path in preferred or (near_best and near_language_best):
                kept.append(key)
        return kept

    @staticmethod
    def _hit(candidate: Candidate, score: float, z: tuple[float, float, int], keyword: bool,
             translation: float) -> Hit:
        return Hit(candidate.chunk, score, candidate.cosine, keyword, source=candidate.source, relevance=z[0],
                   spread=z[1], population=z[2], translation=translation)
