"""Loanwords across scripts: "롤백" is "rollback", "엔터프라이즈" is "Enterprise", "부산" is "Busan".

Korean company documents and questions are full of English words written in Hangul (플랜, 업데이트,
셔틀, 대시보드) and of Korean place names written in Latin letters. No dictionary lists them (the Basic
Korean Dictionary has neither 롤백 nor 플랜), yet they are the words that tie a Korean question to an
English document. Both spellings are reduced to a consonant skeleton over sound classes (b/p/f/v, d/t,
g/k/c, s/z/j/ch/sh, l/r, m, n): vowels are dropped (Hangul adds ㅡ where English has none), an English r
before a consonant or at the end is dropped (non-rhotic: "server" 서버, "enterprise" 엔터프라이즈), and
repeats collapse ("rollback" and 롤백 are both L-P-K). Two words match when one of their skeletons is
equal and at least `MIN_CONSONANTS` long: "plan" 플랜 matches, "rate" 라이트 (two consonants) never does.

Only words the caller has in hand are compared (the question's words against the read passages' words),
so a skeleton collision needs both words to be present; Korean words the dictionary knows are native
words or established ones it already translates, and are not treated as loanwords.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import groupby

MIN_CONSONANTS = 3
MAX_VARIANTS = 8  # skeletons kept per English word (each ambiguous letter doubles them)

# Hangul initial consonants (19) and finals (28, index 0: none) as sound classes; '' is silent.
_INITIALS = ("K", "K", "N", "T", "T", "L", "M", "P", "P", "S", "S", "", "S", "S", "S", "K", "T", "P", "")
_FINALS = ("", "K", "K", "K", "N", "N", "N", "T", "L", "LK", "LM", "LP", "LS", "LT", "LP", "L", "M", "P", "PS",
           "T", "T", "NK", "T", "T", "K", "T", "P", "T")
_ENGLISH = {"b": "P", "p": "P", "f": "P", "v": "P", "d": "T", "t": "T", "k": "K", "q": "K", "g": "K",
            "s": "S", "z": "S", "j": "S", "l": "L", "r": "L", "m": "M", "n": "N", "x": "KS", "c": "K"}
_DIGRAPHS = (("tion", "SN"), ("sion", "SN"), ("tch", "S"), ("sch", "S"), ("sh", "S"), ("ch", "S"), ("ph", "P"), ("th", "T"), ("ck", "K"),
             ("gh", ""), ("ng", "NK"))
_VOWELS = set("aeiouyw")
_LATIN_WORD = re.compile(r"[a-z]{3,}")


@lru_cache(maxsize=65536)
def korean_skeleton(word: str) -> str:
    """The consonant skeleton of a Hangul word ('' when it holds anything else)."""
    out = []
    for ch in word:
        code = ord(ch) - 0xAC00
        if not 0 <= code < 11172:
            return ""
        out.append(_INITIALS[code // 588] + _FINALS[code % 28])
    return _collapse("".join(out))


@lru_cache(maxsize=65536)
def english_skeletons(word: str) -> frozenset[str]:
    """The consonant skeletons a lower-case English word may be written with in Hangul: a c or g before
    e/i/y may be soft ("service" 서비스, "manager" 매니저) or hard ("login" 로그인), so both are kept."""
    variants = [""]
    i, word = 0, word.lower()
    while i < len(word):
        digraph = next(((d, s) for d, s in _DIGRAPHS if word.startswith(d, i)), None)
        if digraph:
            variants = [v + digraph[1] for v in variants]
            i += len(digraph[0])
            continue
        ch, after = word[i], word[i + 1:i + 2]
        if ch == "r" and (not after or (after not in _VOWELS and after != "r")):
            sounds = [""]  # non-rhotic: the r of "server", "port", "enterprise" is not written in Hangul
        elif ch in "cg" and after and after in "eiy":
            sounds = ["S", "K"]
        elif ch in _ENGLISH:
            sounds = [_ENGLISH[ch]]
        else:
            sounds = [""]  # vowels, h, w, y
        variants = [v + s for v in variants for s in sounds][:MAX_VARIANTS]
        i += 1
    return frozenset(_collapse(v) for v in variants)


def latin_words(text: str) -> list[str]:
    """The lower-case Latin words of a text that `matches` compares (three letters or more)."""
    return _LATIN_WORD.findall(text.lower())


def _collapse(skeleton: str) -> str:
    return "".join(sound for sound, _ in groupby(skeleton))


def matches(korean: Iterable[str], english: Iterable[str]) -> list[tuple[str, str]]:
    """(Korean word, English word) pairs that are one word in two scripts, each Korean word's first match
    per English word; skeletons shorter than `MIN_CONSONANTS` never match."""
    by_skeleton: dict[str, list[str]] = {}
    for word in dict.fromkeys(w.lower() for w in english):
        if _LATIN_WORD.fullmatch(word):
            # Hangul writes the singular: "plans" is 플랜.
            plural = word.endswith("s") and not word.endswith("ss") and len(word) > 4
            for skeleton in english_skeletons(word) | (english_skeletons(word[:-1]) if plural else frozenset()):
                if len(skeleton) >= MIN_CONSONANTS:
                    by_skeleton.setdefault(skeleton, []).append(word)
    out: list[tuple[str, str]] = []
    for word in dict.fromkeys(korean):
        skeleton = korean_skeleton(word)
        if len(skeleton) >= MIN_CONSONANTS:
            out.extend((word, match) for match in by_skeleton.get(skeleton, ()))
    return out



# Revised Romanization of Korean (the official one, used for place and company names: 이천 Icheon, 부산 Busan,
# 판교 Pangyo). Sound changes across syllables beyond a final consonant carried onto a silent initial are left
# out: a name either matches exactly or not at all.
_RR_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_RR_VOWELS = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi",
              "yu", "eu", "ui", "i")
# Each final as said at the end of a syllable, and as carried onto a following silent ㅇ ("신안" sinan).
_RR_FINALS = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "p", "l", "l", "p", "l", "m", "p", "p", "t", "t",
              "ng", "t", "t", "k", "t", "p", "t")
_RR_CARRIED = ("", "g", "kk", "gs", "n", "nj", "nh", "d", "r", "lg", "lm", "lb", "ls", "lt", "lp", "lh", "m", "b",
               "bs", "s", "ss", "ng", "j", "ch", "k", "t", "p", "h")


@lru_cache(maxsize=65536)
def romanize(word: str) -> str:
    """A Hangul word in Revised Romanization, lower case ('' when it holds anything else)."""
    codes = [ord(ch) - 0xAC00 for ch in word]
    if not codes or not all(0 <= c < 11172 for c in codes):
        return ""
    out = []
    for i, code in enumerate(codes):
        initial, vowel, final = code // 588, (code % 588) // 28, code % 28
        out.append(_RR_INITIALS[initial] + _RR_VOWELS[vowel])
        following = codes[i + 1] // 588 if i + 1 < len(codes) else None
        carried = following == 11 and final not in (0, 21)  # onto the next syllable's silent initial
        out.append(_RR_CARRIED[final] if carried else _RR_FINALS[final])
    return "".join(out).replace("lr", "ll")  # ㄹㄹ is "ll" (울릉 Ulleung)


# The finals of place and family names (none, ㄱ ㄴ ㄹ ㅁ ㅂ ㅇ): a spelling is searched among these only.
_NAME_FINALS = (0, 1, 4, 8, 16, 17, 21)
MAX_SPELLINGS = 6
MAX_NAME_SYLLABLES = 5


@lru_cache(maxsize=4096)
def spellings(word: str) -> tuple[str, ...]:
    """Hangul words whose Revised Romanization is `word` ("gimpo": 김포; "pangyo": 판교 and 팡요), at most
    `MAX_SPELLINGS`: the way back from an English question's Korean place name to the Korean document's.
    Romanization loses information, so several spellings come back and the caller keeps those its corpus
    uses; each is checked by romanizing it again. Bounded search over at most five syllables of a word of
    at most sixteen letters."""
    word = word.lower()
    if not 4 <= len(word) <= 16 or not word.isascii() or not word.isalpha():
        return ()
    out: list[str] = []

    def walk(at: int, syllables: list[str]) -> None:
        if len(out) >= MAX_SPELLINGS:
            return
        if at == len(word):
            candidate = "".join(syllables)
            if romanize(candidate) == word and candidate not in out:
                out.append(candidate)
            return
        if len(syllables) == MAX_NAME_SYLLABLES:
            return
        for initial, initial_rr in enumerate(_RR_INITIALS):
            if not word.startswith(initial_rr, at):
                continue
            after_initial = at + len(initial_rr)
            for vowel, vowel_rr in enumerate(_RR_VOWELS):
                if not word.startswith(vowel_rr, after_initial):
                    continue
                after_vowel = after_initial + len(vowel_rr)
                for final in _NAME_FINALS:
                    if word.startswith(_RR_FINALS[final], after_vowel):
                        code = 0xAC00 + initial * 588 + vowel * 28 + final
                        walk(after_vowel + len(_RR_FINALS[final]), [*syllables, chr(code)])

    walk(0, [])
    return tuple(out)


def named(korean: Iterable[str], english: Iterable[str]) -> list[tuple[str, str]]:
    """(Korean word, English word) pairs where the English is the Korean's romanization ("이천", "icheon"):
    names, which no dictionary lists and whose skeletons are often too short for `matches`."""
    latin = {w.lower() for w in english}
    pairs = ((word, romanize(word)) for word in dict.fromkeys(korean))
    return [(word, latin_word) for word, latin_word in pairs if len(latin_word) >= 4 and latin_word in latin]
