"""Text analysis for BM25 and query expansion: Kiwi morphemes for Korean, Snowball stems for English.

Korean glues particles onto nouns (프로젝트를, 프로젝트는); a whitespace tokenizer would
make each form a different term, so every text the keyword index sees goes through Kiwi.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

import snowballstemmer

# Content-bearing Kiwi tags: nouns, roots, verb/adjective stems, foreign words, numbers, hanja.
_TERM_TAGS = {"NNG", "NNP", "NR", "XR", "VV", "VA", "SL", "SN", "SH"}
# Tags that name things, used when a follow-up borrows the topic of earlier turns.
_TOPIC_TAGS = {"NNG", "NNP", "SL", "SH"}

ENGLISH_STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in
    into is it its me my no not of on or our so that the their them then there these they this
    those to us was we were what when where which who why will with would you your about should
    please tell show give get let know want need summarize summary document documents doc docs
    one ones any some more most also just than best good better many much often long big fast quickly
    early late new old way work""".split()
)
# English function words Kiwi tags SL like any other Latin word; they never name a topic.
ENGLISH_FUNCTION_WORDS = frozenset(
    """after before during until till within without over under above below per each every all only still
    now today yesterday tomorrow ago again else even ever here there up down out off into onto upon via
    happen happens happened go goes going get gets got make makes made take takes say says said see
    like such same other another both either neither whether while though although because since unless
    okay ok yes yeah thanks thank doesn don isn aren wasn weren didn won wouldn shouldn couldn""".split()
)
# Words that say what to do with a document rather than what it is about.
KOREAN_STOPWORDS = frozenset(
    """문서 요약 내용 설명 정리 관련 질문 대답 답변 부분 경우 정도 하 되 있 없 알 주 보 그 이 저 것 거
    수 때 등 좀 뭐 어떻 무엇 여기 거기 말 해 알리 알려주 궁금""".split()
)
STEM_CACHE = 200_000  # English words whose stems an Analyzer remembers
# Hard cap on characters analysed per text: a 100k-character paste must not stall a turn.
MAX_ANALYSED_CHARS = 20_000


_KIWI_LOCK = threading.Lock()


class Morpheme(NamedTuple):
    """One analysed piece of a text: its form, Kiwi's tag and where it stands."""

    form: str
    tag: str
    start: int
    end: int


def whole_latin_words(tokens) -> list[Morpheme]:
    """Kiwi's tokens with every Latin word whole and without its full stop. Kiwi cuts a sentence's last word
    with the stop in it ("header." into "h" and "eader.", "equipment." into "equi" and "pment."), or keeps the
    stop ("new.", "429."): the keyword index then never held the last word of an English sentence as itself.
    Adjacent Latin pieces with no gap between them are joined, and a trailing stop is dropped."""
    out: list[Morpheme] = []
    for token in tokens:
        piece = Morpheme(token.form, token.tag, token.start, token.start + token.len)
        if out and piece.tag == "SL" and out[-1].tag == "SL" and out[-1].end == piece.start:
            joined = out.pop()
            piece = Morpheme(joined.form + piece.form, "SL", joined.start, piece.end)
        out.append(piece)
    return [m._replace(form=m.form.rstrip(".")) if m.tag in ("SL", "SN") and len(m.form) > 1 and m.form.endswith(".")
            else m for m in out]


@lru_cache(maxsize=1)
def _load_kiwi(workers: int):
    import warnings

    from kiwipiepy import Kiwi  # imported lazily: loading the model takes ~1 s and ~300 MB

    with warnings.catch_warnings():  # kiwipiepy warns that 0 stopped meaning "every core" in 0.21
        warnings.simplefilter("ignore", DeprecationWarning)
        return Kiwi(num_workers=workers)


def _kiwi(workers: int = 0):
    """The process's one Kiwi, loaded by whichever thread needs it first (others wait, none loads twice).

    `workers=0` analyses on the calling thread (docbot.threads): Kiwi's default pool of every core
    took a query's analysis from 0.7 ms to 22 ms p95 under contention."""
    with _KIWI_LOCK:
        return _load_kiwi(workers)


class Analyzer:
    """Turns Korean and English text into index terms (for BM25) and topic words (for rewrites).

    Kiwi loads at the first analysis, not here: commands that only open the index (`docbot status`)
    never pay for it, and the chat loads it behind its prompt (`Runtime.warm_up`).
    """

    def __init__(self, workers: int = 0) -> None:
        self._workers = workers  # Kiwi's own threads; 0: the calling thread (docbot.threads)
        self._stemmers = threading.local()  # a snowball stemmer keeps state per call: one per thread
        # Stems remembered. `snowballstemmer.stemmer` is Snowball's C build (PyStemmer, a dependency) when
        # installed, ~2 µs a new word, else the same algorithm in pure Python (~20-30 µs; identical stems,
        # tests/test_analysis.py), which a fresh process paid for every new word of its first queries.
        self._stems: dict[str, str] = {}
        self._lock = threading.Lock()

    def stem(self, word: str) -> str:
        """The Snowball stem of one lower-case English word, as the keyword index stores it (remembered)."""
        stem = self._stems.get(word)
        if stem is not None:
            return stem
        stemmer = getattr(self._stemmers, "english", None)
        if stemmer is None:
            stemmer = self._stemmers.english = snowballstemmer.stemmer("english")
        stem = stemmer.stemWord(word)
        if len(self._stems) < STEM_CACHE:  # bounded: a corpus's vocabulary, not every typo ever seen
            self._stems[word] = stem
        return stem

    def _tokens(self, texts: list[str]) -> list[list[Morpheme]]:
        clipped = [t[:MAX_ANALYSED_CHARS] for t in texts]
        kiwi = _kiwi(self._workers)
        with self._lock:
            if not self._workers:  # Kiwi takes a list of texts only with a pool of its own
                analysed = [kiwi.tokenize(t) for t in clipped]
            else:
                analysed = list(kiwi.tokenize(clipped))
        return [whole_latin_words(tokens) for tokens in analysed]

    def _term(self, form: str, tag: str) -> str | None:
        if tag == "SL":
            word = form.lower()
            return None if word in ENGLISH_STOPWORDS else self.stem(word)
        if tag in ("VV", "VA") and form in KOREAN_STOPWORDS:
            return None
        return form.lower()

    def terms(self, text: str) -> list[str]:
        """Index terms of one text, in order, repeats kept (BM25 counts them)."""
        return self.terms_many([text])[0]

    def terms_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Index terms of many texts (with a Kiwi pool, one call for all of them)."""
        texts = list(texts)
        if not texts:
            return []
        out = []
        for tokens in self._tokens(texts):
            terms = (self._term(t.form, t.tag) for t in tokens if t.tag in _TERM_TAGS)
            out.append([t for t in terms if t])
        return out

    def topic_words(self, text: str) -> list[str]:
        """Distinct nouns and foreign words in order of appearance: what a turn is about."""
        seen: dict[str, None] = {}
        for tok in self._tokens([text])[0]:
            if tok.tag not in _TOPIC_TAGS:
                continue
            word = tok.form.lower()
            if word in KOREAN_STOPWORDS or word in ENGLISH_STOPWORDS or word in ENGLISH_FUNCTION_WORDS \
                    or len(word) < 2:
                continue
            seen.setdefault(tok.form, None)
        return list(seen)

    def morphemes(self, text: str) -> list:
        """Kiwi tokens (form, tag, start, end) of one text, for callers that need the tags."""
        return self._tokens([text])[0]

    def names(self, text: str) -> dict[str, float]:
        """Names in running text with a salience score: Korean proper nouns and capitalised English words
        (PostgreSQL, Atlas, Orion), the things a later "it" can point at. Each mention counts; a
        capital that only opens a sentence counts less, an inner capital or digit (MySQL) more.
        English words are read whole from the text (Kiwi may split "PostgreSQL." into pieces)."""
        scores: dict[str, float] = {}
        for match in _LATIN_NAME.finditer(text[:MAX_ANALYSED_CHARS]):
            word = match.group()
            if len(word) < 3 or word.lower() in ENGLISH_STOPWORDS or word.lower() in ENGLISH_FUNCTION_WORDS:
                continue
            weight = 0.5 if _starts_sentence(text, match.start()) else 1.0
            if any(c.isupper() or c.isdigit() for c in word[1:]):
                weight += 1.0
            scores[word] = scores.get(word, 0.0) + weight
        for tok in self._tokens([text])[0]:
            if tok.tag == "NNP" and len(tok.form) >= 2:
                scores[tok.form] = scores.get(tok.form, 0.0) + 1.0
        return scores

    def proper_nouns(self, text: str) -> list[str]:
        """Korean proper nouns (NNP) and numbers (SN): the entities a rewrite must not invent."""
        return [t.form for t in self._tokens([text])[0] if t.tag in ("NNP", "SN")]

    def anaphoric(self, text: str) -> bool:
        """True when the text points back at something said before (그거, 그럼, it, that one...)."""
        lowered = f" {text.lower()} "
        if any(f" {w} " in lowered or f" {w}?" in lowered for w in _ENGLISH_ANAPHORA):
            return True
        tokens = self._tokens([text])[0]
        return any(t.tag in ("NP", "MM", "MAJ") and t.form in _KOREAN_ANAPHORA for t in tokens)


_ENGLISH_ANAPHORA = (
    "it", "its", "it's", "that", "this", "those", "these", "they", "them", "their", "one",
    "ones", "there", "then", "same", "above", "former", "latter", "else", "too", "also",
)
_KOREAN_ANAPHORA = {
    "그거", "그것", "이거", "이것", "저거", "저것", "그", "이", "저", "거기", "여기", "그럼", "그러면",
    "그런데", "그리고", "그래서", "그게", "걔", "그쪽", "이쪽", "그때", "그곳",
}


_LATIN_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")


def _starts_sentence(text: str, start: int) -> bool:
    """Whether a word at `start` opens a sentence, line or bullet (its capital says nothing then)."""
    before = text[:start].rstrip(" \t\"'(•*-")
    return not before or before[-1] in ".!?:\n]"
