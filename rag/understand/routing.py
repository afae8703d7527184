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


# --- Clauses: the chatty words a message opens with, split from what it asks -----------------------------
#
# People put thanks, agreement or a reaction in front of what they want ("ok thanks, now restart the
# billing service", "오케이 그럼 티켓 닫아줘", "ㅇㅋ 감사"). The rules read what is left after those
# opening words; a message that is nothing but such words is small talk. Matching is per token (split on
# white space), so no pattern here ever sees more than one word.

# Single English words that open a message without asking anything: acknowledgements, thanks, greetings,
# reactions, discourse markers ("so", "then", "also"), the bot's name.
_CHATTER_WORDS = frozenset("""
ok okay k kk okey alright cool great nice awesome perfect sure yes yeah yep yup fine right understood noted nope nah
thanks thank thx ty tysm cheers appreciated hi hello hey yo morning evening bye goodbye
wow whoa yikes oops ugh ouch damn omg oh ah aha ahh hmm hmmm huh meh lol lmao haha hahaha hehe interesting
funny weird neat lovely amazing brilliant wonderful excellent super sweet gotcha
phew yay woohoo sheesh geez jeez argh welp mm mmm okie
mate buddy dude pal folks guys everyone
so then also and but btw anyway well um uh docbot bot sorry nvm nevermind np
""".split())
# Two-word openers ("thank you", "got it", "sounds good").
_CHATTER_PAIRS = frozenset({
    ("thank", "you"), ("thanks", "again"), ("a", "lot"), ("got", "it"), ("i", "see"),
    ("sounds", "good"), ("all", "right"), ("no", "worries"), ("no", "problem"), ("good", "morning"),
    ("good", "evening"), ("good", "night"), ("makes", "sense"), ("appreciate", "it"), ("oh", "no"),
    ("great", "stuff"), ("thank", "u"), ("that", "helps"), ("nice", "one"), ("fair", "enough"),
    ("many", "thanks"), ("much", "appreciated"), ("so", "much"), ("a", "ton"), ("a", "bunch"), ("a", "million"),
    ("oh", "man"), ("oh", "boy"), ("oh", "dear"), ("oh", "well"), ("my", "bad"), ("hello", "there"), ("hi", "there"),
    ("hey", "there"), ("cool", "beans"), ("okie", "dokie"), ("sure", "thing"),
    ("never", "mind"), ("wrong", "channel"), ("wrong", "thread"), ("wrong", "chat"), ("wrong", "room"),
    ("found", "it"), ("ignore", "that"), ("ignore", "me"),
})
# Interjections: an opening that reacts ("ugh, traffic", "lol classic", "헐 역대급"), where "ok" would agree.
_INTERJECTIONS = frozenset("""
wow whoa yikes oops ugh ouch damn omg oh ah aha ahh hmm hmmm huh meh lol lmao haha hahaha hehe phew yay woohoo
sheesh geez jeez argh welp 헐 대박 아이고 에휴 헉 앗 어머 와 우와 오 아 흠 음
""".split())
# Korean openers: a stem with the endings it takes ("고마워요", "감사합니다", "알겠습니다", "좋네요", "그럼").
_KO_CHATTER = re.compile(
    r"^(?:고마워|고맙|감사|땡큐|알겠|알았|오케이|오키|좋아|좋네|좋다|좋습니|좋군|넵|네|넹|예|응|웅|그래|그럼|그러면|그렇구나|"
    r"그렇군|그렇네|아하|오호라|오호|오|와|우와|아|헐|대박|흠|음|아이고|에휴|헉|앗|어머|확인했|이해했|수고|반가|안녕|굿|나이스|"
    r"근데|그런데|그리고|혹시|참|아무튼|암튼)"
    r"(?:요|해|해요|합니다|했어|했어요|했습니다|드려요|드립니다|드림|습니다|어|어요|았어|았어요|겠어|겠어요|겠습니다|"
    r"네요|네|다|군요|구나|요|니다|하세요|하셨어요|했다|워|워요|면|데|고)?"
)
_JAMO_OR_SYMBOLS = re.compile(r"^(?:[ㄱ-ㅎㅏ-ㅣ]++|[^\w\s]++|[ㄱ-ㅎㅏ-ㅣ^~;:)(]++)")
_PUNCT = ",.!~;:…·-"
_TOKEN = re.compile(r"\S++")
# Patterns used only with match / fullmatch start with "^" too: a search over a long text then fails at once
# at every later position instead of trying a hundred words there.
MAX_RULE_CHARS = 2000  # rules read at most this much of a message (the pipeline clips longer ones anyway)


def _chatty(word: str) -> bool:
    word = word.strip(_PUNCT).lower()
    if not word:
        return True  # punctuation or an emoji stands between the openers
    return (word in _CHATTER_WORDS or bool(_KO_CHATTER.fullmatch(word))
            or bool(_JAMO_OR_SYMBOLS.fullmatch(word)) or bool(_KO_CHATTER_LAUGH.fullmatch(word)))


_KO_CHATTER_LAUGH = re.compile(r"^(?:[ㅋㅎㅠㅜ]|ㅇㅋ|ㅇㅇ|ㄳ|ㄱㅅ|ㄱㄱ)++")


def split_chatter(text: str) -> tuple[str, str]:
    """(the chatty opening words, the rest): "오케이 그럼 티켓 닫아줘" -> ("오케이 그럼", "티켓 닫아줘")."""
    text = text.strip()[:MAX_RULE_CHARS]
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    i, end = 0, 0
    while i < len(tokens):
        word = tokens[i][2]
        if word.rstrip(_PUNCT).endswith("?"):
            break  # "ok?" asks something: it is the rest
        if i + 1 < len(tokens) and not word.rstrip().endswith(tuple(_PUNCT)):
            pair = (word.lower(), tokens[i + 1][2].strip(_PUNCT).lower())
            if pair in _CHATTER_PAIRS and not tokens[i + 1][2].rstrip(_PUNCT).endswith("?"):
                end, i = tokens[i + 1][1], i + 2
                continue
        if not _chatty(word):
            break
        end, i = tokens[i][1], i + 1
    return text[:end].strip(), text[end:].strip()


# Words that only join a message to the conversation ("so", "그럼"): the classifier may read them, they pull
# it nowhere (and the message's own vector is then the one the search embeds anyway).
_CONNECTIVES = frozenset("so then and also but btw anyway well um uh 그럼 그러면 근데 그런데 그리고 혹시 참 아무튼 암튼".split())


def what_it_asks(text: str) -> str:
    """The message without its small-talk opening ("ok thanks, ..."), for the classifier; the message itself
    when it opens with nothing or only with connectives."""
    chatter, rest = split_chatter(text)
    words = [w.strip(_PUNCT).lower() for w in chatter.split()]
    if not rest or all(not w or w in _CONNECTIVES for w in words):
        return text
    return rest


# --- What a message asks for ------------------------------------------------------------------------------

# Korean requests end a clause with 줘 / 주세요 / 부탁해 ... (also "...해 주실 수 있나요?"). The verb right before
# the ending says what is asked: to be told something (information) or to change something (an action).
_KO_REQUEST = _rx(
    r"(?:줘|줘요|주세요|주십시오|주실래요|주시겠어요|주시겠습니까|줄래|줄래요|주라|주면 좋겠어|"
    r"부탁해|부탁해요|부탁드려요|부탁드립니다|부탁합니다|부탁|주시면 (?:감사|고맙|좋)\w{0,8}|주면 (?:고맙|감사|좋)\w{0,6}|"
    r"주실\s?수\s?있(?:나요|을까요|어요|습니까)|줄\s?수\s?있(?:어요|어|나요|나|니|을까요|을까))[\Wㅎㅋㅠㅜ]*+$",  # then only punctuation, emoji, ㅎㅎ
)
# ... or followed by an afterthought of two words at most, no question in it ("캐시 좀 비워줘 운영 말고").
_KO_REQUEST_TAIL = re.compile(r"(?:줘|줘요|주세요|부탁해|부탁해요)(?=\s++[^\s?]++(?:\s++[^\s?]++)?[\Wㅎㅋㅠㅜ]*+$)")
# A question word before a 해줘 that ends in "?" asks about a service's rule ("며칠 보관해줘?", "얼마까지 지원해줘?",
# "신규 고객한테는 무슨 혜택 줄 수 있어?"); so does the company as its subject ("여행자 보험은 회사에서 들어줘?": does the
# company take it out for me, a benefit).
_KO_QUESTION_WORD = re.compile(r"며칠|몇|얼마|언제|어디|누가|누구|왜|무슨|어떤|어느|무엇|뭘|뭐|(?:회사|팀|지사|본사)(?:에서|가|는)\s")
_KO_FILLER = re.compile(r"^(?:좀|좀만|해|해서|다시|빨리|한번|한 번|바로|지금|얼른|꼭|제발|싹|다|하나|같이)")
_KO_INFO_VERB = _rx(r"(?:알려|설명|요약|정리|가르쳐|보여|찾아|비교|번역|말해|확인|체크|검색|추천|계산|읽어|링크)")
# "...해야 해?" (obligation), "신청해도 돼?" (permission): questions about doing, not requests.
_KO_OBLIGATION = _rx(r"(?:해야|돼야|되야|하면 안|해도|하나요|합니까|되나요|인가요)")
# Bare imperatives and "let's" forms of mutation verbs ("삭제해", "롤백하자"), as before.
_KO_MUTATION = (r"(삭제|복구|생성|재시작|재색인|색인|재인덱스|인덱싱|배포|추가|변경|수정|등록|취소|승인|발송|실행|초기화|롤백|신청|"
                r"예약|만들|지우|지워|바꾸|바꿔|보내|올리|잡아|켜|꺼|열어|잠가|처리|진행|정지|해지|차단|잠금|풀어|넣어|빼|막아|닫아|올려|내려)")
# "삭제해", "롤백하자", "그냥 지워버려", "올려놔", "계정 생성 ㄱㄱ"
_KO_ACTION = _rx(_KO_MUTATION + r"(?!\w{0,12}야)\w{0,12}\s{0,3}(하자|해라|해(?!\s*\?)|시켜|버려|버리자|놔|둬|ㄱㄱ+|고고)"
                 r"\s*+[.!]*+\s*+$")
_KO_MUTATION_STEM = re.compile(_KO_MUTATION)
_EN_REQUEST_OPENER = re.compile(
    r"^(?:(?:please|pls|plz|kindly|now|then|just|also|so|and|(?:can|could|would|will) (?:you|u)|go ahead and|"
    r"i (?:want|need) you to|i'd like you to|(?:(?:would|do) (?:you|u) )?mind)\s++)++", re.IGNORECASE)
_EN_POLITE = re.compile(r"\b(?:please|pls|plz|kindly|(?:can|could|would|will) (?:you|u)|go ahead and|"
                        r"i (?:want|need) you to|i'd like you to|mind)\b", re.IGNORECASE)
_GERUND = re.compile(r"^([a-z]{2,}?)(\w)?ing\b", re.IGNORECASE)
_EN_INFO_VERB = re.compile(
    r"^(?:tell|show|explain|summari[sz]e|describe|compare|find|look|search|check|give|list|translate|define|"
    r"walk|remind me (?:what|how|who|where|when|which|why|of)|help|point|recommend|suggest|calculate|confirm|"
    r"verify|send me|share with me)\b", re.IGNORECASE)
_EN_TELL = re.compile(r"^(?:tell me|show me|explain|summari[sz]e|describe|compare|find|look up|list|give me)\b",
                      re.IGNORECASE)
_EN_QUESTION_WORD = re.compile(r"^(?:what|which|who|whom|whose|where|when|why|how|is|are|was|were|"
                               r"do(?! (?:it|that|this|them|so)\b)|does|did|"
                               r"should|must|may|might|am)\b", re.IGNORECASE)
_FOR_ME = re.compile(r"\bfor (?:me|us)\b\W*+$", re.IGNORECASE)
_EN_ACTION_VERB = re.compile(
    r"^(?:delete|remove|restore|recover|create|make|restart|reboot|deploy|redeploy|re-?index|index|add|update|"
    r"change|edit|modify|send|post|publish|upload|share|approve|reject|deny|revoke|grant|cancel|run|rerun|"
    r"trigger|reset|roll ?back|revert|open|close|reopen|archive|unarchive|enable|disable|turn (?:on|off)|"
    r"switch (?:on|off)|schedule|reschedule|book|reserve|block|unblock|lock|unlock|suspend|freeze|unfreeze|"
    r"file|submit|apply|register|issue|refund|credit|pay|order|assign|reassign|invite|kick|ban|mute|unmute|"
    r"notify|ping|page|escalate|set|set up|configure|install|uninstall|upgrade|downgrade|migrate|merge|stop|"
    r"start|pause|resume|kill|purge|flush|clear|rename|move|copy|sync|extend|renew|rotate|expire|terminate|"
    r"provision|spin up|scale|handle|process|fix|take care of|go ahead|proceed|go for it|carry on|remind|"
    r"put|place|attach|forward|tag|label|mark|flag|pin|unpin|subscribe|unsubscribe|join|leave|"
    r"resend|re-send|reissue|regenerate|bounce|wipe|drop|spin down|tear down|kick off|"
    r"do (?:it|that|this|them|so)|get (?:it|that) done)\b", re.IGNORECASE)
# "can we get my VPN token reset?", "need the channel muted for me": asking for something to be done to a thing.
_DONE = (r"(?:reset|wiped|deleted|removed|restarted|rebooted|muted|unmuted|locked|unlocked|blocked|unblocked|added|"
         r"created|cancell?ed|renewed|extended|fixed|restored|recovered|disabled|enabled|approved|archived|"
         r"deployed|redeployed|reindexed|re-indexed|revoked|granted|booked|reserved|merged|rolled back|updated|"
         r"upgraded|changed|renamed|moved|refunded|processed|reopened|closed)")
_GET_DONE = re.compile(r"^(?:(?:can|could) (?:we|i|you|u) (?:get|have)|(?:i |we )?need) (?:[\w#.'-]++ ){1,6}"
                       + _DONE + r"\b", re.IGNORECASE)


def _infinitive(verb: str) -> str:
    """"(would you) mind restarting / adding / muting …" as "restart / add / mute …": the first base form of the
    gerund that the verb lists know, else the text unchanged."""
    gerund = _GERUND.match(verb)
    if not gerund:
        return verb
    stem, last, rest = gerund.group(1), gerund.group(2) or "", verb[gerund.end():]
    for base in (stem + last, stem + last + "e", stem if last and stem.endswith(last) else ""):
        if base and (_EN_ACTION_VERB.match(base + rest) or _EN_INFO_VERB.match(base + rest)):
            return base + rest
    return verb


# Asking how or when, or whether there is a way, is a document question, however mutation-like its verb.
_HOW_TO = _rx(r"\b(how (do|can|should|to)|what happens|when|why|policy|rule|process|procedure|"
              r"(is|are) there (a|an|any) (way|process|procedure|option)|any way to)\b",
              r"(방법|어떻게|절차|정책|규정|언제|왜|누가|누구|몇|얼마|어디|가능해|되나요|돼\?)")
# So is a capability question about things in general ("can you drop a column from a postgres table?"); a
# "could / would you" or something specific (a time, "for me", "my") makes it a request: "could you create a
# channel for the offsite?", "can you book a room for 4 people tomorrow at 2?".
_CAPABILITY = re.compile(r"^\s*+can (?:you|u|i|we) \w++ (?:a|an|any) \w[^?]*+\?\s*+$", re.IGNORECASE)
_SPECIFIC = _rx(r"\b(for (me|us)|my|our|today|tomorrow|tonight|this (morning|afternoon|evening|week)|"
                r"next (week|month)|(mon|tues|wednes|thurs|fri|satur|sun)day|\d{1,2} ?(am|pm)|at \d{1,2})\b")
# A clause: up to the next comma, full stop, semicolon or line break, or a question mark (kept with its clause:
# "인증 메일 다시 보내줄 수 있어요? 아직 못 받았어요" asks in its first clause).
_CLAUSE = re.compile(r"[^,.;!?\n]++\??")


def request_kind(text: str) -> Intent | None:
    """ACTION when a clause asks docbot to change something, KNOWLEDGE_SEARCH when one asks to be told
    something ("요약해줘", "tell me"), None when no clause is a request."""
    found: Intent | None = None
    for m in _CLAUSE.finditer(text[:MAX_RULE_CHARS]):
        clause = m.group().strip()
        if not clause:
            continue
        kind = _korean_request(clause) or _english_request(clause)
        if kind == Intent.ACTION:
            return kind
        found = found or kind
    return found


def _korean_request(clause: str) -> Intent | None:
    ending = _KO_REQUEST.search(clause) or _KO_REQUEST_TAIL.search(clause)
    if ending:
        head = clause[:ending.start()]
        if _KO_OBLIGATION.search(head[-6:]):
            return None
        if _KO_QUESTION_WORD.search(head) and clause.rstrip().endswith("?"):
            return Intent.KNOWLEDGE_SEARCH  # "택배는 며칠 보관해줘?": how long they keep it, not "keep it"
        # The verb is the last word before the ending, past fillers ("정지 좀 해주실 수 있나요" -> 정지):
        # "요약본 공유해줘" shares (an action); "요약해줘" summarises (information).
        words = [w for w in head[-40:].split() if not _KO_FILLER.fullmatch(w)]
        verb = words[-1] if words else head[-12:]
        return Intent.KNOWLEDGE_SEARCH if _KO_INFO_VERB.match(verb) or _KO_INFO_VERB.search(verb[-6:]) else Intent.ACTION
    if _KO_ACTION.search(clause) and not _HOW_TO.search(clause):
        return Intent.ACTION
    return None


def _english_request(clause: str) -> Intent | None:
    if _GET_DONE.match(clause):
        return Intent.ACTION
    opener = _EN_REQUEST_OPENER.match(clause)
    verb = clause[opener.end():] if opener else clause
    if opener and "mind" in opener.group().lower():
        verb = _infinitive(verb)
    asked = bool(opener and _EN_POLITE.search(opener.group())) or bool(_FOR_ME.search(clause))
    if _EN_QUESTION_WORD.match(verb):
        return None
    if _EN_INFO_VERB.match(verb):
        return Intent.KNOWLEDGE_SEARCH if asked or _EN_TELL.match(verb) else None
    general = bool(_CAPABILITY.match(clause)) and not _SPECIFIC.search(clause)
    if _EN_ACTION_VERB.match(verb) and not _HOW_TO.search(clause) and not general and (asked or not clause.endswith("?")):
        return Intent.ACTION
    return None


# --- Live state: a present-time marker and a subject that changes by the minute ----------------------------
#
# "who is on call for payments right now?", "is that timeout still happening?", "ERP 점검 아직 안 끝났어?": the documents
# cannot know. A time marker alone is not enough ("what's the current hotel limit?", "can it still be
# recovered?", "지금 신청해도 돼?" are about rules), nor is a volatile word alone ("what is an outage?").
_NOW = _rx(r"\b(right now|now|currently|current|at the moment|at present|as we speak|still|yet|anymore|today|"
           r"so far|to date|again|this (minute|morning|afternoon))\b",
           r"(지금|현재|아직|실시간|방금|오늘|이 시간)")
# A figure asked for "so far" ("how many … so far this week", "건수 지금까지 몇 건"): today's data, not a document's.
_SO_FAR = _rx(r"\b(so far|to date)\b", r"(지금까지|현재까지|여태)")
_FIGURE = _rx(r"\b(how (many|much)|what's|what is|what are)\b", r"(몇|얼마)")
# ... while a figure asked in the past tense, with no "now", is a record's ("how many forklifts did Incheon
# order?", "임시 인력은 몇 명이었어?": the peak-season report), not live data.
_PAST = _rx(r"\b(did|was|were|had)\b", r"(였|이었|었|았|했)(어|어요|나|나요|니|지|죠|습니까|을까)?\s*+\??\s*+$")
_VOLATILE = _rx(
    r"\b(on[- ]?call|down|outages?|incidents?|errors?|5\d\d s|5\d\ds?|5xx|failing|failures?|broken|working|running|"
    r"online|offline|available|free|busy|queue|queued|backlog|latency|load|status|health|healthy|unhealthy|"
    r"in use|(any|some)(one|body) using|"
    r"happening|occurring|ongoing|in progress|resolved|fixed|over|finished|done|maintenance|deploying|"
    r"rolling out|stuck|slow|reachable|responding|open|occupied|in stock|out of|deployed|released|merged|"
    r"shipped|rolled out|timeouts|timing out|times out|going on|flaky|unstable|green|red|passing|lagging|laggy|"
    r"crashing|crashed|hanging|unreachable|degraded|throttled|erroring|flapping|firing|jammed|pager|"
    r"finish|(any|some)(one|body) (in|at)|numbers|figures|signups?|sales|revenue|temperature|humidity|"
    r"reading|exchange rates?|fx rates?|menu|share price|stock price|delayed)\b",
    r"\b(is|are|be|still)\s++(?:[\w.-]++\s++){0,4}up\b",
    r"(온콜|당직|상태|장애|정상|매출|환율|메뉴|주가|나왔|에러|오류|다운|살아|죽었|죽어|떠\s?있|돌아|돌고|동작|작동|접속|로그인|먹통|느려|느린|점검|"
    r"끝났|끝나|진행\s?중|도는\s?중|돌아가는\s?중|발생|실패|성공했|고장|터졌|터진|뻗었|뻗은|끊겼|끊긴|안\s?돼|안\s?되|비어|비었|남아|남았|대기|몇\s?건|몇\s?명|몇\s?개|배포\s?중|처리\s?중|해결됐|복구됐|"
    r"타임아웃|불안정|깨져|깨졌|튕겨|튕기|튕김|멈춰|멈췄|끊겨|끊기|사용\s?중|쓰는\s?중|온도|습도|빨간불|초록불|"
    r"잘\s?돼|돼\?|되나요|되고|되는|(?<!수 )(?<!수)(있어\?|있나\?|있나요)|(?<=\s)나(\?|요))",
)
# Words of rules and documents, and questions about what one may or must do: about the documents, however
# "now" they are asked.
_RULES = _rx(
    r"\b(policy|policies|rules?|limits?|procedure|process|guidelines?|documents?|docs?|handbook|allowed|"
    r"allowance|deadline|valid|eligible|entitled|required|should (i|we)|do (i|we) need|how (do|can|should)|"
    r"slas?|slos?|guarantee[sd]?|commitments?|contract|"
    r"what (do|should) (i|we)|what now|what next|compare|comparing|comparison|difference between)\b",
    r"\bwhere (can|do|should) (i|we) (see|find|look|check)\b",
    r"\b(each|every) (?:[\w-]++ )?(shift|day|week|month|team|person|employee|request|trip)\b",
    r"(규정|정책|절차|가이드|문서|한도|기준|기한|유효|방법|어떻게|해야|해도|비교)",  # two records compared: documents
    r"(하면|되면|으면)\s(언제|얼마|며칠|몇|어떻게)",  # "지금 제출하면 언제 처리돼?": what the rule says would happen
    # a condition with a threshold: "what credit do we get if uptime drops below 99.9%?" asks what the contract says
    r"(?<!see )(?<!check )(?<!know )(?<!wonder )\bif\b[^?]{0,60}\b(drops?|falls?|exceeds?|below|above|under|more than|"
    r"less than|fewer than)\b",
    r"도\s?(돼|되나|되요|돼요|될까|되죠|되는|괜찮)",  # "-어도 돼?": may I (permission)
)
# A past mistake and a remedy ("I deleted it by mistake yesterday, can it still be recovered?", "실수로 지운 메일
# 아직 복구돼?"): what can be done is in the documents, however "still / 아직" it is asked. The state of a repair
# ("장애 복구됐어?") is not a remedy asked about.
_MISTAKE = _rx(r"\b(by (mistake|accident)|accidental(ly)?|mistaken(ly)?|inadvertent(ly)?|wrong(ly)?|oops|forgot|forgotten|"
               r"missed)\b",
               r"(실수로|실수해서|잘못|깜빡|모르고)")
_REMEDY = _rx(r"\b(restor\w*|recover\w*|undo|undone|undelete\w*|get (it|them|that|this) back|revert\w*|"
              r"reverse\w*|retract\w*|recall\w*|reopen\w*|correct\w*|fix (it|this|that))\b",
              r"\b(still|late) (submit|file|upload|send|apply|claim|register)\w*",
              # a late remedy: "출장 보고서를 깜빡했는데 지금이라도 낼 수 있어?"
              r"(복구|되살|살릴|살려|되돌|취소|수정|회수|철회|되찾)(?!\s?(됐|되었|완료))|지금이라도|이제라도|늦게라도|뒤늦게")


def _asks_for_a_remedy(text: str) -> bool:
    return bool(_MISTAKE.search(text) and _REMEDY.search(text))
_LIVE = _rx(
    r"\b(status of|uptime(?!\s++(?:sla|slo|target|guarantee|commitment|objective))|current (status|load|queue)|who is on[- ]call (now|today))\b",
    # the state of one's own request: "did my expense claim get approved?", "내 휴가 신청 승인됐어?"
    r"\b(did|has|have|is|was) my\b[^?]{1,60}\b(approved?|rejected|declined|processed|accepted|"
    r"gone through|come through)\b",
    r"^(내|제|나의)\s.{1,30}(승인(됐|됬|났|되었|했)|반려(됐|되었|했)|처리(됐|되었|했)|입금(됐|되었)|지급(됐|되었)|들어왔)",
    # whether something submitted was decided, or has happened yet: "어제 낸 교육비 신청 승인 났어?", "has the 3pm
    # courier left yet?"
    r"(승인|반려)\s?(났|됐|됬|되었)(어|나|나요|어요|니|냐)?\s*+\??\s*+$",
    r"\b(has|have|did)\b[^?]{1,40}\b(left|arrived|departed|started|finished|ended|shipped|gone out)\b[^?]{0,10}\byet\b",
    r"^\s*+(are there |is there )?any (open|active|ongoing|current) [^?]{1,40}\?",  # "any open incidents?"
    r"\bhow many\b[^?]{1,60}\b(right now|now|today|at the moment|currently)\b",  # a count now
    r"\bis [^?]{1,40} ((down|online|offline|working|healthy|jammed|broken|stuck|crashing|failing)|(?<!backed )(?<!set )(?<!signed )(?<!picked )"
    r"(?<!looked )(?<!held )(?<!follow )up)\b",
    r"(상태|장애).{0,6}(어때|어떄|확인해|괜찮)",
    # a queue's depth, and whether a fault is everyone's: "for everyone or just me?", "anyone else getting …", "나만 느려?"
    r"\b(queue (depth|length|size)|how (deep|long) is the queue|for everyone|(just|only) me|"
    r"any ?(one|body) else (getting|seeing|having|hitting))\b",
    r"(나만|저만|나 말고|다들)\s?(그래|그런|안\s?(돼|되)|느려|느린|튕|끊|먹통)",
)


# "Now" said outright ("지금 운영에 배포된 버전", "what build is live in staging atm"): live state is a possible reading
# even of a subject that is not by nature changing. "today", "still", "yet" and "아직" are not enough: "is holiday work
# still paid at 2x today?" asks for a rule.
_NOW_SAID = _rx(r"\b(right now|currently|at the moment|atm|at present|as we speak|so far)\b", r"(지금|현재|실시간)")
# One's own record: what is left of it or where it stands ("how many leave days do I have left", "내 연차 몇 개
# 남았지", "any update on my visa letter request", "내 모니터 구매 요청 어디까지 진행됐어?").
_MINE = _rx(r"\b(i have|i've got|do i have|have i got|my)\b[^?]{0,50}\b(left|remaining|balance)\b",
            r"\b(any update|any news|status|progress) on my\b", r"\b(left|remaining) (on|in|of) my\b",
            r"\buntil my\b[^?]{1,40}\bexpires?\b",
            r"^\s*+(내|제|나의)\s[^?]{1,30}(남았|남은|잔여|어디까지|진행\s?상황)")


# An account of what happened ("what happened to the missing shipments?", "그때 무슨 일이 있었어?"): the incident report
# answers it, however changing its subject is; "what is happening right now" still may be live.
_PAST_ACCOUNT = _rx(r"\bwhat (happened|went wrong|was done)\b", r"무슨 일이 있었|어떻게 됐었")


def may_be_live(text: str) -> bool:
    """Whether live state is a possible reading: a subject that changes by the minute (an error, an outage,
    on-call, "down", "장애", "접속") and no words of rules or of what one may or must do. Without one, the
    classifier's "live state" is its lean on any "how many / when / still" question ("how many failed logins
    lock the account?", "is holiday work still paid at 2x?"), not a reading."""
    text = text[:MAX_RULE_CHARS]
    if _MINE.search(text):  # what is left of one's own limit is live ("남았지" reads as a past tense; "한도" as a rule)
        return True
    if _RULES.search(text) or _asks_for_a_remedy(text):
        return False
    if _past_figure(text) or (_PAST_ACCOUNT.search(text) and not _NOW_SAID.search(text)):
        return False
    return bool(_VOLATILE.search(text) or _LIVE.search(text) or _NOW_SAID.search(text))


def _past_figure(text: str) -> bool:
    return bool(_FIGURE.search(text) and _PAST.search(text) and not _NOW.search(text) and not _SO_FAR.search(text))


def is_live_state(text: str) -> bool:
    """Whether a message asks about the state of something now (a live lookup, not the documents)."""
    text = text[:MAX_RULE_CHARS]
    if _RULES.search(text) or _asks_for_a_remedy(text):
        return False
    return bool(_LIVE.search(text) or (_NOW.search(text) and _VOLATILE.search(text))
                or (_SO_FAR.search(text) and _FIGURE.search(text)))


# --- Small talk that is not a bare "thanks" ---------------------------------------------------------------

# Questions about docbot itself.
_ABOUT_DOCBOT = _rx(
    r"^\s*+(how are you|how's it going|who are you|what are you|what can you do|what do you do|what's up|sup|"
    r"are you (a |an )?(bot|robot|ai|human|person|real person|real)|what's your name|what is your name|"
    r"who (made|built|created) you|do you (ever )?(sleep|eat|dream|rest|get tired|get bored|have feelings))\b[\s!.?~]*+$",
    r"^\s*+(너는?\s?누구|넌 누구|누구세요|뭐 할 수 있|무엇을 할 수 있|뭘 할 수 있|잘 지냈|잘 지내|뭐해|"
    r"(너|넌|너는) (로봇|봇|사람|ai|인공지능)|(네|너의?) 이름)",
)
# Asking for a joke, a riddle or a song: small talk, whatever the verb ("give me a riddle", "농담 하나 해줘").
_ENTERTAIN = _rx(r"\b(jokes?|puns?|riddles?|a poem|a song|something (fun|funny|interesting|cool)|fun facts?)\b",
                 r"(농담|개그|드립\s?(쳐|해)|수수께끼|끝말잇기|노래 (불러|해)|재밌는 (얘기|거)|웃긴 (얘기|거)|재미있는 (얘기|거))")
# A reaction: an evaluative word or phrase with no question in it ("that's funny", "아쉽다", "오 신기하네").
_REACTION_EN = _rx(
    r"^(?!.*\b(what|which|who|where|how|when|why|tell|show)\b)\s*(ok(ay)?|great|nice|cool|perfect|awesome|"
    r"thanks|thank you|thx|got it|makes sense|that helps|that's (exactly )?what i needed|understood|alright|"
    r"i see|sounds good|cheers|appreciate)\b[^?]*$",
    r"^(thanks|thank you|thx|ty|cheers)( so much| a lot| again)? for (the|your|all|this|that|everything)\b[^?]*$",
    r"^(that's|that is|thats|this is|it's|its|so|very|really|how|what an?|such an?)?\s*+(so |really |very |pretty |"
    r"kinda |super |exactly |just )?(funny|great|good|cool|nice|awesome|amazing|weird|strange|odd|annoying|"
    r"interesting|sad|unfortunate|helpful|useful|fast|quick|clear|wild|crazy|hilarious|brilliant|neat|fair|fine|"
    r"bad|terrible|a relief|a shame|a lifesaver|good to know|what i needed|all i needed|what i wanted|"
    r"perfect|lovely|too bad)\b[^?]*$",
    r"^(i )?(didn't|did not|never) know( that)?\b[^?]*$",
    r"^(that's|thats|that is) (all|it)\b[^?]*$",  # "that's all for now": the user is done
    r"^you('re| are) (a |the )?(lifesaver|star|legend|best|great|awesome|amazing|helpful)\b[^?]*$",
    r"^(i'm|im|i am|feeling|so) (so |really |very |kinda |super )?(hungry|tired|bored|sleepy|exhausted|stressed|happy|"
    r"sad|cold|hot)\b[^?]*$",
)
_REACTION_KO = _rx(
    r"^(정말|진짜|너무|완전|좀|역시|와|오)?\s*+(?:[가-힣]{1,3}\s++(?:진짜\s++|정말\s++|너무\s++)?)?(아쉽|신기|웃기|재밌|재미있|멋지|멋있|대단|놀랍|슬프|짜증|피곤|힘들|다행|"
    r"훌륭|좋|빠르|깔끔|편하|유용|최고|천재|고생|살았|배고프|배고파|졸리|졸려|심심|춥|추워|덥|더워|귀찮|행복|우울|"
    r"지친|지쳤|지치)\w{0,4}[\s!.~ㅠㅜㅋㅎㄷ^]*+$",
    r"^(?!.*(뭐|무엇|어디|언제|누가|누구|어떻게|몇|얼마|알려|보여|줘|주세요|부탁))\s*(알겠|좋아|좋네|오케이|넵|네 ?알|감사|"
    r"고마워|고맙|이해했|잘 봤|잘 읽었|덕분에|도움이? ?(됐|되었|많이))[^?]*$",
)
_REMARK = _rx(r"^(the|that|that's|thats|this|it|it's|its|i|i'm|i've|you|you're|we|makes|so|very|really|exactly|just|"
              r"all|everything|for|totally|super|pretty|now|much|good|great|nice|perfect|helpful|clear)\b")
# "really?", "진짜?": a reaction put as a question.
_ECHO = _rx(r"^(really|seriously|for real|no way|are you sure|is that so|is that right|right)[\s?!.~]*+$",
            r"^(진짜|정말|레알|실화|그래|그래요|그런가요|정말요|진짜요|그렇죠|맞죠)[\s?!.~ㅋㅎㅠ]*+$")
# Quick arithmetic: numbers, operators and the words that ask for a result, nothing from the documents.
_ARITH_TOKEN = re.compile(r"\d[\d,.]*+|[가-힣]++|[a-z']++|\S", re.IGNORECASE)
_ARITH_WORDS = _rx(
    r"^(what's|whats|what|is|are|how|much|many|equals?|plus|minus|times|multiplied|divided|by|of|over|percent|"
    r"squared|cubed|sqrt|square|root|calculate|compute|the|and|to|in|x|k|m|won|krw|usd|dollars?|eur|off|"
    r"discount|after|then|if|a|an|please|pls|convert|converted|into|there|"
    # units a conversion is asked in: "how many seconds in 2.5 minutes"
    r"seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|meters?|metres?|cm|km|kg|grams?)$",
    r"^(곱하기|더하기|빼기|나누기|나눈|곱한|더한|뺀|빼면|더하면|곱하면|나누면|제곱|루트|할인|할인하면|하면|이면|면|계산|계산해줘|계산해|"
    r"얼마|얼마야|얼마예요|얼마지|얼마인가요|얼마니|몇|몇이야|이야|야|하고|배|배는|값|값은|결과|결과는|답|답은)$",
    # a number's unit and particle: "만원의", "원에서", "퍼센트는"
    r"^(십|백|천|만|억)?(원|달러|퍼센트|프로|개|명|시간|분|초|일|주|개월|년|미터|킬로|센티)?"
    r"(의|은|는|이|가|에서|에|을|를|로|으로|과|와|이면|면|이야|야)?$",
)
_ARITH_SYMBOLS = frozenset("+-*/×÷=%^()?!.,~x")


_LEAD_IN = re.compile(r"^([^:—–]{1,30})[:—–]")  # "quick one: 36 * 7?", "sanity check — 2400 / 12?"


def is_arithmetic(text: str) -> bool:
    """A sum with nothing else in it ("what's 12% of 3500?", "3 곱하기 7은?"), or behind a short lead-in of at
    most three words ("quick one: 36 * 7?"): nothing to search for."""
    lead = _LEAD_IN.match(text)
    if lead and len(lead.group(1).split()) <= 3 and _sum_alone(text[lead.end():]):
        return True
    return _sum_alone(text)


def _sum_alone(text: str) -> bool:
    numbers, operator = 0, False
    for token in _ARITH_TOKEN.findall(text[:200]):
        if token[0].isdigit():
            numbers += 1
        elif token in _ARITH_SYMBOLS:
            operator = operator or token not in "?!.,~"
        elif _ARITH_WORDS.fullmatch(token):
            operator = operator or token.lower() in _OPERATOR_WORDS or token.startswith(("곱", "더", "빼", "나누", "나눈", "뺀", "할인", "제곱"))
        else:
            return False
    return numbers >= 2 or (numbers == 1 and operator)


_OPERATOR_WORDS = frozenset({"plus", "minus", "times", "multiplied", "divided", "percent", "squared", "cubed",
                             "sqrt", "root", "x", "off", "discount", "over", "in", "into", "convert", "converted"})


# --- Questions --------------------------------------------------------------------------------------------

# A message that reads as a question: a question mark, an English question word or auxiliary first,
# or a Korean question ending. Possessive quantifiers and bounded spans only: linear on any input.
_QUESTION = _rx(
    r"\?\s*+$",
    r"^\s*+(what|which|who|whom|whose|where|when|why|how|is|are|was|were|does|do|did|should|must|may)\b",
    r"(뭐|무엇|어디|언제|누가|누구|어떻게|몇|얼마|왜|나요|니|냐|까|어때|인가요|인가)\s*+$",
)
# The user asking what *they* (or the team) should or may do is a document question, however
# mutation-like its verb: "do I need approval to rotate the API keys?", "should we roll back if...?",
# "교육은 며칠 전에 신청해야 해?". ("can you ...?" is addressed to docbot: not here.)
_SELF_QUESTION = _rx(
    r"^\s*(do|does|did|should|must|can|could|may|am|are|is it (ok|okay|allowed)( for (me|us))? to)\s+"
    r"(i|we|me|us|they|employees|engineers|people)?\b[^?]*\?\s*$",
    r"^\s*(what|where|who) (do|should|must|can) (i|we) (do|go|ask|contact|call|tell)\b",
    # whether a thing can (still) be done, whether there is a way: "can it still be undone?", "is there a way to restore it?"
    r"^\s*((can|could) (it|this|that|they|these|those) (still )?be|is it (still )?possible to|"
    r"(is|are) there (a|an|any) (way|process|procedure|option)|any way to)\b[^?]*\?\s*$",
    r"(해야|돼야|하면 안|해도|하나요|합니까|되나요|인가요)\s*(해|돼|되나|하나|할까|되지|하지|돼요|해요|하나요|되나요|나요|요|까|"
    r"하죠|되죠|할까요|하지요|되지요)?\s*\?\s*$",
    # whether it can still be done: "지금 수정 가능한가요?", "취소 가능할까요?"
    r"가능(한가요|할까요|하나요|한지|해요|해|합니까)\s*\?\s*$",
)
# Anything that asks: a question, a request, a question word anywhere. Small talk is never sure of itself
# on such a message (issue 24: "고마워, ... 좀 올려줘" was small talk at 0.92).
_ASKS = _rx(
    r"\?",
    r"\b(please|pls|plz|can you|could you|would you|will you|tell me|show me|help me|for me|i need|i want)\b",
    r"^\s*+(what|which|who|whom|whose|where|when|why|how)\b",
    r"(뭐|무엇|어디|언제|누가|누구|어떻게|몇|얼마|왜|알려|줘|주세요|주시면|주면|부탁|해야|할까|있나|없나|인가)",
)


def reads_as_question(text: str) -> bool:
    """Whether a message is put as a question (not as a request to do something)."""
    return bool(_QUESTION.search(text[:MAX_RULE_CHARS]))


def asks_for_something(text: str) -> bool:
    """Whether a message asks a question or asks for something to be done, anywhere in it."""
    text = text[:MAX_RULE_CHARS]
    return bool(_ASKS.search(text) or request_kind(text))


SMALL_TALK_SURE, SMALL_TALK_ASKED = 0.92, 0.8  # small talk on a message that asks stays below 0.85


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
    if model.intent == Intent.CHITCHAT and asks_for_something(original):
        # The model called a message that asks for something small talk ("고마워, 그 문서 좀 올려줘"): the
        # offline router's confident reading stands; a request to change something is asked about, not run.
        if confident and offline.intent == Intent.ACTION:
            scores = {**offline.scores, Intent.ACTION.value: max(offline.confidence, RISKY_SHARE)}
            return Route(AMBIGUOUS, min(model.confidence, offline.confidence), offline.entities or model.entities,
                         f"llm said small talk, {offline.reason} said action: asked", scores)
        if confident:
            return Route(offline.intent, offline.confidence, offline.entities or model.entities,
                         f"{offline.reason}; asks for something, not small talk (llm)", offline.scores)
        return Route(model.intent, min(model.confidence, SMALL_TALK_ASKED), model.entities, model.reason,
                     model.scores)
    if model.intent != Intent.ACTION:
        return model
    if confident:
        return Route(offline.intent, offline.confidence, offline.entities or model.entities,
                     f"{offline.reason}; llm said action alone", offline.scores)
    scores = {**offline.scores, Intent.ACTION.value: max(model.confidence, RISKY_SHARE)}
    return Route(AMBIGUOUS, min(model.confidence, offline.confidence), model.entities,
                 f"llm said action, {offline.reason} said {offline.intent}: asked", scores)


# Asking how or where one does something ("how do I request …", "연결하는 법", "드라이버 어디서 받아요"): the documents.
_ASKS_HOW = _rx(r"^\s*+how (do|can|should|would) (i|we|you|one)\b",
                r"(하는|는|은)\s?법\b", r"어디서\s?(받|찾|다운|신청|구해|구하)")


# Thanks closing a message ("답변 감사합니다", "ㅇㅋ 확인 감사", "great answer, thanks", "helpful info, thx").
_THANKS_END = _rx(r"(감사|고마|고맙|땡큐|ㄳ|ㄱㅅ)[가-힣]{0,6}[\s!.~ㅎㅋㅠㅜ^;:)]*+$",
                  r"\b(thanks|thank you|thx|ty|tysm|cheers|much appreciated|appreciate it)\W*+$")
_DIGIT = re.compile(r"\d")


def _short_remark(chatter: str, rest: str) -> bool:
    """A word or two after an interjection, asking nothing ("ugh, traffic", "lol classic", "헐 역대급")."""
    words = [w.strip(_PUNCT).lower() for w in chatter.split()]
    if not any(w in _INTERJECTIONS or _KO_CHATTER_LAUGH.fullmatch(w) for w in words if w):
        return False
    return (len(rest.split()) <= 2 and not _DIGIT.search(rest) and not _VOLATILE.search(rest)
            and not _KO_MUTATION_STEM.search(rest) and not _EN_ACTION_VERB.match(rest))


def rule_route(original: str) -> Route | None:
    """The route when a pattern is unmistakable, else None (the classifier decides).

    The rules read the message after its chatty opening words ("ok thanks,", "오케이 그럼"): what is
    left says what the message wants; nothing left means small talk.
    """
    text = original.strip()[:MAX_RULE_CHARS]
    if not text:
        return Route(Intent.CHITCHAT, 1.0, reason="empty")
    asks = asks_for_something(text)
    small_talk = SMALL_TALK_ASKED if asks else SMALL_TALK_SURE
    chatter, rest = split_chatter(text)
    if not rest:
        return Route(Intent.CHITCHAT, small_talk, reason="small-talk pattern")
    if _ABOUT_DOCBOT.search(rest) or _ABOUT_DOCBOT.search(text):
        return Route(Intent.CHITCHAT, SMALL_TALK_ASKED, reason="a question about docbot")
    if _ECHO.search(rest):
        return Route(Intent.CHITCHAT, SMALL_TALK_ASKED, reason="reaction put as a question")
    if is_arithmetic(rest):
        return Route(Intent.CHITCHAT, SMALL_TALK_ASKED, reason="arithmetic")
    if _ENTERTAIN.search(rest) and not _RULES.search(rest):
        return Route(Intent.CHITCHAT, SMALL_TALK_ASKED, reason="asks for a joke")
    request = request_kind(rest)
    if request == Intent.ACTION:
        return Route(Intent.ACTION, 0.9, reason="mutation request pattern" + (" after small talk" if chatter else ""))
    if is_live_state(rest):
        return Route(Intent.REALTIME_LOOKUP, 0.9, reason="live-state pattern")
    if request == Intent.KNOWLEDGE_SEARCH:
        return Route(Intent.KNOWLEDGE_SEARCH, 0.9, reason="information request pattern")
    if any(_SELF_QUESTION.search(c.group().strip()) and not c.group().strip().lower().startswith(("can you", "could you"))
           for c in _CLAUSE.finditer(rest)):
        return Route(Intent.KNOWLEDGE_SEARCH, 0.85, reason="question about what to do")
    if any(_ASKS_HOW.search(c.group().strip()) for c in _CLAUSE.finditer(rest)):
        return Route(Intent.KNOWLEDGE_SEARCH, 0.85, reason="asks how or where to do something")
    # A reaction after "ok"/"thanks" goes on about what was said ("ok thanks, the travel limit makes sense
    # now"); a rest that opens with anything else may be a request in words the rules do not know.
    reacting = _REACTION_EN.search(rest) or _REACTION_KO.search(rest) or _REACTION_KO.search(text) or (
        _REACTION_EN.search(text) and _REMARK.match(rest))
    if not asks and reacting:
        return Route(Intent.CHITCHAT, 0.85, reason="reaction pattern")
    if not asks and len(rest.split()) <= 6 and _THANKS_END.search(rest):
        return Route(Intent.CHITCHAT, 0.85, reason="thanks pattern")
    if not asks and _short_remark(chatter, rest):
        return Route(Intent.CHITCHAT, 0.8, reason="reaction after an interjection")
    return None
