"""English words as a dictionary knows them: the lemma of an inflected form and the other side's spelling.

The bilingual dictionary (rag.text.bilingual) is keyed by American dictionary forms, and a Snowball stem
does not reach either of two things people write every day:
- irregular forms: "when is it *paid* out?" stems to "paid", and no sense of 지급 (pay) says "paid";
- British spelling: the Singapore handbook's "Hospitalisation leave" stems to "hospitalis", the dictionary's
  "hospitalization" (입원) to "hospit", so "입원하면?" never said a word of the row that answers it, and an
  American-spelled question never shared a keyword with it.

Both are solved problems with data of their own: LemmInflect's lemma tables (irregular and regular forms,
by part of speech) and breame's British/American spelling pairs. Loaded with the bilingual dictionary (about
0.3 s of CPU, in `Runtime.warm_up`); every look-up is a dictionary access, so any text can be looked up.
"""
from __future__ import annotations

import threading
from functools import lru_cache

_LOCK = threading.Lock()
# The parts of speech whose lemma names a topic word's dictionary form ("paid" -> pay, "leaves" -> leave).
_TOPIC_POS = ("VERB", "NOUN", "ADJ")


@lru_cache(maxsize=65_536)
def lemmas(word: str) -> tuple[str, ...]:
    """The dictionary forms of a lower-case English word other than itself, verbs first ("paid": pay; "left":
    leave; "hours": hour); () when it is one already or unknown."""
    found = _lemmas_of(word)
    return tuple(dict.fromkeys(lemma.lower() for pos in _TOPIC_POS for lemma in found.get(pos, ())
                               if lemma.lower() != word))


@lru_cache(maxsize=65_536)
def other_spelling(word: str) -> str | None:
    """The same lower-case word in the other side's spelling ("hospitalisation" <-> "hospitalization", "colour"
    <-> "color", "travelling" <-> "traveling"), or None when it is spelt alike."""
    american, british = _spellings()
    other = american.get(word) or british.get(word)
    return other if other and other != word else None


def forms(word: str) -> tuple[str, ...]:
    """A word's other ways of being looked up, most direct first: its other spelling, then the lemmas of the
    word and of that spelling ("organised": organized, organise, organize)."""
    other = other_spelling(word)
    out = [other] if other else []
    for written in (word, *out):
        for lemma in lemmas(written):
            out.extend(w for w in (lemma, other_spelling(lemma)) if w)
    return tuple(dict.fromkeys(w for w in out if w != word))


def warm_up() -> None:
    """Load both tables (the first look-up would otherwise pay for it)."""
    lemmas("paid")
    other_spelling("colour")


def _lemmas_of(word: str) -> dict[str, tuple[str, ...]]:
    import lemminflect  # lazily: its tables load on the first call

    with _LOCK:  # the first call fills lemminflect's tables
        return lemminflect.getAllLemmas(word)


@lru_cache(maxsize=1)
def _spellings() -> tuple[dict[str, str], dict[str, str]]:
    """(British -> American, American -> British) spelling pairs."""
    from breame.data.spelling_constants import AMERICAN_ENGLISH_SPELLINGS, BRITISH_ENGLISH_SPELLINGS

    return dict(BRITISH_ENGLISH_SPELLINGS), dict(AMERICAN_ENGLISH_SPELLINGS)
