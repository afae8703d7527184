"""What a question asks for, whether a sentence supplies it, and which lines are never an answer.

The extractive answer leads with the sentence that fills the question's slot: an amount for "how much",
a date or weekday for "when", a team or contact for "who", a place for "where", the cause for "why". Recognised in Korean
and English by the question's own words; every pattern is a plain alternation (linear time on user text).

Boilerplate is recognised by its shape, not by document: owner/author/last-edited lines, "this document
describes…", "see document X" pointers, bylines and reader comments, contact lines, changelog rows.
Those are quoted only when the question asks for them (who to contact, what changed).
"""
from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache

from rag.text.analysis import ENGLISH_STOPWORDS


class Kind(StrEnum):
    """The slot a question asks to fill."""

    QUANTITY = "quantity"  # how much / how many / how long / 얼마 / 몇
    TIME = "time"  # when / deadline / by when / 언제 / 까지
    WHO = "who"  # who / which team / whom to contact / 누구 / 어디 연락
    WHY = "why"  # why / cause / 왜 / 원인
    HOWTO = "howto"  # how do I / steps / 어떻게 / 절차
    YESNO = "yesno"  # can I / is it allowed / 돼? / 가능해?
    WHICH = "which"  # which one / 어느 / 어떤
    WHAT = "what"  # what is / 뭐야 / 이란
    CONSEQUENCE = "consequence"  # what happens if / 지나면 어떻게 돼? (not how to do it)
    WHERE = "where"  # where / which floor / 어디서 / 위치
    OTHER = "other"


# "What does grade A mean?" asks what a word means, in any surroundings ("in the returns process, …" is not a how-to),
# and "mean" is the asking, not a topic word (the dictionary's senses are 평균, 방법).
_MEANING = r"\bmeans?[?.!]*\s*$|\bmeaning of\b|\bmean by\b|\bstands? for\b"

_I = re.IGNORECASE
# "돈" (money) as a word of its own: "돈도 나와?" asks for an amount; "돈다" (turns) does not.
_MONEY_WORD = r"(^|\s)돈(이|은|는|도|을)?(\s|\?|$)"
# A follow-up opens on a connective: "and does any discount apply to …?" is asked yes or no as "does …?" is.
_YES_NO = re.compile(r"^((and|so|but|then|also|ok|okay|oh),?\s+)?(can|could|may|is|are|do|does|did|will|should|am)\b|\ballowed\b|"
                     r"(돼|돼요|되나요|될까|되나|되죠|됩니까|가능해|가능한가|가능할까|가능|써도|해도|받아|"
                     r"수 ?있(어|어요|나|나요|을까|을까요|습니까|지|죠)|되는 거야|되는 건가)\??$", _I)
# A statement asked with a rising verb ending and no question word ("예전 복장 규정 아직 유효해?", "보상 있어?",
# "부산 지점도 같은 절차 따라?"), or an English yes/no question after a clause ("I deleted a file by mistake, can it
# still be recovered?"). A bare noun ("이천은?", "택시비는?") is an elliptical follow-up, not yes or no.
_STATEMENT_ASKED = re.compile(r"(?<![뭐뭘])(있어|없어|있나|없나|있니|있을까|해|돼|야|아|어|와|워|까|죠|니|"
                              r"어요|아요|해요|돼요|나요|까요|세요|워요|와요)\?$|"
                              r"[,;—-]\s*+(so |and |but |then )?(can|could|may|is|are|do|does|did|will|should|am|must)\b", _I)
_NOT_YES_NO = re.compile(r"뭐|뭘|무엇|무얼")
_WHY_ASKED = re.compile(r"\bwhy\b|왜|어째서", _I)  # "why did it stop at 9?" still asks why
_OPENS_WHERE = re.compile(r"(?:(?:and|so|ok|okay|then)\b[ ,]*+)?where\b", _I)
_KOREAN_WHICH = re.compile(r"어느|어떤|무슨")
_BARE_WHEN = re.compile(r"\bwhen\b", _I)
_CLAUSE_BREAK = re.compile(r"[,;:—–]|\s-\s")
_OTHER_ASKING = re.compile(r"\b(what|how|which|who|whom|whose|where)\b", _I)
# Checked in this order, most specific first: "how many days … when my wife gives birth" asks for an
# amount, "몇 시까지" for a time.
_ASKS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (Kind.WHAT, re.compile(r"\b(code|name|address|url|queue|channel)\b.{0,12}\?|(코드|이름|주소|큐|채널)(는|은|가|이)? ?(뭐|무엇)|"
                           + _MEANING, _I)),
    # "Which release caused it?" asks for a named thing; "what caused it?" for the cause.
    (Kind.WHICH, re.compile(r"\bwhich [a-z]+( [a-z]+)? (caused|causes|triggered)\b", _I)),
    (Kind.WHY, re.compile(r"\bwhy\b|\bcause[sd]?\b|\breason\b|\broot cause\b|왜|원인|이유|어째서", _I)),
    # "30일 지나면 어떻게 돼?" asks what follows, "어떻게 해?" how to do it.
    (Kind.CONSEQUENCE, re.compile(r"\bwhat (happens|will happen|if)\b|\bwhat'?s the (penalty|consequence)\b|"
                                  r"면 ?어떻게 (돼|되나요|되지|돼요|됩니까|되는|되죠)|어떻게 되(나요|지|는지|죠|는 거)", _I)),
    (Kind.WHO, re.compile(r"\bwho(m|se)?\b|\bwhich team\b|\bcontact\b|\bwhom to\b|\breport(ed)? to\b|\bescalat|"
                          r"누구|누가|어느 팀|어떤 팀|담당(자|팀|부서)|어디(로|에|에다)? ?(연락|문의|신고|말|보고)|"
                          r"연락처|문의처|보고돼|보고되", _I)),
    (Kind.TIME, re.compile(r"\bdeadline\b|\bby when\b|\bwhat time\b|\bhow late\b|\bdue\b|\bwhat date\b|\bwhich day\b|"
                           r"언제|마감|기한|몇 ?시(야|에|까지|부터)|무슨 요일|날짜", _I)),
    (Kind.QUANTITY, re.compile(r"\bhow (much|many|long|often|soon|far|big|large|early|fast|quickly)\b|\blimit\b|\bmaximum\b|"
                               r"\bminimum\b|\bmax\b|\bmin\b|\bper (minute|hour|day|night|week|month|year|order)\b|\brate\b|\bprice\b|"
                               r"\bcost\b|\bfee\b|\bpercent|\bcharge\b|\bwhat temperature\b|\bnumber of\b|"
                               r"\ballowance\b|\bper diem\b|\bstipend\b|\bsalary\b|\bbudget\b|\bsubsidy\b|"
                               r"얼마|몇|며칠|기간|한도|상한|최대|최소|비율|퍼센트|요금|가격|비용|수당|금액|용량|"
                               r"온도|일비|식대|지원금|보조금|숙박비|(?<![가-힣])(분당|시간당|일당|건당|회당|1인당|인당)|" + _MONEY_WORD, _I)),
    (Kind.TIME, _BARE_WHEN),
    # "Where does the shuttle leave from?" wants a place (a floor, an exit, a channel, a system), not a rule about it.
    (Kind.WHERE, re.compile(r"\bwhere\b|\bwhich (floor|room|building|station|exit|gate|channel|address|location)(s|es)?\b|"
                            r"어디|위치|장소", _I)),
    (Kind.HOWTO, re.compile(r"\bhow (do|can|should|to)\b|\bsteps?\b|\bprocedure\b|\bprocess\b|\bwhat do i do\b|"
                            r"\bwhat should i do\b|\bset ?up\b|어떻게|방법|절차|순서|과정", _I)),
    # "프린트하려면 어떤 큐로 보내야 돼?" asks which queue, not yes or no: a Korean which-word outweighs "돼?" and
    # "…려면" (in order to), a weaker sign of a procedure than "어떻게".
    # "RACI는 무슨 뜻이야?" asks what a word means, not which one.
    (Kind.WHAT, re.compile(r"무슨 ?(뜻|의미|말)|뭔 ?뜻|(뜻|의미)(이|가)? ?(뭐|무엇)", _I)),
    (Kind.WHICH, _KOREAN_WHICH),
    (Kind.HOWTO, re.compile(r"려면", _I)),
    (Kind.YESNO, _YES_NO),
    (Kind.YESNO, _STATEMENT_ASKED),
    (Kind.WHICH, re.compile(r"\bwhich\b|어느|어떤|무슨|뭘 써|뭐 써|제일|가장", _I)),
    (Kind.WHAT, re.compile(r"\bwhat('s| is| are| was)\b|\bmean(s|ing)?\b|\bdefin|뭐야|뭐였어|무엇|뭔가|이란|란\?|"
                           r"뜻", _I)),
)


# Words that ask for an amount themselves ("얼마", "how much"), not nouns of amounts ("기간", "limit").
_HOW_MUCH = re.compile(r"\bhow (much|many|long|often|soon|far|big|large|early|fast|quickly)\b|\bwhat (temperature|percentage|rate|price)\b|"
                       r"\bnumber of\b|얼마|몇|며칠", re.IGNORECASE)


# "Summarise X" / "X 요약해줘" asks for the gist: no single slot to fill.
_SUMMARY = re.compile(r"\bsummar|\boverview\b|\btl;?dr\b|요약|개요|정리해", re.IGNORECASE)


# Two things asked at once ("compare A and B", "who owns X and how do I page them?"): each part may sit in
# another document, so the answer quotes the best of each close document, not only the lead's.
_SEVERAL = re.compile(r"\bcompar|\bvs\.?\s|\bversus\b|\bdifferen|\band (how|what|when|who|where|which|why)\b|"
                      r"\bboth\b|비교|차이|둘 다|각각|어느 쪽", re.IGNORECASE)


def asks_several(question: str) -> bool:
    """Whether the question asks for two or more things (a comparison, a two-part question)."""
    return bool(_SEVERAL.search(question))


def is_summary(question: str) -> bool:
    """Whether the question asks for the gist of a document rather than one fact."""
    return bool(_SUMMARY.search(question))


# Words that ask for a time themselves, not nouns of dates ("deadline", "기한").
_WHEN = re.compile(r"\bwhen\b|\bby when\b|\bwhat (time|date)\b|\bwhich day\b|언제|몇 ?시|무슨 요일", _I)


def _asked_yes_or_no(text: str) -> bool:
    """A rising ending asks yes or no unless the question asks for a thing: "신입은 장비 뭐 받아?" and "당일에 뭐
    챙겨가야 돼?" ask what, though they end like "받아?" and "돼?"."""
    return bool(_YES_NO.search(text) or _STATEMENT_ASKED.search(text)) and not _NOT_YES_NO.search(text)


def _when_is_a_clause(text: str) -> bool:
    """Whether every "when" of the question opens a clause of another question word ("what should I do when the VPN
    drops?", "what else do I enter when filing a claim?"), rather than asking when ("if the secondary doesn't ack,
    when does the manager get paged?"). Clause by clause, each searched once: linear."""
    asked = False
    for clause in _CLAUSE_BREAK.split(text):
        when = _BARE_WHEN.search(clause)
        if when and (not _OTHER_ASKING.search(clause, 0, when.start()) or clause[when.end():].startswith(" to ")):
            return False  # asked, or "how do we know when to retry?"
        asked = asked or bool(when)
    return asked


def question_kind(question: str) -> Kind:
    """The slot the question asks to fill (OTHER when none is recognised, or for a summary)."""
    text = question.strip()
    if is_summary(text):
        return Kind.OTHER
    if _OPENS_WHERE.match(text):  # "where can I see who's on the release rota?": the place, not the person the clause names
        return Kind.WHERE
    if _CLOCK_ASK.search(text) and not _WHY_ASKED.search(text):
        return Kind.TIME  # "원인 확인한 건 몇 시?": the hour the cause was confirmed, not the cause
    for kind, pattern in _ASKS:
        if pattern.search(text):
            if kind == Kind.YESNO and not _asked_yes_or_no(text):
                continue  # "인턴은 둘째 날에 뭐 해?" asks what, however it ends
            if pattern is _BARE_WHEN and _when_is_a_clause(text):
                continue  # "what should I do when the VPN drops?" asks what to do, not when
            if kind == Kind.QUANTITY and not _HOW_MUCH.search(text) and _KOREAN_WHICH.search(text):
                return Kind.WHICH  # "식대는 어떤 환율로 받아?": which rate, not the meal allowance's amount
            # "보안 패치는 동결 기간에도 배포돼?": a noun of amounts, asked yes or no. Not "수당도 있어?" or "돈도 나와?": the
            # amount is the answer to whether there is one.
            if kind == Kind.QUANTITY and not _HOW_MUCH.search(text) and _YES_NO.search(text):
                return Kind.YESNO
            if kind == Kind.TIME and not _WHEN.search(text) and _asked_yes_or_no(text):
                return Kind.YESNO  # "교육 신청 마감을 놓쳤는데 지금 신청해도 돼?": a noun of dates, asked yes or no
            return kind
    return Kind.OTHER


# An HTTP status names a response, it does not measure anything: "receive HTTP 429" answered "분당 몇 개야?" and "how big
# should a pull request be?" as a figure.
_STATUS_CODE = re.compile(r"\bHTTP\s?[1-5]\d\d\b|\b[1-5]\d\d (Too Many Requests|Not Found|Unauthorized|Forbidden|"
                          r"Service Unavailable|Bad Request|Internal Server Error|Bad Gateway|Gateway Timeout)\b", re.IGNORECASE)
# A number, not a digit inside a code ("SEV3", "P1", "EX-300" name things, they do not measure them).
_DIGIT = re.compile(r"(?<![A-Za-z-])\d")
# A numbered step's own number ("5. 문제가 없으면 …", "Step 3: …") orders the procedure; it is not a date, an
# amount or a count, so it fills no slot ("언제 바뀐 거야?" quoted a step among the changelog rows).
_STEP_NUMBER = re.compile(r"^(?:[-*•]\s*)?(?:\d{1,3}[.)]|(?:step|단계)\s?\d{1,3}[.:)]?)\s+", re.IGNORECASE)
# What "how much / how long / how many" is measured in: the sentence must carry that unit.
_MONEY_ASK = re.compile(r"\bhow much\b|\bprice|\bcost|\bfee|\bcharge|\ballowance|\bstipend|\bpaid\b|\bpay\b|\bper diem\b|"
                        r"\bsubsid|\breimburs|\bsalary\b|\brevenue\b|\bsales\b|\bprofit\b|"
                        r"얼마(?!나)|매출|영업이익|가격|비용|요금|수당|금액|지원금|일비|식대|한도|급여|보상|" + _MONEY_WORD, re.IGNORECASE)
_MONEY = re.compile(r"\d[\d,.]*\s*(원|만\s?원|억|천\s?원|KRW|USD|SGD|EUR|JPY|달러|won)|(KRW|USD|SGD|EUR|\$|₩|€)\s?\d",
                    re.IGNORECASE)
_DURATION_ASK = re.compile(r"\bhow (long|early|fast|quickly)\b|\bhow many ([a-z-]+ ){0,2}(days|hours|minutes|weeks|months|years)\b|얼마 ?(뒤|후|만|동안|간)|\bhow soon\b|\bhow often\b|기간|며칠|얼마나 (오래|걸|기다|자주|빨리|일찍)|몇 ?(시간|분|일|주|개월|년)",
                           re.IGNORECASE)
_DURATION = re.compile(r"\d[\d.,]*\s*(분|시간|일|주|개월|달|년|영업일|minutes?|mins?|hours?|hrs?|h\b|days?|weeks?|"
                       r"months?|years?|business days?)|\b(daily|weekly|monthly|quarterly|annually|every)\b|매(일|주|월|년)|분기|"
                       # ... or in words: "within one hour", "usually completes within two hours", "한 시간 안에"
                       r"\b(an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|half an?)"
                       r"(\s|-)(business |working |calendar )?(minutes?|hours?|days?|weeks?|months?|years?)\b|"
                       r"(한|두|세|네|다섯|여섯|일곱|여덟|아홉|열) ?(시간|달|주|해)(?![가-힣])|(한|두|세|네|다섯) ?주일",
                       re.IGNORECASE)
# A date is not a length of time: "2026년 3월 21일" does not answer "몇 분 전에?" ("how many minutes before?").
_DATE = re.compile(r"\d{4}\s?년(\s?\d{1,2}\s?월)?(\s?\d{1,2}\s?일)?|\d{1,2}\s?월\s?\d{1,2}\s?일|\d{4}[-./]\d{1,2}[-./]\d{1,2}")
# A length of time that cannot be a day of the month ("25일" may be one: 매월 25일).
_LENGTH = re.compile(r"\d[\d.,]*\s*(개월|년|시간|분|months?|years?|hours?|minutes?|mins?|hrs?)", re.IGNORECASE)
# A cap: a length of time with one of these words is a limit, which answers "can I take three months?".
_LIMIT = re.compile(r"\bup to\b|\bat most\b|\bmaximum\b|\bmax\b|최대|까지|이내|\bwithin\b", re.IGNORECASE)
# "How often" is answered by a rhythm ("every quarter", "매월", "연 2회"), not by a duration ("expires after 90 days").
_FREQUENCY_ASK = re.compile(r"\bhow often\b|\bhow frequently\b|얼마나 자주|몇 ?번씩|주기(는|가)|빈도", _I)
_FREQUENCY = re.compile(r"\bevery\b|\b(daily|weekly|monthly|quarterly|annually|yearly|biweekly|hourly)\b|"
                        r"\bper (day|week|month|quarter|year)\b|\b(once|twice|\d+ times) (a|per|each)\b|"
                        r"매(일|주|월|년|분기|시간)|마다|분기별|월별|주별|연간? ?\d+ ?회|월 ?\d+ ?회|주 ?\d+ ?회|\d+ ?(회|번)씩", _I)
# "How many customers": a count, not the duration, amount, share, date or clock time beside it ("for 2 h 47 min").
_COUNT_ASK = re.compile(r"\bhow many\b|\bnumber of\b|몇 ?(개|명|곳|건|군데|대|가지|번|회|팀|끼|장|칸|잔)", _I)
_HOW_MUCH_MONEY = re.compile(r"\bhow much\b|얼마(?!나)", _I)
# A count in words: "등급은 … 세 가지입니다", "three levels".
_COUNT_WORDS = re.compile(r"(한|두|세|네|다섯|여섯|일곱|여덟|아홉|열) ?(가지|개|명|곳|건|군데|대|번|회|팀|단계|종류|등급)|"
                          r"\b(two|three|four|five|six|seven|eight|nine|ten|twelve)\b", _I)
_TIMES_ASK = re.compile(r"\bhow many times (more|higher|larger|bigger|the)\b|\bwhat multiple\b|몇 ?배", re.IGNORECASE)
_TIMES = re.compile(r"\d(\.\d+)?\s*(x|×|배|times)(?![A-Za-z])", re.IGNORECASE)
# ("rate" alone is not a share: a rate limit is requests per minute, a rate per pallet an amount)
_PERCENT_ASK = re.compile(r"\bpercent|%|퍼센트|비율|율은|률은|율이|률이|\b(error|failure|success|interest|growth|discount|"
                          r"return|churn|fill|defect|damage|attrition) rate\b", re.IGNORECASE)
_PERCENT = re.compile(r"\d\s*%|퍼센트|percent", re.IGNORECASE)
# An amount on top of (or off) another: answered by money or by a share of the base.
_ON_TOP_ASK = re.compile(r"\b(extra|more|additional|premium|surcharge|discount|bonus|raise|increase)\b|가산|할증|추가|할인|더 ",
                         re.IGNORECASE)
# "How late do I need to stay for the dinner allowance?" asks until what hour, like "what time".
_CLOCK_ASK = re.compile(r"\bwhat time\b|\bat what hour\b|\bhow late\b|몇 ?시(?!간)", _I)
_CLOCK = re.compile(r"\d{1,2}:\d{2}|\d{1,2}\s?(a\.?m\b|p\.?m\b)|\d{1,2}\s?시(?!간)|\b(noon|midnight)\b|정오|자정|"
                    r"\d{1,2}\s?o'clock", _I)
_NOT_COUNTS = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}:\d{2}|\d[\d,.]*\s*(%|퍼센트|percent|원|만\s?원|억|천\s?원|KRW|USD|SGD|"
                         r"분|시간|일|주|개월|달|년|월|영업일|minutes?|mins?|hours?|hrs?|h\b|days?|weeks?|months?|years?)|"
                         r"(KRW|USD|SGD|EUR|\$|₩|€)\s?\d[\d,.]*", _I)
_WEEKDAY = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(january|february|march|april|may|june|july|august|"
                      r"september|october|november|december)\b|[월화수목금토일]요일|\bbusiness days?\b|"
                      r"영업일|\bwithin\b|이내|\bbefore\b|\bafter\b|\bbefore\b|전까지|까지|\bby\b|익일|다음 ?날|\bnext\b|"
                      r"\bquarter|\bweekly\b|\bdaily\b|\bmonthly\b|분기|매주|매월|매일|월말|월초|연말|연초|말일|"
                      r"\bend of (the|each|every) (month|year|quarter)\b|\bmonth-end\b|\byear-end\b|"
                      # a day named by its place: "on the last working day", "입사 첫날", "퇴사일", "당일"
                      r"\b(last|first|next|same|following) (working |business |calendar )?day\b|당일|첫날|마지막 ?(근무일|날)|"
                      r"퇴사일|입사일|출근일|근무일|"
                      # ... or by its month: "수당은 다음 달 급여와 함께 지급한다"
                      r"다음 ?(달|주|해)|익월|익년|이번 ?(달|주)|내년|급여일|월급날|\bpayday\b|\bpayroll\b", _I)
_WHO = re.compile(r"팀|부서|담당|센터|데스크|본부|매니저|관리자|책임자|리더|조장|대표|임원|위원회|승인권자|결재권자|\bteam\b|\bdesk\b|\bmanager\b|\blead\b|\bhead of\b|"
                  # a role: "Approver: Account executive", "Sales director"
                  r"\b(approver|director|executive|supervisor|administrator|coordinator|representative|committee|board|"
                  r"commander|engineer|owner|member)s?\b|엔지니어|오너|멤버|"
                  r"(?-i:\bCTO\b|\bCEO\b|\bCFO\b|\bHR\b|\bIT\b)|\bofficer\b|\bsupport\b|\bextension\b|내선|@|"
                  r"\b\d{2,4}-\d{3,4}(-\d{4})?\b|\bhelpdesk\b|\bservice ?desk\b|총무|인사|재무|보안|\bchannel\b|채널", _I)
# (the acronyms in capitals only: "it" is not IT)
_WHY = re.compile(r"\bbecause\b|\bcaused?\b|\bdue to\b|\broot cause\b|\bresult(ed)? (of|from)\b|\bexpired\b|"
                  r"\bfailure\b|\bfailed\b|원인|때문|인해|으로 인한|로 인한|탓|만료", _I)
_RULE = re.compile(r"\bnot\b|\bnever\b|\bmust\b|\bmay\b|\bcan\b|\bcannot\b|\ballowed\b|\bprohibited\b|\bblocked\b|"
                   r"\brequire|\bonly\b|\beligible\b|\bapproval\b|가능|불가|금지|허용|차단|필요|승인|없습니다|됩니다|"
                   r"않습니다|할 수|받을 수|만 |무료|유료|포함|별도|필수|\bfree\b|\bincluded\b|\bexcluded\b|\bexcl\.|"
                   r"\boptional\b|\bmandatory\b", _I)
_STEPWORD = re.compile(r"^\d{1,3}[.)]\s|^(step|단계)\s?\d|\b(click|open|select|go to|send|submit|fill|call|"
                       r"enter|press|run|report)\b|하세요|합니다|십시오|클릭|선택|입력|제출|신청|보고|연락", _I)
# A name: a capitalised word inside the line (every English sentence opens on a capital, which names nothing), a word
# in capitals or camel case ("PostgreSQL is our default"), a code, a Korean name of a room, hub or system, or a quote.
_NAMED = re.compile(r"(?<=[\s(/,:;—-])[A-Z][A-Za-z0-9]+|\b[A-Z]{2,}|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|\b[A-Z][A-Za-z]*\d|[가-힣]+(실|룸|센터|허브|큐|시스템)\b|"
                    r"[\"'“「『]", re.UNICODE)
# What follows from something: a loss, a charge, a deletion, a rule that then applies.
_FOLLOWS = re.compile(r"\b(is|are|will be|gets?|get) (automatically )?(deducted|deleted|removed|cancell?ed|charged|suspended|"
                      r"revoked|blocked|disabled|locked|returned|refunded|lost|forfeited|reclaimed|escalated|reset)\b|"
                      r"\bmust (be )?(repa|return|pay|reapply|request)|\bno longer\b|\bcannot\b|\bcan no\b|\bexpires?\b|"
                      r"\bautomatically\b|삭제|취소|반납|환수|차감|정지|만료|소멸|복구할 수 없|할 수 없|불가|자동(으로)?|"
                      r"(해야|하여야) (한다|합니다)|청구|\b(receives?|returns?|answers?|gets?) (an? )?(HTTP )?\d{3}\b|"
                      r"\berror\b|오류|에러|반환", _I)
# A place: in a building ("9th floor", "정문"), on a map ("하단역 5번 출구"), online ("#soltrack-status", a portal or an
# address) or in a named system ("in SolbitPay", "Software Center에서").
_PLACE = re.compile(r"\d+\s?(층|F\b)|\b\d+(st|nd|rd|th) floor\b|\b(floor|room|building|lobby|reception|entrance|gate|"
                    r"exit|station|stop|desk|counter|office|address|portal|site|channel|folder|drive|wiki|page|menu|"
                    r"tab|app|website|locker|cabinet|parking|car park|basement|rooftop|city|location|located)s?\b|#[A-Za-z0-9][\w-]*|"
                    r"로비|안내 ?데스크|입구|정문|후문|출구|[가-힣]역\b|정류장|정거장|건물|층|호실|[가-힣]실\b|센터|데스크|창구|"
                    r"주소|포털|채널|게시판|메뉴|폴더|사이트|주차장|사무실|라운지|탕비실|보관함|캐비닛|위치|소재지|[가-힣](로|길) ?\d", _I)
# ... a named system: a capitalised name after a preposition, or a Latin name or quote with a Korean particle of place
# (case-sensitive: "in SolbitPay", not "on time").
_PLACE_NAME = re.compile(r"\b(in|at|from|on|via|through) (the )?[A-Z][A-Za-z0-9]+|[A-Za-z0-9)\]\"”]\s?(에서|에|으로|로)(?![가-힣])|"
                         # a Korean name is not capitalised: "솔빛페이에서 한다", "경비실에서 받는다" (where it is done)
                         r"[가-힣]{2,}에서 (?:[가-힣]+ )?(?:한다|합니다|해야|하세요|신청|확인|제출|등록|수령|받|발급|출발|탑승|"
                         r"예약|접수|볼 수|찾|조회|다운로드|설치|처리)")
_URL_ASK = re.compile(r"\b(url|link|website|web ?address|web ?page|homepage)\b|웹 ?주소|링크|사이트|홈페이지", _I)
_URL = re.compile(r"https?://|\bwww\.|\b[a-z0-9-]+\.(?:[a-z0-9-]+\.)*(?:com|net|org|io|kr|sg|example|local|internal|corp)\b", _I)
_CODE_ASK = re.compile(r"\b(code|id|number)\b.{0,12}\?|(코드|번호)(는|가)? ?(뭐|무엇|몇)", _I)
_CODE = re.compile(r"\b[A-Z]{1,6}-?\d{2,}\b|\b\d{2,}-\d{2,}", 0)
_DEFINES = re.compile(r"\b(is|are|was|were|means|refers to)\b|[:—]|(이란|란|은|는) .*(입니다|말합니다|뜻합니다|의미합니다)|"
                      r"을 말합니다|를 말합니다|의미", _I)


def fills(kind: Kind, sentence: str, question: str = "") -> bool:
    """Whether the sentence has the shape of what `kind` asks for (an amount in the asked unit, a date,
    a team, a cause…). A step's own number is not read as a figure."""
    if kind != Kind.HOWTO:
        sentence = _STEP_NUMBER.sub("", sentence.lstrip(), count=1)
    if kind in (Kind.QUANTITY, Kind.TIME):
        sentence = _STATUS_CODE.sub(" ", sentence)
    if kind == Kind.QUANTITY:
        return _measures(sentence, question)
    if kind == Kind.TIME:
        if _CLOCK_ASK.search(question):  # "what time did it start?": a clock time, not "3시간 25분" or a weekday
            return bool(_CLOCK.search(sentence))
        # A length of time alone is not a when: "보존 기간: 3년" does not say when expired records are destroyed.
        return bool(_DIGIT.search(_without_lengths(sentence)) or _WEEKDAY.search(sentence))
    if kind == Kind.WHO:
        return bool(_WHO.search(sentence))
    if kind == Kind.WHY:
        return bool(_WHY.search(sentence))
    if kind == Kind.HOWTO:
        return bool(_STEPWORD.search(sentence))
    if kind == Kind.YESNO:  # "do we get a phone allowance?" is answered by the amount too, and a cap by its length
        # ("up to 12 months"); a length alone is not: "The probation period is 3 months." for "can I work remotely then?"
        return bool(_RULE.search(sentence) or _LIMIT.search(sentence) or _DIGIT.search(_without_lengths(sentence)))
    if kind == Kind.WHICH:
        return bool(_NAMED.search(sentence))
    if kind == Kind.CONSEQUENCE:
        return bool(_FOLLOWS.search(sentence))
    if kind == Kind.WHERE:  # a team or desk is where a laptop is returned or a form handed in ("IT팀에 반납")
        return bool(_PLACE.search(sentence) or _PLACE_NAME.search(sentence) or _URL.search(sentence)
                    or _WHO.search(sentence))
    if kind == Kind.WHAT:
        if _URL_ASK.search(question):  # "웹 주소가 뭐였지?": the line with the address, not the app's description
            return bool(_URL.search(sentence))
        if _CODE_ASK.search(question):
            return bool(_CODE.search(sentence))
        term = asked_term(question)
        if term and (said := [t for t in term if _says(sentence, t)]):
            # "what does grade A mean?": a line that uses A without defining it ("A·B 등급은 재입고하고") is not the answer.
            return any(_defines_term(sentence, t) for t in said)
        return bool(_DEFINES.search(sentence))
    return False


# Where a meaning question names its term: after "what does" up to "mean" / "stand for", after "meaning of" or "mean
# by" ("what do you mean by RPO?"), or the (at most three) words before "무슨 뜻" / "뜻이 뭐". Plain openings; the term
# is cut out with string operations (linear time).
_WHAT_DOES = re.compile(r"\bwhat (?:does|do|did) ", _I)
_MEAN_END = re.compile(r" (?:mean|stand for)\b", _I)
_MEANING_OF = re.compile(r"\bmeaning of |\bmean by ", _I)
_KOREAN_MEANING = re.compile(r"(?:무슨|뭔) ?(?:뜻|의미)|(?:뜻|의미)(?:이|가)? ?(?:뭐|무엇)")
_TERM_END = re.compile(r"[?.!,]")
_PARTICLE = re.compile(r"(?:은|는|이|가|이란|란|의)$")
_TERM_PART = re.compile(r"[A-Za-z0-9]+|[가-힣]+")
MAX_TERM = 40  # characters of a term asked about


@lru_cache(maxsize=256)
def asked_term(question: str) -> tuple[str, ...]:
    """The parts of the term a meaning question asks about ("grade A" -> grade, A; "B등급은" -> B, 등급), or none.
    Cached: `fills` asks it once for every candidate line of a turn."""
    phrase = ""
    if (opening := _WHAT_DOES.search(question)) and not _MEANING_OF.search(question):
        rest = question[opening.end():]
        if (end := _MEAN_END.search(rest)) and end.start() <= MAX_TERM:
            phrase = rest[:end.start()]
    elif opening := _MEANING_OF.search(question):
        rest = question[opening.end():][:MAX_TERM]
        phrase = rest[:end.start()] if (end := _TERM_END.search(rest)) else rest
    elif asking := _KOREAN_MEANING.search(question):
        phrase = " ".join(question[:asking.start()].split()[-3:])
    parts = (p for w in phrase.split() for p in _TERM_PART.findall(_PARTICLE.sub("", w)))
    # "A" as written is a grade, not the article; a one-syllable Hangul part ("투" of "도크 투 스톡") is inside too many
    # other words to tell anything.
    return tuple(dict.fromkeys(p for p in parts if (p.lower() not in ENGLISH_STOPWORDS or p == "A")
                               and not (len(p) == 1 and not p.isascii())))


def _says(sentence: str, part: str) -> bool:
    if part.isascii():  # "A" and "P1" as written ("A delivery …" is not grade A); a longer word in any case
        flags = _I if len(part) > 2 else 0
        return re.search(rf"(?<![A-Za-z0-9]){re.escape(part)}(?![A-Za-z0-9])", sentence, flags) is not None
    return part in sentence


def _defines_term(sentence: str, part: str) -> bool:
    """Whether the sentence gives `part` a definition: "A(재판매 가능)", "OTIF: on time in full", "OTIF means …"."""
    edge = r"(?<![A-Za-z0-9])" if part.isascii() else ""
    return re.search(rf"{edge}{re.escape(part)}\s?(?:[(:=—–]|means\b|stands for\b|refers to\b|(?:이)?란 )", sentence,
                     _I) is not None


def _without_lengths(sentence: str) -> str:
    """The sentence with its lengths of time taken out ("3년", "2 hours"); a date keeps a figure ("2026년 3월" is read
    as a date first)."""
    return _LENGTH.sub(" ", _DATE.sub(" 1 ", sentence))


def _measures(sentence: str, question: str) -> bool:
    """A number in the unit the question asks for: money for "how much", a duration for "how long", how often for
    "how often", a count (a number that is not a duration, an amount, a share or a date) for "how many"."""
    if _FREQUENCY_ASK.search(question):
        return bool(_FREQUENCY.search(sentence))
    for ask, unit in ((_TIMES_ASK, _TIMES), (_PERCENT_ASK, _PERCENT), (_DURATION_ASK, _DURATION)):
        if ask.search(question):
            return bool(unit.search(_DATE.sub(" ", sentence) if unit is _DURATION else sentence))
    # "한도가 분당 몇 개야?" counts requests: the asking words outweigh the noun of money beside them.
    if _COUNT_ASK.search(question) and not _HOW_MUCH_MONEY.search(question):
        return bool(_DIGIT.search(_NOT_COUNTS.sub(" ", sentence)) or _COUNT_WORDS.search(sentence))
    if _MONEY_ASK.search(question):
        # "how much extra do weekend shifts pay?": a premium or a discount is often a share of the base ("통상임금의 50%").
        return bool(_MONEY.search(sentence) or (_ON_TOP_ASK.search(question) and _PERCENT.search(sentence)))
    return bool(_DIGIT.search(sentence))


# Phrases that ask for a kind of answer with an ordinary noun in them: "time" in "what time does it start?" is no
# more the topic than 몇 시's 시 is.
_ASKING_PHRASES = re.compile(r"\bwhat time\b|\bat what hour\b|\bwhat date\b|\bwhich day\b|\bhow many times\b|" + _MEANING,
                             _I)


def without_asking(question: str) -> str:
    """The question with the phrases that ask for a kind of answer taken out, for its topic words."""
    return _ASKING_PHRASES.sub(" ", question)


# Words that say what kind of answer is wanted, not what it is about: never topic words.
QUESTION_WORDS = frozenset({
    "얼마", "언제", "누구", "어디", "무엇", "뭐", "몇", "며칠", "가능", "어떻게", "어느", "무슨", "방법", "절차", "기준", "규정", "정책",
    "policy", "rule", "rules", "process", "procedure", "way", "thing", "things",
})


# Lines about the document rather than its subject. Anchored at the start of the line (with an optional
# bullet or label) so a policy sentence that merely mentions an owner is kept.
_ABOUT_DOCUMENT = re.compile(
    r"^(document |page |policy )?(owner|author|maintainer|editor|written by|created by|prepared by|approved by|"
    r"reviewed by|last (edited|updated|modified|reviewed)|updated|version|revision|status|"
    r"classification|confidential|internal use|작성|소관|문서 ?(소유자|담당자?|작성자|번호|버전|관리자?)|작성자|작성일|"
    r"최종 ?(수정|개정|검토)|수정일|개정일|승인자|검토자|담당 ?(부서|팀)|소유 ?팀|관리 ?부서|버전|상태|"
    r"문서 ?등급|보안 ?등급)\s*[:：—-]", re.IGNORECASE)
_DESCRIBES = re.compile(
    r"^(this|the following) (document|page|policy|guide|article|sop|handbook|section|procedure|wiki)\b.{0,40}"
    r"\b(describes?|explains?|covers?|sets out|outlines?|summari[sz]es|is for|lists|says|applies|compares|introduces)\b|"
    r"^(이|본) ?(문서|페이지|안내|가이드|정책|규정|절차서?|핸드북)(는|은|에서는|에서)\b.{0,60}"
    r"(설명|정리|다룹니다|안내합니다|규정합니다|기술합니다|정합니다|담고|관리합니다|관리하며|소유합니다|비교합니다|소개합니다)|"
    r"^(this|the) (document|page|policy|guide|wiki)( page)? is (maintained|owned|managed|kept) by\b", re.IGNORECASE)
_POINTER = re.compile(
    r"^(see|refer to|for (more )?(details|information|more),? see|more (details|information) (in|at)|read)\b|"
    r"(자세한|상세한|세부) ?(내용|사항)은.{0,60}(참고|참조|확인)|(문서|페이지|위키)를? ?(참고|참조)하(세요|십시오|시기)",
    re.IGNORECASE)
# A line naming another document by its file ("eng/oncall-policy.md for the on-call rotation", "시간표는 공지
# busan-shuttle-timetable.txt 를 본다."): a related-documents list or a pointer, quoted as the answer's evidence it sent
# the user elsewhere. The name runs from a space, slash or bracket to its extension, with no dot: linear.
_NAMES_FILE = re.compile(r"(?:^|[\s/(])[\w-]++\.(?:md|markdown|docx?|pdf|xlsx?|pptx?|html?|txt|csv)\b", re.IGNORECASE)
# A line that hands the subject to another document ("Domestic trips follow the domestic travel policy
# (HR-POL-007).", "해외 출장의 일비는 'Overseas Travel Per Diem Schedule 2026'을 따른다."): the amount, date or
# steps asked for are in that document, not in this line. It still answers "which policy applies?".
_DEFERS = re.compile(
    r"^.{0,80}\b(follows?|is governed by|are governed by|falls? under|as set out in)\b.{0,60}"
    r"\b(policy|handbook|schedule|guide|guidelines|regulations?|rules|sop|manual|calendar)\b[^.!?;]{0,30}[.]?$|"
    r"^.{0,80}(규정|정책|지침|핸드북|매뉴얼|기준|안내|일정표|달력|handbook|policy|schedule|guide|calendar)"
    r"[^.!?;]{0,24}(을|를) 따(른다|릅니다|름)[.]?$", re.IGNORECASE)
_BYLINE = re.compile(
    r"\b\d+ ?min(ute)?s? read\b|\b\d+ views?\b|\bwas this (page|article) helpful\b|\blast edited by\b|"
    r"\bcreated by\b.{0,40}\b(on|at)\b|\b\d+ (comments?|likes?|replies)\b|^(reply|like|share)$|"
    r"^(comments?|댓글)\b|좋아요 ?\d|조회 ?수?\s*\d|\d+ ?분 (분량|읽기)|이 (페이지|문서)가 도움이 되었나요",
    re.IGNORECASE)
# A metadata strip: "Revision 6 · Effective 2025-10-15 · Owner: QA", "작성: IT 서비스데스크 / 2026-03-10",
# "영업본부 · 2026-01-15 · 부산": short fields joined by separators, one of them a date or an owner.
_META_STRIP = re.compile(r"^[^!?。;—]{0,160}\s[·|/]\s[^!?。;—]{0,200}$")  # a table row ("— h: v; …") is not one
_META_FIELD = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\b(owner|author|revision|rev\.?|version|effective|updated|"
                         r"edited|applies to)\b|작성|소관|담당|개정|시행일", re.IGNORECASE)
_LEADERS = re.compile(r"\.{5,}|…{3,}|·{5,}")  # a table of contents: "Chuseok ........ 4"
_CONTACT = re.compile(r"^(contact|questions\??|inquiries|문의(처|사항)?|연락처|담당자)\s*[:：—-]|"
                      r"^(questions|문의 사항이 있으면|문의는|궁금한 점은)\b", re.IGNORECASE)
_CHANGELOG_HEADING = re.compile(r"change ?log|revision history|version history|document history|release notes|"
                                r"변경 ?(이력|내역|사항)|개정 ?(이력|내역)|수정 ?이력|버전 ?이력", re.IGNORECASE)
_VERSION_ROW = re.compile(r"^v\d+(\.\d+)*\b", re.IGNORECASE)  # "v2.1 — …"; a dated row may be a holiday
_ASKS_CHANGES = re.compile(r"\bchang|\bupdat|\brevis|\bwhat'?s new\b|\bdifferen|\bold (policy|version)\b|"
                           r"\bprevious\b|바뀌|바뀐|바꼈|바꾼|변한|변했|변경|개정|달라|이전|예전|구버전", re.IGNORECASE)


# A question about the document itself: who owns, wrote or issued it, when it took effect, which version it is.
# Its owner line, byline or metadata strip is then the answer ("who owns the data retention policy?" is
# answered by "… · Policy owner: Park Minji, Head of Legal").
_DOCUMENT_NOUN = (r"(?:the |this |that |our )?(?:[\w-]+ ){0,4}(?:policy|document|doc|page|guide|handbook|calendar|"
                  r"timetable|schedule|notice|manual|sop|wiki|runbook|playbook|faq)\b")
_ASKS_DOCUMENT = re.compile(
    r"\bwho (wrote|issued|published|authored)\b|\b(author|publisher)s? of\b|\bwho(?:'s| is) the author\b|"
    r"\bwho (owns|maintains|approved|is responsible for) " + _DOCUMENT_NOUN + r"|"
    r"\b(owner|maintainer)s? of " + _DOCUMENT_NOUN + r"|\bissued by\b|\beffective date\b|\b(which|what) version\b|"
    r"\bwhen (was|did) [^?]{0,60}\b(issued|published|written|take effect|come into effect|become effective)\b|"
    r"\blast (updated|edited|reviewed|revised)\b|"
    r"누가 ?(썼|작성|냈|발행)|작성자|문서 ?(담당|관리자|주인|소유)|"
    r"언제 ?(냈|작성|발행|나왔)|언제부터 ?(적용|시행)|시행일|적용일|몇 ?버전|무슨 ?버전|최종 ?(수정|개정)", re.IGNORECASE)


def asks_about_document(question: str) -> bool:
    """Whether the question asks who owns, wrote or issued a document, or since when or in which version it
    applies (then its owner lines and metadata strips are answers, not boilerplate)."""
    return bool(_ASKS_DOCUMENT.search(question))


def asks_about_changes(question: str) -> bool:
    """Whether the question is about what changed (then changelog rows are answers)."""
    return bool(_ASKS_CHANGES.search(question))


def changelog(heading: str) -> bool:
    """Whether a section heading names a change history ("변경 이력", "Revision history")."""
    return bool(_CHANGELOG_HEADING.search(heading))


# A question about code: it asks for a command, a snippet, a query, a config, a syntax or a log, so a line of code or
# a log line may answer it. One alternation over the question: linear.
_CODE_QUESTION = re.compile(r"\b(?:commands?|cli|terminal|shell|scripts?|snippets?|syntax|code|config|configuration|"
                            r"yaml|json|sql|quer(?:y|ies)|regex|flags?|curl|logs?|log lines?)\b|"
                            r"명령어|명령|커맨드|코드|스크립트|스니펫|문법|쿼리|설정 ?파일|터미널|로그", _I)


def asks_for_code(question: str) -> bool:
    """Whether the question is about code (a command, snippet, query, config, syntax or log): then a line of code
    or a log line may be quoted as its answer (`code_line`)."""
    return bool(_CODE_QUESTION.search(question))


# What a line of code, a log or a JSON document looks like, as opposed to prose. Each is anchored or starts only
# where its run starts, and none nests a quantifier: linear in the line.
_JSON_KEY = re.compile(r'^[\[{]?\s*+"[^"]{1,80}+"\s*+:')  # {"severity": "ERROR", …} / "service.name": "gitserver",
_LOG_TIME = re.compile(r"^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d")  # 2026-03-03T10:42:17Z WARN gitserver-0 …
# level=error ts=… caller=main.go:88: a line opening on key=value pairs (two or more); prose that names a prop
# ("size={null} 또는 size={0}으로 전달된다면") does not open on one.
_KEY_VALUE = re.compile(r"^[A-Za-z_][\w.]*+=[^\s=]\S*+\s++[A-Za-z_][\w.]*+=")
_SQL = re.compile(r"^(?:SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE (?:TABLE|INDEX|VIEW)|ALTER TABLE|DROP (?:TABLE|INDEX)|"
                  r"WITH)\b.*\b(?:FROM|WHERE|SET|VALUES|AS|ON)\b")
_CODE_START = re.compile(r"^(?:\$ \S|[}\]]|#!|#include\b|//|/\*|<\?|(?:func|def|const|let|var)\s++[\w(*\[{]|"
                         r"return\s.*;$|import\s++\S.*(?:\sfrom\s|;$)|from \S++ import\s|package [a-z_]\w*+$|"
                         r"<[A-Za-z/!][^<>]*+>$)")
_GO_RECEIVER = re.compile(r"\.\(\*?[A-Za-z_]\w*+\)\.")  # gitserver.(*Client).Exec()


def code_line(line: str) -> bool:
    """Whether a line is code, a log line, JSON or SQL rather than prose: a line the chunker marked as the inside of
    a code block (in backticks, `rag.ingest.chunking.quotable_units`), a JSON key, a log line opening on a timestamp
    or made of key=value pairs, an SQL statement, a shell prompt, a line opening on a keyword of code or ending on
    an opening brace, a Go method path. Searched, never quoted for a question that is not about code."""
    line = line.strip()
    if len(line) > 2 and line[0] == "`" and line[-1] == "`":
        return True
    json = _JSON_KEY.match(line) and (line.endswith((",", "{", "[", '"', "}", "]", "true", "false", "null"))
                                       or line[-1].isdigit())  # not '"jsx": "react" 또는 … 인 경우 react.'
    return bool(line.endswith(("{", "};")) or json or _LOG_TIME.match(line) or _SQL.match(line)
                or _CODE_START.match(line) or _GO_RECEIVER.search(line) or _KEY_VALUE.match(line))


_DEFERRAL_NOT_ANSWERS = frozenset({Kind.QUANTITY, Kind.TIME, Kind.WHO, Kind.WHY, Kind.HOWTO, Kind.CONSEQUENCE})


def boilerplate(sentence: str, heading: str, kind: Kind, changes: bool, about_document: bool = False,
                code: bool = False) -> bool:
    """Whether a line is about the document (owner, purpose, pointer, byline, contact, changelog), or is code, not
    an answer. Contact lines stay for "who do I contact"; changelog rows for "what changed"; owner lines, bylines
    and metadata strips for a question about the document itself (`asks_about_document`); a line deferring to
    another document for "which one applies", "is it …" and "what is"; a line of code, a log line, JSON or SQL
    (`code_line`) for a question about code (`code`: `asks_for_code`)."""
    line = sentence.lstrip("-*•· ").strip()
    if not code and code_line(line):
        return True
    if _POINTER.search(line) or _LEADERS.search(line) or _NAMES_FILE.search(line):
        return True
    if not about_document and (_ABOUT_DOCUMENT.search(line) or _DESCRIBES.search(line) or _BYLINE.search(line)
                               or (_META_STRIP.search(line) and _META_FIELD.search(line))):
        return True
    if _CONTACT.search(line) and kind != Kind.WHO:
        return True
    if kind in _DEFERRAL_NOT_ANSWERS and len(line) <= 160 and _DEFERS.search(line) and not _MONEY.search(line) \
            and not _DURATION.search(line) and not _PERCENT.search(line):  # "…, up to SGD 15" says the amount
        return True
    if not changes and (_CHANGELOG_HEADING.search(heading) or _VERSION_ROW.search(line)):
        return True
    return False


# Numbers and Latin-script names ("20년", "2024", "P1", "SolTrack") mean the same in either language: a
# question naming one that its best evidence lacks is about something the documents may not cover.
# A capitalised word counts unless it starts the question ("How", "When").
# A code with a digit ("P1", "INC-2026-014") starts where a run of letters, digits and hyphens starts, and
# runs to its first digit without giving back: `\b[A-Za-z][A-Za-z0-9-]*[0-9]…` restarted at every letter of
# "-a-a-a-…" and rescanned the run each time (quadratic in the question's length, tests/test_linear_regex.py).
_ANCHOR = re.compile(r"\d+(?:[.,]\d+)?(?:[년월일시분개명대원회층차주])?|(?<![A-Za-z0-9-])[A-Za-z][A-Za-z-]*+[0-9][A-Za-z0-9-]*\b|(?<=[\s(\"'])[A-Z][A-Za-z0-9]+\b|"
                     r"\b[A-Z]{2,}[A-Za-z0-9]*\b|\b[A-Z][a-z]+[A-Z][A-Za-z0-9]*\b")


def anchors(question: str) -> list[str]:
    """The question's numbers and Latin-script names, in order, each once."""
    return [a for a in dict.fromkeys(_ANCHOR.findall(question)) if a not in _NOT_NAMES]


_NOT_NAMES = frozenset({"I", "OK", "Ok"})


def mentions(text: str, anchor: str) -> bool:
    """Whether `anchor` appears as a whole number or word ("20" is not in "2026", "P1" not in "P10"); a
    number with a Korean unit ("20년") must carry that unit, or an English one ("20 years"), not another
    ("20일")."""
    if anchor[-1].isdigit() or anchor[-1].isascii():
        pattern = rf"(?<![0-9A-Za-z]){re.escape(anchor)}(?![0-9A-Za-z])"
    else:
        number, unit = re.escape(anchor[:-1]), re.escape(anchor[-1])
        pattern = rf"(?<![0-9A-Za-z.,]){number}(?:\s?{unit}|\s?[A-Za-z]|(?![0-9가-힣.,]))"
    return re.search(pattern, text, re.IGNORECASE) is not None
