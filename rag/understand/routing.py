"""Intent routing: decide before searching whether a message needs documents at all.

Routes, the router port, and the rules for obvious cases (greetings, "지금 ... 상태",
"...해줘"), which are precise enough to trust over a classifier. The classifier for
everything else lives in `rag.understand.intent`. A router only chooses a path; it never answers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol


class Intent(StrEnum):
    """What a message asks for. A str, so it is stored, logged and compared as its plain value."""

    CHITCHAT = "chitchat"
    KNOWLEDGE_SEARCH = "knowledge_search"
    REALTIME_LOOKUP = "realtime_lookup"
    ACTION = "action"
    AMBIGUOUS = "ambiguous"  # the router is unsure and acting is plausible: ask, never act
    # Not routed at all: the turn ended before routing (sender over the rate limit; preparing failed).
    RATE_LIMITED = "rate_limited"
    ERROR = "error"


INTENTS = (Intent.CHITCHAT, Intent.KNOWLEDGE_SEARCH, Intent.REALTIME_LOOKUP, Intent.ACTION)  # what routers choose
AMBIGUOUS = Intent.AMBIGUOUS


@dataclass(frozen=True)
class Route:
    """The chosen path with the router's confidence and what it picked out of the message."""

    intent: Intent
    confidence: float
    entities: list[str] = field(default_factory=list)
    reason: str = ""
    scores: dict[str, float] = field(default_factory=dict)  # the classifier's probability of each intent


# Below the threshold docbot asks only when acting is a plausible reading: "plausible" = the
# action intent holds at least this share of the classifier's probability.
RISKY_SHARE = 0.25


def when_unsure(route: Route, threshold: float) -> Route:
    """The safe path for a low-confidence route: ask when it might act, otherwise search.

    A clarifying question costs the user a round trip, so it is kept for when a wrong guess
    could change something. An unsure call between documents, small talk and live state
    searches: the classifier leans to "live state" on any "how many / when" question, live
    questions with a time marker ("지금", "right now") are caught by rules before it, and
    documents answer most of the rest; a needless search costs nothing but a few passages.
    """
    if route.confidence >= threshold:
        return route
    if route.intent == "action" or route.scores.get("action", 0.0) >= RISKY_SHARE:
        return Route(AMBIGUOUS, route.confidence, route.entities, f"below {threshold}: {route.reason}", route.scores)
    return Route(Intent.KNOWLEDGE_SEARCH, route.confidence, route.entities,
                 f"below {threshold}, no action in sight: searched ({route.reason})", route.scores)


class Router(Protocol):
    """Classifies a message (original plus its standalone rewrite)."""

    def route(self, original: str, rewritten: str) -> Route:
        """The route; the caller applies `when_unsure` under its threshold."""
        ...


def _rx(*parts: str) -> re.Pattern:
    return re.compile("|".join(parts), re.IGNORECASE)


_CHITCHAT = _rx(
    r"^\s*+((ok(ay)?|cool|great|nice|awesome|got it)[\s,!.]*+)?(hi|hello|hey|yo|thanks?|thank you|thx|ty|cheers|bye|"
    r"good (morning|night|evening)|ok(ay)?|cool|great|nice|awesome|got it|lol|haha|how are you|who are you|"
    r"what can you do)\b[\s!.?~]*+$",
    r"^\s*+(ㅎㅎ|ㅋㅋ|ㅠㅠ)*+\s*+(안녕|반가|고마워|고맙|감사(합니다|해요|해|드려요)?\s*+[!.~]*+\s*+$|ㅎㅎ|ㅋㅋ|ㅠ|잘 ?자|수고|좋아|알겠|"
    r"오케이|넵|네\s*+$|응\s*+$|굿|너는 누구|뭐 할 수 있)",
)
# Mutation verbs as requests addressed to docbot ("...해줘", "please delete", "can you restart").
# Questions about doing something are document questions: "how do I delete", "롤백해야 해?"
# (obligation), "예약해?" (a bare verb asked with a question mark), "can you remove a partition
# from a kafka topic?" (a capability question about a thing in general, not a request).
_ACTION = _rx(
    r"(삭제|복구|생성|재시작|재색인|색인|재인덱스|인덱싱|배포|추가|변경|수정|등록|취소|승인|발송|실행|초기화|롤백|신청|예약|만들|지우|바꾸|보내|올리|"
    r"잡아|켜|꺼|열어|잠가)"
    r"(?!\w{0,12}야)\w{0,12}\s{0,3}(해\s*줘|해\s*주세요|해\s*줄래|해\s*주실래요|해\s*주시겠어요|하자|해라|해(?!\s*\?)|줘|"
    r"주세요|줄래)\s*+[.!?]*+\s*+$",
    r"^\s*(please\s+|can you\s+|could you\s+|would you\s+|go ahead and\s+)?"
    r"(delete|remove|restore|create|restart|reboot|deploy|re-?index|add|update|change|send|approve|revoke|"
    r"cancel|run|trigger|reset|rollback|roll back|open|close|grant|disable|enable|schedule|book|turn (on|off))\b",
)
_HOW_TO = _rx(r"\b(how (do|can|should|to)|what happens|when|why|policy|rule|process|procedure)\b",
              r"^\s*(can|could) (you|i|we) \w+ (a|an|any) \w[^?]*\?\s*$",
              r"(방법|어떻게|절차|정책|규정|언제|왜|누가|누구|몇|얼마|어디|가능해|되나요|돼\?)")
# The user asking what *they* (or the team) should or may do is a document question, however
# mutation-like its verb: "do I need approval to restart the gateway?", "should we roll back if...?",
# "휴가는 며칠 전에 신청해야 해?". ("can you ...?" is addressed to docbot: not here.)
_SELF_QUESTION = _rx(
    r"^\s*(do|does|did|should|must|can|could|may|am|are|is it (ok|okay|allowed)( for (me|us))? to)\s+"
    r"(i|we|me|us|they|employees|engineers|people)?\b[^?]*\?\s*$",
    r"(해야|돼야|하면 안|해도|하나요|합니까|되나요|인가요)\s*(해|돼|되나|하나|할까|되지|하지|돼요|해요|하나요|되나요|나요|요|까)?\s*\?\s*$",
)
# A reaction that thanks or agrees, with no question in it, is small talk whatever topic words it
# carries ("ok thanks, the hotel limit makes sense now").
_REACTION = _rx(
    r"^(?!.*\b(what|which|who|where|how|when|why|tell|show)\b)\s*(ok(ay)?|great|nice|cool|perfect|awesome|thanks|"
    r"thank you|thx|got it|makes sense|that helps|that's (exactly )?what i needed)\b[^?]*$",
    r"^(?!.*(뭐|무엇|어디|언제|누가|누구|어떻게|몇|얼마|알려|보여))\s*(알겠|좋아|좋네|오케이|넵|네 ?알|감사|고마워|고맙|이해했)[^?]*$",
)
_REALTIME = _rx(
    r"\b(right now|currently|at the moment|live|status of|"
    r"is [^?]{1,40} (down|(?<!backed )(?<!set )(?<!signed )(?<!picked )(?<!looked )(?<!held )up|online|working)\b|uptime|"
    r"who is on[- ]call (now|today)|how many .{1,40} (now|today|online)|current (status|price|load|queue))\b",
    r"(지금|현재|실시간|방금).{0,20}(상태|몇|누구|얼마|살아|떠|다운|장애|온라인|접속|돌아|동작|작동|대기)",
    r"(상태|장애).{0,6}(어때|어떄|확인해|괜찮)",
)


# Asking to be told something is a document question, however imperative it sounds ("요약해줘").
_INFO_REQUEST = _rx(
    r"(요약|설명|정리|알려|가르쳐|보여|찾아|비교)\w{0,12}\s{0,3}(해\s*줘|해\s*주세요|해\s*줄래|줘|주세요|줄래|봐)",
    r"^\s*(please\s+|can you\s+|could you\s+)?(summari[sz]e|explain|tell me|show me|describe|compare|find|look up)\b",
)


# A message that reads as a question: a question mark, an English question word or auxiliary first,
# or a Korean question ending. Possessive quantifiers and bounded spans only: linear on any input.
_QUESTION = _rx(
    r"\?\s*+$",
    r"^\s*+(what|which|who|whom|whose|where|when|why|how|is|are|was|were|does|do|did|should|must|may)\b",
    r"(뭐|무엇|어디|언제|누가|누구|어떻게|몇|얼마|왜|나요|니|냐|까|어때|인가요|인가)\s*+$",
)


def reads_as_question(text: str) -> bool:
    """Whether a message is put as a question (not as a request to do something)."""
    return bool(_QUESTION.search(text[:2000]))


def reconcile(model: Route, offline: Route, original: str, threshold: float) -> Route:
    """One route from the model's classification (the rewrite call's) and the offline router's.

    The model sees the history but can be wrong with confidence, and a wrong "action" sends a
    question to "No action I can run matches". So: a message that reads as a question keeps
    the offline router's confident knowledge route, and an action needs both to agree (when they
    do not, the offline router's confident route stands, else docbot asks rather than acts).
    """
    if model.intent == offline.intent:
        return model
    confident = offline.confidence >= threshold
    if offline.intent == Intent.KNOWLEDGE_SEARCH and confident and reads_as_question(original):
        return Route(offline.intent, offline.confidence, offline.entities or model.entities,
                     f"{offline.reason}; a question, not {model.intent} (llm)", offline.scores)
    if model.intent != Intent.ACTION:
        return model
    if confident:
        return Route(offline.intent, offline.confidence, offline.entities or model.entities,
                     f"{offline.reason}; llm said action alone", offline.scores)
    scores = {**offline.scores, Intent.ACTION.value: max(model.confidence, RISKY_SHARE)}
    return Route(AMBIGUOUS, min(model.confidence, offline.confidence), model.entities,
                 f"llm said action, {offline.reason} said {offline.intent}: asked", scores)


def rule_route(original: str) -> Route | None:
    """The route when a pattern is unmistakable, else None (the classifier decides)."""
    text = original.strip()
    if not text:
        return Route(Intent.CHITCHAT, 1.0, reason="empty")
    if _CHITCHAT.search(text):
        return Route(Intent.CHITCHAT, 0.92, reason="small-talk pattern")
    if _REACTION.search(text) and not _INFO_REQUEST.search(text):
        return Route(Intent.CHITCHAT, 0.85, reason="reaction pattern")
    if _REALTIME.search(text):
        return Route(Intent.REALTIME_LOOKUP, 0.9, reason="live-state pattern")
    if _SELF_QUESTION.search(text) and not text.lower().lstrip().startswith(("can you", "could you")):
        return Route(Intent.KNOWLEDGE_SEARCH, 0.85, reason="question about what to do")
    if _ACTION.search(text) and not _HOW_TO.search(text):
        return Route(Intent.ACTION, 0.9, reason="mutation request pattern")
    if _INFO_REQUEST.search(text):
        return Route(Intent.KNOWLEDGE_SEARCH, 0.9, reason="information request pattern")
    return None
