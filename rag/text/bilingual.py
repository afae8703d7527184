"""Dictionary translation of a query's topic words, so keywords can match a document in the other language.

e5's cross-language similarity is much weaker than its same-language similarity: an English question put
an unrelated English table above the Korean procedure that answers it, and BM25 only ever matched words
of the question's own language. Cross-language retrieval without a translation model is classically done
with a bilingual dictionary (query translation): each Korean topic noun is looked up and its English
senses join the keyword query; each English word or two-word term ("sick leave", "meeting room") is
looked up the other way. The dictionary is the National Institute of Korean Language's Basic Korean
Dictionary (한국어기초사전, krdict.korean.go.kr, CC BY-SA 2.0 KR; 45,886 headwords with English
equivalents) as the `namehint` package ships it: nothing is downloaded at run time.

The learner's dictionary knows everyday Korean, not the workplace's: it has no "재택근무" (remote work),
"관리자" (administrator) or "일비" (per diem), and "허브" is a herb. A hand-written glossary of about 1,200
workplace terms (rag/text/data/glossary.tsv, written independently of the evaluation sets) goes first: its
senses lead a word's senses, its headwords lead an English word's headwords, its English phrases are looked
up as written ("per diem", "work from home"), and its Korean terms are found at the start of a word even
where Kiwi splits them by context ("출장 일비", "온콜").

Only keywords are translated: the query vector is the user's own text, and the answer still reads the
user's own words. Senses are noisy ("경비": cost; expense; guard; security); a sense the corpus never
uses costs nothing (BM25's IDF), and only a few senses and headwords are kept per word.
"""
from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Iterator
from functools import lru_cache
from importlib import resources

import snowballstemmer

from . import english as english_words
from .analysis import ENGLISH_FUNCTION_WORDS, ENGLISH_STOPWORDS, Analyzer
from .loanwords import romanize, spellings

# Senses kept per Korean word, in the dictionary's order: a word with many senses is ambiguous.
MAX_SENSES = 3
# Korean headwords kept per English term, the most specific first (fewest senses of their own).
MAX_HEADWORDS = 8
# Translated words added to one query at most: a 1,000-character paste would add hundreds of BM25 terms (each a
# postings lookup), and a question's topic is in its first words (no eval question needs more than 51).
MAX_WORDS = 64
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_CAPITALISED = re.compile(r"(?<![A-Za-z])[A-Z][a-z]{3,15}(?![A-Za-z])")  # "Gimpo", not "SolTrack" or "VPN"
_ENGLISH_WORD = re.compile(r"[a-z]+")  # "what's" is "what" and "s": both dropped, never looked up
_SENSE = re.compile(r"[a-z][a-z -]*")
# Sense words that name no topic ("being annual", "the order of age").
# Each query word the dictionary knows, with its other-language keywords (`Bilingual.senses`).
Senses = list[tuple[str, tuple[str, ...]]]
_NOT_TOPICS = ENGLISH_STOPWORDS | ENGLISH_FUNCTION_WORDS | {"being", "something", "someone", "thing"}
_LOCK = threading.Lock()
STEM = "~"  # prefix of the English table's stemmed keys, beside the exact ones

Tables = tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]


def tables() -> Tables:
    """(Korean noun -> English senses, English sense -> Korean nouns), built once per process. The English side
    holds each sense as written and, under `STEM`, by its words' Snowball stems ("approve" finds "approval");
    a query word is looked up both ways ("executives" as written is 임원; its stem also brings "execute"'s
    senses, noise that BM25's IDF mostly ignores)."""
    with _LOCK:
        return _build()


def glossary() -> dict[str, list[str]]:
    """The workplace glossary (rag/text/data/glossary.tsv): Korean term -> English equivalents, most usual first."""
    text = resources.files("rag.text.data").joinpath("glossary.tsv").read_text(encoding="utf-8")
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            word, senses = line.split("\t")
            out[word.strip()] = [s.strip() for s in senses.split(";") if s.strip()]
    return out


@lru_cache(maxsize=1)
def _build() -> Tables:
    raw = json.loads(resources.files("namehint").joinpath("dictionary.json").read_text(encoding="utf-8"))
    workplace = glossary()
    # The workplace sense first: "관리자" is an administrator before anything the general dictionary says.
    korean: dict[str, list[str]] = {word: list(senses) for word, senses in workplace.items()}
    for entry in raw.values():
        word, meaning = entry.get("word", ""), entry.get("meaning", "")
        # Nouns only: verbs and adjectives (…다) and endings (-ㄴ) translate a question's grammar, not its topic;
        # and of two syllables or more: "도", "한", "객" are fragments of other words to the keyword index.
        if not _HANGUL.search(word) or word.endswith("다") or word.startswith("-") or " " in word or len(word) < 2:
            continue
        senses = korean.setdefault(word, [])
        for sense in (s.strip().lower() for s in meaning.split(";")):
            if _SENSE.fullmatch(sense) and sense not in senses:
                senses.append(sense)
    stemmer = snowballstemmer.stemmer("english")  # the analyzer's algorithm, without filling its word cache
    exact: dict[str, list[str]] = {}
    stemmed: dict[str, list[str]] = {}
    for word, senses in korean.items():
        for sense in senses:
            for table, key in ((exact, sense), (stemmed, STEM + " ".join(stemmer.stemWords(sense.split())))):
                bucket = table.setdefault(key, [])
                if word not in bucket:
                    bucket.append(word)
    english = {**exact, **stemmed}
    # The most specific headword first: "parking" is all 주차 means, one of many things 세우다 does.
    ranked = {key: tuple(sorted(words, key=lambda w: (w not in workplace, len(korean[w])))[:MAX_HEADWORDS])
              for key, words in english.items()}
    # The lemma and spelling tables an unlisted English word is looked up in load with the dictionary: one load
    # (in `Runtime.warm_up`), not a second one on the first question with such a word.
    english_words.warm_up()
    return {w: tuple(s) for w, s in korean.items() if s}, ranked


class Bilingual:
    """Other-language keywords for a query: Korean topic nouns to English senses, English words to Korean."""

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer

    def expand(self, text: str) -> str:
        """The query's other-language keywords, space-separated ('' when none are known)."""
        return " ".join(self.words(text))

    def words(self, text: str) -> list[str]:
        """The query's other-language keywords, each once, in order."""
        return keywords(self.senses(text))

    def senses(self, text: str) -> Senses:
        """Each of the query's words the dictionary knows, with its other-language keywords: (word, tokens)."""
        korean, english = tables()
        out: Senses = []
        for word in self._korean_nouns(text, korean):
            tokens = (t for sense in korean[word][:MAX_SENSES] for t in sense.split() if t not in _NOT_TOPICS)
            out.append((word, with_other_spellings(tokens)))
        for term, keys in self._english_terms(text.lower(), english):
            # ... and an English word's other spelling: the index holds "hospitalisation" as written.
            spelt = [other for w in term.split() if (other := english_words.other_spelling(w))]
            out.append((term, tuple(dict.fromkeys([*(h for key in keys for h in english[key]), *spelt]))))
        said = {word for word, _ in out}
        out.extend((name, hangul) for name, hangul in self._korean_names(text, english) if name not in said)
        # A Korean name is written in Revised Romanization in English documents (이천 Icheon, 판교 Pangyo); no
        # dictionary lists it, and the one sense the dictionary may have is another word ("이천": two thousand).
        for name in self._names(text):
            known = next((i for i, (word, _) in enumerate(out) if word == name), None)
            if known is None:
                out.append((name, (romanize(name),)))
            else:
                out[known] = (name, (romanize(name), *out[known][1]))
        return [(word, tokens) for word, tokens in out if tokens]

    def _names(self, text: str) -> list[str]:
        if not _HANGUL.search(text):
            return []
        return [w for w in dict.fromkeys(self.analyzer.proper_nouns(text)) if len(romanize(w)) >= 4]

    def _korean_names(self, text: str, english: dict[str, tuple[str, ...]]) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Korean place names an English question writes in Revised Romanization ("Gimpo", "Pangyo"), in Hangul:
        the spellings that romanize to the word and that Kiwi knows as a proper noun (김포, 판교; not 팡요).
        A capitalised word the dictionary knows as English is English."""
        for word in dict.fromkeys(_CAPITALISED.findall(text)):
            lower = word.lower()
            if lower in _NOT_TOPICS or _keys(english, lower, self.analyzer.stem(lower)):
                continue
            found = tuple(s for s in spellings(lower) if self.analyzer.proper_nouns(s) == [s])
            if found:
                yield lower, found

    def telling_words(self, word: str) -> list[str]:
        """A word's other-language keywords for telling whether a line says it: a Korean word's one-word senses, and
        of each phrase sense only its least common word ("sick" of "sick leave" and "sick day" for 병가: "day" and
        "leave" alone are said by every line about days or leave). An English word's are its `words`."""
        korean, _ = tables()
        if word not in korean:
            return self.words(word)
        counts = _sense_word_counts()
        out: list[str] = []
        for sense in korean[word][:MAX_SENSES]:
            tokens = [t for t in sense.split() if t not in _NOT_TOPICS]
            if tokens:
                out.append(min(tokens, key=lambda t: counts.get(t, 0)) if len(tokens) > 1 else tokens[0])
        return list(with_other_spellings(out))

    def phrases(self, text: str) -> list[str]:
        """The English terms of two or three words the dictionary or glossary knows, as the text writes them ("per
        diem", "meeting rooms"): one thing asked about, whose words alone mean something else ("diem", "room")."""
        return [term for term, _ in self._english_terms(text.lower(), tables()[1]) if " " in term]

    @staticmethod
    def glossary_terms(text: str) -> list[str]:
        """The workplace glossary's Korean terms the text says ("온콜", which Kiwi splits into 온 and 콜)."""
        return _glossary_words(text) if _HANGUL.search(text) else []

    def _korean_nouns(self, text: str, korean: dict[str, tuple[str, ...]]) -> list[str]:
        if not _HANGUL.search(text):
            return []
        nouns = [w for w in self.analyzer.topic_words(text) if _HANGUL.search(w)]
        # A compound Kiwi split ("재택 근무") is looked up whole too: its sense is not its parts' senses.
        joined = [a + b for a, b in zip(nouns, nouns[1:]) if a + b in korean]
        return list(dict.fromkeys(w for w in joined + _glossary_words(text) + nouns if w in korean))

    def _english_terms(self, text: str, english: dict[str, tuple[str, ...]]) -> Iterator[tuple[str, list[str]]]:
        """Dictionary senses in the text, as (term, keys of the English table): two-word terms first ("sick
        leave"), then single words; each as written, else singular, else by stem."""
        words = _ENGLISH_WORD.findall(text)
        if not words:
            return
        stems = [self.analyzer.stem(w) for w in words]
        content = [w not in _NOT_TOPICS and len(w) >= 3 for w in words]
        used: set[int] = set()
        for i in range(len(words) - 1):  # "work from home", "per diem": the glossary's own phrases, as written
            for size in (3, 2):
                phrase = " ".join(words[i:i + size])
                if i + size <= len(words) and any(content[i:i + size]) and phrase in glossary_phrases() \
                        and not used & set(range(i, i + size)):
                    used.update(range(i, i + size))
                    yield phrase, [phrase]
        for i in range(len(words) - 1):
            if content[i] and content[i + 1] and not used & {i, i + 1}:
                keys = _keys(english, f"{words[i]} {words[i + 1]}", f"{stems[i]} {stems[i + 1]}")
                if keys:
                    used.update((i, i + 1))
                    yield f"{words[i]} {words[i + 1]}", keys
        for i, word in enumerate(words):
            if i not in used and content[i] and (keys := _keys(english, word, stems[i]) or self._keys_of_forms(english, word)):
                yield word, keys

    def _keys_of_forms(self, english: dict[str, tuple[str, ...]], word: str) -> list[str]:
        """The keys of a word the dictionary does not list as written: its other spelling or its lemma ("paid": pay,
        "hospitalisation": hospitalization)."""
        for form in english_words.forms(word):
            if keys := _keys(english, form, self.analyzer.stem(form)):
                return keys
        return []


@lru_cache(maxsize=1)
@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    with _LOCK:  # a Snowball stemmer keeps state between calls
        return _STEMMER.stemWord(word)


_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=1)
def glossary_phrases() -> frozenset[str]:
    """The glossary's English phrases of two or three words (looked up as written, function words and all)."""
    return frozenset(sense for senses in glossary().values() for sense in senses if " " in sense)


@lru_cache(maxsize=1)
def _sense_word_counts() -> dict[str, int]:
    """How many Korean headwords have a sense with each English word (among their first `MAX_SENSES`)."""
    counts: dict[str, int] = {}
    for senses in tables()[0].values():
        for token in {t for sense in senses[:MAX_SENSES] for t in sense.split()}:
            counts[token] = counts.get(token, 0) + 1
    return counts


def with_other_spellings(tokens: Iterable[str]) -> tuple[str, ...]:
    """English sense words, each followed by its other spelling ("hospitalization", "hospitalisation"): the
    dictionary is American, a Singapore or London handbook is not."""
    out: list[str] = []
    for token in tokens:
        out.append(token)
        if other := english_words.other_spelling(token):
            out.append(other)
    return tuple(dict.fromkeys(out))


def glossary_headwords() -> frozenset[str]:
    """The glossary's Korean terms."""
    return _glossary_keys()[0]


@lru_cache(maxsize=1)
def _glossary_keys() -> tuple[frozenset[str], int]:
    words = frozenset(glossary())
    return words, max(map(len, words))


def _glossary_words(text: str) -> list[str]:
    """Glossary terms that open a word of the text, longest first ("일비는" is 일비; "재택근무를" is 재택근무):
    Kiwi splits a compound it does not know by context ("출장 일비" lost 일비). A bounded prefix look-up per
    word: linear in the text."""
    words, longest = _glossary_keys()
    found = []
    tokens = text.split()
    for i, token in enumerate(tokens):
        # A one-syllable word written apart from the next ("설 연휴", "키 발급"): the compound whole (설연휴), when it
        # reaches at least two syllables into the next word ("이 사람" is not 이사).
        if len(token) == 1 and _HANGUL.match(token) and i + 1 < len(tokens):
            joined = token + tokens[i + 1]
            size = next((n for n in range(min(longest, len(joined)), 2, -1) if joined[:n] in words), 0)
            if size:
                found.append(joined[:size])
        for size in range(min(longest, len(token)), 1, -1):
            if token[:size] in words:
                found.append(token[:size])
                break
    return found


def _keys(english: dict[str, tuple[str, ...]], phrase: str, stemmed: str) -> list[str]:
    """The English table's keys for a phrase: as written or its singular ("hours"), and by its stems."""
    written = next((k for k in (phrase, phrase[:-1] if phrase.endswith("s") else "") if k and k in english), None)
    return [k for k in (written, STEM + stemmed) if k and k in english]


def keywords(senses: Senses) -> list[str]:
    """The other-language keywords of `senses`, each once, in order, at most MAX_WORDS."""
    return list(dict.fromkeys(token for _, tokens in senses for token in tokens))[:MAX_WORDS]


def concepts_said(text: str, senses: Senses) -> int:
    """How many of a query's words (`Bilingual.senses`) `text` says, as written or translated: a Korean word
    as a substring (particles attach to it), an English one by its stem ("expiry" is said by "expires")."""
    lowered = text.lower()
    latin = {_stem(word) for word in set(_ENGLISH_WORD.findall(lowered))}

    def says(token: str) -> bool:
        if _HANGUL.search(token):
            return token in lowered
        return all(_stem(part) in latin for part in token.split())

    return sum(1 for word, tokens in senses if says(word) or any(says(t) for t in tokens))
