"""Office documents: .docx (python-docx), .pptx (python-pptx), .xlsx (openpyxl)."""
import datetime
import io
import re
import zipfile

from docx import Document
from docx.shared import Pt
from pptx import Presentation
from pptx.util import Inches, Pt as PPt
from openpyxl import Workbook
from openpyxl.styles import Font, Alignment, PatternFill

FIXED = datetime.datetime(2026, 3, 1, 9, 0, 0)


def normalise_zip(path):
    """Rewrite a zip container with fixed timestamps and sorted-as-written order (deterministic output)."""
    with open(path, "rb") as f:
        data = f.read()
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=(2026, 3, 1, 9, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            blob = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                blob = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)", rb"\g<1>2026-03-01T09:00:00Z\g<2>", blob)
            dst.writestr(zi, blob)
    with open(path, "wb") as f:
        f.write(out.getvalue())


def _core(props, title, author, subject=""):
    props.title = title
    props.author = author
    props.subject = subject
    props.created = FIXED
    props.modified = FIXED
    props.last_modified_by = author
    props.revision = 1


def _docx_table(doc, header, rows):
    t = doc.add_table(rows=1, cols=len(header))
    t.style = "Table Grid"
    for i, h in enumerate(header):
        cell = t.rows[0].cells[i]
        cell.text = h
        for r in cell.paragraphs[0].runs:
            r.bold = True
    for row in rows:
        cells = t.add_row().cells
        for i, v in enumerate(row):
            cells[i].text = v
    doc.add_paragraph()


def remote_work_v3(path):
    doc = Document()
    _core(doc.core_properties, "Remote Work Policy v3", "People Team (Yoon Seoyeon)", "Hybrid work")
    doc.add_heading("Remote Work Policy (version 3)", 0)
    doc.add_paragraph("Effective 2026-02-01. Owner: People Team. This version replaces Remote Work Policy v2 (2024).")
    doc.add_heading("1. Who can work remotely", 1)
    doc.add_paragraph("Eligibility depends on the role group. Employees on probation may work remotely only with their "
                      "manager's written approval.")
    doc.add_paragraph("Office staff in Seoul HQ and the Busan office may work remotely up to 2 days per week. "
                      "Singapore branch office staff may work remotely up to 3 days per week. Hub operations staff "
                      "(shift workers) cannot work remotely.")
    _docx_table(doc, ["Role group", "Eligible", "Max remote days per week"],
                [["Office staff (Seoul HQ, Busan office)", "Yes", "2"],
                 ["Hub operations (shift workers)", "No", "0"],
                 ["Singapore branch office staff", "Yes", "3"],
                 ["Customer support (Tier 1)", "Yes, fixed rota", "1"]])
    doc.add_heading("2. Core hours", 1)
    doc.add_paragraph("Everyone must be reachable on Slack and phone during core hours, 10:00-16:00 KST "
                      "(Singapore: 09:00-15:00 SGT).")
    doc.add_heading("3. Home-office stipend", 1)
    doc.add_paragraph("Eligible employees receive a one-time home-office stipend of ₩300,000 for a chair, monitor or "
                      "other equipment. Employees who already received the v2 stipend receive the difference of ₩100,000.")
    doc.add_heading("4. How to request remote days", 1)
    for step in ["Open Solbit People and go to Time & Attendance > Remote work.",
                 "Select the remote days for the following week.",
                 "Submit the request by Thursday of the preceding week.",
                 "Your team lead approves or rejects it by Friday 12:00.",
                 "Approved remote days appear in the team calendar automatically."]:
        doc.add_paragraph(step, style="List Number")
    doc.add_heading("5. Security when working remotely", 1)
    for b in ["Always connect through the VPN (Solbit SecureConnect).",
              "Do not work on Restricted data in public places.",
              "Printing at home is not allowed for Confidential or Restricted documents."]:
        doc.add_paragraph(b, style="List Bullet")
    doc.save(path)
    normalise_zip(path)


def busan_night_shift(path):
    doc = Document()
    _core(doc.core_properties, "부산신항 허브 교대 근무 운영 절차", "부산신항 허브 운영팀 (정태윤)", "교대 근무")
    doc.add_heading("부산신항 허브 교대 근무 운영 절차", 0)
    doc.add_paragraph("시행일: 2025-12-01 · 소관: 부산신항 허브 운영팀 · 이천 허브는 별도 절차를 따른다.")
    doc.add_heading("1. 근무조", 1)
    _docx_table(doc, ["근무조", "근무 시간", "휴게 시간"],
                [["주간조", "06:00~15:00", "11:00~12:00"],
                 ["오후조", "14:00~23:00", "18:00~19:00"],
                 ["야간조", "22:00~07:00", "02:00~03:00"]])
    doc.add_heading("2. 인수인계 절차", 1)
    for step in ["다음 조 근무자는 근무 시작 30분 전에 도착하여 보호구를 착용한다.",
                 "이전 조 조장은 SolTrack의 '교대 인수인계' 화면에 미처리 주문, 설비 이상, 안전 이슈를 기록한다.",
                 "양 조 조장이 현장을 함께 순회하며 도크별 진행 상황을 확인한다.",
                 "다음 조 조장이 인수인계 화면에서 '인수 확인'을 누른다.",
                 "이전 조 근무자는 인수 확인 후에 퇴근한다."]:
        doc.add_paragraph(step, style="List Number")
    doc.add_heading("3. 야간 근무 수당과 안전", 1)
    for b in ["22시부터 06시 사이의 근로에는 통상임금의 50%를 가산하여 지급한다.",
              "야간조는 2인 1조로 작업하며 냉동 창고 단독 작업을 금지한다.",
              "야간 비상 연락은 야간 당직 관리자(센터 내선 5999)에게 한다."]:
        doc.add_paragraph(b, style="List Bullet")
    doc.save(path)
    normalise_zip(path)


def access_request(path):
    doc = Document()
    _core(doc.core_properties, "Requesting access to production systems", "IT Service Desk (Han Yerin)", "Access management")
    doc.add_heading("Requesting access to production systems", 0)
    doc.add_paragraph("Version 2.0 · Effective 2025-11-03 · Owner: IT Service Desk")
    doc.add_heading("Systems and approvers", 1)
    _docx_table(doc, ["System", "System owner", "Approver"],
                [["SolTrack WMS production", "Platform Engineering", "Lee Seojun"],
                 ["Data warehouse", "Data Team", "Yoon Jiho"],
                 ["Finance ERP", "Finance", "Kang Mirae"],
                 ["Hub CCTV system", "General Affairs", "Lee Sujin"]])
    doc.add_heading("Steps", 1)
    for step in ["Open the IT portal (ServiceNow) and choose the 'Access Request' form.",
                 "Select the system and the role you need, and describe the business reason.",
                 "Your line manager approves the request.",
                 "The approver listed in the table above approves the request.",
                 "IT grants the access; the standard lead time is 3 business days."]:
        doc.add_paragraph(step, style="List Number")
    doc.add_heading("Rules", 1)
    for b in ["Privileged (admin) access expires automatically after 90 days and must be requested again.",
              "System owners review all access every quarter and remove what is no longer needed.",
              "Access is removed on the last working day when someone leaves the company."]:
        doc.add_paragraph(b, style="List Bullet")
    doc.save(path)
    normalise_zip(path)


def _slide(prs, title, bullets, notes=None):
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = title
    body = s.placeholders[1].text_frame
    body.text = bullets[0]
    for b in bullets[1:]:
        p = body.add_paragraph()
        if b.startswith("  "):
            p.level = 1
        p.text = b.strip()
    if notes:
        s.notes_slide.notes_text_frame.text = notes
    return s


def _table_slide(prs, title, header, rows, notes=None):
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = title
    shape = s.shapes.add_table(len(rows) + 1, len(header), Inches(0.5), Inches(1.6), Inches(9), Inches(0.4 * (len(rows) + 1)))
    tbl = shape.table
    for i, h in enumerate(header):
        tbl.cell(0, i).text = h
    for r, row in enumerate(rows, 1):
        for c, v in enumerate(row):
            tbl.cell(r, c).text = v
    if notes:
        s.notes_slide.notes_text_frame.text = notes


def sales_kickoff(path):
    prs = Presentation()
    _core(prs.core_properties, "2026 Sales Kickoff / 2026 영업 킥오프", "Jung Hana (CRO)", "SKO 2026")
    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = "2026 영업 킥오프 (Sales Kickoff)"
    s.placeholders[1].text = "솔빛물류 영업본부 · 2026-01-15 · 부산 해운대"
    _slide(prs, "2025 리뷰 / 2025 in review",
           ["2025 매출 712억 원 (목표 대비 102%)", "SolTrack 유료 고객 318개사", "싱가포르 지사 첫 흑자 분기 (Q4)"],
           "2025년 숫자는 감사 전 잠정치입니다.")
    _slide(prs, "2026 목표 / 2026 targets",
           ["전사 매출 목표: 840억 원", "SolTrack ARR 목표: 120억 원", "싱가포르 신규 고객: 25개사",
            "  동남아 3PL 파트너십 2건 포함"],
           "Revenue target is KRW 84 billion; the board approved it on 2025-12-19.")
    _table_slide(prs, "사업부별 목표 / Targets by business",
                 ["사업부", "2025 실적", "2026 목표", "성장률"],
                 [["풀필먼트 (이천·부산)", "512억 원", "590억 원", "15%"],
                  ["SolTrack SaaS", "88억 원", "120억 원", "36%"],
                  ["싱가포르 지사", "112억 원", "130억 원", "16%"]])
    _slide(prs, "제품 로드맵 / Product roadmap",
           ["SolTrack Route (배차 최적화) 출시: 2026년 3분기", "Lite 플랜 셀프 가입 (카드 결제) 2026년 2분기",
            "Enterprise: 싱가포르 데이터 레지던시 옵션"],
           "Route Optimizer add-on customers will be migrated to SolTrack Route at no extra cost.")
    _slide(prs, "인센티브 / Incentives",
           ["분기 목표 100% 달성 시 인센티브 지급", "신규 Enterprise 계약 1건당 스팟 보너스 300만 원",
            "President's Club: 연간 목표 120% 이상 달성자"])
    prs.save(path)
    normalise_zip(path)


def peak_readiness(path):
    prs = Presentation()
    _core(prs.core_properties, "Peak Season 2025 Readiness", "Park Daeho (Operations Excellence)", "Peak 2025")
    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = "Peak Season 2025 Readiness"
    s.placeholders[1].text = "Operations Excellence · 2025-10-21"
    _slide(prs, "Peak period and volumes",
           ["Peak period: 2025-11-10 to 2025-12-26", "Forecast: 1.4x normal daily order volume",
            "Highest day expected: 2025-11-11"],
           "Forecast is based on the top 40 shippers' plans.")
    _slide(prs, "Staffing",
           ["Temporary staff: 320 in total", "  Icheon Hub: 180", "  Busan New Port Hub: 140",
            "Temporary staff complete a 4-hour safety induction before the first shift"],
           "Agency contracts signed with two staffing agencies; onboarding starts 2025-11-03.")
    _table_slide(prs, "Order cut-off times during peak",
                 ["Hub", "Standard cut-off", "Peak cut-off"],
                 [["Icheon Hub", "16:00", "14:00"],
                  ["Busan New Port Hub", "15:00", "13:00"],
                  ["Singapore Tuas Hub", "17:00", "15:00"]],
                 "Shippers were notified of the peak cut-offs on 2025-10-27.")
    _slide(prs, "Risks",
           ["Sorter capacity at Busan New Port Hub", "Carrier pickup delays on weekends",
            "Change freeze for SolTrack from 2025-11-17"])
    prs.save(path)
    normalise_zip(path)


def rate_card(path):
    wb = Workbook()
    ws = wb.active
    ws.title = "Rate card 2026"
    wb.properties.title = "창고 서비스 요율표 2026 / Warehousing rate card 2026"
    wb.properties.creator = "Revenue Operations"
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    bold = Font(bold=True)
    ws["A1"] = "창고 서비스 요율표 2026 (VAT 별도, 단위: 원) / Warehousing rate card 2026 (KRW, excl. VAT)"
    ws["A1"].font = Font(bold=True, size=13)
    ws.merge_cells("A1:E1")
    ws["A3"] = "서비스 / Service"
    ws["B3"] = "단위 / Unit"
    ws["C3"] = "이천 허브 (Icheon Hub)"
    ws["E3"] = "부산신항 허브 (Busan New Port Hub)"
    ws.merge_cells("A3:A4")
    ws.merge_cells("B3:B4")
    ws.merge_cells("C3:D3")
    ws.merge_cells("E3:F3")
    for c, v in zip("CDEF", ["표준 / Standard", "냉장·냉동 / Cold", "표준 / Standard", "냉장·냉동 / Cold"]):
        ws[f"{c}4"] = v
    rows = [
        ("팔레트 보관 / Pallet storage", "팔레트·월 / pallet per month", 18000, 42000, 15500, 38000),
        ("입고 하역 / Inbound handling", "팔레트 / pallet", 3200, 4500, 2900, 4100),
        ("피킹·패킹 / Pick & pack", "주문 / order", 1100, 1500, 1000, 1400),
        ("추가 상품 피킹 / Extra item", "상품 / item", 200, 300, 200, 300),
        ("반품 검수 / Returns inspection", "건 / return", 2500, 3500, 2500, 3500),
    ]
    for i, r in enumerate(rows, start=5):
        for j, v in enumerate(r):
            cell = ws.cell(row=i, column=j + 1, value=v)
            if isinstance(v, int):
                cell.number_format = "#,##0"
    ws.cell(row=11, column=1, value="최소 월 청구액 / Minimum monthly charge: 1,000,000원 (KRW 1,000,000)")
    ws.cell(row=12, column=1, value="요율은 2026-01-01부터 2026-12-31까지 유효 / Valid 2026-01-01 to 2026-12-31")
    for row in ws["A3:F4"]:
        for cell in row:
            cell.font = bold
            cell.alignment = Alignment(horizontal="center", vertical="center")
            cell.fill = PatternFill("solid", fgColor="DDEBF7")
    for col, w in zip("ABCDEF", [30, 26, 16, 16, 16, 16]):
        ws.column_dimensions[col].width = w
    wb.save(path)
    normalise_zip(path)


def welfare(path):
    wb = Workbook()
    ws = wb.active
    ws.title = "2026 복지 제도"
    wb.properties.title = "2026 복지 제도 안내"
    wb.properties.creator = "인사팀"
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    ws.append(["2026 복지 제도 안내 (한국 법인)"])
    ws.append([])
    ws.append(["구분", "항목", "지원 금액", "대상", "신청 시기"])
    sections = [
        ("건강", [["건강", "종합 건강검진", "본인 전액", "전 임직원", "연 1회, 5~11월"],
                  ["건강", "배우자 건강검진", "500,000원", "기혼 임직원", "연 1회, 5~11월"],
                  ["건강", "단체 상해·질병 보험", "회사 전액 부담", "전 임직원", "입사 시 자동 가입"]]),
        ("생활", [["생활", "복지포인트", "연 1,200,000원", "전 임직원 (입사 첫해 월할)", "매년 1월 지급"],
                  ["생활", "통신비", "월 50,000원", "팀장 이상", "매월 급여와 함께"],
                  ["생활", "명절 선물", "200,000원 상당", "전 임직원", "설·추석"]]),
        ("자기계발", [["자기계발", "자기계발비", "월 100,000원", "전 임직원", "솔빛페이로 청구"],
                      ["자기계발", "도서 구입비", "연 300,000원", "전 임직원", "솔빛페이로 청구"],
                      ["자기계발", "어학 시험 응시료", "연 2회 실비", "해외 업무 담당자", "응시 후 1개월 이내"]]),
    ]
    for _, rows in sections:
        ws.append([])
        for r in rows:
            ws.append(r)
    ws.append([])
    ws.append([])
    ws.append(["※ 싱가포르 지사는 Singapore Branch Employee Handbook의 복리후생을 따른다."])
    for c in ws[3]:
        c.font = Font(bold=True)
    ws["A1"].font = Font(bold=True, size=13)
    for col, w in zip("ABCDE", [10, 22, 18, 26, 22]):
        ws.column_dimensions[col].width = w
    wb.save(path)
    normalise_zip(path)


def hub_directory(path):
    wb = Workbook()
    ws = wb.active
    ws.title = "Hubs"
    wb.properties.title = "Solbit hub directory"
    wb.properties.creator = "Operations Excellence"
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    ws.append(["Hub", "City", "Hub manager", "Operating hours", "Dock doors", "Cold storage", "Main phone"])
    ws.append(["Icheon Hub", "Icheon, Gyeonggi-do", "Oh Sungmin", "24/7", 48, "Yes (frozen, chilled)", "031-600-7000"])
    ws.append(["Busan New Port Hub", "Busan (Gangseo-gu)", "Jung Taeyoon", "Mon-Sat, 24 hours (3 shifts)", 36, "Yes (frozen, chilled, cool)", "051-900-5000"])
    ws.append(["Singapore Tuas Hub", "Singapore (Tuas)", "Lim Jia Hui", "Mon-Sat, 07:00-23:00", 20, "No", "+65 6800 1200"])
    ws.append([])
    ws.append(["Offices (no warehouse)"])
    ws.append(["Seoul HQ", "Seoul (Seongsu-dong)", "-", "Mon-Fri, 07:00-22:00", "", "", "02-3400-1000"])
    ws.append(["Busan office", "Busan (Gangseo-gu)", "-", "Daily, 06:00-23:00", "", "", "051-900-5300"])
    ws.append(["Singapore branch office", "Singapore", "-", "Mon-Fri, 09:00-18:00", "", "", "+65 6800 1000"])
    for c in ws[1]:
        c.font = Font(bold=True)
    for col, w in zip("ABCDEFG", [26, 22, 16, 32, 12, 28, 16]):
        ws.column_dimensions[col].width = w
    wb.save(path)
    normalise_zip(path)


OFFICE = {
    "hr/remote-work-policy-v3.docx": remote_work_v3,
    "ops/busan-shift-procedure.docx": busan_night_shift,
    "it/access-request-procedure.docx": access_request,
    "sales/sales-kickoff-2026.pptx": sales_kickoff,
    "ops/peak-season-2025-readiness.pptx": peak_readiness,
    "sales/warehousing-rate-card-2026.xlsx": rate_card,
    "hr/welfare-benefits-2026.xlsx": welfare,
    "ops/hub-directory.xlsx": hub_directory,
}
