#!/usr/bin/env python3
"""Writes extra-dev.jsonl: conversations with gold facts over the Solbit corpus.
Written blind to docbot, from the documents' text only. Run: python3 gen.py"""
import json, os, re

HERE = os.path.dirname(os.path.abspath(__file__))

KO_DOCS = {
    "eng/oncall-policy.md", "finance/corporate-card-policy.pdf", "hr/leave-policy-2026.pdf",
    "hr/welfare-benefits-2026.xlsx", "legal/data-retention.md", "notices/2026-03-wms-maintenance.txt",
    "notices/busan-shuttle-timetable.txt", "offices/busan-office-guide.md", "offices/seoul-office-guide.md",
    "ops/busan-shift-procedure.docx", "ops/returns-process.md", "policies/expense-policy-2022.md",
    "policies/expense-policy.md", "policies/travel-policy-2023-repealed.pdf", "policies/travel-policy-2026.pdf",
    "wiki/busan-hub-safety.html", "wiki/expense-system-guide.html", "wiki/inc-2025-041-busan-conveyor.html",
    "wiki/new-port-visitor-access.html", "wiki/seoul-meeting-rooms.html",
}
BI_DOCS = {"wiki/logistics-glossary.html", "sales/warehousing-rate-card-2026.xlsx", "sales/sales-kickoff-2026.pptx"}


def doc_langs(path):
    if path in BI_DOCS:
        return {"ko", "en"}
    return {"ko"} if path in KO_DOCS else {"en"}


def q_lang(text):
    return "ko" if re.search(r"[\uac00-\ud7a3]", text) else "en"


def fmt(rel):
    fs = sorted({os.path.splitext(r)[1][1:] for r in rel})
    return fs[0] if len(fs) == 1 else fs


# turn constructors ---------------------------------------------------------
def K(user, rel, ac=None, *, all=None, sa=None, note=None, mh=False, hd=None):
    return dict(kind="k", user=user, rel=list(rel) if isinstance(rel, (list, tuple)) else [rel],
                ac=ac, all=all, sa=sa, note=note, mh=mh, hd=hd)


def C(user):
    return dict(kind="chitchat", user=user)


def A(user):
    return dict(kind="action", user=user)


def R(user):
    return dict(kind="realtime_lookup", user=user)


REPEALED = "trap: a repealed/superseded document gives a different number; gold is the current one"

CONVS = []


def conv(lang, *turns):
    CONVS.append((lang, turns))


# ---------------------------------------------------------------- batch 1
conv("ko",
     K("SolTrack 정기 배포는 몇 분 전에 공지해?", "eng/release-process.md", ["30 minutes"]),
     K("연말 배포 동결은 언제부터야?", "eng/release-process.md", ["2026-12-14"],
       sa="SolTrack 연말 피크 배포 동결(change freeze)은 언제부터야?"),
     K("롤백은 몇 분 안에 끝내야 돼?", "eng/release-process.md", ["within 15 minutes"],
       sa="SolTrack 배포 롤백은 몇 분 안에 완료해야 해?",
       note="trap: 15 minutes is the rollback completion time; 5 minutes is how long the error rate must stay high"),
     K("롤백 기준이 예전엔 5%였던 걸로 기억하는데 언제 바뀌었어?", "eng/release-process.md",
       all=[["2%"], ["2026-01-12"]],
       note="trap: the changelog shows the old 5% threshold; it changed to 2% in v1.4 on 2026-01-12"))

conv("en",
     K("What's the weekday on-call allowance for SolTrack?", "eng/oncall-policy.md", ["30,000원"],
       note="trap: weekends/holidays pay 90,000원; weekday is 30,000원"),
     K("when is it paid out?", "eng/oncall-policy.md", ["다음 달 급여"],
       sa="When is the SolTrack on-call allowance paid?"),
     K("and if nobody acks within 30 minutes, who gets paged?", "eng/oncall-policy.md", ["엔지니어링 매니저"],
       sa="Who is paged if a SolTrack on-call page is not acknowledged within 30 minutes?"),
     C("thanks, that's all"))

conv("ko",
     K("상반기 성과평가 매니저 평가 마감일이 언제야?", "hr/performance-review-2026.md", ["2026-06-26"]),
     K("캘리브레이션은 언제 해?", "hr/performance-review-2026.md", ["first two weeks of July"],
       sa="2026 상반기 성과평가 캘리브레이션 세션은 언제 열려?"),
     K("나 4월 중순에 입사했는데 나도 대상이야?", "hr/performance-review-2026.md", ["2026-04-01"],
       sa="2026년 4월 중순 입사자도 2026 상반기 성과평가 대상이야?"),
     C("오케이 고마워"))

conv("ko",
     K("수습 기간에도 재택근무 할 수 있어?", "hr/remote-work-policy-v3.docx", ["written approval"],
       note="trap: superseded v2 allowed remote work only after probation; v3 allows it with the manager's written approval"),
     K("예전에 재택 장비 지원금 20만 원 받았는데 더 받을 수 있어?", "hr/remote-work-policy-v3.docx", ["₩100,000"],
       sa="v2 재택 장비 지원금(20만 원)을 이미 받은 사람은 v3에서 얼마를 더 받아?", hd=True,
       note=REPEALED + " (v2 stipend ₩200,000, v3 ₩300,000, difference ₩100,000)"),
     K("허브 교대 근무자는?", "hr/remote-work-policy-v3.docx", ["cannot work remotely"],
       sa="허브 교대 근무자도 재택근무 할 수 있어?"),
     K("고객지원 Tier 1은?", "hr/remote-work-policy-v3.docx", ["fixed rota"],
       sa="고객지원 Tier 1 직원은 재택근무를 주 며칠, 어떻게 할 수 있어?"))

conv("en",
     K("What are the remote-work core hours for Singapore staff?", "hr/remote-work-policy-v3.docx", ["09:00-15:00 SGT"],
       note="trap: Korea core hours are 10:00-16:00 KST (v2 said 11:00-15:00)"),
     K("by when does my lead approve the remote days?", "hr/remote-work-policy-v3.docx", ["Friday 12:00"],
       sa="By when does the team lead approve or reject remote work requests?"),
     K("can I print confidential documents at home?", "hr/remote-work-policy-v3.docx", ["not allowed"]))

conv("ko",
     K("폰을 잃어버려서 Okta Verify를 못 써. 비밀번호 재설정 어떻게 해?", "it/password-reset.md", ["in person", "9th floor"]),
     K("새 비밀번호로 예전에 쓰던 거 다시 써도 돼?", "it/password-reset.md", ["last 5 passwords"],
       sa="비밀번호 재설정할 때 예전에 쓰던 비밀번호를 다시 써도 돼?"),
     K("비밀번호 주기적으로 바꿔야 하는 규정 있어?", "policies/information-security-policy.pdf",
       ["do not force periodic password changes"]))

conv("en",
     K("How much is visitor parking at Seoul HQ?", "offices/seoul-office-guide.md",
       all=[["2시간 무료"], ["10분당 1,000원"]]),
     K("where are the EV chargers?", "offices/seoul-office-guide.md", ["지하 3층"],
       sa="Where are the EV chargers at Seoul HQ?"),
     K("and who do I call if I lose my badge at the Busan office?", "offices/busan-office-guide.md",
       ["내선 5300", "부산 운영지원팀"],
       note="trap: two offices; Seoul badges go to 총무팀 (내선 1200), Busan to 부산 운영지원팀 (내선 5300)"),
     K("if I stay at HQ after 10pm what do I have to do?", "offices/seoul-office-guide.md", ["야간 잔류 신청"]))

conv("ko",
     K("부산 사무실은 몇 층에 있어?", "offices/busan-office-guide.md", ["사무동 2층"]),
     K("개인 택배는 며칠 보관해줘?", "offices/busan-office-guide.md", ["3일"],
       sa="부산 사무실에서 개인 택배는 며칠 보관해?"),
     K("서울 본사는 택배 몇 시까지 찾아가야 돼?", "offices/seoul-office-guide.md", ["18:00"],
       note="trap: two offices; Seoul mail room until 18:00 on weekdays, Busan keeps parcels 3 days"),
     C("ㄱㅅ"))

conv("en",
     K("How long do we keep delivery and transaction records?", "legal/data-retention.md", ["5년"]),
     K("when are expired records destroyed?", "legal/data-retention.md", ["매월 첫째 주"],
       sa="When are records past their retention period destroyed?"),
     K("can we keep them longer if the police ask?", "legal/data-retention.md", ["법무·컴플라이언스팀 승인"],
       sa="Can the retention period be extended when law enforcement requests it?"),
     A("please purge the Icheon hub CCTV footage older than 30 days now"))

conv("ko",
     K("반품 회수는 접수하고 며칠 안에 해야 돼?", "ops/returns-process.md", ["영업일 2일 이내"]),
     K("B등급은 무슨 뜻이야?", "ops/returns-process.md", ["재포장 후 판매"],
       sa="반품 등급 판정에서 B등급은 무슨 뜻이야?"),
     K("반품 처리 비용은 언제 청구해?", "ops/returns-process.md", ["월말"]),
     K("냉동 상품 반품이면 따로 따라야 하는 문서 있어?", "ops/returns-process.md", ["SOP-OPS-012", "콜드체인 SOP"]))

conv("en",
     K("After what time can I expense a taxi home after overtime?", "policies/expense-policy.md", ["23시 이후"],
       note=REPEALED + " (2022 policy: after 22시)"),
     K("who has to approve an expense over 500k won?", "policies/expense-policy.md", ["본부장 승인"]),
     K("when do approved expenses get paid?", "policies/expense-policy.md", ["매월 25일"],
       sa="When are approved expenses paid out?", note=REPEALED + " (2022 policy: the 10th)"),
     K("my overtime dinner was last December — which cap applies to it?",
       ["policies/expense-policy.md", "policies/expense-policy-2022.md"], ["9,000원"], mh=True,
       sa="Which overtime meal cap applies to an overtime dinner in December 2025?",
       note="trap: transition rule — spending up to December 2025 uses the repealed 2022 amounts (9,000원), not 12,000원"))

conv("ko",
     K("주말에 출근하면 식대 몇 끼까지 돼?", "policies/expense-policy.md", ["1일 2식"]),
     K("팀 회식비를 야근 식대로 올려도 돼?", "policies/expense-policy.md", ["처리할 수 없다"]),
     K("야근 식대는 솔빛페이에서 비용 코드 뭐 골라?", "wiki/expense-system-guide.html", ["EX-110"]),
     K("솔빛페이 웹 주소가 뭐였지?", "wiki/expense-system-guide.html", ["pay.solbit.example"]))

conv("en",
     K("What discount do we give for a three-year SolTrack contract?", "sales/soltrack-discount-policy.md", ["22%"]),
     K("who can approve a discount up to 10%?", "sales/soltrack-discount-policy.md", ["Account executive"],
       sa="Who approves a SolTrack discount of up to 10%?"),
     K("can a non-profit combine its discount with annual prepayment?", "sales/soltrack-discount-policy.md",
       ["can be combined"]),
     K("and does any discount apply to the implementation fee?", "sales/soltrack-discount-policy.md",
       ["never apply to implementation fees"]))

conv("ko",
     K("SolTrack 프로 플랜은 사용자 몇 명까지 포함돼?", "wiki/soltrack-plans.html", ["50"]),
     K("사용자 추가하면 얼마야?", "wiki/soltrack-plans.html", ["₩15,000"],
       sa="SolTrack 사용자를 추가하면 1인당 월 얼마야?"),
     K("Route Optimizer는 라이트에서도 쓸 수 있어?", "wiki/soltrack-plans.html", ["Pro and Enterprise only"]),
     K("무료 체험 끝나면 어떻게 돼?", "wiki/soltrack-plans.html", ["converts to Lite"],
       sa="SolTrack 무료 체험이 끝나면 어떻게 돼?"))

conv("en",
     K("How long is data kept on SolTrack Enterprise?", "wiki/soltrack-plans.html", ["7 years"]),
     K("and what's its uptime SLA?", "wiki/soltrack-plans.html", ["99.95%"],
       sa="What is the uptime SLA of the SolTrack Enterprise plan?"),
     K("what happens to Route Optimizer customers when SolTrack Route launches?", "sales/sales-kickoff-2026.pptx",
       ["no extra cost"]),
     K("and when does Lite self-signup come out?", "sales/sales-kickoff-2026.pptx", ["2026년 2분기"]))

conv("ko",
     K("P3 티켓 첫 응답 기준이 뭐야?", "wiki/support-escalation.html", ["4 business hours"]),
     K("업데이트는 얼마나 자주 해?", "wiki/support-escalation.html", ["Daily"],
       sa="P3 티켓은 고객에게 업데이트를 얼마나 자주 해?"),
     K("영업시간 기준은 몇 시부터 몇 시야?", "wiki/support-escalation.html", ["09:00-18:00 KST"], sa="SolTrack 지원 티켓 응답 기준의 영업시간(business hours)은 몇 시부터 몇 시야?"),
     K("엔터프라이즈 고객이 24시간 지원 전화로 연락하면 어떤 우선순위로 잡혀?", "wiki/support-escalation.html",
       ["P1 or P2"]))

conv("en",
     K("What's the VPN gateway for Seoul HQ?", "wiki/vpn-setup.html", ["sel-vpn.solbit.example"]),
     K("which port does it use?", "wiki/vpn-setup.html", ["UDP 51820"],
       sa="Which protocol and port does the Seoul HQ VPN gateway use?"),
     K("how often is the VPN device certificate renewed?", "wiki/vpn-setup.html", ["every 90 days"]),
     K("how can I check from the terminal that the tunnel is up?", "wiki/vpn-setup.html", ["secureconnect status"]))

conv("ko",
     K("SolTrack API 키는 어떤 헤더에 넣어?", "wiki/public-api-guide.html", ["X-Solbit-Key"]),
     K("엔터프라이즈는 분당 몇 번까지 호출돼?", "wiki/public-api-guide.html", ["3,000"],
       sa="SolTrack 공개 API 엔터프라이즈 플랜의 분당 요청 한도는?"),
     K("한도 넘으면 어떤 응답이 와?", "wiki/public-api-guide.html", ["429"],
       sa="SolTrack API 요청 한도를 넘으면 어떤 응답이 와?"),
     K("샌드박스 데이터는 언제 초기화돼?", "wiki/public-api-guide.html", ["every Sunday"]))

# ---------------------------------------------------------------- batch 2
conv("en",
     K("Who was the incident commander for the February WMS API outage?", "wiki/inc-2026-014-wms-api-outage.html",
       ["Lee Seojun"]),
     K("how many API requests failed?", "wiki/inc-2026-014-wms-api-outage.html", ["38,400"],
       sa="How many API requests failed during the February 2026 WMS API outage (INC-2026-014)?"),
     K("why had the certificate renewal stopped?", "wiki/inc-2026-014-wms-api-outage.html",
       ["data-centre migration"],
       sa="Why was the TLS certificate not renewed before the WMS API outage INC-2026-014?"),
     K("when is the certificate-expiry alert action item due?", "wiki/inc-2026-014-wms-api-outage.html",
       ["2026-02-20"],
       sa="When is the INC-2026-014 action item 'alert on certificate expiry 30 days ahead' due?"))

conv("en",
     K("What time did the Busan conveyor incident start?", "wiki/inc-2025-041-busan-conveyor.html", ["19:40"],
       note="trap: two incident reports; this is INC-2025-041 (Busan sorter/conveyor), not the WMS API outage"),
     K("which firmware version caused it?", "wiki/inc-2025-041-busan-conveyor.html", ["v4.2"],
       sa="Which PLC firmware version was involved in the Busan conveyor incident INC-2025-041?"),
     K("what's the new rule for PLC firmware updates?", "wiki/inc-2025-041-busan-conveyor.html", ["일요일 02:00"]),
     K("who owns the backup checklist, and when is it due?", "wiki/inc-2025-041-busan-conveyor.html",
       all=[["설비팀"], ["2025-12-19"]],
       sa="Who owns the settings backup/compare checklist from INC-2025-041 and when is it due?"))

conv("en",
     K("Compare the status of INC-2026-014 and INC-2025-041.",
       ["wiki/inc-2026-014-wms-api-outage.html", "wiki/inc-2025-041-busan-conveyor.html"],
       all=[["Resolved"], ["종결"]], mh=True,
       note="trap: two incident reports, one English one Korean"),
     K("and what did each one break for customers?",
       ["wiki/inc-2026-014-wms-api-outage.html", "wiki/inc-2025-041-busan-conveyor.html"],
       all=[["38,400"], ["수작업 분류"]], mh=True,
       sa="What was the impact of INC-2026-014 (WMS API outage) and of INC-2025-041 (Busan conveyor)?"),
     C("got it, thx"))

conv("ko",
     K("도크 투 스톡이 무슨 뜻이야?", "wiki/logistics-glossary.html", ["재고 등록까지 걸린 시간", "available in SolTrack"]),
     K("작년 4분기에 부산 허브는 그게 얼마나 걸렸어?", "reports/service-quality-q4-2025.pdf", ["4.1 h"],
       sa="2025년 4분기 부산신항 허브의 평균 dock-to-stock 시간은?",
       note="trap: three hubs in the table; Icheon 3.4 h, Singapore 2.9 h"),
     K("이천은 그거 줄이려고 뭐 한대?", "reports/service-quality-q4-2025.pdf", ["6 dock doors"],
       sa="이천 허브는 dock-to-stock 시간을 줄이려고 2026년 1분기에 무엇을 해?"))

conv("en",
     K("What was the company-wide OTIF in Q4 2025?", "reports/service-quality-q4-2025.pdf", ["97.3%"],
       note="trap: 97.5% is the target, 97.3% the actual"),
     K("and the shipper NPS?", "reports/service-quality-q4-2025.pdf", ["41"],
       sa="What was the shipper NPS in Q4 2025?", note="trap: Q3 NPS was 38"),
     K("what did shippers complain about most?", "reports/service-quality-q4-2025.pdf", ["late updates"],
       sa="What was the most common shipper complaint in Q4 2025?"),
     K("which hub shipped the most orders that quarter?", "reports/service-quality-q4-2025.pdf",
       ["Icheon Hub", "1,842,300"],
       sa="Which hub shipped the most orders in Q4 2025?"))

conv("ko",
     K("싱가포르 지사 병가는 며칠이야?", "sg/singapore-branch-handbook.pdf", ["14 days per year"],
       note="trap: Korea gives 30 paid sick days (leave policy); Singapore handbook is separate"),
     K("입원하면?", "sg/singapore-branch-handbook.pdf", ["60 days per year"],
       sa="싱가포르 지사 입원 휴가(hospitalisation leave)는 며칠이야?"),
     K("교통비 지원은 얼마야?", "sg/singapore-branch-handbook.pdf", ["SGD 150 per month"],
       sa="싱가포르 지사 교통비 지원(transport allowance)은 얼마야?"),
     K("경비 청구는 언제까지 해야 돼?", "sg/singapore-branch-handbook.pdf", ["10th of the following month"],
       sa="싱가포르 지사 경비 청구 기한은?",
       note="trap: Korea's expense policy says the 5th of the following month"))

conv("en",
     K("How many days of annual leave do I get in Korea after my first year?", "hr/leave-policy-2026.pdf", ["15일"],
       note="trap: the Singapore handbook gives 18 days; Korea's leave policy 15"),
     K("can I carry unused days over?", "hr/leave-policy-2026.pdf", all=[["3월 말"], ["최대 5일"]],
       sa="Can unused annual leave be carried over in Korea, until when and how many days?"),
     K("and how many paid sick days are there?", "hr/leave-policy-2026.pdf", ["연 30일"],
       sa="How many paid sick days do Korean employees get per year?"))

conv("ko",
     K("조부모상 당하면 휴가 며칠이야?", "hr/leave-policy-2026.pdf", ["3일"]),
     K("경조금은?", "hr/leave-policy-2026.pdf", ["300,000원"],
       sa="조부모 사망 시 경조금은 얼마야?"),
     K("근속 5년 리프레시 휴가는 어떻게 돼?", "hr/leave-policy-2026.pdf", all=[["10일"], ["1,000,000원"]]),
     K("언제까지 써야 돼?", "hr/leave-policy-2026.pdf", ["1년 안에"],
       sa="리프레시 휴가는 언제까지 사용해야 해?"))

conv("en",
     K("What's the monthly corporate card limit for executives?", "finance/corporate-card-policy.pdf", ["5,000,000원"]),
     K("and per transaction?", "finance/corporate-card-policy.pdf", ["2,000,000원"],
       sa="What is the per-transaction corporate card limit for executives?",
       note="trap: 2,000,000원 is also the team lead's monthly limit; here it is the executive per-transaction limit"),
     K("what if I use the card at 2am?", "finance/corporate-card-policy.pdf", ["사유를 기재"],
       sa="What is required when the corporate card is used at 2 a.m. (between 23:00 and 06:00)?"),
     K("can I buy gift cards with it?", "finance/corporate-card-policy.pdf", ["상품권"],
       sa="Can the corporate card be used to buy gift cards?"))

conv("ko",
     K("일본 출장 일비 얼마야?", "policies/overseas-per-diem-2026.pdf", ["USD 80"]),
     K("숙박비 한도는?", "policies/overseas-per-diem-2026.pdf", ["USD 200"],
       sa="일본 출장 숙박비 1박 상한은 얼마야?"),
     K("베트남은?", "policies/overseas-per-diem-2026.pdf", all=[["USD 60"], ["USD 150"]],
       sa="베트남 출장 일비와 숙박비 상한은 얼마야?"),
     K("일비는 어떤 환율로 받아?", "policies/overseas-per-diem-2026.pdf", ["exchange rate on the departure date"],
       sa="해외 출장 일비는 어떤 환율로 원화 지급돼?"))

conv("en",
     K("What's the domestic per diem for executives?", "policies/travel-policy-2026.pdf", ["60,000원"],
       note=REPEALED + " (2023 policy: 50,000원)"),
     K("and for a same-day trip?", "policies/travel-policy-2026.pdf", ["50%"],
       sa="What per diem is paid for a same-day domestic business trip?"),
     K("how many business days before the trip do I have to apply?", "policies/travel-policy-2026.pdf",
       ["3영업일 전"], note=REPEALED + " (2023 policy: 5영업일 전)"),
     K("can I fly Gimpo to Gimhae instead of taking the train?", "policies/travel-policy-2026.pdf",
       ["2시간 이상 단축"]))

conv("ko",
     K("국내 출장비 정산은 복귀하고 며칠 안에 해야 돼?", "policies/travel-policy-2026.pdf", ["10일 이내"],
       note=REPEALED + " (2023 policy: 14일 이내)"),
     K("일비도 영수증 내야 돼?", "policies/travel-policy-2026.pdf", ["일비는 영수증이 필요 없다"],
       sa="국내 출장 일비도 영수증을 첨부해야 해?"),
     K("임원은 KTX 어느 칸 타?", "policies/travel-policy-2026.pdf", ["특실"]),
     K("싱가포르 지사 직원이 한국 출장 오면 일비는 얼마야?", "policies/overseas-per-diem-2026.pdf",
       ["KRW 70,000 per day"]))

conv("en",
     K("Do we get a book allowance?", "hr/welfare-benefits-2026.xlsx", ["연 300,000원"]),
     K("and is there a holiday gift?", "hr/welfare-benefits-2026.xlsx", ["200,000원 상당"]),
     K("who can get language test fees reimbursed?", "hr/welfare-benefits-2026.xlsx", ["해외 업무 담당자"]),
     K("does the company pay the full health check-up?", "hr/welfare-benefits-2026.xlsx", ["본인 전액"]))

conv("ko",
     K("부산신항 허브 센터장이 누구야?", "ops/hub-directory.xlsx", ["Jung Taeyoon"]),
     K("대표번호는?", "ops/hub-directory.xlsx", ["051-900-5000"],
       sa="부산신항 허브 대표번호는?",
       note="trap: the Busan office (051-900-5300) is a different row from Busan New Port Hub"),
     K("이천은?", "ops/hub-directory.xlsx", ["Oh Sungmin"], sa="이천 허브 센터장은 누구야?"),
     K("싱가포르 투아스 허브는 운영 시간이 어떻게 돼?", "ops/hub-directory.xlsx", ["Mon-Sat, 07:00-23:00"]))

conv("en",
     K("What's the inbound handling fee per pallet at Icheon Hub?", "sales/warehousing-rate-card-2026.xlsx", ["3,200"]),
     K("and for cold goods?", "sales/warehousing-rate-card-2026.xlsx", ["4,500"],
       sa="What's the cold (chilled/frozen) inbound handling fee per pallet at Icheon Hub?"),
     K("what about Busan?", "sales/warehousing-rate-card-2026.xlsx", ["2,900"],
       sa="What's the standard inbound handling fee per pallet at Busan New Port Hub?",
       note="trap: two hubs side by side under merged header cells"),
     K("until when are these rates valid?", "sales/warehousing-rate-card-2026.xlsx", ["2026-12-31"], sa="Until when is the 2026 warehousing rate card valid?"))

conv("ko",
     K("이천 허브 팔레트 보관료 표준 요율 얼마야?", "sales/warehousing-rate-card-2026.xlsx", ["18,000"],
       note="trap: Busan New Port Hub has a different rate in the next column"),
     K("부산 피킹·패킹은 주문당 얼마야?", "sales/warehousing-rate-card-2026.xlsx", ["1,000"]),
     K("냉장 상품이면?", "sales/warehousing-rate-card-2026.xlsx", ["1,400"],
       sa="부산신항 허브 냉장·냉동 상품 피킹·패킹 요금은 주문당 얼마야?"))

conv("ko",
     K("부산 허브 주간조 휴게 시간이 언제야?", "ops/busan-shift-procedure.docx", ["11:00~12:00"]),
     K("야간조는?", "ops/busan-shift-procedure.docx", ["02:00~03:00"], sa="부산신항 허브 야간조 휴게 시간은?"),
     K("야간에 비상 상황 생기면 누구한테 연락해?", "ops/busan-shift-procedure.docx", ["내선 5999"], sa="부산신항 허브에서 야간에 비상 상황이 생기면 누구에게 연락해?"),
     K("이천 허브도 같은 절차 따라?", "ops/busan-shift-procedure.docx", ["별도 절차"],
       sa="이천 허브도 부산신항 허브 교대 근무 절차를 따라?"))

conv("en",
     K("How early should the next shift arrive at Busan New Port Hub?", "ops/busan-shift-procedure.docx", ["30분 전"]),
     K("who records open orders and equipment issues at handover?", "ops/busan-shift-procedure.docx", ["이전 조 조장"], sa="At Busan New Port Hub shift handover, who records open orders, equipment issues and safety issues?"),
     K("can someone work alone in the freezer on nights?", "ops/busan-shift-procedure.docx", ["단독 작업을 금지"], sa="Can night-shift workers at Busan New Port Hub work alone in the freezer?"),
     A("ok, put me on the night shift roster next week"))

conv("ko",
     K("작년 피크 시즌 물량 예측이 평소의 몇 배였어?", "ops/peak-season-2025-readiness.pptx", ["1.4x"]),
     K("제일 바쁜 날은 언제로 예상했어?", "ops/peak-season-2025-readiness.pptx", ["2025-11-11"],
       sa="2025 피크 시즌에 가장 물량이 많을 것으로 예상한 날은?"),
     K("이천 허브 임시 인력은 몇 명이었어?", "ops/peak-season-2025-readiness.pptx", ["180"],
       note="trap: 320 in total, Busan 140, Icheon 180"),
     K("그때 SolTrack 배포 동결은 언제부터였어?", "ops/peak-season-2025-readiness.pptx", ["2025-11-17"],
       sa="2025 피크 시즌 SolTrack 변경 동결은 언제부터였어?",
       note="trap: the release process lists the 2026 freezes; the 2025 peak freeze is in the readiness deck"))

conv("en",
     K("What was Solbit's 2025 revenue?", "sales/sales-kickoff-2026.pptx", ["712억 원"]),
     K("how many paying SolTrack customers did we have?", "sales/sales-kickoff-2026.pptx", ["318개사"]),
     K("what's the fulfilment business target for 2026?", "sales/sales-kickoff-2026.pptx", ["590억 원"],
       note="trap: the company-wide target is 840억 원; fulfilment alone is 590억 원"),
     K("what do you need to make President's Club?", "sales/sales-kickoff-2026.pptx", ["120%"]))

conv("ko",
     K("재무 ERP 권한은 누가 승인해?", "it/access-request-procedure.docx", ["Kang Mirae"]),
     K("허브 CCTV는?", "it/access-request-procedure.docx", ["Lee Sujin"], sa="허브 CCTV 시스템 접근 권한은 누가 승인해?"),
     K("퇴사하면 권한은 언제 회수돼?", "it/access-request-procedure.docx", ["last working day"]),
     A("그럼 나한테 ERP 권한 지금 바로 줘"))

conv("en",
     K("What's the forklift speed limit in the rack storage area at Busan New Port Hub?", "wiki/busan-hub-safety.html",
       ["시속 8km"], note="trap: docks and the freezer are 시속 5km; racks 시속 8km"),
     K("what protection do I need in the sorter area?", "wiki/busan-hub-safety.html", ["귀마개"],
       sa="What protective equipment is required in the sorter/conveyor area at Busan New Port Hub?"),
     K("what happens if someone breaks the rules twice?", "wiki/busan-hub-safety.html", ["출입이 정지"],
       sa="What happens after two safety rule violations at Busan New Port Hub?"),
     K("which radio channel do I use to report an accident?", "wiki/busan-hub-safety.html", ["채널 3"], sa="Which radio channel is used to report an accident at Busan New Port Hub?"))

conv("en",
     K("Can contractor workers enter the freezer at Busan New Port Hub?", "wiki/new-port-visitor-access.html",
       ["사전 승인 시 가능"]),
     K("and can visitors go to the docks?", "wiki/new-port-visitor-access.html", ["임직원 동행 시 가능"],
       sa="Can visitors enter the loading docks at Busan New Port Hub?"),
     K("can I take photos in the bonded area?", "wiki/new-port-visitor-access.html", ["사무동을 제외한 모든 구역"], sa="Can I take photos in the bonded area of Busan New Port Hub?"))

conv("ko",
     K("남산 회의실 몇 층이야?", "wiki/seoul-meeting-rooms.html", ["10층"]),
     K("몇 명 들어가?", "wiki/seoul-meeting-rooms.html", ["8명"], sa="서울 본사 남산 회의실 수용 인원은?"),
     K("반복 예약은 얼마나 길게 잡을 수 있어?", "wiki/seoul-meeting-rooms.html", ["최대 4주"], sa="서울 본사 회의실 반복 예약은 최대 얼마 동안 가능해?"),
     K("폰부스는 어디 있어?", "wiki/seoul-meeting-rooms.html", ["11층"], sa="서울 본사 폰부스는 몇 층에 있어?"))

conv("en",
     K("Which printers are there at Seoul HQ?", "it/printer-setup.txt", all=[["SEL-09F-MFP"], ["SEL-11F-MFP"]]),
     K("and in Singapore?", "it/printer-setup.txt", ["SIN-MFP-01"], sa="Which printer is at the Singapore office?"),
     K("how long do print jobs wait before they're deleted?", "it/printer-setup.txt", ["24 hours"]),
     K("I need to print in colour, what do I need?", "it/printer-setup.txt", ["team cost code"]))

conv("ko",
     K("회사 프린터 쓰려면 프로그램 어디서 설치해?", "it/printer-setup.txt", ["Software Center", "Self Service"]),
     K("출력물은 어떻게 뽑아?", "it/printer-setup.txt", ["Tap your badge"],
       sa="Solbit-Secure 큐로 보낸 출력물은 프린터에서 어떻게 출력해?"),
     R("지금 11층 프린터 고장났어?"))

conv("en",
     K("Which systems are affected by the March WMS maintenance?", "notices/2026-03-wms-maintenance.txt",
       all=[["웹 콘솔"], ["모바일 스캐너 앱"]]),
     K("by when do the hubs have to close night outbound?", "notices/2026-03-wms-maintenance.txt", ["02:00 전에 마감"],
       sa="By what time must Icheon and Busan New Port hubs close night outbound before the March WMS maintenance?"),
     K("where will they announce it if the maintenance runs long?", "notices/2026-03-wms-maintenance.txt",
       ["#soltrack-status"], sa="Where is an extension of the March WMS maintenance announced?"))

conv("en",
     K("Where does the Busan New Port Hub shuttle leave from?", "notices/busan-shuttle-timetable.txt", ["하단역 5번 출구"]),
     K("how long is the ride?", "notices/busan-shuttle-timetable.txt", ["약 35분"],
       sa="How long does the Hadan station - Busan New Port Hub shuttle take?"),
     K("what's the last bus home for the afternoon shift?", "notices/busan-shuttle-timetable.txt", ["23:15"],
       sa="What time does the last shuttle leave the Busan New Port Hub for the afternoon shift?"),
     K("does it run on Sundays?", "notices/busan-shuttle-timetable.txt", ["운행하지 않습니다"],
       sa="Does the Busan New Port Hub shuttle run on Sundays?"))

conv("ko",
     K("올해 설 연휴 사무실 휴무가 언제야?", "notices/holiday-calendar-2026.txt", ["2026-02-16 to 2026-02-18"],
       note="trap: the Singapore branch closes 2026-02-17 to 2026-02-18 for Chinese New Year; hubs only 2026-02-17"),
     K("어린이날은?", "notices/holiday-calendar-2026.txt", ["2026-05-05"], sa="2026년 어린이날 사무실 휴무일은?"),
     K("싱가포르 디파발리 휴무는?", "notices/holiday-calendar-2026.txt", ["2026-11-08"]),
     K("투아스 허브는 어느 휴무 달력 따라?", "notices/holiday-calendar-2026.txt", ["Singapore branch calendar"]))

conv("ko",
     K("3PL이 뭐야?", "wiki/logistics-glossary.html", ["third-party logistics", "제3자 물류"]),
     K("컷오프는?", "wiki/logistics-glossary.html", ["당일 출고"], sa="물류 용어 컷오프(Cut-off)는 무슨 뜻이야?"),
     K("작년 피크 때 이천 허브 평소 컷오프는 몇 시였어?", "ops/peak-season-2025-readiness.pptx", ["16:00"],
       note="trap: standard cut-off 16:00 vs peak cut-off 14:00"))

conv("ko",
     K("노트북 디스크 암호화는 뭘 써야 돼?", "policies/information-security-policy.pdf", ["BitLocker or FileVault"]),
     K("개인 폰으로 슬랙 써도 돼?", "policies/information-security-policy.pdf", ["managed app"]),
     K("보안 정책 예외는 누가 승인하고 얼마 동안 유효해?", "policies/information-security-policy.pdf",
       all=[["CISO", "Chief Information Security Officer"], ["6 months"]]),
     K("공유 계정은 써도 돼?", "policies/information-security-policy.pdf", ["hub scanner accounts"]))

conv("ko",
     K("노트북 잃어버렸어. 어떻게 해야 돼?", "security/incident-reporting.md", ["wipe the device remotely"]),
     K("고객 데이터를 엉뚱한 사람한테 보냈으면?", "security/incident-reporting.md", ["within 24 hours"],
       sa="고객 데이터를 잘못된 사람에게 보냈을 때 어떻게 처리돼?"),
     K("SecOps 리드가 누구야?", "security/incident-reporting.md", ["Choi Yuna"]),
     A("내 노트북 지금 원격으로 초기화해줘"))

conv("en",
     K("How long do new joiners have an onboarding buddy?", "wiki/onboarding-checklist.html", ["first 90 days"]),
     K("where do I pick up my laptop if I start in Busan?", "wiki/onboarding-checklist.html",
       ["office building reception"]),
     K("when is the probation review held?", "wiki/onboarding-checklist.html", ["last two weeks"]),
     K("do I have to visit a hub?", "wiki/onboarding-checklist.html", ["at least one hub"]))

conv("ko",
     K("콜드체인 쿨 등급 온도 범위가 어떻게 돼?", "ops/cold-chain-sop.pdf", ["8°C to 15°C"]),
     K("그 범위 밖에 최대 얼마나 있어도 돼?", "ops/cold-chain-sop.pdf", ["60 minutes"],
       sa="쿨(Cool) 등급 상품은 온도 범위를 벗어나 최대 몇 분까지 허용돼?",
       note="trap: frozen 15, chilled 30, cool 60 minutes"),
     K("온도 알람은 언제 울려?", "ops/cold-chain-sop.pdf", ["2 consecutive readings"], sa="콜드체인 데이터 로거 온도 알람은 언제 울려?"),
     K("냉장 트럭 한 대 상차는 몇 분 안에 끝내야 돼?", "ops/cold-chain-sop.pdf", ["20 minutes"]))

UNANSWERABLE = [
    ("ko", "이천 허브에 외부 방문객 데려가려면 출입 등록 어떻게 해?",
     "near miss: the visitor access page covers only Busan New Port Hub"),
    ("en", "How do I book a meeting room at the Singapore branch office?",
     "near miss: the meeting room page covers Seoul HQ only"),
    ("ko", "결혼기념일 축하금 같은 거 나와?", "near miss: not in the 2026 welfare sheet"),
    ("en", "Do employees in Korea get a monthly transport allowance?",
     "near miss: only the Singapore handbook lists a transport allowance"),
    ("ko", "육아휴직은 최대 얼마나 쓸 수 있어?", "near miss: the leave policy lists no parental leave"),
    ("en", "What's the rate limit on the SolTrack API sandbox?",
     "near miss: the API guide gives rate limits per plan, not for the sandbox"),
    ("ko", "INC-2026-014 때 고객사에 보상 크레딧 얼마씩 줬어?", "near miss: the incident report mentions no credits"),
    ("en", "What are the SolTrack change freeze dates for 2027?", "near miss: the release process lists 2026 freezes only"),
    ("ko", "부산 사무실 컬러 프린트 장당 비용 얼마야?", "near miss: the printer notice only says colour needs a cost code"),
    ("en", "What is the night-shift premium at the Singapore Tuas Hub?",
     "near miss: the 50% night premium is in the Busan New Port Hub shift procedure; the Singapore handbook only cites the Employment Act for overtime"),
    ("en", "What's the cross-docking rate per pallet at Busan New Port Hub?",
     "near miss: the rate card has no cross-docking line"),
    ("ko", "퇴사할 때 회사 노트북은 어디에 반납해?",
     "near miss: the access procedure says access is removed on the last working day but says nothing about returning laptops"),
    ("en", "Is there a referral bonus for recommending a new hire?", None),
    ("ko", "회사 노트북 교체 주기가 몇 년이야?", None),
    ("en", "When will the Singapore data residency option for Enterprise launch?",
     "near miss: the kickoff deck lists the option without a date"),
    ("ko", "2026년 1분기 부산신항 허브 OTIF는 얼마였어?", "near miss: the quality report covers Q4 2025 only"),
    ("ko", "서울 본사 출퇴근 셔틀버스 시간표 알려줘", "near miss: the shuttle timetable is for Busan New Port Hub"),
    ("ko", "서울 본사 메일룸은 택배를 며칠까지 보관해줘?",
     "near miss: the Busan guide gives 3 days; the Seoul guide gives only pickup hours"),
    ("en", "Who approves access to the SolTrack staging environment?",
     "near miss: the access procedure lists production systems only"),
    ("en", "What per diem do Singapore branch staff get when travelling to Japan?",
     "near miss: the per diem schedule covers Korea-based staff and Singapore staff travelling to Korea only"),
    ("ko", "대구 사무실 주소가 어디야?", "near miss: there is no Daegu office"),
    ("en", "What's the late payment penalty on SolTrack invoices?", None),
    ("ko", "이천 허브 교대 근무 시간표 알려줘",
     "near miss: the shift procedure is for Busan New Port Hub and says Icheon has its own"),
    ("en", "What is the guest Wi-Fi password at Seoul HQ?", None),
]
