"""Markdown and plain-text documents of the Solbit Logistics corpus."""
import textwrap


def wrap(text, width=80):
    """Hard-wrap every paragraph of `text` at `width` columns (lists kept)."""
    out = []
    for para in text.strip("\n").split("\n\n"):
        lines = para.split("\n")
        if any(l.lstrip().startswith(("-", "|", "#", "1.", "2.", "3.", "4.", "5.", "6.", "```", "    ")) for l in lines):
            out.append(para)
        else:
            out.append(textwrap.fill(" ".join(l.strip() for l in lines), width=width))
    return "\n\n".join(out) + "\n"


DOCS = {}

DOCS["policies/expense-policy.md"] = """---
title: 경비 정산 규정
owner: 재무팀 (Finance)
status: current
effective: 2026-01-01
supersedes: policies/expense-policy-2022.md
tags: [경비, 야근, 택시, 영수증, 접대비]
---

# 경비 정산 규정 (2026)

본 규정은 솔빛물류 서울 본사, 부산 사무실 및 각 허브의 임직원에게 적용된다.
싱가포르 지사는 현지 규정(Singapore Branch Employee Handbook)을 따른다.

## 1. 야근 식대

- 21시 이후까지 근무한 경우 1인 1식 **12,000원** 까지 실비로 지급한다.
- 주말·공휴일 근무 시에는 1일 2식까지 인정한다.
- 팀 회식은 야근 식대로 처리할 수 없다.

## 2. 야근 택시비

- 23시 이후 퇴근하는 경우 택시비를 실비 정산한다. 1회 최대 **40,000원**.
- 부산 사무실의 야간조 근무자는 셔틀버스 운행 시간대에는 택시비를 청구할 수 없다.

## 3. 접대비

- 고객 접대는 사전 승인을 원칙으로 하며 1인당 **80,000원** 을 초과할 수 없다.
- 참석자 명단과 고객사명을 반드시 기재한다.

## 4. 제출 기한과 승인

1. 영수증은 사용일이 속한 달의 **다음 달 5일** 까지 솔빛페이에 제출한다.
2. 건당 50만 원 초과 경비는 본부장 승인이 필요하다.
3. 승인된 경비는 매월 25일 급여와 함께 지급된다.

## 5. 경과 조치

2022년 경비 규정(`expense-policy-2022.md`)은 2025-12-31부로 폐지되었다.
2025년 12월 사용분까지는 구 규정의 금액을 적용한다.

문의: 재무팀 경비 담당 (내선 1500)
"""

DOCS["policies/expense-policy-2022.md"] = """---
title: 경비 정산 규정 (2022)
owner: 재무팀 (Finance)
status: repealed
effective: 2022-03-01
repealed: 2025-12-31
superseded_by: policies/expense-policy.md
tags: [경비, 야근, 폐지]
---

> **폐지됨** — 이 규정은 2025-12-31부로 폐지되었습니다. 현행 규정은 `expense-policy.md` 를 보십시오.

# 경비 정산 규정 (2022)

## 1. 야근 식대

- 20시 이후까지 근무한 경우 1인 1식 9,000원 까지 지급한다.

## 2. 야근 택시비

- 22시 이후 퇴근 시 택시비를 지급한다. 1회 최대 30,000원.

## 3. 접대비

- 1인당 50,000원 을 초과할 수 없다.

## 4. 제출 기한

- 영수증은 사용일로부터 30일 이내에 제출한다.
- 승인된 경비는 매월 10일에 지급한다.
"""

DOCS["hr/remote-work-policy-v2.md"] = """---
title: Remote Work Policy v2
owner: People Team
status: superseded
effective: 2024-04-01
superseded_by: hr/remote-work-policy-v3.docx
tags: [remote work, hybrid, stipend]
---

> **Superseded** by Remote Work Policy v3 (effective 2026-02-01). Kept for reference only.

# Remote Work Policy (version 2)

## Eligibility

All office-based employees in Seoul and Busan who have completed probation may
work remotely.

## How much

- Employees may work remotely up to **3 days per week**.
- Core hours, when everyone must be reachable, are **11:00-15:00 KST**.

## Home-office stipend

A one-time home-office stipend of **₩200,000** is paid with the first payroll after
the first remote day.

## How to request

Send an email to your team lead by Friday of the preceding week.
"""

DOCS["offices/seoul-office-guide.md"] = """---
title: 서울 본사 생활 가이드
owner: 총무팀 (General Affairs, Seoul)
status: current
effective: 2026-01-15
tags: [서울, 성수, 주차, 출입카드, 택배]
---

# 서울 본사 생활 가이드

서울 본사는 성수동 솔빛타워 8층~12층을 사용한다.

## 운영 시간

- 건물 출입: 평일 07:00~22:00
- 22시 이후 잔류 시 12층 보안실에 야간 잔류 신청을 한다.

## 주차

- 임직원 월 정기주차: 월 **60,000원** (급여 공제), 지하 2~4층
- 방문객: 안내데스크 등록 시 **2시간 무료**, 이후 10분당 1,000원
- 전기차 충전기는 지하 3층에 8기가 있다.

## 출입카드

- 분실 시 즉시 총무팀(내선 1200)에 신고한다.
- 재발급 비용: **10,000원** (급여 공제)

## 택배

- 개인 택배는 1층 메일룸에서 평일 18:00까지 수령할 수 있다.

## 회의실

회의실 목록과 예약 규칙은 위키의 "서울 본사 회의실 예약 안내" 페이지를 참고한다.
"""

DOCS["offices/busan-office-guide.md"] = """---
title: 부산 사무실 생활 가이드
owner: 부산 운영지원팀
status: current
effective: 2026-01-15
tags: [부산, 신항, 주차, 출입카드, 셔틀]
---

# 부산 사무실 생활 가이드

부산 사무실은 부산 강서구 부산신항 물류센터(부산신항 허브) 사무동 2층에 있다.

## 운영 시간

- 사무동 출입: 매일 06:00~23:00 (물류센터 교대 근무에 맞춤)

## 주차

- 임직원: 등록 차량 **무료**
- 방문객: 당일 무료 (경비실에서 방문증 수령)

## 출입카드

- 분실 시 부산 운영지원팀(내선 5300)에 신고한다.
- 재발급 비용: **5,000원**

## 출퇴근 셔틀

하단역 ↔ 부산신항 허브 셔틀버스를 운행한다. 시간표는 공지
`busan-shuttle-timetable.txt` 를 본다.

## 택배

- 개인 택배는 경비실에서 보관하며 3일이 지나면 반송한다.
"""

DOCS["it/password-reset.md"] = wrap("""---
title: Resetting your Solbit password
owner: IT Service Desk
status: current
effective: 2025-09-01
tags: [password, account, lockout, self-service]
---

# Resetting your Solbit password

Your Solbit account (email, SolTrack admin console, Solbit People, VPN) uses one
password. You can reset it yourself at any time in the self-service portal; you do not
need to open a ticket.

## Self-service reset

1. Open https://id.solbit.example/reset from any browser.
2. Enter your company email address.
3. Approve the push notification in Okta Verify on your registered phone.
4. Choose a new password of at least 14 characters. It must not match any of your last
5 passwords.
5. Sign out and sign back in on your laptop so that the new password is cached.

## Locked accounts

After 5 failed sign-in attempts your account is locked for 30 minutes. The lock clears by
itself; if you cannot wait, call the IT Service Desk on extension 2400 and verify your
identity with your employee number.

## Lost phone

If you lost the phone that holds Okta Verify, the self-service reset will not work.
Visit the IT Service Desk in person (Seoul HQ 9th floor, or the Busan office
operations support desk) with your badge.
""")

DOCS["eng/release-process.md"] = """---
title: SolTrack release process
owner: Platform Engineering
status: current
effective: 2026-01-12
tags: [release, deploy, freeze, hotfix, rollback]
---

# SolTrack release process

Document owner: Platform Engineering (Lee Seojun)

## Regular releases

- Production deploys of SolTrack happen on **Tuesdays and Thursdays at 14:00 KST**.
- A release needs a green pipeline and one approval from a Platform Engineering reviewer.
- Releases are announced in `#soltrack-releases` 30 minutes in advance.

## Change freezes

No regular releases during these windows:

| Freeze | From | To |
|---|---|---|
| Chuseok | 2026-09-21 | 2026-09-28 |
| Year-end peak | 2026-12-14 | 2026-12-31 |

## Hotfixes

A hotfix may ship outside the release windows (including during a freeze) with the
approval of the on-call engineering manager.

## Rollback

If the error rate stays above 2% for 5 minutes after a deploy, the release engineer rolls
back. A rollback must be completed within 15 minutes.

## Changelog

| Version | Date | Change | Author |
|---|---|---|---|
| 1.0 | 2024-05-02 | First version: Tuesday release window only | Lee Seojun |
| 1.3 | 2025-08-19 | Added the Thursday release window | Lee Seojun |
| 1.4 | 2026-01-12 | 2026 freeze dates; rollback threshold changed from 5% to 2% | Kim Minji |

## See also

- Incident report INC-2026-014 (WMS API outage) on the wiki
- `it/access-request-procedure.docx` for production access
- `eng/oncall-policy.md` for the on-call rotation
"""

DOCS["eng/oncall-policy.md"] = """---
title: SolTrack 온콜 운영 규정
owner: 플랫폼엔지니어링팀
status: current
effective: 2025-10-01
tags: [온콜, 수당, 호출, 에스컬레이션]
---

# SolTrack 온콜 운영 규정

## 순환

- 온콜은 1주 단위로 순환하며 **매주 월요일 10:00** 에 교대한다.
- 프라이머리 1명, 세컨더리 1명으로 구성한다.
- 현재 온콜 담당자는 PagerDuty 일정에서 확인한다.

## 응답 기준

- 호출(page)을 받으면 **15분 이내** 에 응답(ack)해야 한다.
- 15분 안에 응답이 없으면 세컨더리가 호출된다.
- 30분 안에 응답이 없으면 엔지니어링 매니저가 호출된다.

## 온콜 수당

| 구분 | 1일 수당 |
|---|---|
| 평일 | 30,000원 |
| 주말·공휴일 | 90,000원 |

수당은 다음 달 급여와 함께 지급한다.
"""

DOCS["sales/soltrack-discount-policy.md"] = """---
title: SolTrack discount policy
owner: Revenue Operations
status: current
effective: 2026-01-01
tags: [SolTrack, pricing, discount, approval]
---

# SolTrack discount policy

List prices are on the wiki page "SolTrack plans and pricing". This page says which
discounts sales may offer and who approves them.

## Standard discounts

- Annual prepayment: **15%** off the monthly list price.
- Three-year contract, paid annually: **22%**.
- Non-profit organisations and public institutions: **10%**, which can be combined with the
  annual prepayment discount.

## Approval levels

| Total discount | Approver |
|---|---|
| up to 10% | Account executive |
| over 10% and up to 20% | Sales director |
| over 20% | Chief Revenue Officer (Jung Hana) |

## Exclusions

- Discounts never apply to implementation fees.
- Lite plan customers may only receive the annual prepayment discount.
"""

DOCS["legal/data-retention.md"] = """---
title: 개인정보 및 기록 보존 기준
owner: 법무·컴플라이언스팀
status: current
effective: 2025-07-01
tags: [개인정보, 보존, 파기, CCTV, 운송장]
---

# 개인정보 및 기록 보존 기준

| 기록 | 보존 기간 | 근거 |
|---|---|---|
| 운송장의 수취인 개인정보(이름, 전화번호, 주소) | 배송 완료 후 90일, 이후 마스킹 | 내부 기준 |
| 배송·거래 기록 | 5년 | 전자상거래법 |
| 물류센터 CCTV 영상 | 30일 | 내부 기준 |
| 고객 상담 녹취 | 3년 | 내부 기준 |
| 불합격자 채용 서류 | 180일 | 채용절차법 |

- 보존 기간이 지난 기록은 매월 첫째 주 배치로 파기한다.
- 수사기관의 요청이 있으면 법무·컴플라이언스팀 승인 후 보존 기간을 연장할 수 있다.
"""

DOCS["hr/performance-review-2026.md"] = wrap("""---
title: 2026 H1 performance review
owner: People Team
status: current
effective: 2026-05-01
tags: [performance review, calibration, promotion]
---

# 2026 H1 performance review

The first-half review covers work from January to June 2026. It applies to all
employees in Korea and in the Singapore branch who joined before 2026-04-01.

## Timeline

- Self-review opens on 2026-06-01 and is due on 2026-06-12.
- Manager reviews are due on 2026-06-26.
- Calibration sessions run in the first two weeks of July.
- Results are shared with employees by 2026-07-17.
- Promotions take effect on 2026-08-01.

## Rating scale

We use five ratings: Exceptional, Strong, Solid, Developing and Unsatisfactory. About
one in ten employees is expected to receive Exceptional; this is a guideline, not a
quota.

## Peer feedback

Each employee nominates 3 to 5 peers. Peer feedback is shared with the manager only,
never with the employee word for word.
""")

DOCS["ops/returns-process.md"] = """---
title: 반품 처리 절차
owner: 풀필먼트운영팀
status: current
effective: 2025-11-01
tags: [반품, 검수, 재입고, 폐기]
---

# 반품 처리 절차

화주사 고객의 반품은 아래 순서로 처리한다.

1. **반품 접수**: 화주사 또는 고객센터가 SolTrack의 "반품 요청" 메뉴에서 접수한다.
2. **회수 배정**: 택배사 회수 기사를 배정한다. 접수 후 **영업일 2일 이내** 회수가 원칙이다.
3. **입고 검수**: 회수 상품이 허브에 도착하면 **24시간 이내** 검수한다. 검수 사진은 최소 4장을 SolTrack에 첨부한다.
4. **등급 판정**: A(재판매 가능), B(재포장 후 판매), C(판매 불가)로 판정한다.
5. **후속 처리**: A·B 등급은 재입고하고, C 등급은 화주사 승인 후 폐기한다.
6. **정산**: 반품 처리 비용은 화주사 계약 단가에 따라 월말에 청구한다.

냉장·냉동 상품의 반품은 콜드체인 SOP(SOP-OPS-012)를 함께 따른다.
"""

DOCS["security/incident-reporting.md"] = """---
title: Reporting a security incident
owner: Security Operations (SecOps)
status: current
effective: 2025-06-01
tags: [security, incident, phishing, lost laptop]
---

# Reporting a security incident

Report anything that might be a security incident **within 1 hour** of noticing it. Do
not wait until you are sure.

## Where to report

- Email security@solbit.example, or
- post in the Slack channel `#sec-incident` (monitored 24/7).

## Typical cases

- **Phishing email**: use the "Report Phishing" button in Outlook. Do not forward the email
  to colleagues.
- **Lost or stolen laptop or phone**: report it and also tell your manager. SecOps will wipe
  the device remotely; do not try to wipe it yourself.
- **Customer data sent to the wrong person**: report it; Legal decides within 24 hours
  whether the customer and the regulator must be notified.

The SecOps lead is Choi Yuna.
"""

DOCS["notices/2026-03-wms-maintenance.txt"] = """[공지] SolTrack WMS 정기 점검 안내

작성: IT 서비스데스크 / 2026-03-10

SolTrack WMS 정기 점검을 아래와 같이 진행합니다.

- 일시: 2026년 3월 21일(토) 02:00 ~ 06:00 (KST)
- 대상: SolTrack WMS 웹 콘솔, 공개 API, 모바일 스캐너 앱
- 영향:
  * 점검 시간 동안 공개 API는 HTTP 503을 반환합니다.
  * 모바일 스캐너는 오프라인 모드로 동작하며 점검 종료 후 자동 동기화됩니다.
  * 이천·부산신항 허브의 야간 출고는 02:00 전에 마감해 주세요.

점검 시간은 상황에 따라 연장될 수 있으며, 연장 시 #soltrack-status 채널로 안내합니다.

문의: IT 서비스데스크 (내선 2400)
"""

DOCS["notices/holiday-calendar-2026.txt"] = """SOLBIT LOGISTICS - 2026 OFFICE CLOSURE CALENDAR
Issued by: People Team, 2025-12-01

KOREA (Seoul HQ, Busan office)
  Seollal (Lunar New Year) ........ 2026-02-16 to 2026-02-18
  Children's Day ................... 2026-05-05
  Chuseok .......................... 2026-09-24 to 2026-09-26
  Company foundation day ........... 2026-10-12  (Solbit only, offices closed)

SINGAPORE BRANCH
  Chinese New Year ................. 2026-02-17 to 2026-02-18
  National Day (observed) .......... 2026-08-10
  Deepavali ........................ 2026-11-08

HUBS
  Icheon Hub and Busan New Port Hub operate on public holidays with rotating crews.
  Both hubs are closed on one day only: 2026-02-17 (Seollal day).
  Singapore Tuas Hub follows the Singapore branch calendar.

Questions: People Team, people@solbit.example
"""

DOCS["notices/busan-shuttle-timetable.txt"] = """부산신항 허브 출퇴근 셔틀버스 시간표 (2026년 3월 4일부터 적용)

노선: 하단역 5번 출구 ↔ 부산신항 허브 정문 (소요 시간 약 35분)

[출근] 하단역 출발
  06:20  (주간조)
  07:10
  07:40
  08:20

[퇴근] 허브 정문 출발
  15:20  (주간조)
  18:10
  19:00
  23:15  (오후조)

- 토요일은 출근 07:10, 퇴근 18:10 각 1회만 운행합니다.
- 일요일·공휴일은 운행하지 않습니다.
- 문의: 부산 운영지원팀 (내선 5300)
"""

DOCS["it/printer-setup.txt"] = """PRINTING AT SOLBIT OFFICES
IT Service Desk - last updated 2025-10-20

Printers
  Seoul HQ:      SEL-09F-MFP (9th floor), SEL-11F-MFP (11th floor)
  Busan office:  PUS-2F-MFP (office building, 2nd floor)
  Singapore:     SIN-MFP-01

How to print
  1. Install "Solbit Print" from Software Center (Windows) or Self Service (Mac).
  2. Print to the queue "Solbit-Secure".
  3. Tap your badge on any printer to release the job. Jobs are deleted after 24 hours.

Colour printing needs a team cost code; ask your team assistant.
Scan to email: attachments larger than 20 MB are rejected.
"""
