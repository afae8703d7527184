"""Write the document fixture corpus under tests/fixtures/documents (every format, Korean and English).

    .venv/bin/pip install fpdf2        # PDF writer, for this script only
    .venv/bin/python scripts/make_document_fixtures.py

The company is fictional (Nuri Cloud / 누리클라우드). Each file holds facts a test expects to read back
(as sentences, as table rows) and the page clutter real exports carry (wiki menus, breadcrumbs, bylines,
view counts, comments, "Was this page helpful?", cookie banners, PDF running headers and page numbers),
which must never reach a chunk. `expected.json` lists, per file: the title, facts, exact rows,
clutter, metadata and (for the scanned PDF) the error; `eval.jsonl` asks about the same facts for
`docbot eval`. Output is deterministic (fixed dates in every file's properties).
"""
from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "documents"
FONT = Path("/usr/share/fonts/truetype/nanum/NanumGothic.ttf")
FONT_BOLD = Path("/usr/share/fonts/truetype/nanum/NanumGothicBold.ttf")
WHEN = datetime(2026, 2, 2, 9, 0, 0)
EXPECTED: dict[str, dict] = {}


def expect(name: str, **spec) -> None:
    EXPECTED[name] = spec


# ------------------------------------------------------------------------------------------- Markdown

PARENTAL = """---
title: 육아휴직 규정
owner: 인사팀 (People Team)
status: 시행
effective: 2026-01-01
updated: 2025-12-15
tags: [hr, leave]
---
# 육아휴직 규정

만 8세 이하 자녀를 둔 임직원은 자녀 1명당 최대 1년 6개월의 육아휴직을 쓸 수 있으며, 휴직
기간 중 첫 3개월은 회사가 통상임금의 80%를 보전합니다. 휴직은 최대 3회까지 나누어 쓸 수
있습니다.

## 신청 절차

1. 휴직 시작 30일 전까지 누리 HR 포털에서 육아휴직을 신청합니다. 신청서에는 자녀의
   가족관계증명서를 첨부합니다.
2. 팀장이 7일 안에 승인합니다.
3. 인사팀이 휴직 발령을 냅니다.

## 복직 지원

| 구분 | 지원 내용 | 기간 |
|---|---|---|
| 단축 근무 | 하루 2시간 단축 | 복직 후 6개월 |
| 복직 수당 | 1,000,000원 | 복직 3개월 후 1회 |
"""

OLD_REMOTE = """---
title: Remote Work Guidelines (2022)
owner: People Team
status: Repealed
effective: 2022-03-01
---
# Remote Work Guidelines (2022)

Employees may work from home up to four days per week, provided their
manager approves the schedule in advance in the HR portal.

This document was repealed on 2025-06-30 and is kept for reference only.

- Equipment allowance:
  - Monitor: up to 250,000 KRW
  - Chair: up to 150,000 KRW
"""

# -------------------------------------------------------------------------------------------- Text

NOTICE = """Office network maintenance notice

On Saturday 14 March 2026 the Pangyo office network will be unavailable from
22:00 to 02:00 while the core switches are replaced. The VPN and the guest
Wi-Fi are affected too; cloud services stay up.

Before you leave on Friday:
- Save your work and shut down desktop PCs; laptops can stay in their docks
  if they are switched off.
- Printers will be restarted automatically.

Questions go to the IT service desk at extension 4400.
"""

# A notice as people type one in a text editor: capitals and indented blocks for sections, dot leaders between
# a label and its value, an indented sub-list, a closing line back at the margin.
CLOSURES = """누리클라우드 2026 휴무 안내 / NURI CLOUD OFFICE CLOSURES 2026
작성: 인사팀 / 2025-12-10

판교 오피스 (PANGYO)
  설 연휴 ........................... 2026-02-16 ~ 2026-02-18
  추석 연휴 ......................... 2026-09-24 ~ 2026-09-26
  창립기념일 ......................... 2026-11-02 (사무실 휴무)

DATA CENTRES
  Busan DC and Pyeongtaek DC run on public holidays with rotating crews.
  Both close for maintenance on one night only: 2026-04-11 22:00 to 2026-04-12 06:00.

휴무일 근무 신청
  - 신청 방법:
    * 누리 HR 포털에서 '휴일 근무'를 신청합니다
    * 팀장이 전날 17시까지 승인합니다

문의: 인사팀 (내선 2200)
"""

# -------------------------------------------------------------------------------------------- HTML

COOKIE = '<div id="cookie-consent" class="cookie-banner">We use cookies to improve your experience. <button>Accept all cookies</button></div>'

CONFLUENCE = f"""<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>경비 : 출장 경비 정산 기준</title>
<meta name="confluence-space-key" content="FIN"></head>
<body class="theme-default aui-layout">
{COOKIE}
<div id="page">
  <div id="header" role="banner"><nav class="aui-header"><a href="#">누리클라우드 위키</a> <a href="#">Spaces</a> <a href="#">People</a></nav></div>
  <div class="ia-splitter"><div class="ia-fixed-sidebar"><div class="acs-side-bar">
    <ul class="plugin_pagetree_children_list"><li><a>재무팀 홈</a></li><li><a>출장 경비 정산 기준</a></li><li><a>법인카드 가이드</a></li></ul>
    <div class="space-tools-section">Space tools</div></div></div>
  <div id="main" class="aui-page-panel">
    <div id="main-header"><div id="breadcrumb-section"><ol id="breadcrumbs"><li><a>재무팀</a></li><li><a>규정</a></li><li><a>출장 경비 정산 기준</a></li></ol></div>
      <h1 id="title-heading" class="pagetitle"><span id="title-text">출장 경비 정산 기준</span></h1></div>
    <div id="content" class="page view">
      <div class="page-metadata">Created by 김지호, last modified by 이아라 on Mar 03, 2026 · 4 min read · 312 views</div>
      <div id="main-content" class="wiki-content">
        <p>출장 경비는 귀국 또는 복귀 후 10일 안에 누리페이에서 정산합니다. 영수증 원본은 스캔하여 첨부합니다.</p>
        <h2>숙박비 상한</h2>
        <div class="table-wrap"><table class="confluenceTable"><tbody>
          <tr><th class="confluenceTh">지역</th><th class="confluenceTh">팀원</th><th class="confluenceTh">팀장 이상</th></tr>
          <tr><td class="confluenceTd">서울</td><td class="confluenceTd">130,000원</td><td class="confluenceTd">160,000원</td></tr>
          <tr><td class="confluenceTd">부산·제주</td><td class="confluenceTd">110,000원</td><td class="confluenceTd">140,000원</td></tr>
          <tr><td class="confluenceTd">기타 지역</td><td class="confluenceTd">90,000원</td><td class="confluenceTd">120,000원</td></tr>
        </tbody></table></div>
        <h2>교통비</h2>
        <ul><li>KTX는 일반실을 기본으로 하며, 3시간 이상 이동 시 특실을 쓸 수 있습니다.</li>
            <li>자가 차량은 km당 250원을 지급합니다.</li>
            <li>주차비:<ul><li>공항 주차장: 1일 20,000원까지</li></ul></li></ul>
      </div>
      <div class="labels-section"><span class="label">finance</span> <span class="label">travel</span></div>
      <div class="pageSection group"><h2 class="pageSectionTitle">Attachments:</h2><a>receipt-template.xlsx</a></div>
      <div id="comments-section" class="pageSection group"><h2>2 Comments</h2>
        <div class="comment-thread"><div class="comment"><div class="comment-header">박민수</div>
        <div class="comment-content">제주 숙박비가 90,000원 아니었나요?</div><div class="comment-actions">Reply · Like</div></div></div></div>
      <div class="page-feedback">Was this page helpful? <button>Yes</button> <button>No</button></div>
    </div>
  </div></div>
  <div id="footer" role="contentinfo"><section class="footer-body"><p>Document generated by Confluence on Mar 04, 2026 10:12</p><p>Atlassian</p></section></div>
</div></body></html>
"""

NOTION = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Engineering onboarding</title>
<meta property="og:site_name" content="Notion"></head>
<body>
<div class="notion-cookie-banner">Notion uses cookies to keep you signed in. <button>Accept</button></div>
<div class="notion-sidebar"><div class="notion-sidebar-switcher">Nuri Cloud</div>
  <div class="notion-sidebar-item">Quick Find</div><div class="notion-sidebar-item">Settings &amp; members</div>
  <div class="notion-sidebar-item">Engineering wiki</div><div class="notion-sidebar-item">Team directory</div></div>
<article id="b1" class="page sans">
<header><div class="page-header-icon">🚀</div><h1 class="page-title">Engineering onboarding</h1>
<table class="properties"><tbody>
<tr class="property-row"><th>Owner</th><td>Platform Team (Choi Yuna)</td></tr>
<tr class="property-row"><th>Status</th><td><span class="status-value">Draft</span></td></tr>
<tr class="property-row"><th>Last edited time</th><td>February 10, 2026 4:20 PM</td></tr>
</tbody></table></header>
<div class="notion-topbar"><div class="notion-breadcrumb">Engineering / Onboarding</div><div class="notion-topbar-share">Share</div></div>
<div class="page-body">
<p>New engineers get production read access after their first week and write access after completing the on-call shadowing rotation.</p>
<h2>Accounts</h2>
<dl><dt>GitHub</dt><dd>Request access in the #it-help channel; the Platform Team approves within one business day.</dd>
<dt>AWS</dt><dd>Console access is granted through SSO only; long-lived access keys are not issued.</dd></dl>
<h2>Local setup</h2>
<p>Clone the monorepo and run the bootstrap script:</p>
<pre><code>git clone git@github.com:nuri/monorepo.git
cd monorepo &amp;&amp; make bootstrap</code></pre>
<h3>First deploy</h3>
<ol><li>Pair with your onboarding buddy on a small change.</li><li>Deploy it to staging with the deploy bot.</li><li>Ship it to production before the end of your second week.</li></ol>
</div>
<div class="page-footer"><span>4 min read</span> · <span>1,204 views</span></div>
<div class="notion-comments"><div class="comment"><span class="author">Kang Doyun</span> Do interns get AWS access too?</div></div>
</article></body></html>
"""

SHAREPOINT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Password and MFA standard - Security - SharePoint</title>
<meta name="description" content="Security team site"></head>
<body>
<div id="SuiteNavWrapper"><span class="o365brand">Microsoft 365</span> <span>SharePoint</span> <input placeholder="Search this site"></div>
<div class="spSiteHeader"><span class="siteTitle">Security</span> <div class="siteActions">Following · Share</div></div>
<div class="spLeftNav" role="navigation"><a>Home</a><a>Policies</a><a>Training</a><a>Recycle bin</a></div>
<div class="commandBar">+ New · Page details · Analytics · Share</div>
<div class="spPageContent">
<div data-automation-id="pageHeader" class="pageTitle"><h1>Password and MFA standard</h1>
<div class="authorByline">Published by Han Seojin · January 20, 2026</div></div>
<div class="CanvasZone"><div class="ms-rtestate-field">
<p>All Nuri Cloud accounts must use a password of at least 14 characters and multi-factor authentication.</p>
<h2>Rotation and lockout</h2>
<table>
<thead><tr><th rowspan="2">Account type</th><th colspan="2">Password rules</th></tr>
<tr><th>Rotation</th><th>Lockout after</th></tr></thead>
<tbody>
<tr><td>Employee</td><td>None (rotate only when compromised)</td><td>10 failed attempts</td></tr>
<tr><td>Service account</td><td>Every 90 days</td><td>5 failed attempts</td></tr>
<tr><td>Break-glass admin</td><td>After every use</td><td>3 failed attempts</td></tr>
</tbody></table>
<h2>Approved MFA methods</h2>
<ul><li>Authenticator app push with number matching</li><li>FIDO2 security key (required for administrators)</li></ul>
<p>SMS codes are <strong>not</strong> accepted as a <em>second factor</em>.</p>
</div></div>
<div class="pageViews">2,318 views</div>
<div data-sp-feature-tag="Comments" class="commentsWrapper"><h3>Comments</h3>
<div class="comment">Jung Hoon: Does this apply to the build servers? <a>Reply</a> <a>Like</a></div></div>
<div class="feedbackPanel">Was this page helpful? 👍 👎</div>
</div>
<div class="spFooter">Nuri Cloud Intranet · Privacy · Terms</div>
</body></html>
"""

GSITES = """<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>판교 오피스 안내</title>
<meta property="og:title" content="판교 오피스 안내"></head>
<body>
<div class="Xpil1b" role="banner"><a class="QTKDff">누리클라우드 사내 사이트</a></div>
<div class="JzO0Vc" role="navigation"><ul><li><a>홈</a></li><li><a>오피스</a></li><li><a>복지</a></li><li><a>IT 지원</a></li></ul></div>
<div role="main" class="UtePc RCETm">
<section class="yaqOZd"><div class="mYVXT"><div class="tyJCtd"><h1 class="zfr3Q">판교 오피스 안내</h1></div></div></section>
<section class="yaqOZd"><div class="tyJCtd baZpAe">
<p class="zfr3Q">판교 오피스는 평일 07:00부터 22:00까지 출입할 수 있으며, 주말 출입은 하루 전까지 총무팀에 신청해야 합니다.</p>
<h2 class="zfr3Q">층별 안내</h2>
<table class="sites-table"><tr><td>층</td><td>용도</td><td>비고</td></tr>
<tr><td>3층</td><td>라운지·카페</td><td>08:00~17:00 운영</td></tr>
<tr><td>4층</td><td>회의실 12개</td><td>아웃룩으로 예약</td></tr>
<tr><td>5층</td><td>엔지니어링</td><td>출입 카드 권한 필요</td></tr></table>
<h2 class="zfr3Q">주차</h2>
<p class="zfr3Q">주차는 지하 2층을 쓰며, 임직원 차량은 월 30,000원에 정기 등록할 수 있습니다.</p>
</div></section>
</div>
<div class="dZA9kd" role="contentinfo"><div class="lkHyyc">Google Sites</div><a>Report abuse</a> · <a>Page details</a><div>Page updated Feb 01, 2026</div></div>
<div class="cookie-notice">This site uses cookies from Google to deliver its services. <a>Learn more</a> <a>OK, got it</a></div>
</body></html>
"""


# --------------------------------------------------------------------------------------------- PDF

def pdf_security(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_title("Cloud Security Handbook")
    pdf.set_author("Security Team (Han Seojin)")
    pdf.set_creation_date(WHEN)
    pdf.add_font("Nanum", "", str(FONT))
    pdf.add_font("Nanum", "B", str(FONT_BOLD))
    pdf.set_auto_page_break(True, margin=25)

    class Doc(FPDF):
        pass

    def header() -> None:
        pdf.set_font("Nanum", "", 8)
        pdf.set_xy(15, 8)
        pdf.cell(0, 5, "Nuri Cloud - CONFIDENTIAL - Security Handbook v4", align="L")
        pdf.set_xy(15, 284)
        pdf.cell(0, 5, f"Page {pdf.page_no()} of 3", align="C")
        pdf.set_xy(15, 25)

    def h(text: str, size: int = 13) -> None:
        pdf.set_font("Nanum", "B", size)
        pdf.multi_cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)

    def p(text: str) -> None:
        pdf.set_font("Nanum", "", 10)
        pdf.multi_cell(0, 5.5, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)

    pdf.add_page()
    header()
    h("Cloud Security Handbook", 18)
    p("Version 4 · Effective 2026-02-01 · Owner: Security Team")
    h("1. Access reviews")
    p("Team leads review the access of their team members to production systems every quarter. Access that "
      "is not confirmed within 14 days of the review request is removed automatically by the identity platform, "
      "and the removal is recorded in the audit log.")
    for item in ["• Production database access expires after 12 hours and must be requested again.",
                 "• Contractors never receive standing production access."]:
        p(item)
    h("2. Incident severity")
    pdf.set_font("Nanum", "B", 9)
    widths = (35, 75, 50)
    for w, t in zip(widths, ("Severity", "Example", "Response time")):
        pdf.cell(w, 7, t, border=1)
    pdf.ln()
    pdf.set_font("Nanum", "", 9)
    for row in (("SEV1", "Customer data exposed", "15 minutes"), ("SEV2", "Production outage", "30 minutes"),
                ("SEV3", "Degraded internal tool", "Next business day")):
        for w, t in zip(widths, row):
            pdf.cell(w, 7, t, border=1)
        pdf.ln()
    pdf.ln(4)
    p("Filler paragraph explaining the history of the handbook. " * 14)
    p("Another filler paragraph about how the handbook is maintained by the security team. " * 12)
    pdf.add_page()
    header()
    h("3. Laptops")
    p("Company laptops must run disk encryption and the endpoint agent at all times. A laptop that has not "
      "checked in with the management server for 30 days is locked remotely until the owner contacts the "
      "IT service desk. Lost laptops are reported within 24 hours of noticing the loss.")
    p("Long filler text describing laptop models and the refresh programme in more detail. " * 16)
    pdf.add_page()
    header()
    h("4. Exceptions")
    p("Exceptions to this handbook are approved by the CISO in writing and expire after 6 months.")
    pdf.output(str(path))
    expect(path.name, title="Cloud Security Handbook",
           facts=["Access that is not confirmed within 14 days of the review request is removed automatically by the identity platform, and the removal is recorded in the audit log.",
                  "A laptop that has not checked in with the management server for 30 days is locked remotely until the owner contacts the IT service desk.",
                  "Exceptions to this handbook are approved by the CISO in writing and expire after 6 months."],
           rows=["SEV1 — Example: Customer data exposed; Response time: 15 minutes.",
                 "SEV3 — Example: Degraded internal tool; Response time: Next business day."],
           items=["• Production database access expires after 12 hours and must be requested again."],
           clutter=["CONFIDENTIAL", "Page 1 of 3", "Page 2 of 3", "Security Handbook v4"],
           meta={"author": "Security Team (Han Seojin)", "effective": "2026-02-01"})


def pdf_benefits_ko(path: Path) -> None:
    """Korean, no Title property: the title must come from the first page's largest text."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(WHEN)
    pdf.add_font("Nanum", "", str(FONT))
    pdf.add_font("Nanum", "B", str(FONT_BOLD))
    pdf.set_auto_page_break(True, margin=25)

    def header() -> None:
        pdf.set_font("Nanum", "", 8)
        pdf.set_xy(15, 8)
        pdf.cell(0, 5, "누리클라우드 — 사내 한정 (INTERNAL)", align="R")
        pdf.set_xy(15, 284)
        pdf.cell(0, 5, f"- {pdf.page_no()} -", align="C")
        pdf.set_xy(15, 25)

    pdf.add_page()
    header()
    pdf.set_font("Nanum", "B", 20)
    pdf.multi_cell(0, 10, "2026 복리후생 안내", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Nanum", "", 10)
    pdf.multi_cell(0, 6, "시행일: 2026-01-01 · 소관: 인사팀", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Nanum", "B", 13)
    pdf.multi_cell(0, 8, "제1조 (자기계발비)", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Nanum", "", 10)
    pdf.multi_cell(0, 6, "모든 임직원에게 연 1,200,000원의 자기계발비를 지원하며, 도서 구입과 온라인 강의, 외부 교육 "
                          "수강료에 쓸 수 있다. 미사용 금액은 다음 해로 이월되지 않는다.", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Nanum", "B", 13)
    pdf.multi_cell(0, 8, "제2조 (경조금)", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Nanum", "B", 9)
    for w, t in zip((60, 50, 50), ("구분", "경조금", "휴가")):
        pdf.cell(w, 7, t, border=1)
    pdf.ln()
    pdf.set_font("Nanum", "", 9)
    for row in (("본인 결혼", "1,000,000원", "5일"), ("자녀 출생", "500,000원", "10일"), ("부모 회갑", "300,000원", "1일")):
        for w, t in zip((60, 50, 50), row):
            pdf.cell(w, 7, t, border=1)
        pdf.ln()
    pdf.add_page()
    header()
    pdf.set_font("Nanum", "B", 13)
    pdf.multi_cell(0, 8, "제3조 (건강검진)", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Nanum", "", 10)
    pdf.multi_cell(0, 6, "임직원 본인은 매년 종합건강검진을 받을 수 있으며, 배우자는 2년에 한 번 300,000원까지 "
                          "지원한다.", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    expect(path.name, title="2026 복리후생 안내",
           facts=["모든 임직원에게 연 1,200,000원의 자기계발비를 지원하며, 도서 구입과 온라인 강의, 외부 교육 수강료에 쓸 수 있다.",
                  "배우자는 2년에 한 번 300,000원까지 지원한다."],
           rows=["본인 결혼 — 경조금: 1,000,000원; 휴가: 5일.", "자녀 출생 — 경조금: 500,000원; 휴가: 10일."],
           clutter=["사내 한정", "INTERNAL", "- 1 -", "- 2 -"],
           meta={"effective": "2026-01-01"})


def pdf_two_columns(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_title("Nuri Cloud Newsletter - February 2026")
    pdf.set_creation_date(WHEN)
    pdf.add_font("Nanum", "", str(FONT))
    pdf.add_font("Nanum", "B", str(FONT_BOLD))
    pdf.add_page()
    pdf.set_font("Nanum", "B", 18)
    pdf.multi_cell(0, 10, "Nuri Cloud Newsletter - February 2026", new_x="LMARGIN", new_y="NEXT")
    top = pdf.get_y() + 4
    left = ("The Busan data centre opened on 2 February 2026 with 1,200 racks. It will host the Korean region's "
            "second availability zone and cut failover time for customers in the south to under 5 minutes. "
            "Migration of the first tenants starts in April.")
    right = ("The annual hackathon takes place on 19-20 March 2026 in the Pangyo office. Teams of up to four "
             "people can register until 6 March, and the winning team receives a prize of 3,000,000 KRW. "
             "Remote participation is possible this year.")
    pdf.set_font("Nanum", "", 10)
    pdf.set_xy(15, top)
    pdf.multi_cell(85, 5.5, left)
    pdf.set_xy(110, top)
    pdf.multi_cell(85, 5.5, right)
    pdf.output(str(path))
    expect(path.name, title="Nuri Cloud Newsletter - February 2026",
           facts=["It will host the Korean region's second availability zone and cut failover time for customers in the south to under 5 minutes.",
                  "Teams of up to four people can register until 6 March, and the winning team receives a prize of 3,000,000 KRW."],
           clutter=[])


def pdf_build_notes(path: Path) -> None:
    """Paragraphs set with the same spacing as the lines inside them: only the line lengths tell where one
    ends. The opening line stops short of the right margin with room for the next line's first word, so it
    ended its paragraph even though it runs past 85% of the width. (Core fonts: no Korean font needed.)"""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_title("Build Farm Operating Notes")
    pdf.set_author("Build Infrastructure")
    pdf.set_creation_date(WHEN)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 9, "Build Farm Operating Notes", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("Helvetica", "", 10)
    for text in BUILD_NOTES:
        pdf.multi_cell(0, 5.5, text, new_x="LMARGIN", new_y="NEXT")  # no gap between paragraphs
    pdf.add_page()  # a page of its own: its widest line is the column's right edge
    for line in HYPHENATED:  # set line by line, as a typesetter hyphenates: "auto-" / "matically"
        pdf.cell(0, 5.5, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    # facts: a chunk keeps "Ltd. · Revision 3" on one line (a sentence never starts with "·"); a word
    # hyphenated across a line break is one word again, a compound keeps its hyphen ("self-service" above)
    expect(path.name, title="Build Farm Operating Notes", paragraphs=list(BUILD_NOTES) + [
        "Runners that fail their health check three times in a row are taken out of the shared build pool "
        "automatically, and a ticket is opened for the build infrastructure team, who replace the runner's disk. "
        "Self-service runners are never removed this way."], facts=[BUILD_NOTES[0]],
           clutter=[],
           meta={"author": "Build Infrastructure"})


BUILD_NOTES = (
    "Nuri Cloud Ltd. · Revision 3 · Effective 2026-02-01 · Owner: Build Infrastructure (Park Jiwon), Platform Group",
    "The build farm runs 40 Linux runners and 12 macOS runners. A job that waits longer than 15 minutes for a "
    "runner is reported to the on-call build engineer, who may add temporary runners from the burst pool.",
    "Caches are kept for 14 days. Teams may also register self-service runners in the portal.",
    "Release builds never use the shared cache; they start from a clean workspace so that every artifact can be "
    "rebuilt from its tag alone.",
)


HYPHENATED = ("Runners that fail their health check three times in a row are taken out of the shared build pool auto-",
              "matically, and a ticket is opened for the build infrastructure team, who replace the runner's disk. Self-",
              "service runners are never removed this way.")


def pdf_scanned(path: Path) -> None:
    """An image-only page, as a scanner writes it: no text layer."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (600, 300), "white")
    ImageDraw.Draw(image).text((40, 120), "Signed contract - page 1", fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    buffer.seek(0)
    pdf = FPDF(format="A4")
    pdf.set_creation_date(WHEN)
    pdf.add_page()
    pdf.image(buffer, x=10, y=10, w=180)
    pdf.output(str(path))
    expect(path.name, error="scanned")


# ------------------------------------------------------------------------------------------- Office

def docx_vpn(path: Path) -> None:
    import docx

    document = docx.Document()
    props = document.core_properties
    props.title, props.author, props.content_status = "VPN 접속 가이드 / VPN guide", "IT 지원팀 (IT Support)", "Draft"
    props.created = props.modified = WHEN
    document.add_heading("VPN 접속 가이드", level=0)
    document.add_paragraph("재택근무나 출장 중에 사내 시스템에 접속할 때는 반드시 누리 VPN을 사용합니다.")
    document.add_heading("설치 방법", level=1)
    for step in ("IT 포털에서 누리 VPN 클라이언트를 내려받습니다.", "설치 후 회사 계정으로 로그인하고 OTP를 입력합니다.",
                 "연결 상태가 '연결됨'으로 바뀌면 사내 시스템에 접속합니다."):
        document.add_paragraph(step, style="List Number")
    document.add_heading("게이트웨이", level=1)
    table = document.add_table(rows=4, cols=3)
    cells = [("지역", "게이트웨이", "최대 세션"), ("판교", "pg-vpn.nuri.example", "12시간"),
             ("부산", "bs-vpn.nuri.example", "12시간"), ("해외 (공통)", "global-vpn.nuri.example", "")]
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    merged = table.cell(3, 1).merge(table.cell(3, 2))  # a merged cell: the gateway runs across both columns
    merged.text = "global-vpn.nuri.example"
    document.add_paragraph("")
    document.add_heading("Troubleshooting", level=1)
    document.add_paragraph("If the client shows error 809, restart the Windows IKE service and try again.",
                           style="List Bullet")
    document.add_paragraph("Other error codes:", style="List Bullet")
    document.add_paragraph("Error 720: reinstall the WAN miniport driver", style="List Bullet 2")  # a sub-item
    document.save(str(path))
    expect(path.name, title="VPN 접속 가이드 / VPN guide",
           items=["1. IT 포털에서 누리 VPN 클라이언트를 내려받습니다.", "3. 연결 상태가 '연결됨'으로 바뀌면 사내 시스템에 접속합니다.",
                  "- If the client shows error 809, restart the Windows IKE service and try again.",
                  "- Other error codes — Error 720: reinstall the WAN miniport driver"],
           rows=["판교 — 게이트웨이: pg-vpn.nuri.example; 최대 세션: 12시간.",
                 "해외 (공통) — 게이트웨이: global-vpn.nuri.example; 최대 세션: global-vpn.nuri.example."],
           facts=["재택근무나 출장 중에 사내 시스템에 접속할 때는 반드시 누리 VPN을 사용합니다."],
           clutter=[], meta={"status": "draft", "author": "IT 지원팀 (IT Support)"})


def pptx_review(path: Path) -> None:
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    deck.core_properties.title = "2026 Q1 사업 리뷰 / Q1 business review"
    deck.core_properties.author = "전략기획팀"
    deck.core_properties.created = deck.core_properties.modified = WHEN
    slide = deck.slides.add_slide(deck.slide_layouts[0])
    slide.shapes.title.text = "2026 Q1 사업 리뷰"
    slide.placeholders[1].text = "전략기획팀 · 2026-04-07"
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Q1 highlights"
    body = slide.placeholders[1].text_frame
    body.text = "Revenue reached 18.4 billion KRW, 6% above plan"
    for text in ("Churn fell to 1.1% per month", "Two new regions launched: Busan and Osaka"):
        body.add_paragraph().text = text
    for level, text in ((0, "New customers: 1,240 in Q1"), (1, "Enterprise: 85"), (1, "Startup programme: 1,155")):
        paragraph = body.add_paragraph()  # sub-bullets: "85" means nothing without "New customers"
        paragraph.text, paragraph.level = text, level
    slide.notes_slide.notes_text_frame.text = "Revenue figures are unaudited until the board meeting on 2026-04-20."
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "지역별 매출 / Revenue by region"
    shape = slide.shapes.add_table(4, 3, Inches(0.5), Inches(1.5), Inches(9), Inches(2))
    for r, row in enumerate((("지역", "Q1 매출", "전년 대비"), ("판교", "11.2억", "+4%"), ("부산", "4.1억", "+12%"),
                             ("오사카", "3.1억", "신규"))):
        for c, text in enumerate(row):
            shape.table.cell(r, c).text = text
    slide.notes_slide.notes_text_frame.text = "오사카 리전은 2026년 2월에 열었습니다."
    deck.save(str(path))
    expect(path.name, title="2026 Q1 사업 리뷰 / Q1 business review",
           items=["- Revenue reached 18.4 billion KRW, 6% above plan", "- Churn fell to 1.1% per month",
                  "- New customers — Enterprise: 85"],
           rows=["부산 — Q1 매출: 4.1억; 전년 대비: +12%.", "오사카 — Q1 매출: 3.1억; 전년 대비: 신규."],
           facts=["Revenue figures are unaudited until the board meeting on 2026-04-20.", "오사카 리전은 2026년 2월에 열었습니다."],
           clutter=[], meta={"author": "전략기획팀"})


def xlsx_prices(path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.properties.title = "Price list 2026 / 2026 가격표"
    book.properties.creator = "Revenue Operations"
    book.properties.created = book.properties.modified = WHEN
    sheet = book.active
    sheet.title = "Compute"
    sheet["A1"] = "Compute price list 2026 (KRW per month, VAT excluded)"
    sheet.merge_cells("A1:E1")
    sheet.append([])
    sheet.append(["Instance", "vCPU", "Seoul region", None, "Discount"])
    sheet.merge_cells("C3:D3")
    sheet.append([None, None, "On-demand", "Reserved (1 yr)", None])
    sheet.merge_cells("A3:A4")
    sheet.merge_cells("B3:B4")
    sheet.merge_cells("E3:E4")
    for row in (("n2.small", 2, 48000, 33600, 0.3), ("n2.large", 8, 182000, 127400, 0.3), None,
                ("g1.gpu", 16, 2450000, 1960000, 0.2)):
        if row is None:
            sheet.append([])  # an empty row inside the table
            continue
        sheet.append(list(row))
        r = sheet.max_row
        for col in ("C", "D"):
            sheet[f"{col}{r}"].number_format = "#,##0"
        sheet[f"E{r}"].number_format = "0%"
    korean = book.create_sheet("스토리지")
    korean.append(["상품", "단위", "월 요금"])
    korean.append(["오브젝트 스토리지", "GB", 25])
    korean.append(["블록 스토리지 (SSD)", "GB", 120])
    terms = book.create_sheet("약정 할인")  # a numeric row label ("3년") means nothing without its column
    terms.append(["약정 기간", "할인율", "결제 방식"])
    terms.append(["1년", "20%", "연 선납"])
    terms.append(["3년", "45%", "연 분할"])
    big = book.create_sheet("Usage export")
    big.append(["Day", "Tenant", "Requests"])
    for n in range(2500):
        big.append([f"2026-01-{n % 28 + 1:02d}", f"tenant-{n:04d}", n * 7])
    book.save(str(path))
    expect(path.name, title="Price list 2026 / 2026 가격표",
           rows=["n2.large — vCPU: 8; Seoul region On-demand: 182,000, Reserved (1 yr): 127,400; Discount: 30%.",
                 "g1.gpu — vCPU: 16; Seoul region On-demand: 2,450,000, Reserved (1 yr): 1,960,000; Discount: 20%.",
                 "블록 스토리지 (SSD) — 단위: GB; 월 요금: 120.",
                 "약정 기간 3년 — 할인율: 45%; 결제 방식: 연 분할."],
           facts=["Compute price list 2026 (KRW per month, VAT excluded)"],
           clutter=[], notes=["Usage export"], meta={"author": "Revenue Operations"})


def _normalise_zip(path: Path) -> None:
    """Office files are zips: fixed member times make the bytes the same on every run."""
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info.filename)) for info in source.infolist()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in members:
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 2, 2, 9, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, data)
    path.write_bytes(buffer.getvalue())


EVAL = [
    ("d01", "ko", "육아휴직은 최대 얼마나 쓸 수 있어?", "parental-leave.md", ["1년 6개월"]),
    ("d02", "ko", "복직 수당 얼마야?", "parental-leave.md", ["1,000,000원"]),
    ("d03", "en", "What time does the Pangyo network maintenance end?", "network-maintenance.txt", ["02:00"]),
    ("d04", "ko", "부산 출장 숙박비 팀장 상한은?", "confluence-travel-expenses.html", ["140,000원"]),
    ("d05", "en", "When do new engineers get production write access?", "notion-engineering-onboarding.html",
     ["after completing the on-call shadowing rotation"]),
    ("d06", "en", "After how many failed attempts is a service account locked?", "sharepoint-password-standard.html",
     ["5 failed attempts"]),
    ("d07", "ko", "판교 오피스 라운지 운영 시간은?", "gsites-pangyo-office.html", ["08:00~17:00"]),
    ("d08", "en", "What is the response time for a SEV2 security incident?", "security-handbook.pdf", ["30 minutes"]),
    ("d09", "ko", "자녀 출생 경조금은 얼마야?", "benefits-2026-ko.pdf", ["500,000원"]),
    ("d10", "en", "How many racks does the Busan data centre have?", "newsletter-two-columns.pdf", ["1,200 racks"]),
    ("d11", "ko", "부산 VPN 게이트웨이 주소가 뭐야?", "vpn-guide.docx", ["bs-vpn.nuri.example"]),
    ("d12", "en", "What was Q1 revenue in Busan?", "q1-business-review.pptx", ["4.1억"]),
    ("d13", "en", "What is the reserved price of an n2.large instance?", "price-list-2026.xlsx", ["127,400"]),
    ("d14", "ko", "판교 오피스 추석 휴무 언제야?", "office-closures-2026.txt", ["2026-09-24 ~ 2026-09-26"]),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    (OUT / "parental-leave.md").write_text(PARENTAL)
    expect("parental-leave.md", title="육아휴직 규정",
           facts=["만 8세 이하 자녀를 둔 임직원은 자녀 1명당 최대 1년 6개월의 육아휴직을 쓸 수 있으며, 휴직 기간 중 첫 3개월은 회사가 통상임금의 80%를 보전합니다."],
           items=["1. 휴직 시작 30일 전까지 누리 HR 포털에서 육아휴직을 신청합니다. 신청서에는 자녀의 가족관계증명서를 첨부합니다."],
           rows=["복직 수당 — 지원 내용: 1,000,000원; 기간: 복직 3개월 후 1회."],
           clutter=["owner:", "status:"], meta={"status": "current", "effective": "2026-01-01", "author": "인사팀 (People Team)"})
    (OUT / "old-remote-guidelines.md").write_text(OLD_REMOTE)
    expect("old-remote-guidelines.md", title="Remote Work Guidelines (2022)",
           items=["- Equipment allowance — Chair: up to 150,000 KRW"],  # a nested item under its parent's label
           facts=["Employees may work from home up to four days per week, provided their manager approves the schedule in advance in the HR portal."],
           clutter=[], meta={"status": "repealed"})
    (OUT / "network-maintenance.txt").write_text(NOTICE)
    expect("network-maintenance.txt", title="Office network maintenance notice",
           facts=["On Saturday 14 March 2026 the Pangyo office network will be unavailable from 22:00 to 02:00 while the core switches are replaced."],
           items=["- Save your work and shut down desktop PCs; laptops can stay in their docks if they are switched off."],
           clutter=[])
    (OUT / "office-closures-2026.txt").write_text(CLOSURES)
    expect("office-closures-2026.txt", title="누리클라우드 2026 휴무 안내 / NURI CLOUD OFFICE CLOSURES 2026",
           rows=["추석 연휴 — 2026-09-24 ~ 2026-09-26.", "창립기념일 — 2026-11-02 (사무실 휴무)."],
           items=["* 신청 방법 — 팀장이 전날 17시까지 승인합니다"],
           facts=["Both close for maintenance on one night only: 2026-04-11 22:00 to 2026-04-12 06:00."],
           headings={"추석 연휴 — 2026-09-24 ~ 2026-09-26.": "판교 오피스 (PANGYO)",
                     "Both close for maintenance on one night only": "DATA CENTRES",
                     "* 신청 방법 — 팀장이 전날 17시까지 승인합니다": "휴무일 근무 신청",
                     "문의: 인사팀 (내선 2200)": "누리클라우드 2026 휴무 안내 / NURI CLOUD OFFICE CLOSURES 2026"},
           clutter=["....", "작성: 인사팀", "2025-12-10"], meta={"author": "인사팀"})
    (OUT / "confluence-travel-expenses.html").write_text(CONFLUENCE)
    expect("confluence-travel-expenses.html", title="출장 경비 정산 기준",
           facts=["출장 경비는 귀국 또는 복귀 후 10일 안에 누리페이에서 정산합니다."],
           rows=["부산·제주 — 팀원: 110,000원; 팀장 이상: 140,000원."],
           items=["- 자가 차량은 km당 250원을 지급합니다.", "- 주차비 — 공항 주차장: 1일 20,000원까지"],
           clutter=["Created by", "last modified", "312 views", "min read", "Was this page helpful", "We use cookies",
                    "Document generated by Confluence", "제주 숙박비가 90,000원 아니었나요", "Reply", "Space tools",
                    "법인카드 가이드", "Attachments", "receipt-template", "Spaces"],
           meta={"author": "김지호", "updated": "2026-03-03"})
    (OUT / "notion-engineering-onboarding.html").write_text(NOTION)
    expect("notion-engineering-onboarding.html", title="Engineering onboarding",
           facts=["New engineers get production read access after their first week and write access after completing the on-call shadowing rotation.",
                  "git clone git@github.com:nuri/monorepo.git"],
           terms=["AWS: Console access is granted through SSO only; long-lived access keys are not issued."],
           items=["3. Ship it to production before the end of your second week."],
           clutter=["Notion uses cookies", "Quick Find", "Settings & members", "1,204 views", "4 min read",
                    "Do interns get AWS access", "Team directory", "Engineering / Onboarding", "Share"],
           meta={"status": "draft", "author": "Platform Team (Choi Yuna)", "updated": "2026-02-10"})
    (OUT / "sharepoint-password-standard.html").write_text(SHAREPOINT)
    expect("sharepoint-password-standard.html", title="Password and MFA standard",
           facts=["All Nuri Cloud accounts must use a password of at least 14 characters and multi-factor authentication.",
                  "SMS codes are not accepted as a second factor."],
           rows=["Service account — Password rules Rotation: Every 90 days, Lockout after: 5 failed attempts."],
           clutter=["Microsoft 365", "Following", "Page details", "Analytics", "2,318 views", "Published by",
                    "Does this apply to the build servers", "Was this page helpful", "Recycle bin", "Privacy · Terms"],
           meta={})
    (OUT / "gsites-pangyo-office.html").write_text(GSITES)
    expect("gsites-pangyo-office.html", title="판교 오피스 안내",
           facts=["판교 오피스는 평일 07:00부터 22:00까지 출입할 수 있으며, 주말 출입은 하루 전까지 총무팀에 신청해야 합니다."],
           rows=["3층 — 용도: 라운지·카페; 비고: 08:00~17:00 운영."],
           clutter=["Google Sites", "Report abuse", "Page details", "Page updated", "uses cookies from Google",
                    "누리클라우드 사내 사이트", "IT 지원"],
           meta={})
    pdf_security(OUT / "security-handbook.pdf")
    pdf_benefits_ko(OUT / "benefits-2026-ko.pdf")
    pdf_two_columns(OUT / "newsletter-two-columns.pdf")
    pdf_scanned(OUT / "scanned-contract.pdf")
    pdf_build_notes(OUT / "build-farm-notes.pdf")
    docx_vpn(OUT / "vpn-guide.docx")
    pptx_review(OUT / "q1-business-review.pptx")
    xlsx_prices(OUT / "price-list-2026.xlsx")
    for office in OUT.glob("*.*x"):
        _normalise_zip(office)
    (OUT / "expected.json").write_text(json.dumps(EXPECTED, ensure_ascii=False, indent=1) + "\n")
    with (OUT / "eval.jsonl").open("w") as out:
        for cid, lang, question, rel, facts in EVAL:
            turn = {"user": question, "intent": "knowledge_search", "relevant": [rel], "answer_contains": facts,
                    "format": rel.rsplit(".", 1)[1]}
            out.write(json.dumps({"id": cid, "lang": lang, "turns": [turn]}, ensure_ascii=False) + "\n")
    print(f"wrote {len(EXPECTED)} files to {OUT}")


if __name__ == "__main__":
    main()
