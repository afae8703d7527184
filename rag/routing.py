"""Intent routing: decide before searching whether a message needs documents at all.

Routes, the router port, and the rules for obvious cases (greetings, "지금 ... 상태",
"...해줘"), which are precise enough to trust over a classifier. The classifier for
everything else lives in `rag.intent`. A router only chooses a path; it never answers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

INTENTS = ("chitchat", "knowledge_search", "realtime_lookup", "action")
AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class Route:
    """The chosen path with the router's confidence and what it picked out of the message."""

    intent: str
    confidence: float
    entities: list[str] = field(default_factory=list)
    reason: str = ""


class Router(Protocol):
    """Classifies a message (original plus its standalone rewrite)."""

    def route(self, original: str, rewritten: str) -> Route:
        """The route; the caller maps confidence under its threshold to AMBIGUOUS."""
        ...


def _rx(*parts: str) -> re.Pattern:
    return re.compile("|".join(parts), re.IGNORECASE)


_CHITCHAT = _rx(
    r"^\s*((ok(ay)?|cool|great|nice|awesome|got it)[\s,!.]*)?(hi|hello|hey|yo|thanks?|thank you|thx|ty|cheers|bye|"
    r"good (morning|night|evening)|ok(ay)?|cool|great|nice|awesome|got it|lol|haha|how are you|who are you|"
    r"what can you do)\b[\s!.?~]*$",
    r"^\s*(ㅎㅎ|ㅋㅋ|ㅠㅠ)*\s*(안녕|반가|고마워|고맙|감사(합니다|해요|해|드려요)?\s*[!.~]*\s*$|ㅎㅎ|ㅋㅋ|ㅠ|잘 ?자|수고|좋아|알겠|오케이|넵|"
    r"네\s*$|응\s*$|굿|너는 누구|뭐 할 수 있)",
)
# Mutation verbs as requests ("...해줘", "please delete", "can you restart"); "how do I delete" is a question.
_ACTION = _rx(
    r"(삭제|복구|생성|재시작|재색인|색인|재인덱스|인덱싱|배포|추가|변경|수정|등록|취소|승인|발송|실행|초기화|롤백|신청|예약|만들|지우|바꾸|보내|올리|"
    r"잡아|켜|꺼|열어|잠가)"
    r"\w*\s*(해\s*줘|해\s*주세요|해\s*줄래|해\s*주실래요|해\s*주시겠어요|하자|해라|해|줘|주세요|줄래)\s*[.!?]*\s*$",
    r"^\s*(please\s+|can you\s+|could you\s+|would you\s+|go ahead and\s+)?"
    r"(delete|remove|restore|create|restart|reboot|deploy|re-?index|add|update|change|send|approve|revoke|"
    r"cancel|run|trigger|reset|rollback|roll back|open|close|grant|disable|enable|schedule|book|turn (on|off))\b",
)
_HOW_TO = _rx(r"\b(how (do|can|should|to)|what happens|when|why|policy|rule|process|procedure)\b", r"(방법|어떻게|절차|정책|규정|언제|왜|누가|누구|몇|얼마|가능해|되나요|돼\?)")
_REALTIME = _rx(
    r"\b(right now|currently|at the moment|live|status of|is .{1,40} (down|up|online|working)|uptime|"
    r"who is on[- ]call (now|today)|how many .{1,40} (now|today|online)|current (status|price|load|queue))\b",
    r"(지금|현재|실시간|방금).{0,20}(상태|몇|누구|얼마|살아|떠|다운|장애|온라인|접속|돌아|동작|작동|대기)",
    r"(상태|장애).{0,6}(어때|어떄|확인해|괜찮)",
)


# Asking to be told something is a document question, however imperative it sounds ("요약해줘").
_INFO_REQUEST = _rx(
    r"(요약|설명|정리|알려|가르쳐|보여|찾아|비교)\w*\s*(해\s*줘|해\s*주세요|해\s*줄래|줘|주세요|줄래|봐)",
    r"^\s*(please\s+|can you\s+|could you\s+)?(summari[sz]e|explain|tell me|show me|describe|compare|find|look up)\b",
)


def rule_route(original: str) -> Route | None:
    """The route when a pattern is unmistakable, else None (the classifier decides)."""
    text = original.strip()
    if not text:
        return Route("chitchat", 1.0, reason="empty")
    if _CHITCHAT.search(text):
        return Route("chitchat", 0.92, reason="small-talk pattern")
    if _REALTIME.search(text):
        return Route("realtime_lookup", 0.9, reason="live-state pattern")
    if _ACTION.search(text) and not _HOW_TO.search(text):
        return Route("action", 0.9, reason="mutation request pattern")
    if _INFO_REQUEST.search(text):
        return Route("knowledge_search", 0.9, reason="information request pattern")
    return None


class RuleRouter:
    """Rules only, a document question otherwise; for tests and as the classifier's fallback."""

    def route(self, original: str, rewritten: str) -> Route:
        """The rule route or knowledge_search."""
        return rule_route(original) or Route("knowledge_search", 0.8, reason="default")
