"""PDF documents (fpdf2 with the Nanum Gothic font embedded)."""
import datetime
from fpdf import FPDF
from fpdf.fonts import FontFace

FONT_DIR = "/usr/share/fonts/truetype/nanum"
FIXED_DATE = datetime.datetime(2026, 3, 1, 9, 0, 0, tzinfo=datetime.timezone.utc)


class SolbitPDF(FPDF):
    def __init__(self, doc_code):
        super().__init__(format="A4")
        self.doc_code = doc_code
        self.add_font("Nanum", "", f"{FONT_DIR}/NanumGothic.ttf")
        self.add_font("Nanum", "B", f"{FONT_DIR}/NanumGothicBold.ttf")
        self.set_auto_page_break(True, margin=20)
        self.set_margins(18, 22, 18)

    def header(self):
        self.set_font("Nanum", "", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 6, "Solbit Logistics - INTERNAL USE ONLY / 사내 한정", align="L")
        self.cell(0, 6, self.doc_code, align="R", new_x="LMARGIN", new_y="NEXT")
        self.line(18, 17, 192, 17)
        self.ln(4)
        self.set_text_color(0, 0, 0)

    def footer(self):
        self.set_y(-14)
        self.set_font("Nanum", "", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 6, f"Solbit Logistics - INTERNAL USE ONLY / 사내 한정 — p. {self.page_no()}", align="C")
        self.set_text_color(0, 0, 0)


def build(path, title, author, code, blocks, subject=""):
    """blocks: list of ("h1"|"h2"|"p"|"bullets"|"table"|"page"|"banner", payload)."""
    pdf = SolbitPDF(code)
    pdf.set_title(title)
    pdf.set_author(author)
    pdf.set_subject(subject or title)
    pdf.set_creator("Solbit document generator")
    pdf.set_creation_date(FIXED_DATE)
    pdf.add_page()
    for kind, payload in blocks:
        if kind == "h1":
            pdf.set_font("Nanum", "B", 16)
            pdf.multi_cell(0, 9, payload, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "h2":
            pdf.ln(2)
            pdf.set_font("Nanum", "B", 12)
            pdf.multi_cell(0, 7, payload, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        elif kind == "p":
            pdf.set_font("Nanum", "", 10)
            pdf.multi_cell(0, 5.5, payload, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "banner":
            pdf.set_font("Nanum", "B", 11)
            pdf.set_fill_color(255, 228, 225)
            pdf.set_text_color(170, 0, 0)
            pdf.multi_cell(0, 8, payload, border=1, fill=True, new_x="LMARGIN", new_y="NEXT")
            pdf.set_text_color(0, 0, 0)
            pdf.ln(3)
        elif kind == "bullets":
            pdf.set_font("Nanum", "", 10)
            for b in payload:
                pdf.multi_cell(0, 5.5, f"•  {b}", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "table":
            header, rows, widths = payload
            pdf.set_font("Nanum", "", 9)
            with pdf.table(col_widths=widths, headings_style=FontFace(emphasis="BOLD", fill_color=(225, 235, 245)),
                           line_height=6, text_align="LEFT") as t:
                r = t.row()
                for h in header:
                    r.cell(h)
                for row in rows:
                    r = t.row()
                    for c in row:
                        r.cell(str(c))
            pdf.ln(3)
        elif kind == "page":
            pdf.add_page()
    pdf.output(path)


FILLER_KO = ("이 규정에서 정하지 않은 사항은 관련 법령과 회사의 다른 규정을 따른다. 규정의 해석에 이견이 있는 경우 "
             "소관 부서의 해석을 따르며, 소관 부서는 필요한 경우 세부 지침을 별도로 정할 수 있다.")
FILLER_EN = ("Where this document is silent, the applicable law and the company's other policies apply. Questions about "
             "how to interpret it go to the document owner, who may issue more detailed guidance when needed.")

PDFS = {}

PDFS["policies/travel-policy-2026.pdf"] = dict(
    title="국내 출장 규정 (2026)", author="인사팀 (People Team)", code="HR-POL-007 v4",
    blocks=[
        ("h1", "국내 출장 규정"),
        ("p", "문서번호: HR-POL-007 v4 · 시행일: 2026-01-01 · 소관: 인사팀\n이 규정은 2023년 출장 규정(HR-POL-007 v3)을 대체한다."),
        ("h2", "제1조 (목적과 적용 범위)"),
        ("p", "이 규정은 솔빛물류 임직원의 국내 출장에 필요한 절차와 비용 기준을 정한다. 서울 본사, 부산 사무실, "
              "이천 허브 및 부산신항 허브 소속 임직원에게 적용한다. 해외 출장의 일비와 숙박비는 "
              "'Overseas Travel Per Diem Schedule 2026'을 따른다."),
        ("h2", "제2조 (출장 신청)"),
        ("bullets", ["출장자는 출발 3영업일 전까지 솔빛 People에서 출장을 신청하고 팀장 승인을 받는다.",
                     "1박 이상 출장은 숙소 예약 전에 승인을 받아야 한다.",
                     "긴급 출장은 사후 1영업일 이내에 신청할 수 있다."]),
        ("h2", "제3조 (일비와 숙박비)"),
        ("p", "일비는 출장 일수에 따라 정액으로 지급하며, 숙박비는 아래 상한 내에서 실비로 지급한다."),
        ("table", (["직급", "일비 (1일)", "숙박비 상한 (서울·광역시)", "숙박비 상한 (기타 지역)"],
                   [["임원", "60,000원", "200,000원", "150,000원"],
                    ["팀장", "50,000원", "150,000원", "120,000원"],
                    ["팀원", "45,000원", "120,000원", "100,000원"]], (25, 25, 25, 25))),
        ("p", "당일 출장의 일비는 위 금액의 50%를 지급한다. 회사가 숙소를 제공한 경우 숙박비는 지급하지 않는다."),
        ("page", None),
        ("h2", "제4조 (교통비)"),
        ("table", (["교통수단", "기준"],
                   [["KTX·SRT", "일반실 (임원은 특실)"],
                    ["항공 (김포-김해 등)", "일반석, 철도 대비 시간이 2시간 이상 단축될 때"],
                    ["자가용", "km당 250원 + 통행료 실비"],
                    ["택시", "대중교통이 없는 구간에 한해 실비"]], (35, 65))),
        ("h2", "제5조 (정산)"),
        ("bullets", ["출장자는 복귀 후 10일 이내에 솔빛페이로 출장비를 정산한다.",
                     "숙박비와 교통비는 영수증을 첨부해야 한다. 일비는 영수증이 필요 없다.",
                     "정산 기한을 넘긴 출장비는 지급하지 않을 수 있다."]),
        ("h2", "제6조 (기타)"),
        ("p", FILLER_KO),
        ("p", "부칙: 이 규정은 2026년 1월 1일부터 시행한다. 2023년 출장 규정은 2025년 12월 31일부로 폐지한다."),
    ])

PDFS["policies/travel-policy-2023-repealed.pdf"] = dict(
    title="국내 출장 규정 (2023) - 폐지", author="인사팀 (People Team)", code="HR-POL-007 v3 (폐지)",
    blocks=[
        ("banner", "폐지됨 (2025-12-31) — 이 규정은 '국내 출장 규정 (2026)' HR-POL-007 v4로 대체되었습니다. 참고용으로만 보관합니다."),
        ("h1", "국내 출장 규정 (2023)"),
        ("p", "문서번호: HR-POL-007 v3 · 시행일: 2023-03-01 · 소관: 인사팀"),
        ("h2", "제2조 (출장 신청)"),
        ("bullets", ["출장자는 출발 5영업일 전까지 출장 신청서를 제출한다."]),
        ("h2", "제3조 (일비와 숙박비)"),
        ("table", (["직급", "일비 (1일)", "숙박비 상한 (서울·광역시)", "숙박비 상한 (기타 지역)"],
                   [["임원", "50,000원", "170,000원", "130,000원"],
                    ["팀장", "40,000원", "120,000원", "100,000원"],
                    ["팀원", "35,000원", "90,000원", "80,000원"]], (25, 25, 25, 25))),
        ("page", None),
        ("h2", "제4조 (교통비)"),
        ("table", (["교통수단", "기준"],
                   [["KTX", "일반실"], ["자가용", "km당 200원 + 통행료 실비"]], (35, 65))),
        ("h2", "제5조 (정산)"),
        ("bullets", ["복귀 후 14일 이내에 정산한다."]),
        ("p", FILLER_KO),
    ])

PDFS["policies/overseas-per-diem-2026.pdf"] = dict(
    title="Overseas Travel Per Diem Schedule 2026", author="People Team", code="HR-POL-008 v2",
    blocks=[
        ("h1", "Overseas Travel Per Diem Schedule 2026"),
        ("p", "Document HR-POL-008 v2 · Effective 2026-01-01 · Owner: People Team\nApplies to employees of Solbit Logistics in Korea "
              "travelling abroad on business. Domestic trips follow the domestic travel policy (HR-POL-007)."),
        ("h2", "1. Daily allowance and lodging caps"),
        ("p", "The daily allowance covers meals, local transport and incidentals. Lodging is reimbursed at cost up to the cap per night."),
        ("table", (["Destination", "Daily allowance (USD)", "Lodging cap per night (USD)"],
                   [["Singapore", "USD 95", "USD 260"],
                    ["Japan", "USD 80", "USD 200"],
                    ["China (incl. Hong Kong)", "USD 70", "USD 180"],
                    ["Vietnam, Thailand, Malaysia", "USD 60", "USD 150"],
                    ["United States", "USD 110", "USD 300"],
                    ["Europe", "USD 105", "USD 280"],
                    ["Other countries", "USD 70", "USD 170"]], (40, 30, 30))),
        ("p", "Executives receive the daily allowance plus 20%. Lodging caps are the same for all grades."),
        ("page", None),
        ("h2", "2. Flights"),
        ("bullets", ["Economy class for all employees.",
                     "Executives may fly business class on flights longer than 8 hours.",
                     "Book through the travel agency at least 14 days before departure when possible."]),
        ("h2", "3. Payment and settlement"),
        ("bullets", ["The daily allowance is paid in KRW at the exchange rate on the departure date.",
                     "Submit the settlement in SolbitPay within 10 days of return, with hotel invoices.",
                     "Singapore branch staff travelling to Korea receive KRW 70,000 per day instead."]),
        ("h2", "4. Other"),
        ("p", FILLER_EN),
    ])

PDFS["policies/information-security-policy.pdf"] = dict(
    title="Information Security Policy", author="Han Dongwook (CISO)", code="SEC-POL-001 v2.1",
    blocks=[
        ("h1", "Information Security Policy"),
        ("p", "Document SEC-POL-001 v2.1 · Effective 2025-09-01 · Policy owner: Han Dongwook, Chief Information Security Officer"),
        ("h2", "1. Accounts and passwords"),
        ("bullets", ["Passwords must be at least 14 characters long. We do not force periodic password changes.",
                     "Multi-factor authentication (Okta Verify) is required for every Solbit account.",
                     "Shared accounts are not allowed, except hub scanner accounts approved by IT."]),
        ("h2", "2. Devices"),
        ("bullets", ["Laptops must use full-disk encryption (BitLocker or FileVault).",
                     "Screens lock automatically after 5 minutes of inactivity.",
                     "USB storage devices are blocked on all company laptops.",
                     "Personal devices may access email and Slack only through the managed app."]),
        ("page", None),
        ("h2", "3. Data classification"),
        ("table", (["Class", "Examples", "Storage", "Sharing outside Solbit"],
                   [["Public", "Website, press releases", "Anywhere", "Allowed"],
                    ["Internal", "Wiki pages, org charts", "Company systems", "Not allowed"],
                    ["Confidential", "Customer contracts, rate cards", "Encrypted company systems", "Only under NDA"],
                    ["Restricted", "Recipient personal data, payroll", "Approved systems only", "Never by email"]], (22, 33, 25, 20))),
        ("h2", "4. Incidents"),
        ("p", "Report suspected incidents to Security Operations within 1 hour (see 'Reporting a security incident')."),
        ("h2", "5. Exceptions"),
        ("p", "Exceptions must be approved in writing by the CISO and are valid for at most 6 months. " + FILLER_EN),
    ])

PDFS["hr/leave-policy-2026.pdf"] = dict(
    title="휴가 규정 (2026)", author="인사팀 (People Team)", code="HR-POL-003 v5",
    blocks=[
        ("h1", "휴가 규정"),
        ("p", "문서번호: HR-POL-003 v5 · 시행일: 2026-01-01 · 소관: 인사팀 · 적용: 한국 법인 임직원 (싱가포르 지사는 현지 핸드북 적용)"),
        ("h2", "제1조 (연차 휴가)"),
        ("bullets", ["1년 이상 근무한 임직원에게 연 15일의 연차를 부여하고, 3년 이상 근무 시 2년마다 1일을 가산한다.",
                     "연속 3일 이상의 연차는 2주 전까지 신청한다.",
                     "미사용 연차는 다음 해 3월 말까지 1회에 한해 이월할 수 있으며 최대 5일이다."]),
        ("h2", "제2조 (경조 휴가와 경조금)"),
        ("table", (["구분", "휴가 일수", "경조금"],
                   [["본인 결혼", "5일", "500,000원"],
                    ["자녀 결혼", "1일", "200,000원"],
                    ["배우자 출산", "20일", "300,000원"],
                    ["부모·배우자 사망", "5일", "1,000,000원"],
                    ["조부모 사망", "3일", "300,000원"]], (40, 25, 35))),
        ("p", "경조 휴가는 주말과 공휴일을 제외하고 계산한다. 경조금은 증빙 서류 제출 후 다음 급여일에 지급한다."),
        ("page", None),
        ("h2", "제3조 (리프레시 휴가)"),
        ("table", (["근속 연수", "휴가", "여행 지원금"],
                   [["5년", "10일", "1,000,000원"],
                    ["10년", "15일", "2,000,000원"],
                    ["15년", "20일", "3,000,000원"]], (30, 30, 40))),
        ("p", "리프레시 휴가는 해당 근속 연수를 채운 날부터 1년 안에 사용해야 한다."),
        ("h2", "제4조 (병가)"),
        ("p", "업무 외 질병으로 인한 병가는 연 30일까지 유급으로 하며, 5일 이상은 진단서를 제출한다."),
        ("p", FILLER_KO),
    ])

PDFS["ops/cold-chain-sop.pdf"] = dict(
    title="SOP-OPS-012 Cold Chain Handling", author="Quality Assurance (Oh Sungmin)", code="SOP-OPS-012 rev 6",
    blocks=[
        ("h1", "SOP-OPS-012 Cold Chain Handling"),
        ("p", "Revision 6 · Effective 2025-10-15 · Owner: Quality Assurance · Applies to Icheon Hub and Busan New Port Hub "
              "(Singapore Tuas Hub has no cold storage)."),
        ("h2", "1. Temperature classes"),
        ("table", (["Class", "Range", "Typical goods", "Max time outside range"],
                   [["Frozen", "-25°C to -18°C", "Frozen food, ice cream", "15 minutes"],
                    ["Chilled", "0°C to 5°C", "Dairy, fresh meat", "30 minutes"],
                    ["Cool", "8°C to 15°C", "Chocolate, some pharmaceuticals", "60 minutes"]], (20, 28, 32, 20))),
        ("h2", "2. Monitoring"),
        ("bullets", ["Every cold room and reefer truck carries a data logger recording every 5 minutes.",
                     "Loggers upload to SolTrack; an alarm is raised after 2 consecutive readings out of range.",
                     "Logger calibration is checked every 6 months."]),
        ("page", None),
        ("h2", "3. Handling a temperature excursion"),
        ("p", "1) Move the affected pallets to the quarantine area of the same temperature class.\n"
              "2) Notify the QA duty officer within 30 minutes.\n"
              "3) Record the excursion in SolTrack with the logger data attached.\n"
              "4) QA decides with the shipper whether the goods are released, relabelled or destroyed.\n"
              "5) Goods may not be shipped until QA releases them."),
        ("h2", "4. Loading"),
        ("bullets", ["Pre-cool reefer trucks to the target range before loading.",
                     "Loading of one truck must be completed within 20 minutes with the dock door seal closed."]),
        ("p", FILLER_EN),
    ])

PDFS["reports/service-quality-q4-2025.pdf"] = dict(
    title="Service Quality Report Q4 2025", author="Operations Excellence (Park Daeho)", code="OPS-RPT-2025-Q4",
    blocks=[
        ("h1", "Service Quality Report - Q4 2025"),
        ("p", "Period: 2025-10-01 to 2025-12-31 · Prepared by Operations Excellence · Distribution: management, hub managers"),
        ("h2", "1. Summary"),
        ("p", "Order volume grew 14% over Q3 because of the peak season. Company OTIF was 97.3%, slightly below the 97.5% target. "
              "Singapore Tuas Hub had the best OTIF; Busan New Port Hub missed the target, mostly because of the conveyor "
              "outage of 28 November (INC-2025-041)."),
        ("h2", "2. Hub results"),
        ("table", (["Hub", "Orders shipped", "OTIF", "Damage rate", "Avg dock-to-stock"],
                   [["Icheon Hub", "1,842,300", "97.8%", "0.12%", "3.4 h"],
                    ["Busan New Port Hub", "1,215,600", "96.1%", "0.18%", "4.1 h"],
                    ["Singapore Tuas Hub", "402,900", "98.3%", "0.09%", "2.9 h"]], (30, 20, 15, 17, 18))),
        ("page", None),
        ("h2", "3. Customer satisfaction"),
        ("p", "Shipper NPS for Q4 was 41 (Q3: 38). The most common complaint was late updates during the peak season."),
        ("h2", "4. Actions for Q1 2026"),
        ("bullets", ["Busan New Port Hub: firmware change control for sorter PLCs (owner: Busan facilities team).",
                     "Icheon Hub: add 6 dock doors to cut dock-to-stock time.",
                     "All hubs: proactive delay notifications to shippers through SolTrack."]),
        ("p", FILLER_EN),
    ])

PDFS["finance/corporate-card-policy.pdf"] = dict(
    title="법인카드 사용 규정", author="재무팀 (Finance)", code="FIN-POL-004 v3",
    blocks=[
        ("h1", "법인카드 사용 규정"),
        ("p", "문서번호: FIN-POL-004 v3 · 시행일: 2025-07-01 · 소관: 재무팀"),
        ("h2", "제1조 (발급 대상)"),
        ("p", "법인카드는 임원, 팀장, 그리고 업무상 필요가 인정된 팀원에게 발급한다. 발급 신청은 솔빛페이에서 한다."),
        ("h2", "제2조 (사용 한도)"),
        ("table", (["구분", "월 한도", "1회 한도"],
                   [["임원", "5,000,000원", "2,000,000원"],
                    ["팀장", "2,000,000원", "1,000,000원"],
                    ["팀원 (발급 대상자)", "1,000,000원", "500,000원"]], (40, 30, 30))),
        ("h2", "제3조 (사용 제한)"),
        ("bullets", ["유흥주점, 골프장, 상품권 구입에는 사용할 수 없다.",
                     "23시부터 06시 사이의 사용 건은 정산 시 사유를 기재해야 한다.",
                     "개인 용도로 사용한 경우 즉시 재무팀에 알리고 전액 반환한다."]),
        ("page", None),
        ("h2", "제4조 (분실·도난)"),
        ("p", "카드를 분실하거나 도난당한 경우 즉시 카드사와 재무팀에 신고한다. 신고 전 부정 사용액은 사용자가 부담할 수 있다."),
        ("h2", "제5조 (정산)"),
        ("p", "법인카드 사용 내역은 경비 정산 규정의 제출 기한 안에 솔빛페이에서 정산한다. " + FILLER_KO),
    ])

PDFS["sg/singapore-branch-handbook.pdf"] = dict(
    title="Singapore Branch Employee Handbook 2026", author="Tan Wei Ling (Branch General Manager)", code="SG-HB-2026",
    blocks=[
        ("h1", "Singapore Branch Employee Handbook 2026"),
        ("p", "Solbit Logistics Pte. Ltd. · Effective 2026-01-01 · Owner: Tan Wei Ling, Branch General Manager\n"
              "This handbook applies to employees of the Singapore branch and the Singapore Tuas Hub. Korean company "
              "policies apply only where this handbook says so."),
        ("h2", "1. Working hours"),
        ("bullets", ["Office hours are 09:00-18:00 SGT, Monday to Friday.",
                     "Singapore Tuas Hub runs two shifts: 07:00-15:00 and 15:00-23:00.",
                     "Overtime is paid according to the Employment Act."]),
        ("h2", "2. Leave"),
        ("table", (["Leave type", "Entitlement"],
                   [["Annual leave", "18 days per year"],
                    ["Outpatient sick leave", "14 days per year"],
                    ["Hospitalisation leave", "60 days per year (incl. sick leave)"],
                    ["Childcare leave", "6 days per year"]], (50, 50))),
        ("page", None),
        ("h2", "3. Benefits"),
        ("table", (["Benefit", "Amount"],
                   [["Outpatient medical claims", "up to SGD 1,200 per year"],
                    ["Dental claims", "up to SGD 300 per year"],
                    ["Transport allowance", "SGD 150 per month"],
                    ["Mobile phone allowance", "SGD 50 per month"]], (50, 50))),
        ("h2", "4. Expenses"),
        ("p", "Claims are submitted in SolbitPay by the 10th of the following month. Overtime meals after 21:00 are reimbursed up to SGD 15."),
        ("h2", "5. Remote work"),
        ("p", "Singapore branch office staff may work remotely up to 3 days per week, in line with Remote Work Policy v3."),
        ("p", FILLER_EN),
    ])
