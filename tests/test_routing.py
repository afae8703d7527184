"""Routing as users actually type (issue 24, item 6): requests and questions behind a chatty prefix,
thanks behind a prefix, questions about the state of things now, ordinary questions that mention a past
mistake, quick arithmetic and reactions; in Korean and English, several phrasings of each shape.

These go through the whole offline router (rules, then the classifier), the way the pipeline calls it.
"""
import pytest

from rag.understand.intent import ClassifierRouter
from rag.understand.routing import Intent, rule_route, split_chatter

# A request to change something, behind thanks / "ok" / "그럼": an action, never small talk.
ACTIONS_BEHIND_A_PREFIX = [
    "ok, the badge thing, do it for me",
    "ok then, do it for me",
    "ok thanks, now please restart the billing service",
    "great, go ahead and delete project alpha-web",
    "alright then, cancel my booking for room 5A",
    "thanks! can you also reindex the handbook?",
    "cool, now turn off search.semantic-ranking please",
    "ok got it. lock my old account for me",
    "sounds good, book the big meeting room tomorrow at 3 for me",
    "thanks, open a ticket for the broken printer on floor 9",
    "perfect, send the changelog to #releases",
    "hmm ok, please roll back the last deploy",
    "nice, could you file my vacation for next Friday?",
    "thank you! please issue the refund credit to those customers now",
    "고마워, 그 문서 위키에 좀 올려줘",
    "오케이 그럼 환불 처리해줘",
    "오케이 그럼 그 건 처리해줘",
    "ㅇㅋ 그럼 그 계정 잠금 풀어줘",
    "알겠어, 그럼 다음주 금요일로 연차 신청해줘",
    "고마워요! 그럼 회의실 내일 3시로 잡아주세요",
    "좋아 그럼 배포 롤백 진행해줘",
    "네 알겠습니다. 그 티켓 닫아주세요",
    "감사합니다~ 혹시 제 출입카드 정지 좀 해주실 수 있나요?",
    "오케이, 그 프로젝트 복구해줘",
    "넵 그럼 핸드북 다시 색인 부탁해",
    "고마워 ㅎㅎ 그 고객사들한테 보상 크레딧 넣어줘",
    "ㅋㅋ 알겠어 그럼 알림 꺼줘",
    "좋네요, 슬랙 공지 채널에 공지 보내주세요",
    "ok so can you go ahead and archive the old onboarding page",
    "thanks for that. now create a ticket for the VPN issue please",
    "alright, reset my 2FA",
    "got it — please revoke Kim's access to the billing repo",
    "cool cool, schedule the deploy for 6pm",
    "yes please do that",
    "yep, cancel it",
    "감사해요 그럼 그 일정 취소해 주세요",
    "오 좋다 그럼 공지 메일 발송해줘",
    "알았어 그럼 내 휴가 하루 더 추가해줘",
    "응응 그걸로 예약 잡아줘",
    "ㅇㅇ 지금 바로 배포해",
    "그럼 그 채널에 요약본 공유해줘",
    "네네 계정 비밀번호 초기화 부탁드려요",
    "고마워요~ 근데 저 권한 좀 추가해 주실래요?",
    "pls add me to the #incidents channel",
    "그 문서 슬랙에 올려줄래?",
    "제 연차 좀 내주세요",
    "could you put the Q3 deck on the shared drive?",
    "ok then please go ahead",
    "yes, do it",
    "네 그렇게 해주세요",
    "ok sounds good, set up a meeting with the finance team for Monday",
    "그럼 그 사람 계정 비활성화해줘",
    "thanks, remind me tomorrow at 9 to submit the report",
    "음 그럼 그거 취소해 줄 수 있어?",
    "ok can u delete the draft",
    "thx, also pls close OPS-12",
    "kk 결재 올려놔",
    "아 그리고 알림 좀 꺼 줘",
    "그럼 회의록 정리해서 팀 채널에 올려줘",
    "좋아요 그럼 그걸로 진행해 주세요",
    "got it, now rerun the failed job",
    "then just approve it",
    "오케이 그럼 내일 오전으로 미뤄줘",
]

# Thanks, agreement and reactions, alone or behind another chatty word: small talk, never a search.
SMALL_TALK = [
    "ㅇㅋ 감사",
    "ㅇㅋㅇㅋ 고마워",
    "아 그렇구나 감사합니다",
    "오 좋네요 감사해요",
    "넵 확인했습니다 감사합니다",
    "알겠어요 고마워요~",
    "오케이 이해했어 땡큐",
    "아하 그렇군요",
    "좋아요 👍",
    "ok cool thanks",
    "ah I see, thanks a lot",
    "got it, appreciate it",
    "alright, thank you so much!",
    "perfect, that's all I needed",
    "ok that makes sense, cheers",
    "oh nice, thx",
    "understood, thanks for the help",
    "k thx",
    "great stuff, thanks again",
    # reactions
    "wow",
    "oh no",
    "haha that's funny",
    "hmm interesting",
    "yikes",
    "👍",
    "헐",
    "헐 대박",
    "ㅠㅠ 아쉽다",
    "오 신기하네",
    "ㅋㅋㅋㅋ",
    "아이고",
    "ah ok, thanks!",
    "thanks so much, really helpful",
    "much appreciated 🙏",
    "haha nice",
    "good night!",
    "you rock",
    "that's a relief",
    "oh wow, didn't know that",
    "아 넵 감사합니다!!",
    "오 그렇구나 ㅎㅎ",
    "ㄳㄳ",
    "완전 좋네요",
    "헐 진짜?",
    "ㅋㅋㅋ 웃기다",
    "수고하셨습니다",
    "덕분에 살았어요",
    "ㅜㅜ",
    "lol that's wild",
    "nice!!",
    "omg",
    "hmm",
    "오호라",
    "좋은 하루 보내세요",
    "have a nice weekend!",
    "you're awesome, thanks",
    "이거 완전 유용하네요 감사",
    "ok 👍👍",
    "알겠습니당",
    "넵넵",
    "감사합니다 좋은 하루 되세요",
    "thanks, you too",
    "what is 45 minus 17",
    "5000의 10%는 얼마?",
]

# Quick arithmetic with nothing from the documents in it: no search.
ARITHMETIC = [
    "what's 15% of 2400?",
    "12 * 7?",
    "how much is 350 divided by 7",
    "what is 2+2",
    "1200 / 60 = ?",
    "3 곱하기 7은?",
    "120의 15%는 얼마야?",
    "2400 나누기 12는?",
    "35+48은?",
    "50000원에서 30% 할인하면 얼마야?",
    "what's 7 times 8?",
    "250 * 4 = ?",
    "how much is 20% off 45,000 won?",
    "17 더하기 25는?",
    "10만원의 3%는?",
]

# The state of something now: a live lookup, not a document search.
LIVE_STATE = [
    "who is on call right now?",
    "is that error still happening?",
    "is the gateway still down?",
    "are we still seeing 502s on checkout?",
    "is the build server up at the moment?",
    "how many tickets are in the queue right now?",
    "is the WMS maintenance over yet?",
    "has the outage been resolved yet?",
    "is the VPN working right now?",
    "what's the current status of the deploy?",
    "ok thanks, is the gateway still down?",
    "지금 온콜 누구야?",
    "그 에러 아직도 나?",
    "아직도 장애 중이야?",
    "지금 VPN 잘 돼?",
    "현재 결제 서버 살아 있어?",
    "WMS 점검 아직 안 끝났어?",
    "지금 배포 돌고 있어?",
    "그 오류 지금도 발생하고 있어?",
    "지금 9층 프린터 용지 있어?",
    "지금 대기열에 몇 건 있어?",
    "고마워, 근데 그 장애 아직 진행 중이야?",
    "is jira down for anyone else right now?",
    "are builds still failing on main?",
    "is the office wifi working now?",
    "has the payments incident been fixed yet?",
    "is the staging environment available at the moment?",
    "how many people are on the waitlist right now?",
    "지금 젠킨스 빌드 계속 실패해?",
    "아직 결제 오류 나고 있어?",
    "현재 서버 응답 느려?",
    "지금 3층 회의실 비었어?",
    "오늘 당직자 누구야?",
    "지금 사내망 접속 안 되는 거 맞아?",
    "is there an outage right now?",
    "what's the status of ticket OPS-123?",
    "is the 3rd floor printer working?",
    "any incidents ongoing at the moment?",
    "지금 슬랙 느린 거 나만 그래?",
    "지금 회의실 A 누가 쓰고 있어?",
    "현재 대기 중인 배송 몇 건이야?",
    "can you check whether the VPN is down right now",
    "thanks, but is the fix deployed yet?",
    "is the sorter at Icheon still stuck?",
    "지금 출입 게이트 고장 난 거야?",
    "지금 서버 터진 거 맞지?",
    "아직도 로그인 안 돼?",
]

# Ordinary document questions, some mentioning a past mistake or "now"/"still" about a policy.
DOCUMENT_QUESTIONS = [
    "I deleted a file by mistake yesterday, can it still be recovered?",
    "I accidentally deleted a project last week, is it still recoverable?",
    "I sent the wrong invoice to a customer yesterday, what should I do now?",
    "I forgot to submit my receipts last month, can I still claim them?",
    "I missed the vacation request deadline, can I still apply?",
    "I clicked a phishing link this morning, what now?",
    "I pushed a secret to git by accident, what's the procedure?",
    "I lost my badge yesterday, what do I do?",
    "is the old expense policy still valid?",
    "what's the current hotel limit for business trips?",
    "어제 실수로 파일을 삭제했는데 아직 복구할 수 있어?",
    "지난주에 프로젝트를 잘못 지웠는데 지금도 살릴 수 있나요?",
    "영수증 제출을 깜빡했는데 지금이라도 올릴 수 있어?",
    "어제 고객사에 잘못된 견적서를 보냈어요. 어떻게 해야 하나요?",
    "실수로 개인정보가 담긴 메일을 외부로 보냈는데 어떻게 해?",
    "휴가 신청 기한을 놓쳤는데 지금 신청해도 돼?",
    "출입카드를 어제 잃어버렸는데 어떻게 해야 돼?",
    "방금 피싱 링크를 눌렀어요. 뭘 해야 하죠?",
    "예전 출장 규정 아직 유효해?",
    "현재 출장비 한도가 얼마야?",
    # a question behind thanks is still a question
    "고마워, 그럼 야근 식대 규정도 알려줘",
    "thanks! and what's the hotel limit in Busan?",
    "ok, and how many vacation days do new hires get?",
    "ㅇㅋ 그럼 부산 사무실 주차는 어떻게 해?",
    "I accidentally approved the wrong expense report last week, can I undo it?",
    "we deleted the customer's data by mistake, are we required to report it?",
    "I booked a flight through the wrong agency yesterday, will it still be reimbursed?",
    "what's the current version of the remote work policy?",
    "is the 2022 travel policy still in effect?",
    "어제 실수로 잘못된 계좌로 송금했는데 어떻게 처리해야 하나요?",
    "지난달 출장 영수증을 못 냈는데 지금 내도 돼?",
    "실수로 공용 폴더를 지웠어요. 복구 요청은 어디로 해요?",
    "지금 적용되는 재택근무 규정이 뭐야?",
    "thanks! also, who approves overtime?",
    "ok and where do I find the VPN setup guide",
    "고마워 근데 출장비 정산은 며칠 안에 해야 돼?",
    "오케이 그럼 부산 사무실 주소 알려줘",
    "how many days of sick leave do we get?",
    "how long are backups kept?",
    "신입 교육은 몇 주 동안 해?",
    "I accidentally shared a confidential doc externally, what's the process?",
    "제가 실수로 외부에 기밀문서를 공유했어요 어떻게 하죠",
    "어제 잘못 결제한 건 환불 받을 수 있어?",
    "is overtime still paid at 1.5x?",
    "how do I reset my password?",
    "비밀번호 재설정은 어떻게 해?",
    "what happens if I miss the expense deadline?",
    "who do I ask about parking?",
    "ok so what's the difference between Pro and Enterprise?",
    "고마워! 혹시 야간 근무 수당도 있어?",
    "please explain the refund policy",
    "I accidentally restarted the prod server yesterday, do I need to file an incident report?",
    "어제 실수로 운영 서버를 재시작했는데 보고해야 돼?",
    "can a deleted mailbox still be restored after 30 days?",
    "ok, where's the office in Busan?",
    "고마워 ㅎㅎ 그럼 싱가포르 지사 복지는 어때?",
    "is remote work still allowed on Fridays?",
    "what is an incident?",
    "장애 등급 기준이 뭐야?",
    "who is responsible for on-call scheduling?",
]

CASES = ([(t, Intent.ACTION) for t in ACTIONS_BEHIND_A_PREFIX] + [(t, Intent.CHITCHAT) for t in SMALL_TALK]
         + [(t, Intent.CHITCHAT) for t in ARITHMETIC] + [(t, Intent.REALTIME_LOOKUP) for t in LIVE_STATE]
         + [(t, Intent.KNOWLEDGE_SEARCH) for t in DOCUMENT_QUESTIONS])


@pytest.fixture(scope="module")
def router(classifier, analyzer):
    return ClassifierRouter(classifier, analyzer)


@pytest.mark.parametrize("text,intent", CASES)
def test_each_shape_is_routed(router, text, intent):
    route = router.route(text, text)
    assert route.intent == intent, (route.intent, route.confidence, route.reason)
    assert route.confidence >= 0.65, route  # confident enough to be taken as it is (the pipeline's threshold)


ASKS = ACTIONS_BEHIND_A_PREFIX + LIVE_STATE + DOCUMENT_QUESTIONS


@pytest.mark.parametrize("text", ASKS)
def test_small_talk_never_reaches_085_on_a_message_that_asks_for_something(router, text):
    route = router.route(text, text)
    assert not (route.intent == Intent.CHITCHAT and route.confidence >= 0.85), route
    ruled = rule_route(text)
    assert not (ruled and ruled.intent == Intent.CHITCHAT and ruled.confidence >= 0.85), ruled


@pytest.mark.parametrize("text,chatter,rest", [
    ("오케이 그럼 환불 처리해줘", "오케이 그럼", "환불 처리해줘"),
    ("ok thanks, now please restart the billing service", "ok thanks,", "now please restart the billing service"),
    ("ㅇㅋ 감사", "ㅇㅋ 감사", ""),
    ("thanks!", "thanks!", ""),
    ("what is the hotel limit?", "", "what is the hotel limit?"),
    ("그 에러 아직도 나?", "", "그 에러 아직도 나?"),
    ("great, the vacation policy makes sense now, thanks", "great,", "the vacation policy makes sense now, thanks"),
])
def test_the_chatty_prefix_is_split_from_what_the_message_asks(text, chatter, rest):
    assert split_chatter(text) == (chatter, rest)


@pytest.mark.parametrize("text,intent", [
    # The classifier sees what is left after the prefix: the message's own words decide.
    ("ok, and what does the glossary say about Beacon", Intent.KNOWLEDGE_SEARCH),
    ("고마워 ㅎㅎ 근데 연차는 몇 일이야", Intent.KNOWLEDGE_SEARCH),
])
def test_a_question_without_a_question_mark_behind_thanks_is_searched(router, text, intent):
    assert router.route(text, text).intent == intent


@pytest.mark.parametrize("text,offline,expected", [
    # The model (the rewrite call) says small talk; the message asks for something.
    ("고마워, 그 문서 위키에 좀 올려줘", Intent.ACTION, Intent.AMBIGUOUS),  # asked about, never run on one word
    ("ok thanks, is the gateway still down?", Intent.REALTIME_LOOKUP, Intent.REALTIME_LOOKUP),
    ("thanks! and what's the hotel limit in Busan?", Intent.KNOWLEDGE_SEARCH, Intent.KNOWLEDGE_SEARCH),
    ("ㅇㅋ 감사", Intent.CHITCHAT, Intent.CHITCHAT),
])
def test_the_models_small_talk_does_not_swallow_a_request(text, offline, expected):
    from rag.understand.routing import Route, reconcile

    model = Route(Intent.CHITCHAT, 0.95, reason="llm")
    route = reconcile(model, Route(offline, 0.9, reason="rules"), text, 0.65)
    assert route.intent == expected, route
    assert not (route.intent == Intent.CHITCHAT and route.confidence >= 0.85 and expected != Intent.CHITCHAT)


@pytest.mark.parametrize("text,intent", [
    ("did my expense claim get approved?", Intent.REALTIME_LOOKUP),
    ("has my leave request been approved yet", Intent.REALTIME_LOOKUP),
    ("내 경비 청구 승인됐어?", Intent.REALTIME_LOOKUP),
    ("제 휴가 신청 처리됐나요?", Intent.REALTIME_LOOKUP),
    ("any open incidents?", Intent.REALTIME_LOOKUP),
    ("are there any active outages?", Intent.REALTIME_LOOKUP),
    ("nope", Intent.CHITCHAT),
    ("nah, all good", Intent.CHITCHAT),
    # controls: the rule about one's own request, not its state
    ("who approves my expense claim?", Intent.KNOWLEDGE_SEARCH),
    ("Is my overtime paid at 1.5x?", Intent.KNOWLEDGE_SEARCH),
    ("내 경비 청구는 누가 승인해?", Intent.KNOWLEDGE_SEARCH),
    ("nope, I meant the refund policy for Busan customers?", Intent.KNOWLEDGE_SEARCH),
])
def test_the_state_of_ones_own_request_is_live_and_a_bare_no_is_small_talk(router, text, intent):
    route = router.route(text, text)
    assert route.intent == intent, (route.intent, route.confidence, route.reason)


# --- Second round (issue 24 item 6): shapes from eval/routing-dev.jsonl's misses, in other phrasings -------

# A polite "could / would / will you ...?" with something specific (a time, "for me", "my", "this") asks
# docbot to do it; only "can you <verb> a/an/any ...?" about things in general asks whether it can be done.
POLITE_REQUESTS = [
    "cool thanks! could you schedule a reminder for friday 10am?",
    "could you create a channel for the offsite next week?",
    "would you open a ticket for the broken badge reader?",
    "can you book a room for 4 people tomorrow at 2?",
    "could you add a calendar event for the retro on Thursday?",
    "will you send a reminder to the team tonight?",
    "ok, can you set a meeting with HR for me?",
]
CAPABILITY_QUESTIONS = [
    "can you remove a partition from a kafka topic?",
    "can you delete a project after it has been archived?",
    "can you cancel a flight after check-in?",
]

# Thanks closing a message that asks nothing ("확인 감사", "답변 감사합니다", "thanks a ton"), and a reaction after
# an interjection ("ugh, mondays"): small talk.
THANKS_AT_THE_END = [
    "ㅇㅋ 확인 감사",
    "답변 감사합니다",
    "빠른 답변 감사해요!",
    "설명 고마워요",
    "정보 감사요 ㅎㅎ",
    "아하 이제 이해했어요 고맙습니다",
    "링크 잘 받았습니다 감사합니다",
    "cool, thanks a ton",
    "thanks a bunch!",
    "great answer, thanks",
    "helpful info, thx",
    "alright cheers mate",
    "nice one, cheers buddy",
]
REACTIONS_AFTER_AN_INTERJECTION = [
    "ugh, mondays",
    "oh man that's annoying",
    "lol classic",
    "omg finally",
    "haha fair",
    "ㅋㅋ 레전드",
    "헐 역대급",
    "phew",
]
# ... but a request or a question behind thanks is not small talk.
NOT_SMALL_TALK = [
    ("자료 보내주시면 감사하겠습니다", Intent.ACTION),
    ("휴가 정책 알려주시면 감사하겠습니다", Intent.KNOWLEDGE_SEARCH),
    ("please restart the gateway, thanks", Intent.ACTION),
    ("could you check the VPN setup guide, thanks", Intent.KNOWLEDGE_SEARCH),
    ("ugh, is the VPN down again?", Intent.REALTIME_LOOKUP),
    ("wow, how do I reset 2FA?", Intent.KNOWLEDGE_SEARCH),
    ("lol ok, restart the gateway", Intent.ACTION),
    ("네 그럼 환불 처리 부탁드립니다", Intent.ACTION),  # "드립" inside 부탁드립니다 is no joke
    ("결재 요청 부탁드립니다", Intent.ACTION),
    ("thanks, what's the parking policy at the Busan office?", Intent.KNOWLEDGE_SEARCH),
]

# Quick arithmetic behind a lead-in ("quick one:").
ARITHMETIC_BEHIND_A_LEAD_IN = [
    "quick one: 45 * 3?",
    "quick q: 120/8?",
    "math check: 17 * 23",
    "sanity check — 2400 / 12?",
    "간단한 계산: 350 곱하기 12는?",
]

# Live state in words of things going wrong now (timeouts, flaky, red/green builds, 타임아웃, 불안정, 깨져).
LIVE_STATE_WORDS = [
    "are the payment timeouts still going on?",
    "is the CI pipeline green right now?",
    "is the Seoul office network still flaky?",
    "are customers still getting timeouts on checkout?",
    "is the search API still timing out?",
    "is the dashboard still lagging?",
    "are the nightly jobs still crashing?",
    "is the main build still red?",
    "지금 결제 API 타임아웃 나?",
    "지금도 서버 불안정해?",
    "지금 빌드 깨져 있어?",
    "앱 아직도 튕겨?",
]
# Configured values asked about with "still" are document questions.
SETTINGS_WITH_STILL = [
    "is the API timeout still 30 seconds?",
    "is the session timeout still 15 minutes?",
    "what's the timeout for API requests?",
]

# A past mistake and a remedy (recover, undo, a way to get it back): a question for the documents, however
# "아직 / still / now" it is asked. The state of a repair is still live ("장애 복구됐어?").
PAST_MISTAKES = [
    "그저께 프로젝트를 실수로 삭제했어요 아직 복구되나요?",
    "실수로 지운 메일 아직 복구돼?",
    "어제 잘못 삭제한 채널 지금도 되살릴 수 있어?",
    "잘못 보낸 메일 아직 취소되나요?",
    "yesterday I accidentally dropped a table in staging, is there a way to restore it?",
    "I deleted a page by mistake, is there any way to get it back?",
    "accidentally archived a channel this morning, can it still be undone?",
    "I mistakenly closed the wrong ticket, is it still possible to reopen it?",
]
REPAIR_STATE = [
    "결제 장애 아직 복구 안 됐어?",
    "is the checkout outage still not fixed?",
]

ROUND_TWO = ([(t, Intent.ACTION) for t in POLITE_REQUESTS] + [(t, Intent.KNOWLEDGE_SEARCH) for t in CAPABILITY_QUESTIONS]
             + [(t, Intent.CHITCHAT) for t in THANKS_AT_THE_END + REACTIONS_AFTER_AN_INTERJECTION]
             + NOT_SMALL_TALK + [(t, Intent.CHITCHAT) for t in ARITHMETIC_BEHIND_A_LEAD_IN]
             + [(t, Intent.REALTIME_LOOKUP) for t in LIVE_STATE_WORDS + REPAIR_STATE]
             + [(t, Intent.KNOWLEDGE_SEARCH) for t in SETTINGS_WITH_STILL + PAST_MISTAKES])


@pytest.mark.parametrize("text,intent", ROUND_TWO)
def test_round_two_shapes_are_routed(router, text, intent):
    route = router.route(text, text)
    assert route.intent == intent, (route.intent, route.confidence, route.reason)
    assert route.confidence >= 0.65, route


@pytest.mark.parametrize("text", [t for t, i in ROUND_TWO if i != Intent.CHITCHAT])
def test_round_two_small_talk_never_reaches_085_on_a_message_that_asks(router, text):
    route = router.route(text, text)
    assert not (route.intent == Intent.CHITCHAT and route.confidence >= 0.85), route


# Jokes, questions about docbot itself and how one feels: small talk (below 0.85 where they ask).
@pytest.mark.parametrize("text", [
    "tell me a joke", "know any good puns?", "농담 하나 해줘", "아재개그 해봐",
    "are you a robot?", "what's your name?", "who made you?", "너 로봇이야?", "네 이름이 뭐야?",
    "배고프다", "아 졸려", "I'm so tired", "feeling kinda bored",
])
def test_jokes_docbot_and_feelings_are_small_talk(router, text):
    route = router.route(text, text)
    assert route.intent == Intent.CHITCHAT, route
    assert route.confidence >= 0.65, route


@pytest.mark.parametrize("text,intent", [
    ("is anyone using the 5th floor focus room at the moment?", Intent.REALTIME_LOOKUP),
    ("is room 4B in use right now?", Intent.REALTIME_LOOKUP),
    ("what is the policy on jokes in Slack channels?", Intent.KNOWLEDGE_SEARCH),
    ("how do I book a focus room?", Intent.KNOWLEDGE_SEARCH),
])
def test_a_room_in_use_now_is_live_and_rules_about_it_are_documents(router, text, intent):
    assert router.route(text, text).intent == intent


@pytest.mark.parametrize("text,intent", [
    # Korean imperatives that end in 버려 / 놔 / ㄱㄱ, even after an interjection.
    ("음 그래 그럼 그냥 삭제해버려", Intent.ACTION),
    ("아 그거 그냥 지워버려", Intent.ACTION),
    ("결재 올려놔", Intent.ACTION),
    ("ㅇㅋ 계정 생성 ㄱㄱ", Intent.ACTION),
    ("재배포 고고", Intent.ACTION),
    # Idioms of small talk.
    ("cool beans", Intent.CHITCHAT),
    ("mm ok", Intent.CHITCHAT),
    ("hello there", Intent.CHITCHAT),
    ("okie dokie", Intent.CHITCHAT),
    # Live state: alerts firing, a jammed printer, a room in use.
    ("are the alerts still firing?", Intent.REALTIME_LOOKUP),
    ("is the 2nd floor printer jammed again?", Intent.REALTIME_LOOKUP),
    ("지금 회의실 3A 사용 중이야?", Intent.REALTIME_LOOKUP),
    ("is the build broken?", Intent.REALTIME_LOOKUP),
    # ... and the documents about them.
    ("what should I do when an alert is firing?", Intent.KNOWLEDGE_SEARCH),
    ("회의실 사용 규칙 알려줘", Intent.KNOWLEDGE_SEARCH),
])
def test_round_three_shapes_are_routed(router, text, intent):
    route = router.route(text, text)
    assert route.intent == intent, (route.intent, route.confidence, route.reason)
    assert route.confidence >= 0.65, route


PREFIXES = ["", "ok, ", "ok thanks! ", "ㅇㅋ ", "고마워, ", "오케이 그럼 ", "haha ", "ugh, ", "헐 ", "thanks a ton, ",
            "ㅋㅋ 알겠어 ", "great answer, thanks. ", "네 감사합니다! "]
ASKED = ["restart the billing service", "좀 올려줘", "처리해줘", "is the gateway still down?", "지금 온콜 누구야?",
         "what's the hotel limit?", "휴가 며칠이야?", "could you book a room for me", "can you check the VPN guide",
         "알려주시면 감사하겠습니다", "tell me about the refund policy", "계정 생성 ㄱㄱ"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_no_prefix_makes_a_message_that_asks_sure_small_talk(prefix):
    # Every opening in front of every kind of ask: the rules never call it small talk at 0.85 or more.
    for asked in ASKED:
        ruled = rule_route(prefix + asked)
        assert not (ruled and ruled.intent == Intent.CHITCHAT and ruled.confidence >= 0.85), (prefix + asked, ruled)


LOOK_ALIKES = [
    # "며칠 보관해줘?" asks how long something is kept (a service's rule), not to keep it: a question word and a
    # question mark make a 해줘 clause a question.
    ("개인 택배는 며칠 보관해줘?", Intent.KNOWLEDGE_SEARCH),
    ("메일룸은 택배를 며칠까지 보관해줘?", Intent.KNOWLEDGE_SEARCH),
    ("분실물은 얼마나 맡아줘?", Intent.KNOWLEDGE_SEARCH),
    ("회사에서 교통비는 얼마까지 지원해줘?", Intent.KNOWLEDGE_SEARCH),
    ("법인카드 한도는 언제 올려줘?", Intent.KNOWLEDGE_SEARCH),
    ("택배 좀 보관해줘", Intent.ACTION),  # no question word: a request
    ("이 택배 3일만 보관해줘", Intent.ACTION),
    # An uptime SLA or target is a contract term in the documents; uptime itself is live.
    ("and what's its uptime SLA?", Intent.KNOWLEDGE_SEARCH),
    ("What uptime target does the Enterprise plan guarantee?", Intent.KNOWLEDGE_SEARCH),
    ("what's the uptime commitment in the contract?", Intent.KNOWLEDGE_SEARCH),
    ("what's the API uptime right now?", Intent.REALTIME_LOOKUP),
    ("show me the current uptime of the gateway", Intent.REALTIME_LOOKUP),
]

MORE_LIVE_AND_POLITE = [
    # Live state in words the rules did not know: the pager, "정상", "so far", "again", someone in a room.
    ("who's holding the pager at the moment?", Intent.REALTIME_LOOKUP),
    ("who has the pager right now?", Intent.REALTIME_LOOKUP),
    ("결제 서버 지금 정상이야?", Intent.REALTIME_LOOKUP),
    ("인증 서버 지금 정상이에요?", Intent.REALTIME_LOOKUP),
    ("are the nightly tests passing again?", Intent.REALTIME_LOOKUP),
    ("how many tickets came in so far today?", Intent.REALTIME_LOOKUP),
    ("the backup job, did it finish today?", Intent.REALTIME_LOOKUP),
    ("is anyone in room 4B right now?", Intent.REALTIME_LOOKUP),
    # ... and the documents about the same things.
    ("how does the pager rotation work?", Intent.KNOWLEDGE_SEARCH),
    ("what is the normal range for the cold room?", Intent.KNOWLEDGE_SEARCH),
    ("where can I see the current status of our services?", Intent.KNOWLEDGE_SEARCH),
    ("지금 신청하면 언제 승인돼?", Intent.KNOWLEDGE_SEARCH),
    ("오늘 신청하면 며칠 걸려?", Intent.KNOWLEDGE_SEARCH),
    # "(would you) mind …ing" asks docbot to do it.
    ("mind restarting the docs indexer?", Intent.ACTION),
    ("would you mind adding Jisoo to the project space?", Intent.ACTION),
    ("do you mind muting the alerts channel for me?", Intent.ACTION),
    ("would you mind explaining the refund policy?", Intent.KNOWLEDGE_SEARCH),
]

THINGS_TO_GET_DONE = [
    # "get / need X done" asks for it to be done.
    ("can we get my 2FA reset?", Intent.ACTION),
    ("could I get the staging DB wiped and reseeded?", Intent.ACTION),
    ("can you get my account unlocked?", Intent.ACTION),
    ("need the #infra-alerts channel muted for me until Monday", Intent.ACTION),
    ("we need the old build archived for us", Intent.ACTION),
    ("how can I get my 2FA reset?", Intent.KNOWLEDGE_SEARCH),  # asks how: the documents
    # Today's figures are live; what a rule says about each shift is not.
    ("what are today's signup numbers so far?", Intent.REALTIME_LOOKUP),
    ("오늘 매출 얼마 나왔어?", Intent.REALTIME_LOOKUP),
    ("how many people are on each on-call shift?", Intent.KNOWLEDGE_SEARCH),
    ("how many breaks does each shift get?", Intent.KNOWLEDGE_SEARCH),
]


# Sixth round (routing-dev3, a blind set written from the intent definitions alone).
COUNTS_SO_FAR = [
    # A count or a measure "so far" / "지금까지" is live data: no document has today's figure.
    ("how many parcels have we shipped so far this week?", Intent.REALTIME_LOOKUP),
    ("what's the pick rate at Icheon so far today", Intent.REALTIME_LOOKUP),
    ("오늘 반품 접수 건수 지금까지 몇 건이야?", Intent.REALTIME_LOOKUP),
    ("이번 주 출고량 현재까지 얼마나 돼?", Intent.REALTIME_LOOKUP),
    # ... a reading now: a temperature, a build light, a queue's depth, "just me?"
    ("냉동창고 지금 온도 몇 도야?", Intent.REALTIME_LOOKUP),
    ("what's the freezer temperature reading right now?", Intent.REALTIME_LOOKUP),
    ("배포 파이프라인 지금 빨간불이야?", Intent.REALTIME_LOOKUP),
    ("how deep is the queue on the invoice worker", Intent.REALTIME_LOOKUP),
    ("what's the current queue length for label jobs?", Intent.REALTIME_LOOKUP),
    ("is the wiki slow for everyone or only me?", Intent.REALTIME_LOOKUP),
    ("anyone else getting kicked off the VPN?", Intent.REALTIME_LOOKUP),
    ("SolTrack 나만 느려?", Intent.REALTIME_LOOKUP),
    # ... but a rule stays a rule, whatever the measure
    ("what temperature must chilled goods be kept at?", Intent.KNOWLEDGE_SEARCH),
    ("냉장 상품 보관 온도 기준이 몇 도야?", Intent.KNOWLEDGE_SEARCH),
]
SMALL_TALK_SHAPES = [
    ("sorry, wrong channel", Intent.CHITCHAT),
    ("oops wrong thread sorry", Intent.CHITCHAT),
    ("never mind, found it", Intent.CHITCHAT),
    ("thanks, that's all for today", Intent.CHITCHAT),
    ("ok that's it from me", Intent.CHITCHAT),
    ("tell me something funny", Intent.CHITCHAT),
    ("got a fun fact for me?", Intent.CHITCHAT),
    ("do you ever get tired?", Intent.CHITCHAT),
    ("do you dream?", Intent.CHITCHAT),
    ("오 답변 빠르네 ㄷㄷ", Intent.CHITCHAT),
    ("와 검색 진짜 빠르다", Intent.CHITCHAT),
]
REQUESTS_WITH_A_TAIL = [
    # A request ending followed by a second sentence or a short afterthought.
    ("인증 메일 다시 보내줄 수 있어요? 아직 못 받았어요", Intent.ACTION),
    ("staging 캐시 좀 비워줘 운영 말고", Intent.ACTION),
    ("테스트 계정 하나 만들어줘 QA용으로", Intent.ACTION),
    ("could you resend the invite? it never arrived", Intent.ACTION),
    # ... and asking how or where is about the documents, however the verb sounds
    ("노트북에 VPN 설치하는 법 ㅠ 설치 파일 어디서 받아요", Intent.KNOWLEDGE_SEARCH),
    ("법인카드 영수증 올리는 법 알아?", Intent.KNOWLEDGE_SEARCH),
    ("how do I request admin access to the billing DB", Intent.KNOWLEDGE_SEARCH),
    ("how can we get a new laptop approved", Intent.KNOWLEDGE_SEARCH),
]


# What the company gives or a contract promises, asked (twelfth round). Failed on the old rules: "무슨 할인 줄 수
# 있어?" and "회사에서 들어줘?" were requests to act (0.9), and "if uptime drops below 99.9%" was live state (0.9), in a
# blind dev set (eval/solbit/extra/extra-dev2.jsonl).
COMPANY_GIVES_AND_CONTRACT_TERMS = [
    # Which one, or the company as the subject, before a 줘 that ends in "?": a question about a rule or benefit.
    ("Lite 고객한테는 무슨 할인 줄 수 있어?", Intent.KNOWLEDGE_SEARCH),
    ("신입한테는 어떤 장비 지급해줘?", Intent.KNOWLEDGE_SEARCH),
    ("해외 출장 가면 여행자 보험은 회사에서 들어줘?", Intent.KNOWLEDGE_SEARCH),
    ("야근하면 택시비는 회사가 내줘?", Intent.KNOWLEDGE_SEARCH),
    ("이 고객한테 10% 할인 적용해줘", Intent.ACTION),  # no question: a request
    ("보험 가입 신청 좀 넣어줘", Intent.ACTION),
    # A threshold in a condition asks what a contract or policy says would happen, not what is happening.
    ("What service credit do Pro customers get if uptime drops below 99.9%?", Intent.KNOWLEDGE_SEARCH),
    ("what happens if the error rate goes above 2%?", Intent.KNOWLEDGE_SEARCH),
    ("what's the API uptime right now?", Intent.REALTIME_LOOKUP),
]


# An account of what happened (thirteenth round): the incident report answers it, though its subject (an outage,
# delayed orders) changes by the minute. Failed on the old rules: read as live state.
PAST_ACCOUNTS = [
    ("what happened to the orders that were stuck during the outage?", Intent.KNOWLEDGE_SEARCH),
    ("what went wrong with the Busan conveyor last November?", Intent.KNOWLEDGE_SEARCH),
    ("그 장애 때 무슨 일이 있었어?", Intent.KNOWLEDGE_SEARCH),
    ("is the tracking API down right now?", Intent.REALTIME_LOOKUP),  # the state now is still live
]


@pytest.mark.parametrize("text,intent", LOOK_ALIKES + MORE_LIVE_AND_POLITE + THINGS_TO_GET_DONE
                         + COUNTS_SO_FAR + SMALL_TALK_SHAPES + REQUESTS_WITH_A_TAIL
                         + COMPANY_GIVES_AND_CONTRACT_TERMS + PAST_ACCOUNTS)
def test_later_round_shapes_are_routed(router, text, intent):
    """The fifth and sixth rounds' shapes (each list says what it covers)."""
    route = router.route(text, text)
    assert route.intent == intent, (route.intent, route.confidence, route.reason)


def test_asking_how_in_a_later_clause_is_about_the_documents(router):
    route = router.route("I accidentally removed a shared folder yesterday, how can I get it back?",
                         "I accidentally removed a shared folder yesterday, how can I get it back?")
    assert route.intent == Intent.KNOWLEDGE_SEARCH, (route.intent, route.confidence, route.reason)


@pytest.mark.parametrize("text", ["how many temp workers did the Icheon hub get last peak?",
                                  "how many orders were delayed in the November outage?",
                                  "부산 허브 임시 인력은 몇 명이었어?", "작년 4분기 파손 건수는 몇 건이었어요?"])
def test_a_figure_asked_in_the_past_tense_is_a_records(router, text):
    """A count in the past tense, without "now", is in a report; only a figure "so far" or "now" is live."""
    assert router.route(text, text).intent == Intent.KNOWLEDGE_SEARCH


@pytest.mark.parametrize("text", ["어제 퇴근 체크를 못 했어요. 지금이라도 정정 가능할까요?",
                                  "실수로 외부 메일에 파일을 보냈어요 어떻게 해야 하죠?",
                                  "방금 이상한 첨부파일을 열었어요. 뭘 해야 하죠?"])
def test_what_to_do_after_a_slip_in_korean_is_about_the_documents(router, text):
    """"…해야 하죠?" and "…가능할까요?" ask what the rules allow or require, however recent the slip."""
    assert router.route(text, text).intent == Intent.KNOWLEDGE_SEARCH


@pytest.mark.parametrize("text", [
    # "now" said outright, about a subject that is not by nature changing
    "오늘 엔화 환율 얼마야", "what's the euro exchange rate today", "지금 운영에 배포된 버전 뭐야",
    "what build is on staging at the moment",
    # one's own record: what is left of it, where it stands
    "how many vacation days have I got left", "내 연차 며칠 남았어?", "any update on my access request?",
    "내 장비 신청 어디까지 진행됐어?", "did my lead approve my leave yet", "내 출장 신청 팀장님이 승인했어?",
    # ... however its limit is named; something submitted decided, something scheduled happened yet
    "내 카드 이번 달 한도 얼마 남았어",
    "지난달 낸 출장비 정산 승인 났어?", "has the 8am bus left yet?", "are emails still delayed?", "빌드 아직 도는 중?",
])
def test_now_said_outright_and_ones_own_record_are_live(router, text):
    """Live state used to need a subject that changes by the minute (an outage, on-call, "장애"; now also an exchange
    rate or a menu) or a live-state phrase: "지금 운영에 배포된 버전" and "내 연차 며칠 남았어?" were searched in the documents (blind routing holdout 2: 13 of 31 live turns)."""
    route = router.route(text, text)
    assert route.intent == Intent.REALTIME_LOOKUP, (route.intent, route.confidence, route.reason)


@pytest.mark.parametrize("text", ["영수증 제출을 깜빡했는데 지금이라도 올릴 수 있어?",
                                  "I forgot to file my timesheet, can I still submit it today?",
                                  "what's the current per diem for Japan?", "is overtime still paid at 1.5x today?",
                                  "오늘 입사했는데 첫날 뭐 해야 돼?"])
def test_a_late_remedy_and_a_rule_asked_today_are_about_the_documents(router, text):
    """"지금이라도 / can I still" after a slip asks what the rules allow, and "today" does not make a rule live."""
    route = router.route(text, text)
    assert route.intent == Intent.KNOWLEDGE_SEARCH, (route.intent, route.confidence, route.reason)


@pytest.mark.parametrize("text", ["12만원에서 20% 빼면 얼마?", "1시간 50분은 몇 분?", "how many seconds in 2.5 minutes",
                                  "how many days in 3 weeks?"])
def test_a_unit_conversion_or_a_share_taken_off_is_arithmetic(router, text):
    """"빼면" and units of time ("시간", "minutes") were not arithmetic words, so these were searched."""
    route = router.route(text, text)
    assert route.intent == Intent.CHITCHAT, (route.intent, route.confidence, route.reason)


@pytest.mark.parametrize("text", ["연차 15일이면 몇 주야?", "how many hours is the safety training?", "is 5 in stock?"])
def test_a_sum_about_something_is_not_bare_arithmetic(text):
    from rag.understand.routing import is_arithmetic

    assert not is_arithmetic(text)


@pytest.mark.parametrize("text", ["Compare the status of INC-2026-014 and INC-2025-041.",
                                  "두 장애 보고서 상태 비교해줘", "what's the difference between the status of the two tickets?"])
def test_comparing_two_records_is_about_the_documents(router, text):
    """"status of" reads as live state, but two records compared are read from the documents."""
    route = router.route(text, text)
    assert route.intent == Intent.KNOWLEDGE_SEARCH, (route.intent, route.confidence, route.reason)
