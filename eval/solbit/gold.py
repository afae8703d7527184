#!/usr/bin/env python3
"""Gold conversations for the Solbit corpus -> dev.jsonl and holdout.jsonl.

Written from the documents in docs/ (see generator/), before any docbot run.
Every conversation is listed once here; odd-numbered ones go to dev, even-numbered
ones to holdout (same for the unanswerable questions). holdout.jsonl is frozen:
do not tune on it and do not edit it after the first docbot run.

Per turn, `format` (format of the file(s) holding the fact) and `cross_language`
(no relevant document is written in the question's language) are filled in here.
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

# Language of each document: ko, en or both (bilingual).
DOC_LANG = {
    "policies/expense-policy.md": "ko", "policies/expense-policy-2022.md": "ko",
    "offices/seoul-office-guide.md": "ko", "offices/busan-office-guide.md": "ko",
    "eng/oncall-policy.md": "ko", "legal/data-retention.md": "ko", "ops/returns-process.md": "ko",
    "notices/2026-03-wms-maintenance.txt": "ko", "notices/busan-shuttle-timetable.txt": "ko",
    "wiki/busan-hub-safety.html": "ko", "wiki/seoul-meeting-rooms.html": "ko",
    "wiki/inc-2025-041-busan-conveyor.html": "ko", "wiki/new-port-visitor-access.html": "ko",
    "wiki/expense-system-guide.html": "ko",
    "policies/travel-policy-2026.pdf": "ko", "policies/travel-policy-2023-repealed.pdf": "ko",
    "hr/leave-policy-2026.pdf": "ko", "finance/corporate-card-policy.pdf": "ko",
    "ops/busan-shift-procedure.docx": "ko", "hr/welfare-benefits-2026.xlsx": "ko",
    "hr/remote-work-policy-v2.md": "en", "it/password-reset.md": "en", "eng/release-process.md": "en",
    "sales/soltrack-discount-policy.md": "en", "hr/performance-review-2026.md": "en",
    "security/incident-reporting.md": "en", "notices/holiday-calendar-2026.txt": "en",
    "it/printer-setup.txt": "en", "wiki/vpn-setup.html": "en", "wiki/soltrack-plans.html": "en",
    "wiki/onboarding-checklist.html": "en", "wiki/inc-2026-014-wms-api-outage.html": "en",
    "wiki/public-api-guide.html": "en", "wiki/support-escalation.html": "en",
    "policies/overseas-per-diem-2026.pdf": "en", "policies/information-security-policy.pdf": "en",
    "ops/cold-chain-sop.pdf": "en", "reports/service-quality-q4-2025.pdf": "en",
    "sg/singapore-branch-handbook.pdf": "en", "hr/remote-work-policy-v3.docx": "en",
    "it/access-request-procedure.docx": "en", "ops/peak-season-2025-readiness.pptx": "en",
    "ops/hub-directory.xlsx": "en",
    "wiki/logistics-glossary.html": "both", "sales/sales-kickoff-2026.pptx": "both",
    "sales/warehousing-rate-card-2026.xlsx": "both",
}

# short names
EXP = "policies/expense-policy.md"
SEOUL = "offices/seoul-office-guide.md"
BUSAN = "offices/busan-office-guide.md"
ONCALL = "eng/oncall-policy.md"
RETAIN = "legal/data-retention.md"
RETURNS = "ops/returns-process.md"
MAINT = "notices/2026-03-wms-maintenance.txt"
SHUTTLE = "notices/busan-shuttle-timetable.txt"
SAFETY = "wiki/busan-hub-safety.html"
ROOMS = "wiki/seoul-meeting-rooms.html"
CONVEYOR = "wiki/inc-2025-041-busan-conveyor.html"
VISITOR = "wiki/new-port-visitor-access.html"
PAYGUIDE = "wiki/expense-system-guide.html"
TRAVEL = "policies/travel-policy-2026.pdf"
LEAVE = "hr/leave-policy-2026.pdf"
CARD = "finance/corporate-card-policy.pdf"
SHIFT = "ops/busan-shift-procedure.docx"
WELFARE = "hr/welfare-benefits-2026.xlsx"
PASSWD = "it/password-reset.md"
RELEASE = "eng/release-process.md"
DISCOUNT = "sales/soltrack-discount-policy.md"
PERF = "hr/performance-review-2026.md"
SECINC = "security/incident-reporting.md"
HOLIDAY = "notices/holiday-calendar-2026.txt"
VPN = "wiki/vpn-setup.html"
PLANS = "wiki/soltrack-plans.html"
ONBOARD = "wiki/onboarding-checklist.html"
WMSINC = "wiki/inc-2026-014-wms-api-outage.html"
API = "wiki/public-api-guide.html"
ESCAL = "wiki/support-escalation.html"
OVERSEAS = "policies/overseas-per-diem-2026.pdf"
ISP = "policies/information-security-policy.pdf"
COLD = "ops/cold-chain-sop.pdf"
QUALITY = "reports/service-quality-q4-2025.pdf"
SG = "sg/singapore-branch-handbook.pdf"
REMOTE = "hr/remote-work-policy-v3.docx"
ACCESS = "it/access-request-procedure.docx"
PEAK = "ops/peak-season-2025-readiness.pptx"
HUBS = "ops/hub-directory.xlsx"
GLOSS = "wiki/logistics-glossary.html"
SKO = "sales/sales-kickoff-2026.pptx"
RATES = "sales/warehousing-rate-card-2026.xlsx"


def K(user, rel, ac=None, aca=None, sa=None, hd=None, mh=False, note=None):
    rel = rel if isinstance(rel, list) else [rel]
    t = {"user": user, "intent": "knowledge_search", "relevant": rel}
    if sa:
        t["standalone"] = sa
    if hd is not None:
        t["history_dependent"] = hd
    if mh:
        t["multi_hop"] = True
    if aca is not None:
        t["answer_contains_all"] = aca
    else:
        t["answer_contains"] = ac
    if note:
        t["note"] = note
    return t


def C(user):
    return {"user": user, "intent": "chitchat", "relevant": []}


def A(user):
    return {"user": user, "intent": "action", "relevant": []}


def R(user):
    return {"user": user, "intent": "realtime_lookup", "relevant": []}


REPEALED = "the repealed/superseded document gives a different number; gold is the current one"

CONVERSATIONS = [
    # 1
    [K("야근 식대 얼마까지 돼?", EXP, ["12,000원"], note=REPEALED),
     K("택시비는?", EXP, ["40,000원"], sa="야근 택시비는 1회 최대 얼마까지 돼?", hd=True, note=REPEALED),
     C("고마워!")],
    # 2
    [K("What's the overtime meal allowance now? I remember it being 9,000 won", EXP, ["12,000원"], note=REPEALED),
     K("and by when do I have to submit the receipts?", EXP, ["다음 달 5일"],
       sa="What is the deadline for submitting expense receipts?", hd=True, note=REPEALED),
     A("ok then please file my taxi receipt from last night")],
    # 3
    [K("국내 출장 일비 팀원 기준 얼마야?", TRAVEL, ["45,000원"], note=REPEALED),
     K("팀장은?", TRAVEL, ["50,000원"], sa="국내 출장 일비 팀장 기준 얼마야?", hd=True),
     K("그럼 싱가포르 출장 가면?", OVERSEAS, ["USD 95"], sa="싱가포르 해외 출장 일비는 얼마야?", hd=True)],
    # 4
    [K("What's the hotel cap for a regular team member on a business trip to Busan?", TRAVEL, ["120,000원"], note=REPEALED),
     K("and somewhere that isn't a metropolitan city?", TRAVEL, ["100,000원"],
       sa="What is the domestic lodging cap for a 팀원 outside Seoul and metropolitan cities?", hd=True),
     K("How much per km do I get if I drive my own car?", TRAVEL, ["km당 250원"], hd=False, note=REPEALED)],
    # 5
    [K("미국 출장 숙박비 한도 얼마야?", OVERSEAS, ["USD 300"]),
     K("임원은 일비 더 받아?", OVERSEAS, ["20%"], sa="해외 출장 시 임원은 일비를 얼마나 더 받아?", hd=True),
     K("비즈니스석은 언제 탈 수 있어?", OVERSEAS, ["longer than 8 hours"],
       sa="해외 출장 시 비즈니스석을 탈 수 있는 조건은?", hd=True)],
    # 6
    [K("How many days a week can I work from home?", REMOTE, ["2 days per week"], note=REPEALED),
     K("what about the home office stipend?", REMOTE, ["₩300,000"], sa="How much is the remote work home-office stipend?",
       hd=True, note=REPEALED),
     K("and in Singapore?", [REMOTE, SG], ["3 days per week"],
       sa="How many days a week can Singapore branch staff work remotely?", hd=True)],
    # 7
    [K("재택근무 신청은 언제까지 해야 돼?", REMOTE, ["Thursday"], note=REPEALED),
     K("코어타임은 몇 시야?", REMOTE, ["10:00-16:00"], hd=False, note=REPEALED),
     K("부산 사무실 직원도 똑같아?", REMOTE, ["2 days per week"], sa="부산 사무실 직원은 재택근무를 주 며칠 할 수 있어?", hd=True)],
    # 8
    [K("How much is SolTrack Pro per month?", PLANS, ["₩1,150,000"]),
     K("and Lite?", PLANS, ["₩390,000"], sa="How much is SolTrack Lite per month?", hd=True),
     K("if they prepay for a year, what discount do they get?", DISCOUNT, ["15%"],
       sa="What discount does a SolTrack customer get for annual prepayment?", hd=True),
     C("thanks, super helpful")],
    # 9
    [K("SolTrack 라이트랑 프로 가동률 SLA 차이 알려줘", PLANS, aca=[["99.5%"], ["99.9%"]]),
     K("월 API 호출 수는?", PLANS, aca=[["100,000"], ["2,000,000"]], sa="SolTrack Lite와 Pro 플랜의 월 API 호출 한도는?", hd=True),
     K("그럼 분당 요청 제한은?", API, aca=[["120"], ["600"]], sa="SolTrack Lite와 Pro의 분당 API 요청 제한은?", hd=True)],
    # 10
    [K("Who has to approve a 25% discount on SolTrack?", DISCOUNT, ["Chief Revenue Officer", "Jung Hana"]),
     K("and 15%?", DISCOUNT, ["Sales director"], sa="Who approves a 15% SolTrack discount?", hd=True)],
    # 11
    [K("온콜 주말 수당 얼마야?", ONCALL, ["90,000원"]),
     R("지금 온콜 누구야?"),
     K("호출 받고 몇 분 안에 응답해야 돼?", ONCALL, ["15분"], hd=False)],
    # 12
    [K("When does the SolTrack on-call rotation hand over?", ONCALL, ["월요일 10:00"]),
     K("and if the primary doesn't ack?", ONCALL, ["세컨더리"],
       sa="Who is paged if the primary on-call does not acknowledge within 15 minutes?", hd=True),
     R("is the WMS API down right now?")],
    # 13
    [K("2월 WMS API 장애 원인이 뭐였어?", WMSINC, ["TLS certificate"]),
     K("얼마나 오래 갔어?", WMSINC, ["2 h 47 min"], sa="2월 WMS API 장애는 얼마나 지속됐어?", hd=True),
     K("영향받은 고객사는 몇 개야?", WMSINC, ["212"], sa="2월 WMS API 장애로 영향받은 고객사 수는?", hd=True),
     A("그 고객사들한테 보상 크레딧 지금 넣어줘")],
    # 14
    [K("What caused the sorter outage at the Busan hub in November?", CONVEYOR, ["PLC 펌웨어 업데이트", "광센서"]),
     K("how many orders were delayed?", CONVEYOR, ["1,240건"], sa="How many orders were delayed by the Busan conveyor outage?", hd=True),
     K("what severity was it?", CONVEYOR, ["SEV2"], sa="What severity was the Busan conveyor incident INC-2025-041?", hd=True)],
    # 15
    [K("WMS API 장애랑 부산 컨베이어 장애 심각도 비교해줘", [WMSINC, CONVEYOR], aca=[["SEV1"], ["SEV2"]], mh=True),
     K("어느 쪽이 더 오래 걸렸어?", [WMSINC, CONVEYOR], aca=[["2 h 47 min"], ["3시간 25분"]], mh=True,
       sa="WMS API 장애와 부산 컨베이어 장애 중 어느 쪽이 더 오래 지속됐어?", hd=True)],
    # 16
    [K("What was Busan New Port Hub's OTIF in Q4 2025?", QUALITY, ["96.1%"]),
     K("and what's the company target?", [QUALITY, GLOSS], ["97.5%"], sa="What is Solbit's company-wide OTIF target?", hd=True),
     K("why did Busan miss it?", QUALITY, ["conveyor outage", "INC-2025-041"],
       sa="Why did Busan New Port Hub miss the OTIF target in Q4 2025?", hd=True)],
    # 17
    [K("4분기 허브별 파손율 중에 제일 낮은 곳은?", QUALITY, ["Singapore Tuas Hub"]),
     K("이천은 몇 퍼센트였어?", QUALITY, ["0.12%"], sa="2025년 4분기 이천 허브 파손율은?", hd=True),
     C("ㅇㅋ 감사")],
    # 18
    [K("본인 결혼하면 휴가 며칠이야?", LEAVE, ["5일"]),
     K("경조금은?", LEAVE, ["500,000원"], sa="본인 결혼 경조금은 얼마야?", hd=True),
     K("싱가포르 지사는 연차가 며칠이야?", SG, ["18 days per year"], hd=False)],
    # 19
    [K("How many days of leave do I get when my wife gives birth?", LEAVE, ["20일"]),
     K("and refresh leave after 10 years of service?", LEAVE, aca=[["15일"], ["2,000,000원"]], hd=False)],
    # 20
    [K("복지포인트 1년에 얼마 나와?", WELFARE, ["연 1,200,000원"]),
     K("자기계발비는?", WELFARE, ["월 100,000원"], sa="자기계발비는 얼마 지원돼?", hd=True),
     K("배우자 건강검진도 지원돼?", WELFARE, ["500,000원"], hd=False)],
    # 21
    [K("Do we get a phone allowance?", [WELFARE, SG], ["월 50,000원", "SGD 50 per month"]),
     K("who is eligible for it in Korea?", WELFARE, ["팀장 이상"], sa="Who is eligible for the phone allowance in Korea?", hd=True)],
    # 22
    [K("부산신항 허브 팔레트 보관료 얼마야?", RATES, ["15,500"]),
     K("냉동은?", RATES, ["38,000"], sa="부산신항 허브 냉장·냉동 팔레트 보관료는 얼마야?", hd=True),
     K("이천은?", RATES, ["42,000"], sa="이천 허브 냉장·냉동 팔레트 보관료는 얼마야?", hd=True)],
    # 23
    [K("What's the minimum monthly charge for warehousing customers?", RATES, ["KRW 1,000,000", "1,000,000원"]),
     K("and pick & pack per order at Icheon?", RATES, ["1,100"], hd=False)],
    # 24
    [K("Who manages the Singapore Tuas Hub?", HUBS, ["Lim Jia Hui"]),
     K("does it have cold storage?", [HUBS, COLD], ["No", "no cold storage"],
       sa="Does the Singapore Tuas Hub have cold storage?", hd=True),
     K("how many dock doors does the Busan hub have?", HUBS, ["36"], hd=False)],
    # 25
    [K("이천 허브 대표번호 뭐야?", HUBS, ["031-600-7000"]),
     K("운영 시간은?", HUBS, ["24/7"], sa="이천 허브 운영 시간은?", hd=True)],
    # 26
    [K("서울 본사 월 정기주차 얼마야?", SEOUL, ["60,000원"]),
     K("그럼 부산 사무실은?", BUSAN, ["무료"], sa="부산 사무실 임직원 주차비는 얼마야?", hd=True),
     K("출입카드 잃어버리면 재발급 비용은?", BUSAN, ["5,000원"], sa="부산 사무실 출입카드 재발급 비용은?", hd=True)],
    # 27
    [K("I lost my badge at Seoul HQ, who do I tell?", SEOUL, ["총무팀", "내선 1200"]),
     K("how much is a replacement?", SEOUL, ["10,000원"], sa="How much does a replacement badge cost at Seoul HQ?", hd=True),
     A("can you block my old badge right now?")],
    # 28
    [K("하단역 셔틀 첫차 몇 시야?", SHUTTLE, ["06:20"]),
     K("토요일도 다녀?", SHUTTLE, ["07:10"], sa="부산신항 허브 셔틀버스 토요일에도 운행해?", hd=True),
     K("부산 허브 오후조 근무 시간이 어떻게 돼?", SHIFT, ["14:00~23:00"], hd=False)],
    # 29
    [K("What are the night shift hours at Busan New Port Hub?", SHIFT, ["22:00~07:00"]),
     K("how much extra is night work paid?", SHIFT, ["50%"], sa="What is the night work premium at Busan New Port Hub?", hd=True),
     K("what's the shift handover procedure?", SHIFT, None, sa="What is the shift handover procedure at Busan New Port Hub?", hd=True)],
    # 30
    [K("부산 허브 냉동 창고에서는 몇 분 일하면 쉬어야 돼?", SAFETY, ["45분 작업 후 15분 휴식"]),
     K("도크에서 지게차 속도 제한은?", SAFETY, ["시속 5km"], hd=False),
     K("방문객도 냉동 창고 들어갈 수 있어?", VISITOR, ["불가"], sa="부산신항 허브 냉동 창고에 방문객이 출입할 수 있어?", hd=True)],
    # 31
    [K("How do I register a visitor for the Busan New Port Hub?", VISITOR, ["1영업일 전 17시까지"]),
     K("how long is the safety video?", VISITOR, ["12분"], sa="How long is the visitor safety video at Busan New Port Hub?", hd=True),
     C("ok thanks")],
    # 32
    [K("한강 회의실 몇 명 들어가?", ROOMS, ["20명"]),
     K("체크인 안 하면 어떻게 돼?", ROOMS, ["자동 취소"], sa="서울 본사 회의실 예약 후 체크인하지 않으면 어떻게 돼?", hd=True),
     A("그 회의실 내일 2시로 잡아줘")],
    # 33
    [K("What's the max booking length for Seoul HQ meeting rooms?", ROOMS, ["최대 2시간"]),
     K("which room has only a whiteboard?", ROOMS, ["뚝섬"], sa="Which Seoul HQ meeting room is equipped with a whiteboard?", hd=True)],
    # 34
    [K("Which VPN gateway should I use from the Busan office?", VPN, ["pus-vpn.solbit.example"]),
     K("how long before the session times out?", VPN, ["12 hours"], sa="What is the maximum VPN session length for the Busan office?", hd=True),
     K("Is split tunnelling allowed on the VPN?", VPN, ["disabled"], hd=False),
     A("ok then please reset my VPN token for me")],
    # 35
    [K("싱가포르 지사 VPN 세션 최대 몇 시간이야?", VPN, ["10 hours"]),
     K("VPN 인증서 만료됐다고 뜨면 어떻게 해?", VPN, ["extension 2400"], hd=False)],
    # 36
    [K("How long does my password have to be?", [PASSWD, ISP], ["14 characters"]),
     K("how long does a lockout last?", PASSWD, ["30 minutes"], hd=False),
     A("lock Sarah Lim's account right now please")],
    # 37
    [K("비밀번호 틀려서 계정 잠겼어. 얼마나 기다려야 풀려?", PASSWD, ["30 minutes"]),
     K("못 기다리면 어디 연락해?", PASSWD, ["extension 2400"], sa="계정 잠금을 바로 풀려면 어디에 연락해?", hd=True),
     A("그 계정 지금 잠금 풀어줘")],
    # 38
    [K("How quickly does my laptop screen have to lock?", ISP, ["5 minutes"]),
     K("Can I share our rate card with a prospect?", ISP, ["Only under NDA"], hd=False),
     K("and payroll data?", ISP, ["Never by email"], sa="Can payroll data be shared outside Solbit?", hd=True)],
    # 39
    [K("회사 노트북에 USB 메모리 써도 돼?", ISP, ["blocked"]),
     K("보안 사고는 언제까지 신고해야 해?", [SECINC, ISP], ["within 1 hour"], hd=False),
     K("피싱 메일 받으면 어떻게 해?", SECINC, ["Report Phishing"], hd=False)],
    # 40
    [K("When do we deploy SolTrack to production?", RELEASE, ["Tuesdays and Thursdays at 14:00 KST"]),
     K("any freeze around Chuseok?", RELEASE, ["2026-09-21"], hd=False),
     K("who owns that doc?", RELEASE, ["Lee Seojun", "Platform Engineering"],
       sa="Who is the document owner of the SolTrack release process?", hd=True),
     K("When was the Thursday window added?", RELEASE, ["2025-08-19"], hd=False)],
    # 41
    [K("배포 후 에러율이 몇 퍼센트 넘으면 롤백해?", RELEASE, ["2%"], note="changelog shows the old 5% threshold"),
     K("핫픽스는 프리즈 기간에도 배포돼?", RELEASE, ["on-call engineering manager"], hd=False)],
    # 42
    [K("How do I get access to the data warehouse?", ACCESS, ["Access Request"]),
     K("who approves it?", ACCESS, ["Yoon Jiho"], sa="Who approves access requests to the data warehouse?", hd=True),
     K("how long does it take?", ACCESS, ["3 business days"], sa="How long does a production access request take?", hd=True)],
    # 43
    [K("운영 WMS 관리자 권한은 얼마 뒤에 만료돼?", ACCESS, ["90 days"]),
     K("권한 검토는 얼마나 자주 해?", ACCESS, ["every quarter"], hd=False)],
    # 44
    [K("What's the first response time for a P2 ticket?", ESCAL, ["1 hour"]),
     K("and P1?", ESCAL, ["15 minutes"], sa="What is the first response time for a P1 ticket?", hd=True),
     K("who gets pulled in for those?", ESCAL, ["Duty Manager"], sa="Who is a P1 support ticket escalated to?", hd=True)],
    # 45
    [K("P1 티켓이 2시간 안에 안 풀리면 누구한테 보고돼?", ESCAL, ["CTO"]),
     K("P4는 첫 응답 언제까지야?", ESCAL, ["2 business days"], hd=False)],
    # 46
    [K("How long are SolTrack API keys valid?", API, ["365 days"]),
     K("what's the sandbox URL?", API, ["https://sandbox.api.solbit.example/v2"], hd=False),
     K("and how many times are webhooks retried?", API, ["5 times"], hd=False)],
    # 47
    [K("3월 WMS 정기 점검 언제야?", MAINT, ["2026년 3월 21일"]),
     K("점검 중에 API 호출하면 어떻게 돼?", MAINT, ["HTTP 503"], sa="3월 WMS 점검 중에 공개 API를 호출하면 어떻게 돼?", hd=True),
     R("지금 WMS 점검 끝났어?")],
    # 48
    [K("Is there planned WMS downtime in March? what time?", MAINT, ["02:00 ~ 06:00"]),
     K("what happens to the hand scanners?", MAINT, ["오프라인 모드"], sa="What happens to the mobile scanners during the March WMS maintenance?", hd=True)],
    # 49
    [K("When are the offices closed for Chuseok this year?", HOLIDAY, ["2026-09-24 to 2026-09-26"]),
     K("and the Singapore branch for Chinese New Year?", HOLIDAY, ["2026-02-17 to 2026-02-18"], hd=False),
     K("are the hubs ever closed?", HOLIDAY, ["2026-02-17"], hd=False)],
    # 50
    [K("회사 창립기념일 휴무 며칠이야?", HOLIDAY, ["2026-10-12"]),
     K("싱가포르 내셔널데이 휴무는?", HOLIDAY, ["2026-08-10"], hd=False)],
    # 51
    [K("반품 처리 절차 알려줘", RETURNS, None),
     K("검수는 언제까지 해야 돼?", RETURNS, ["24시간 이내"], sa="반품 입고 검수는 언제까지 해야 돼?", hd=True),
     K("C등급은 어떻게 처리해?", RETURNS, ["화주사 승인 후 폐기"], hd=False)],
    # 52
    [K("How many photos do we need when inspecting a return?", RETURNS, ["최소 4장"]),
     K("how much do we charge shippers for a return inspection at Busan?", RATES, ["2,500"], hd=False)],
    # 53
    [K("CCTV 영상 얼마나 보관해?", RETAIN, ["30일"]),
     K("운송장 개인정보는?", RETAIN, ["배송 완료 후 90일"], sa="운송장의 수취인 개인정보는 얼마나 보관해?", hd=True)],
    # 54
    [K("How long do we keep customer support call recordings?", RETAIN, ["3년"]),
     K("and rejected job applications?", RETAIN, ["180일"], sa="How long are rejected applicants' documents kept?", hd=True)],
    # 55
    [K("What temperature range counts as chilled?", COLD, ["0°C to 5°C"]),
     K("how long can frozen goods be outside their range?", COLD, ["15 minutes"], hd=False),
     K("what do I do if a logger shows an excursion?", COLD, aca=[["quarantine"], ["within 30 minutes"]], hd=False)],
    # 56
    [K("콜드체인 데이터 로거는 몇 분마다 기록해?", COLD, ["every 5 minutes"]),
     K("캘리브레이션 주기는?", COLD, ["every 6 months"], sa="콜드체인 데이터 로거 캘리브레이션 주기는?", hd=True)],
    # 57
    [K("팀장 법인카드 월 한도 얼마야?", CARD, ["2,000,000원"]),
     K("1회 한도는?", CARD, ["1,000,000원"], sa="팀장 법인카드 1회 한도는?", hd=True),
     K("법인카드 잃어버렸어 어떻게 해?", [CARD, PAYGUIDE], ["카드사와 재무팀"], hd=False),
     A("내 카드 지금 정지시켜줘")],
    # 58
    [K("Can I use the corporate card at a golf course?", CARD, ["골프장"]),
     K("what's the per-transaction limit for regular staff?", CARD, ["500,000원"], hd=False)],
    # 59
    [K("솔빛페이에 법인카드 내역은 언제 들어와?", PAYGUIDE, ["D+2", "2영업일"]),
     K("반려되면 며칠 안에 다시 내야 돼?", PAYGUIDE, ["7일"], hd=False),
     K("접대비 비용 코드 뭐야?", PAYGUIDE, ["EX-300"], hd=False)],
    # 60
    [K("what's the SolbitPay expense code for domestic business trips?", PAYGUIDE, ["TR-100"]),
     K("and what's the per-person cap for client entertainment?", EXP, ["80,000원"], hd=False, note=REPEALED)],
    # 61
    [K("When is my self-review due?", PERF, ["2026-06-12"]),
     K("when do we hear results?", PERF, ["2026-07-17"], sa="When are 2026 H1 performance review results shared?", hd=True),
     K("what are the ratings?", PERF, aca=[["Exceptional"], ["Unsatisfactory"]], sa="What rating scale does the performance review use?", hd=True)],
    # 62
    [K("승진은 언제부터 적용돼?", PERF, ["2026-08-01"]),
     K("동료 피드백은 몇 명 지정해?", PERF, ["3 to 5"], hd=False)],
    # 63
    [K("How long is probation for new joiners?", ONBOARD, ["3 months"]),
     K("and by when must I finish security training?", ONBOARD, ["within 14 days"], hd=False),
     C("thanks!")],
    # 64
    [K("신규 입사자 노트북은 첫날 몇 시에 받아?", ONBOARD, ["09:30"]),
     K("허브 근무자 안전교육은 몇 시간이야?", [ONBOARD, PEAK], ["4 hours", "4-hour"], hd=False)],
    # 65
    [K("What was the peak cut-off at Busan New Port Hub?", PEAK, ["13:00"]),
     K("and normally?", PEAK, ["15:00"], sa="What is the standard order cut-off at Busan New Port Hub?", hd=True),
     K("how many temp workers did Busan get?", PEAK, ["140"], hd=False)],
    # 66
    [K("작년 피크 시즌 기간이 언제였어?", PEAK, ["2025-11-10 to 2025-12-26"]),
     K("임시 인력은 총 몇 명 뽑았어?", PEAK, ["320"], sa="2025 피크 시즌 임시 인력은 총 몇 명이었어?", hd=True)],
    # 67
    [K("올해 전사 매출 목표 얼마야?", SKO, ["840억 원", "KRW 84 billion"]),
     K("SolTrack ARR 목표는?", SKO, ["120억 원"], hd=False),
     K("SolTrack Route는 언제 나와?", SKO, ["2026년 3분기"], hd=False)],
    # 68
    [K("How many new customers is Singapore targeting in 2026?", SKO, ["25개사"]),
     K("what's the spot bonus for a new Enterprise deal?", SKO, ["300만 원"], hd=False)],
    # 69
    [K("크로스도킹이 뭐야?", GLOSS, ["24시간 이내"]),
     K("OTIF 목표는?", [GLOSS, QUALITY], ["97.5%"], hd=False)],
    # 70
    [K("서울 본사랑 부산 사무실 출입카드 재발급 비용 비교해줘", [SEOUL, BUSAN], aca=[["10,000원"], ["5,000원"]], mh=True),
     K("운영 시간은 어떻게 달라?", [SEOUL, BUSAN], aca=[["07:00~22:00"], ["06:00~23:00"]], mh=True,
       sa="서울 본사와 부산 사무실의 출입 운영 시간은 어떻게 달라?", hd=True)],
    # 71
    [K("Compare the domestic per diem for a team member with the per diem for a trip to Singapore", [TRAVEL, OVERSEAS],
       aca=[["45,000원"], ["USD 95"]], mh=True, note=REPEALED)],
    # 72
    [K("compare the overtime meal allowance in Korea and in Singapore", [EXP, SG], aca=[["12,000원"], ["SGD 15"]], mh=True,
       note=REPEALED),
     C("cool, thx")],
    # 73
    [K("이천 허브랑 부산신항 허브 도크 수 비교해줘", HUBS, aca=[["48"], ["36"]]),
     K("냉동 보관은 둘 다 돼?", [HUBS, COLD], ["Yes (frozen, chilled)", "Icheon Hub and Busan New Port Hub"],
       sa="이천 허브와 부산신항 허브 모두 냉동 보관이 가능해?", hd=True)],
    # 74
    [K("Which hub had the better OTIF in Q4, Icheon or Busan, and what was its peak cut-off?", [QUALITY, PEAK],
       aca=[["97.8%"], ["14:00"]], mh=True),
     R("what's Icheon's OTIF so far today?")],
    # 75
    [K("사무실에서 프린트하려면 어떤 큐로 보내야 돼?", "it/printer-setup.txt", ["Solbit-Secure"]),
     K("스캔해서 메일로 보낼 때 최대 용량은?", "it/printer-setup.txt", ["20 MB"], hd=False),
     R("지금 9층 프린터 용지 있어?")],
    # 76
    [K("Which printer is in the Busan office?", "it/printer-setup.txt", ["PUS-2F-MFP"]),
     K("그럼 부산 사무실 택배는 어디서 받아?", BUSAN, ["경비실"], sa="부산 사무실 개인 택배는 어디서 받아?", hd=False),
     C("ㄳㄳ")],
]

UNANSWERABLE = [
    ("ko", "부산 사무실 주차장에 전기차 충전기 몇 대 있어?"),
    ("en", "What's the parking fee at the Singapore branch office?"),
    ("ko", "사내 어린이집 신청은 어떻게 해?"),
    ("en", "What is the VPN gateway for the Icheon Hub?"),
    ("ko", "이천 허브 출퇴근 셔틀버스 시간표 알려줘"),
    ("en", "How much is the dental allowance for employees in Korea?"),
    ("ko", "2026년 하반기 성과 평가 일정은?"),
    ("en", "What was the root cause of incident INC-2026-009?"),
    ("ko", "싱가포르 지사 크리스마스 휴무일은 언제야?"),
    ("en", "Is there a Linux client for SecureConnect?"),
    ("ko", "근속 20년이면 리프레시 휴가 며칠이야?"),
    ("en", "How many employees does Solbit have in total?"),
    ("ko", "법인카드 해외 결제 수수료는 누가 부담해?"),
    ("en", "Who is the CEO of Solbit Logistics?"),
    ("ko", "2024년 4분기 OTIF는 얼마였어?"),
    ("en", "What's the salary increase budget for 2026?"),
    ("ko", "부산 사무실 회의실 예약 규칙 알려줘"),
    ("en", "What is the target damage rate for Busan New Port Hub?"),
    ("ko", "연말 파티 장소 어디야?"),
    ("en", "What's the pallet storage rate at the Singapore Tuas Hub?"),
    ("ko", "퇴직금 중간정산 가능해?"),
    ("en", "How many dock doors does the Pyeongtaek hub have?"),
    ("ko", "사내 동호회 지원금은 얼마야?"),
    ("en", "What's the maximum receipt file size I can upload to SolbitPay?"),
    ("ko", "SolTrack Route 가격은 얼마로 정해졌어?"),
    ("en", "Is there a gym membership subsidy?"),
    ("ko", "싱가포르 지사 직원 건강보험 가입 마감일이 언제야?"),
    ("en", "How many failed calls lock a SolTrack API key?"),
    ("ko", "부산 라스트마일 배송은 어느 택배사 써?"),
    ("en", "What was Icheon Hub's OTIF in Q3 2025?"),
    ("ko", "사내 식당 이번 주 메뉴 어디서 봐?"),
    ("en", "What is the dress code at the Busan office?"),
    ("ko", "부산신항 허브 야간조 인원은 몇 명이야?"),
    ("en", "How much is the relocation allowance for moving from Seoul to Busan?"),
]

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def turn_lang(text):
    return "ko" if HANGUL.search(text) else "en"


def decorate(turn):
    if turn["relevant"]:
        fmts = sorted({r.rsplit(".", 1)[1] for r in turn["relevant"]})
        turn["format"] = fmts[0] if len(fmts) == 1 else fmts
        q = turn_lang(turn["user"])
        langs = {DOC_LANG[r] for r in turn["relevant"]}
        turn["cross_language"] = not (q in langs or "both" in langs)
    return turn


def build():
    dev, hold = [], []
    for i, turns in enumerate(CONVERSATIONS, 1):
        conv = {"id": f"sb{i:02d}", "lang": turn_lang(turns[0]["user"]), "turns": [decorate(dict(t)) for t in turns]}
        (dev if i % 2 else hold).append(conv)
    for i, (lang, q) in enumerate(UNANSWERABLE, 1):
        conv = {"id": f"sbu{i:02d}", "lang": lang, "turns": [
            {"user": q, "intent": "knowledge_search", "relevant": [], "answerable": False}]}
        (dev if i % 2 else hold).append(conv)
    return dev, hold


def main():
    dev, hold = build()
    for name, rows in (("dev.jsonl", dev), ("holdout.jsonl", hold)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(f"{name}: {len(rows)} conversations")


if __name__ == "__main__":
    main()
