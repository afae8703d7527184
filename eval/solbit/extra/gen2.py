#!/usr/bin/env python3
"""Writes extra-dev2.jsonl: a second blind conversation set over the Solbit corpus.
Written from the documents' text only (blind to docbot). Run: python3 gen2.py"""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the language map and turn constructors of the first blind set (no side effects on import)
from gen import A, C, K, R, doc_langs, fmt, q_lang  # noqa: F401


CONVS, UNANS = [], []


def conv(lang, *turns):
    CONVS.append((lang, turns))


def U(lang, user, note):
    UNANS.append((lang, user, note))


HUB = "ops/hub-directory.xlsx"
ROOMS = "wiki/seoul-meeting-rooms.html"
PERDIEM = "policies/overseas-per-diem-2026.pdf"
TRAVEL = "policies/travel-policy-2026.pdf"
TRAVEL23 = "policies/travel-policy-2023-repealed.pdf"
API = "wiki/public-api-guide.html"
SHUTTLE = "notices/busan-shuttle-timetable.txt"
SHIFT = "ops/busan-shift-procedure.docx"
LEAVE = "hr/leave-policy-2026.pdf"
SG = "sg/singapore-branch-handbook.pdf"
SEC = "policies/information-security-policy.pdf"
EXP = "policies/expense-policy.md"
EXP22 = "policies/expense-policy-2022.md"
ONB = "wiki/onboarding-checklist.html"
SAFETY = "wiki/busan-hub-safety.html"
PLANS = "wiki/soltrack-plans.html"
SKO = "sales/sales-kickoff-2026.pptx"
ESC = "wiki/support-escalation.html"
RET = "legal/data-retention.md"
REL = "eng/release-process.md"
CARD = "finance/corporate-card-policy.pdf"
COLD = "ops/cold-chain-sop.pdf"
WELF = "hr/welfare-benefits-2026.xlsx"
INC14 = "wiki/inc-2026-014-wms-api-outage.html"
INC41 = "wiki/inc-2025-041-busan-conveyor.html"
RW2 = "hr/remote-work-policy-v2.md"
RW3 = "hr/remote-work-policy-v3.docx"
ACC = "it/access-request-procedure.docx"
PWD = "it/password-reset.md"
MAINT = "notices/2026-03-wms-maintenance.txt"
HOL = "notices/holiday-calendar-2026.txt"
PRN = "it/printer-setup.txt"
DISC = "sales/soltrack-discount-policy.md"
EXPSYS = "wiki/expense-system-guide.html"
VPN = "wiki/vpn-setup.html"
SEOUL = "offices/seoul-office-guide.md"
BUSAN = "offices/busan-office-guide.md"
RETURNS = "ops/returns-process.md"
RATE = "sales/warehousing-rate-card-2026.xlsx"
PERF = "hr/performance-review-2026.md"
INCREP = "security/incident-reporting.md"
VISIT = "wiki/new-port-visitor-access.html"
SQ = "reports/service-quality-q4-2025.pdf"
ONCALL = "eng/oncall-policy.md"
GLOSS = "wiki/logistics-glossary.html"
PEAK = "ops/peak-season-2025-readiness.pptx"

REPEALED = "trap: a repealed/superseded document gives a different value"

# ------------------------------------------------------------------ conversations
conv("ko",
     K("싱가포르 투아스 허브 도크 몇 개야?", HUB, ["20"],
       note="trap: Icheon 48 and Busan New Port 36 dock doors sit in the same column"),
     K("거기 대표번호는?", HUB, ["+65 6800 1200"], hd=True,
       sa="싱가포르 투아스 허브 대표 전화번호는?",
       note="trap: the Singapore branch office number is +65 6800 1000, one row below"),
     K("부산신항 허브는 냉동 냉장 말고 다른 온도대도 보관돼?", HUB, ["cool"], hd=False,
       note="trap: Icheon Hub stores only frozen and chilled; Busan New Port also cool"))

conv("en",
     K("how many ppl fit in the 서울숲 room at HQ?", ROOMS, ["6명"]),
     K("which floor is it on", ROOMS, ["9층"], hd=True,
       sa="Which floor is the 서울숲 meeting room at Seoul HQ on?"),
     K("if I want to book 한강 for a big meeting, do I need someone's OK?", ROOMS,
       ["총무팀 승인", "총무팀"], hd=False),
     C("cool thx"))

conv("ko",
     K("미국 출장 가면 일비 하루 얼마 나와?", PERDIEM, ["USD 110"]),
     K("유럽은? 숙박 상한도 같이", PERDIEM, all=[["USD 105"], ["USD 280"]], hd=True,
       sa="유럽 출장 일비와 1박 숙박비 상한은?"),
     K("비행기는 비즈니스 탈 수 있어? 나 팀원인데", PERDIEM, ["Economy class"], hd=True,
       sa="해외 출장 시 팀원 직급 직원도 비즈니스석을 탈 수 있어?",
       note="trap: only executives may fly business, and only on flights longer than 8 hours"))

conv("en",
     K("what's the hotel cap for a team lead on a domestic trip to Seoul?", TRAVEL, ["150,000원"],
       note=REPEALED + ": the 2023 travel policy capped it at 120,000원"),
     K("what was it under the old 2023 rules?", TRAVEL23, ["120,000원"], hd=True,
       sa="Under the repealed 2023 domestic travel policy, what was the Seoul hotel cap for a team lead?",
       note="asks the repealed policy on purpose"),
     K("and how many days ahead did you have to apply back then?", TRAVEL23, ["5영업일 전"], hd=True,
       sa="Under the repealed 2023 domestic travel policy, how many business days before departure did you have to apply?",
       note=REPEALED + ": the 2026 policy says 3영업일 전"),
     K("can I expense a taxi on a domestic business trip?", TRAVEL, ["대중교통이 없는 구간"], hd=False))

conv("en",
     K("what's the API burst limit on the Pro plan?", API, ["100"],
       note="trap: 600 is Pro's requests per minute; burst is 100"),
     K("enterprise?", API, ["500"], hd=True, sa="What is the SolTrack API burst limit on the Enterprise plan?"),
     K("if we go over, how do we know when to retry?", API, ["Retry-After"], hd=True,
       sa="When a client exceeds the SolTrack API rate limit, how does it know when to retry?"),
     K("what's the retry schedule when a webhook delivery fails?", API, ["1, 2, 4, 8 and 16 minutes"], hd=False))

conv("en",
     K("I'm on the day shift at New Port hub - when does it end and which shuttle back to Hadan can I catch?",
       [SHIFT, SHUTTLE], all=[["06:00~15:00", "15:00"], ["15:20"]], mh=True),
     K("and on saturdays?", SHUTTLE, ["18:10"], hd=True,
       sa="On Saturdays, when does the return shuttle leave Busan New Port Hub?",
       note="trap: Saturday has one return run only, at 18:10 (not 15:20)"),
     K("who do I ask if the bus doesn't show up?", SHUTTLE, ["부산 운영지원팀", "내선 5300"], hd=True,
       sa="Who is the contact for the Busan New Port Hub shuttle bus?"))

conv("ko",
     K("리프레시 휴가 15년차면 여행 지원금 얼마야?", LEAVE, ["3,000,000원"],
       note="trap: 10년 2,000,000원 and 5년 1,000,000원 are in the same table"),
     K("자녀 결혼하면 휴가랑 경조금은?", LEAVE, all=[["1일"], ["200,000원"]], hd=False,
       note="trap: 본인 결혼 is 5일 / 500,000원"),
     K("병가는 며칠부터 진단서 내야 돼?", LEAVE, ["5일 이상"], hd=False),
     C("오 고마워요 👍"))

conv("en",
     K("how much can I claim for dental at the Singapore branch?", SG, ["SGD 300"]),
     K("and outpatient medical?", SG, ["SGD 1,200"], hd=True,
       sa="What is the outpatient medical claim limit for Singapore branch employees?"),
     K("what are the shift times at Tuas hub?", SG, ["07:00-15:00 and 15:00-23:00"], hd=False,
       note="trap: the hub directory shows Tuas operating hours 07:00-23:00, not the two shifts"))

conv("en",
     K("which data class are customer contracts?", SEC, ["Confidential"]),
     K("payroll?", SEC, ["Restricted"], hd=True, sa="Which data classification does payroll data have?"),
     K("where am I allowed to store that?", SEC, ["Approved systems only"], hd=True,
       sa="Where may Restricted data such as payroll be stored?"),
     K("do laptops have to be encrypted?", SEC, ["full-disk encryption"], hd=False))

conv("en",
     K("how late do I need to stay to get the overtime dinner allowance?", EXP, ["21시 이후"],
       note=REPEALED + ": the 2022 policy said 20시 이후"),
     K("what was it in the old 2022 policy?", EXP22, ["20시 이후"], hd=True,
       sa="In the repealed 2022 expense policy, after what time did overtime work qualify for a meal allowance?",
       note="asks the repealed policy on purpose"),
     K("and the old taxi cap per ride?", EXP22, ["30,000원"], hd=True,
       sa="What was the per-ride taxi cap in the repealed 2022 expense policy?",
       note=REPEALED + ": the current cap is 40,000원"))

conv("ko",
     K("신입인데 서울 첫날 노트북 어디서 받아?", ONB, ["8th floor"],
       note="trap: Busan joiners pick up at the office building reception"),
     K("첫날 은행 계좌는 어디다 등록해?", ONB, ["Solbit People"], hd=False),
     K("첫 2주 안에 깔아야 되는 거 있어?", ONB, all=[["Okta Verify"], ["VPN"]], hd=True,
       sa="신규 입사자가 입사 첫 2주 안에 설정해야 하는 앱은?"))

conv("en",
     K("what PPE do I need in the rack storage area at New Port hub?", SAFETY, ["안전모, 안전화, 안전조끼", "안전모"],
       note="trap: the docks need only 안전화 and 안전조끼; only the rack area adds 안전모"),
     K("are forklifts allowed in the sorter area?", SAFETY, ["지게차 진입 금지"], hd=True,
       sa="Are forklifts allowed in the sorter/conveyor area at Busan New Port Hub?"),
     K("what happens the first time someone breaks the rules?", SAFETY, ["1회 경고"], hd=True,
       sa="What happens on the first violation of the Busan New Port Hub safety rules?"))

conv("ko",
     K("SolTrack Lite 기본 포함 유저 몇 명이야?", PLANS, ["10"]),
     K("데이터는 얼마나 보관해줘?", PLANS, ["1 year"], hd=True, sa="SolTrack Lite 플랜 데이터 보관 기간은?",
       note="trap: Pro 3 years, Enterprise 7 years"),
     K("Route Optimizer 애드온은 한 달에 얼마?", PLANS, ["₩300,000 per month", "₩300,000"], hd=False))

conv("en",
     K("what was the Singapore branch revenue in 2025?", SKO, ["112억 원"]),
     K("and the 2026 target for it?", SKO, ["130억 원"], hd=True,
       sa="What is the Singapore branch's 2026 revenue target?", note="trap: target vs actual in one table row"),
     K("how much does SolTrack SaaS have to grow?", SKO, ["36%"], hd=False),
     K("when did the board approve the company revenue target?", SKO, ["2025-12-19"], hd=False))

conv("en",
     K("how often do we have to update a P2 ticket?", ESC, ["Every 2 hours"]),
     K("and P1?", ESC, ["Every 30 minutes"], hd=True, sa="How often must a SolTrack P1 ticket be updated?"),
     K("after how long does an unresolved P1 go to the CTO?", ESC, ["within 2 hours"], hd=False,
       note="trap: 2 hours is also the P2 update cadence"),
     A("pls open a P1 ticket for the customer outage we just got"))

conv("en",
     K("after the retention period, are recipient names and phone numbers on waybills deleted or masked?", RET,
       ["마스킹"]),
     K("what law makes us keep delivery records for 5 years?", RET, ["전자상거래법"], hd=False),
     K("and for rejected candidates' documents?", RET, ["채용절차법"], hd=True,
       sa="Which law sets the retention of rejected applicants' hiring documents?"))

conv("ko",
     K("올해 추석 배포 프리즈 언제 끝나?", REL, ["2026-09-28"],
       note="trap: the office closure calendar gives Chuseok as 2026-09-24 to 2026-09-26; the freeze runs 09-21 to 09-28"),
     K("배포 후 에러율 몇 분 이상 유지되면 롤백해?", REL, ["5 minutes"], hd=False,
       note="trap: 15 minutes is the time to complete a rollback"),
     K("예전 롤백 기준 에러율은 몇 %였어?", REL, ["5%"], hd=True,
       sa="SolTrack 릴리스 롤백 기준 에러율이 2%로 바뀌기 전에는 몇 %였어?",
       note="trap: the changelog's old threshold; the current one is 2%"))

conv("en",
     K("where do I apply for a corporate card?", CARD, ["솔빛페이"]),
     K("what if I used it for personal stuff by mistake?", CARD, ["전액 반환"], hd=True,
       sa="What must you do if you used the corporate card for personal purposes?"),
     K("if I lose the card, who pays for fraud before I report it?", CARD, ["사용자가 부담"], hd=False))

conv("en",
     K("what's the temp range for the frozen class in the cold chain SOP?", COLD, ["-25°C to -18°C"]),
     K("how long can chilled goods be out of range?", COLD, ["30 minutes"], hd=False,
       note="trap: Frozen allows 15 minutes; 'within 30 minutes' elsewhere is the QA notification deadline"),
     K("anything to do with reefer trucks before loading?", COLD, ["Pre-cool"], hd=False),
     K("who decides if excursion goods get destroyed?", COLD, ["with the shipper", "QA decides"], hd=False))

conv("en",
     K("when are the welfare points paid out?", WELF, ["매년 1월 지급"]),
     K("I joined in July, do I get the full amount?", WELF, ["입사 첫해 월할", "월할"], hd=True,
       sa="Do employees who join mid-year get the full welfare points in their first year?"),
     K("is there anything for language test fees?", WELF, ["연 2회 실비"], hd=False))

conv("ko",
     K("2월 WMS API 장애 때 온콜이 페이지 ack한 게 몇 시야?", INC14, ["09:19"],
       note="trap: 09:12 is when the alert fired"),
     K("원인 찾은 건 몇 시?", INC14, ["10:58"], hd=True, sa="INC-2026-014에서 원인(만료된 인증서)을 찾은 시각은?"),
     K("그때 웹 콘솔도 같이 죽었어?", INC14, ["kept working"], hd=True,
       sa="INC-2026-014 WMS API 장애 때 웹 콘솔도 멈췄어?"),
     K("스케줄 잡 체크리스트 액션은 누가 언제까지야?", INC14, all=[["Infrastructure"], ["2026-03-06"]], hd=True,
       sa="INC-2026-014의 '마이그레이션 체크리스트에 스케줄 잡 항목 추가' 액션 담당과 기한은?",
       note="trap: the other two actions belong to Platform Engineering with February due dates"))

conv("en",
     K("in the busan conveyor incident, what time were things back to normal?", INC41, ["23:05"],
       note="trap: the other incident (INC-2026-014) resolved at 11:59"),
     K("what happened to the delayed orders?", INC41, ["다음 날 오전 첫 배차"], hd=True,
       sa="In INC-2025-041, how were the delayed orders shipped?"),
     K("why did the sensors stop the conveyor?", INC41, ["빈 트레이"], hd=True,
       sa="In INC-2025-041, what did the light sensors misdetect?"))

conv("ko",
     K("서울 본사 대표번호 뭐야?", HUB, ["02-3400-1000"]),
     K("싱가포르 지사 사무실은?", HUB, ["+65 6800 1000"], hd=True, sa="싱가포르 지사 사무실 대표 전화번호는?",
       note="trap: Singapore Tuas Hub's number is +65 6800 1200"),
     K("what are the operating hours of the Busan New Port hub?", HUB, ["Mon-Sat, 24 hours (3 shifts)"], hd=False,
       note="trap: the Busan office in the same building is open daily 06:00-23:00"))

conv("en",
     K("what were the core hours in the old remote work policy v2?", RW2, ["11:00-15:00"],
       note="asks the superseded v2 on purpose; v3 says 10:00-16:00"),
     K("how did you request remote days back then?", RW2, ["email to your team lead"], hd=True,
       sa="Under remote work policy v2, how did you request remote days?"),
     K("and now under v3, where do I submit it?", RW3, ["Time & Attendance > Remote work", "Solbit People"], hd=True,
       sa="Under remote work policy v3, where do you submit a remote work request?",
       note=REPEALED + ": v2 used email to the team lead"),
     K("what was the home office stipend in v2?", RW2, ["₩200,000"], hd=False,
       note="superseded value; v3 pays ₩300,000"))

conv("ko",
     K("작년 매출 목표 대비 몇 % 했어?", SKO, ["102%"]),
     K("그거 확정 숫자야?", SKO, ["감사 전 잠정치"], hd=True, sa="2025년 매출 실적은 확정치야?"),
     K("킥오프 어디서 했더라", SKO, ["부산 해운대"], hd=True, sa="2026 영업 킥오프 장소는?"))

conv("ko",
     K("SolTrack WMS 운영 권한 승인자 누구야?", ACC, ["Lee Seojun"]),
     K("신청은 어디서 해?", ACC, ["ServiceNow"], hd=True, sa="운영 시스템 접근 권한 신청은 어디서 해?"),
     K("허브 CCTV 시스템 오너는 어느 팀이야?", ACC, ["General Affairs"], hd=False,
       note="trap: the approver is Lee Sujin; the owner is the team"))

conv("en",
     K("at Busan New Port shift handover, what does the outgoing shift lead log in SolTrack?", SHIFT,
       all=[["미처리 주문"], ["설비 이상"], ["안전 이슈"]]),
     K("what's the break time on the afternoon shift?", SHIFT, ["18:00~19:00"], hd=True,
       sa="What is the break time of the afternoon shift at Busan New Port Hub?"),
     K("what does the incoming lead press to take over?", SHIFT, ["인수 확인"], hd=True,
       sa="At Busan New Port Hub shift handover, what does the next shift lead press in SolTrack?"))

conv("ko",
     K("비번 몇 번 틀리면 계정 잠겨?", PWD, ["5 failed sign-in attempts"],
       note="trap: the lock lasts 30 minutes"),
     K("기다리기 싫으면 서비스데스크에 전화할 때 본인확인 뭘로 해?", PWD, ["employee number"], hd=True,
       sa="계정 잠금 해제를 위해 IT 서비스데스크에 전화하면 본인 확인을 뭘로 해?"),
     K("폰 잃어버렸는데 셀프로 비번 리셋 돼?", PWD, ["will not work"], hd=False),
     K("난 부산인데 어디로 가야 돼?", PWD, ["operations support desk"], hd=True,
       sa="Okta Verify 폰을 잃어버린 부산 직원은 비밀번호 재설정을 위해 어디로 가야 해?"))

conv("en",
     K("during the march WMS maintenance, what happens to the data on the mobile scanners?", MAINT, ["자동 동기화"]),
     K("who do I contact about it?", MAINT, ["IT 서비스데스크", "내선 2400"], hd=True,
       sa="Who is the contact for the March 2026 SolTrack WMS maintenance?"))

conv("ko",
     K("이천이랑 부산신항 허브는 공휴일에도 돌아가?", HOL, ["rotating crews"]),
     K("이 휴무 캘린더 누가 언제 냈어?", HOL, all=[["People Team"], ["2025-12-01"]], hd=True,
       sa="2026 사무실 휴무 캘린더는 누가 언제 발행했어?"),
     K("문의 메일 주소는?", HOL, ["people@solbit.example"], hd=True, sa="2026 휴무 캘린더 문의 이메일 주소는?"))

conv("en",
     K("what app do I need to install to print from my laptop?", PRN, ["Solbit Print"]),
     K("where's the printer in the Busan office?", PRN, ["office building, 2nd floor"], hd=False),
     A("can you send a print job to it for me?"))

conv("ko",
     K("공공기관 고객 할인 몇 %까지 돼?", DISC, ["10%"]),
     K("Lite 고객한테는 무슨 할인 줄 수 있어?", DISC, ["annual prepayment discount", "annual prepayment"], hd=False),
     A("고마워, 이거 영업팀 채널에 공유해줘"))

conv("en",
     K("what's the expense code for an overtime taxi?", EXPSYS, ["EX-120"],
       note="trap: EX-110 is the overtime meal"),
     K("and for overseas travel?", EXPSYS, ["TR-200"], hd=True, sa="What is the expense code for overseas travel?"),
     K("besides the expense type, what else do I enter when filing a claim?", EXPSYS, ["프로젝트 코드"], hd=False))

conv("en",
     K("what's the VPN gateway for the Singapore branch?", VPN, ["sin-vpn.solbit.example"],
       note="trap: Seoul and Busan gateways are in the same table"),
     K("what protocol does SecureConnect use?", VPN, ["WireGuard"], hd=False),
     K("the client says certificate expired, what now?", VPN, ["open a ticket"], hd=False))

conv("en",
     K("which floors does Seoul HQ occupy?", SEOUL, ["8층~12층"]),
     K("where's the staff parking?", SEOUL, ["지하 2~4층"], hd=True, sa="Where is employee parking at Seoul HQ?"),
     K("where do I pick up personal parcels?", SEOUL, ["1층 메일룸"], hd=True,
       sa="Where do Seoul HQ employees pick up personal parcels?",
       note="trap: the Busan office keeps parcels at the security office"))

conv("ko",
     K("부산 사무실에 손님 오면 주차 공짜야?", BUSAN, ["당일 무료"],
       note="trap: Seoul HQ gives visitors 2시간 무료 then charges"),
     K("개인 택배 며칠 안 찾으면 어떻게 돼?", BUSAN, ["반송"], hd=True,
       sa="부산 사무실에서 개인 택배를 3일 넘게 안 찾으면 어떻게 돼?"),
     C("ㅋㅋ 알겠어 감사"))

conv("en",
     K("in the returns process, what does grade A mean?", RETURNS, ["재판매 가능"]),
     K("where do shippers register a return?", RETURNS, ["반품 요청"], hd=False),
     K("how much is returns inspection for a cold item at Icheon?", RATE, ["3,500"], hd=False,
       note="trap: standard returns inspection is 2,500"))

conv("ko",
     K("이천 허브 냉장냉동 피킹 패킹 주문당 얼마야?", RATE, ["1,500"],
       note="trap: merged header cells; Icheon standard is 1,100, Busan cold 1,400"),
     K("부산신항 냉장 입고 하역은?", RATE, ["4,100"], hd=False),
     K("이거 부가세 포함이야?", RATE, ["VAT 별도", "excl. VAT"], hd=True, sa="2026 창고 서비스 요율표는 VAT 포함이야?"))

conv("en",
     K("when does self-review open for H1?", PERF, ["2026-06-01"], note="trap: it is due on 2026-06-12"),
     K("is the one-in-ten Exceptional thing a hard quota?", PERF, ["not a quota"], hd=False),
     K("does the employee see the peer feedback word for word?", PERF, ["manager only"], hd=False))

conv("en",
     K("what's the hotel cap per night for a business trip to Singapore?", PERDIEM, ["USD 260"],
       note="trap: Singapore's daily allowance is USD 95 on the same row"),
     K("and the daily allowance for China?", PERDIEM, ["USD 70"], hd=False,
       note="trap: 'Other countries' is also USD 70 but the lodging caps differ"),
     K("how far ahead should flights be booked?", PERDIEM, ["14 days before departure"], hd=True,
       sa="For overseas business trips, how far ahead should flights be booked?"))

conv("en",
     K("who owns the information security policy?", SEC, ["Han Dongwook"]),
     K("if I suspect an incident, which slack channel do I post in?", INCREP, ["#sec-incident"], hd=False),
     K("is that watched at night too?", INCREP, ["24/7"], hd=True, sa="Is the #sec-incident Slack channel monitored 24/7?"))

conv("ko",
     K("부산신항 허브 방문객 당일에 뭐 챙겨가야 돼?", VISIT, ["신분증"]),
     K("보세 구역은 임직원 누구나 들어갈 수 있어?", VISIT, ["지정자만"], hd=False),
     K("방문객은 보호구 뭐 받아?", VISIT, ["안전조끼와 안전모"], hd=True, sa="부산신항 허브 방문객에게 지급되는 보호구는?"))

conv("ko",
     K("4분기 부산신항 파손율 얼마였어?", SQ, ["0.18%"], note="trap: Icheon 0.12%, Tuas 0.09%"),
     K("싱가포르는 dock-to-stock 몇 시간이었어?", SQ, ["2.9 h"], hd=True,
       sa="2025년 4분기 싱가포르 투아스 허브 평균 dock-to-stock 시간은?"),
     K("NPS 3분기엔 얼마였지?", SQ, ["38"], hd=True, sa="2025년 3분기 화주사 NPS는?", note="trap: Q4 NPS was 41"))

conv("en",
     K("how long is one on-call rotation for SolTrack?", ONCALL, ["1주 단위"]),
     K("where can I see who's on call?", ONCALL, ["PagerDuty"], hd=True,
       sa="Where can you check the current SolTrack on-call engineer?"),
     R("ok so who's on call right now?"),
     K("if the secondary doesn't ack either, when does the eng manager get paged?", ONCALL, ["30분"], hd=False))

conv("ko",
     K("SKU가 정확히 뭐야?", GLOSS, ["재고를 구분하는 최소 단위", "smallest unit of stock"]),
     K("OTIF 정의도 알려줘", GLOSS, ["약속한 시간에 주문 수량 전체"], hd=False),
     A("이 용어들 우리 팀 위키에 정리해서 올려줘"))

conv("en",
     K("is there a spouse health checkup benefit? who's eligible?", WELF, ["기혼 임직원"]),
     K("when can I book it?", WELF, ["5~11월"], hd=True, sa="When can the spouse health checkup be used?"),
     K("do I pay anything for the group accident and illness insurance?", WELF, ["회사 전액 부담"], hd=False))

conv("ko",
     K("부산신항 셔틀 출근버스 막차 몇 시야?", SHUTTLE, ["08:20"],
       note="trap: 23:15 is the last return run, not the last morning run"),
     K("이 시간표 언제부터 적용이야?", SHUTTLE, ["2026년 3월 4일"], hd=True, sa="부산신항 셔틀버스 시간표 적용일은?"),
     K("야간조인데 셔틀 다니는 시간에 퇴근하면 택시비 청구돼?", EXP, ["청구할 수 없다"], hd=False))

conv("en",
     K("how long is the SolTrack free trial?", PLANS, ["30 days"]),
     K("how much is implementation?", PLANS, ["from ₩2,000,000"], hd=True, sa="How much is the SolTrack implementation fee?"))

conv("ko",
     K("2025 피크 때 싱가포르 투아스 원래 컷오프 몇 시였어?", PEAK, ["17:00"],
       note="trap: standard vs peak; the peak cut-off was 15:00"),
     K("화주사엔 피크 컷오프 언제 공지했어?", PEAK, ["2025-10-27"], hd=False),
     K("임시직 온보딩은 언제 시작했어?", PEAK, ["2025-11-03"], hd=True,
       sa="2025 피크 시즌 임시직 온보딩은 언제 시작했어?"),
     K("리스크는 뭐였어?", PEAK, all=[["Sorter capacity"], ["Carrier pickup delays"]], hd=True,
       sa="2025 피크 시즌 준비 자료에 나온 리스크는?"))

conv("en",
     K("for an urgent domestic trip, can I apply afterwards?", TRAVEL, ["1영업일 이내"]),
     K("what's the Seoul hotel cap for executives?", TRAVEL, ["200,000원"], hd=False,
       note=REPEALED + ": the 2023 policy capped it at 170,000원"),
     K("how does that compare with the 2023 rules?", [TRAVEL, TRAVEL23], all=[["200,000원"], ["170,000원"]],
       mh=True, hd=True, sa="Executive Seoul hotel cap: 2026 domestic travel policy vs the repealed 2023 policy?"))

conv("ko",
     K("부산 컨베이어 장애 이후 재발 방지책으로 뭐 도입했어?", INC41, ["백업·비교 체크리스트"]),
     K("그날 센서 설정은 어떻게 복구했는데?", INC41, ["백업본으로 복원"], hd=True,
       sa="INC-2025-041 당시 센서 감도 설정값은 어떻게 복구했어?"))

conv("ko",
     K("남산 회의실에 화면 뭐 있어?", ROOMS, ["75인치 TV"], note="trap: 서울숲 has a 55인치 TV"),
     K("뚝섬은 장비 뭐 있어?", ROOMS, ["화이트보드"], hd=False),
     K("예약하고 안 가면 어떻게 돼? 체크인 몇 분 안에 해야 돼?", ROOMS, ["15분 안에"], hd=True,
       sa="서울 본사 회의실 예약 후 몇 분 안에 체크인하지 않으면 취소돼?"))

conv("ko",
     C("안녕 ㅎㅎ 월요일 너무 피곤하다"),
     K("회사 계정 MFA는 뭐로 해야 돼?", SEC, ["Okta Verify"], hd=False),
     K("사내 위키 페이지 캡처해서 외부 파트너한테 보내도 돼?", SEC, ["Not allowed"], hd=False,
       note="wiki pages are Internal; Confidential may be shared only under NDA"))

# ------------------------------------------------------------------ unanswerable (near misses)
U("ko", "싱가포르 지사 연차는 다음 해로 며칠까지 이월돼?",
  "near miss: the Korean leave policy allows carrying over up to 5 days but applies to Korea only; the Singapore handbook gives entitlements without carry-over")
U("en", "What service credit do Pro customers get if uptime drops below 99.9%?",
  "near miss: the SolTrack plans page lists the uptime SLA but no service credits")
U("ko", "해외 출장 가면 여행자 보험은 회사에서 들어줘?",
  "near miss: the overseas per diem schedule covers allowance, lodging, flights and settlement, not insurance")
U("en", "What's the on-call allowance for Singapore-based engineers in SGD?",
  "near miss: the on-call policy gives KRW amounts only and does not mention Singapore")
U("en", "What was the shipper NPS in Q1 2026?",
  "near miss: the service quality report covers Q4 2025 (NPS 41, Q3 38) only")
U("ko", "이천 허브 랙 보관 구역 지게차 제한 속도 몇 km야?",
  "near miss: the hub safety page (시속 8km in the rack area) is for Busan New Port Hub only")
U("en", "How much is SolTrack Pro per month in SGD for Singapore customers?",
  "near miss: the plans page gives KRW prices only")
U("ko", "4월 WMS 정기 점검은 언제 해?",
  "near miss: the only maintenance notice is for 2026-03-21")
U("en", "Who is the safety manager at Icheon Hub?",
  "near miss: the hub directory lists the hub manager (Oh Sungmin), not a safety manager")
U("ko", "싱가포르 지사도 설 추석 명절 선물 나와?",
  "near miss: the welfare sheet (명절 선물 200,000원 상당) is for the Korean entity; the Singapore handbook lists no gift")
U("ko", "반품 회수 택배비는 건당 얼마 청구돼?",
  "near miss: the returns process bills per contract; the rate card prices returns inspection only")
U("en", "How long do we keep SolTrack API access logs?",
  "near miss: the data retention table covers waybill data, delivery records, CCTV, call recordings and applicant files only")
U("ko", "서울 본사 회의실 케이터링 신청은 어떻게 해?",
  "near miss: the meeting room page covers rooms and booking rules, not catering")
U("ko", "법인카드 연회비는 누가 내?",
  "near miss: the corporate card policy covers limits, restrictions, loss and settlement only")
U("en", "Who was the incident commander for the Busan conveyor outage INC-2025-041?",
  "near miss: the conveyor report has no incident commander; INC-2026-014 names Lee Seojun")
U("ko", "2026년 1분기 매출 실적 목표 대비 어때?",
  "near miss: the sales kickoff gives 2026 annual targets and 2025 results only")
U("en", "How many temporary staff did Singapore Tuas Hub hire for peak 2025?",
  "near miss: the peak readiness deck lists temporary staff for Icheon (180) and Busan New Port (140) only")
U("ko", "성과평가 결과에 이의 신청하려면 어떻게 해?",
  "near miss: the H1 performance review page covers timeline, ratings and peer feedback, not appeals")
U("ko", "반차 쓰려면 며칠 전에 신청해야 돼?",
  "near miss: the leave policy only says 3+ consecutive days need 2 weeks' notice; half-days are not covered")
U("en", "What are the SolTrack release freeze dates around Seollal 2026?",
  "near miss: the release process lists only the Chuseok and year-end freezes")
U("ko", "싱가포르 지사 직원 법인카드 월 한도 얼마야?",
  "near miss: the corporate card policy is a Korean policy; the Singapore handbook does not adopt it or give limits")
U("en", "Is there a night-shift allowance at Icheon Hub?",
  "near miss: the 50% night premium is in the Busan New Port shift procedure, which says Icheon follows its own procedure")


# ------------------------------------------------------------------ writer
def build():
    out = []
    for n, (lang, turns) in enumerate(CONVS, 1):
        ts = []
        for i, t in enumerate(turns):
            if t["kind"] != "k":
                ts.append({"user": t["user"], "intent": t["kind"], "relevant": []})
                continue
            d = {"user": t["user"], "intent": "knowledge_search", "relevant": t["rel"]}
            if t["sa"]:
                d["standalone"] = t["sa"]
            if i > 0:
                d["history_dependent"] = bool(t["hd"])
            if t["mh"]:
                d["multi_hop"] = True
            if t["ac"] is not None:
                d["answer_contains"] = t["ac"]
            if t["all"] is not None:
                d["answer_contains_all"] = t["all"]
            if t["note"]:
                d["note"] = t["note"]
            d["format"] = fmt(t["rel"])
            ql = q_lang(t["user"])
            d["cross_language"] = not any(ql in doc_langs(r) for r in t["rel"])
            ts.append(d)
        out.append({"id": f"dc{n:02d}", "lang": lang, "turns": ts})
    for n, (lang, user, note) in enumerate(UNANS, 1):
        out.append({"id": f"dcu{n:02d}", "lang": lang, "turns": [
            {"user": user, "intent": "knowledge_search", "relevant": [], "answerable": False, "note": note}]})
    return out


if __name__ == "__main__":
    with open(os.path.join(HERE, "extra-dev2.jsonl"), "w", encoding="utf-8") as f:
        for c in build():
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
