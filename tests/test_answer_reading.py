"""What the extractive answer shows: the sentence that fills the question's slot, from any top document,
never boilerplate; a hedge when the evidence may not answer; caveats for documents no longer in force."""
import pytest

from rag.answer.answerers import ExtractiveAnswerer
from rag.answer.questions import Kind, asks_about_document, boilerplate, fills, question_kind
from rag.documents import Chunk, Hit


@pytest.mark.parametrize("question, kind", [
    ("How much is the Pro plan a month?", Kind.QUANTITY),
    ("프로 플랜 한 달에 얼마야?", Kind.QUANTITY),
    ("How many days of leave do I get when my wife gives birth?", Kind.QUANTITY),
    ("When is my self-review due?", Kind.TIME),
    ("재택근무 신청은 언제까지 해야 돼?", Kind.TIME),
    ("Who approves a hotfix during the freeze?", Kind.WHO),
    ("분실하면 어디에 연락해?", Kind.WHO),
    ("Why did the WMS API go down?", Kind.WHY),
    ("2월 장애 원인이 뭐였어?", Kind.WHY),
    ("How do I set up the VPN?", Kind.HOWTO),
    ("피싱 메일 받으면 어떻게 해?", Kind.HOWTO),
    ("Can I use a USB stick on my laptop?", Kind.YESNO),
    ("회사 노트북에 USB 메모리 써도 돼?", Kind.YESNO),
    ("Which release shipped the fix?", Kind.WHICH),
    ("사무실에서 프린트하려면 어떤 큐로 보내야 돼?", Kind.WHICH),
    ("연차 쓰려면 뭐 해야 돼?", Kind.HOWTO),
    ("VPN 연결하려면?", Kind.HOWTO),
    ("크로스도킹이 뭐야?", Kind.WHAT),
    ("B등급은 무슨 뜻이야?", Kind.WHAT),  # what a word means, not which one
    ("in the returns process, what does grade A mean?", Kind.WHAT),  # a meaning, not a procedure ("process")
    ("what does OTIF stand for?", Kind.WHAT),
    # "how late" asks until what hour; a rising ending after 뭐 asks what, not yes or no
    ("how late do I need to stay to get the overtime dinner allowance?", Kind.TIME),
    ("방문객은 보호구 뭐 받아?", Kind.OTHER),
    ("부산신항 허브 방문객 당일에 뭐 챙겨가야 돼?", Kind.OTHER),
    ("OTIF 뜻이 뭐야?", Kind.WHAT),
    # what follows from something, not how to do it ("어떻게 돼?" against "어떻게 해?")
    ("그 기간 지나면 어떻게 돼?", Kind.CONSEQUENCE),
    ("what if I don't return it when I leave?", Kind.CONSEQUENCE),
    ("What happens if the primary on-call doesn't acknowledge a page?", Kind.CONSEQUENCE),
    # where: a place, not a rule about it (and "어디 연락해?" is still who to contact)
    ("Where does the Busan New Port Hub shuttle leave from?", Kind.WHERE),
    ("where will they announce it if the maintenance runs long?", Kind.WHERE),
    ("신청은 어디서 해?", Kind.WHERE),
    ("폰부스는 어디 있어?", Kind.WHERE),
    ("where can I see who's on call?", Kind.WHERE),  # the place to look, not the person its clause names
    ("which floors does the Busan office occupy?", Kind.WHERE),  # plural: a place still, not "which one"
    ("what should I do when the VPN is down?", Kind.HOWTO),  # "when" opens a clause: what to do is asked
    ("besides the expense type, what else do I enter when filing a claim?", Kind.OTHER),
    ("if the secondary doesn't ack either, when does the eng manager get paged?", Kind.TIME),
    ("if we go over, how do we know when to retry?", Kind.TIME),
    ("그럼 분당 요청 제한은?", Kind.QUANTITY),  # a rate per unit asks for a figure
    ("건당 수수료는?", Kind.QUANTITY),
    ("What is the request limit per minute?", Kind.QUANTITY),
    ("원인 찾은 건 몇 시?", Kind.TIME),  # the hour the cause was found, not the cause
    ("What time was the cause identified?", Kind.TIME),
    ("why did it go down at 9 o'clock?", Kind.WHY),
    ("Which room has only a whiteboard?", Kind.WHERE),
    ("못 기다리면 어디 연락해?", Kind.WHO),
    # a follow-up opening on a connective is still asked yes or no, though it names a fee
    ("and does any discount apply to the implementation fee?", Kind.YESNO),
    ("so can I expense it?", Kind.YESNO),
    ("and how much is it?", Kind.QUANTITY),
    # a noun of amounts asks for an amount as "limit" and "수당" do
    ("What's the per diem for a trip to Osaka?", Kind.QUANTITY),
    ("What is the home-office stipend?", Kind.QUANTITY),
    ("팀장 국내 출장 일비는?", Kind.QUANTITY),
    ("Do we get a gym subsidy?", Kind.YESNO),
    ("Which release caused the outage?", Kind.WHICH),
    ("What caused the outage?", Kind.WHY),
    # "할 수 있어?" asks yes or no though "기간" is a noun of amounts; "어떤 환율로" asks which rate
    ("수습 기간에도 재택근무 할 수 있어?", Kind.YESNO),
    ("수당 받을 수 있나요?", Kind.YESNO),
    ("일비는 어떤 환율로 받아?", Kind.WHICH),
    # a statement asked with a rising verb ending; a bare noun is an elliptical follow-up
    ("예전 출장 규정 아직 유효해?", Kind.YESNO),
    ("추천 채용하면 보상 있어?", Kind.YESNO),
    ("재택근무할 때 VPN 꼭 써야 해?", Kind.YESNO),
    ("이천은?", Kind.OTHER),
    ("택시비는?", Kind.OTHER),
    ("신규 입사자 첫날에 뭐 해?", Kind.OTHER),
    # an English yes/no question after a clause
    ("I deleted a file by mistake yesterday, can it still be recovered?", Kind.YESNO),
    ("we deleted the customer's data by mistake, are we required to report it?", Kind.YESNO),
    # how early / how fast ask for a length of time
    ("How early should the next shift arrive at Busan New Port Hub?", Kind.QUANTITY),
    ("how quickly will security respond?", Kind.QUANTITY),
    # a noun of dates asked yes or no; a noun of money asked so is still answered by the amount
    ("휴가 신청 기한을 놓쳤는데 지금 신청해도 돼?", Kind.YESNO),
    ("I missed the vacation request deadline, can I still apply?", Kind.YESNO),
    ("돈도 나와?", Kind.QUANTITY),
    ("지원금도 있어?", Kind.QUANTITY),
])
def test_question_kinds_in_both_languages(question, kind):
    assert question_kind(question) == kind


@pytest.mark.parametrize("kind, sentence, expected", [
    (Kind.QUANTITY, "Pro — Price per month: KRW 290,000.", True),
    (Kind.QUANTITY, "This page describes the plans sales quotes to customers.", False),
    (Kind.TIME, "Requests must be submitted by Thursday of the previous week.", True),
    (Kind.TIME, "6. 정산: 반품 처리 비용은 화주사 계약 단가에 따라 월말에 청구한다.", True),
    (Kind.TIME, "Invoices are sent at the end of the month.", True),
    # A length of time alone does not say when ("when are expired records destroyed?"); a date and a day of the month do.
    (Kind.TIME, "고객 상담 녹취 — 보존 기간: 3년; 근거: 내부 기준.", False),
    (Kind.TIME, "The handover takes 2 hours.", False),
    (Kind.TIME, "셔틀버스 시간표는 2026년 3월 4일부터 적용된다.", True),
    (Kind.TIME, "급여는 25일에 지급한다.", True),
    # ... nor "yes or no": "수습 기간에도 재택근무 할 수 있어?" is not answered by how long probation lasts; a cap is a rule.
    (Kind.YESNO, "The probation period is 3 months.", False),
    (Kind.YESNO, "Parental leave is up to 12 months.", True),
    (Kind.YESNO, "육아휴직은 최대 1년까지 쓸 수 있다.", True),
    (Kind.WHO, "분실 시 즉시 총무팀(내선 1200)에 신고한다.", True),
    (Kind.CONSEQUENCE, "Equipment that is not returned within 14 days is deducted from the final pay.", True),
    (Kind.CONSEQUENCE, "30일이 지나면 프로젝트와 그 안의 모든 데이터가 영구 삭제되며 복구할 수 없습니다.", True),
    (Kind.CONSEQUENCE, "Requests over the limit receive HTTP 429 with a Retry-After header.", True),
    (Kind.CONSEQUENCE, "When you leave the company, return all equipment to IT on your last day.", False),
    # a day named by its place answers "when" ("퇴사하면 권한은 언제 회수돼?")
    (Kind.TIME, "Access is removed on the last working day when someone leaves the company.", True),
    (Kind.TIME, "출입증은 입사 첫날 안내데스크에서 받는다.", True),
    # ... or by its month
    (Kind.TIME, "수당은 다음 달 급여와 함께 지급한다.", True),
    (Kind.TIME, "The allowance is paid with the following payroll.", True),
    (Kind.WHY, "The outage was caused by an expired TLS certificate.", True),
    (Kind.WHY, "Status: resolved.", False),
    (Kind.WHO, "1시간 안에 응답이 없으면 개발 매니저에게 알린다.", True),
    (Kind.WHO, "1시간 안에 응답이 없으면 다시 알린다.", False),
    # a place: in a building, on a map, online or in a named system
    (Kind.WHERE, "노선: 하단역 5번 출구 ↔ 부산신항 허브 정문 (소요 시간 약 35분)", True),
    (Kind.WHERE, "연장 시 #soltrack-status 채널로 안내합니다.", True),
    (Kind.WHERE, "Pick up your laptop from General Affairs on the 8th floor.", True),
    (Kind.WHERE, "출장 신청은 솔빛 People에서 한다.", True),
    (Kind.WHERE, "발급 신청은 솔빛페이에서 한다.", True),  # a Korean name has no capital: where it is done
    (Kind.WHERE, "2. 방문 당일 정문 경비실에서 신분증을 제시하고 방문증을 받습니다.", True),
    (Kind.WHERE, "회사에서 전액 지원한다.", False),  # who pays, not where
    (Kind.WHERE, "Submit the claim in SolbitPay within 10 days.", True),
    (Kind.WHERE, "퇴사할 때 노트북은 총무팀에 반납한다.", True),  # where it is handed in: a team
    (Kind.WHERE, "점검 시간은 상황에 따라 연장될 수 있다.", False),
    (Kind.WHERE, "The shuttle takes about 35 minutes.", False),
    (Kind.WHERE, "Submit it on time.", False),  # "on time" is not a named place, nor "it" the IT team
    (Kind.WHO, "Submit it on time.", False),
    (Kind.WHO, "Ask IT for a replacement.", True),
])
def test_a_sentence_fills_the_slot_by_its_shape(kind, sentence, expected):
    assert fills(kind, sentence) is expected


def test_how_many_times_asks_for_a_multiple():
    question = "성수기 물량은 평소의 몇 배야?"
    assert fills(Kind.QUANTITY, "Forecast: 2.5x the usual daily volume.", question)
    assert not fills(Kind.QUANTITY, "Peak period: 2026-11-09 to 2026-12-24.", question)


@pytest.mark.parametrize("question, right, wrong", [
    # "how many" counts things: the outage's length is not how many customers it hit
    ("영향받은 고객사는 몇 개야?", "About 38,400 API requests failed and 212 customer accounts were affected.",
     "The SolTrack WMS public API returned errors for all customers for 2 h 47 min."),
    ("How many people can the room hold?", "뚝섬 — 층: 8층; 수용 인원: 4명.", "Bookings are limited to 2 hours."),
    # ... unless it counts days
    ("How many days of leave do I get?", "Annual leave — Entitlement: 18 days per year.", "Leave is approved by the team lead."),
    # "how often" is answered by a rhythm, not by a duration
    ("권한 검토는 얼마나 자주 해?", "System owners review all access every quarter.",
     "Privileged (admin) access expires automatically after 90 days."),
    ("How often are backups tested?", "백업 복구 테스트는 분기마다 한 번 한다.", "Backups are kept for 30 days."),
    # a count may be written in words, and a month is not a count
    ("등급은 몇 개야?", '등급은 "기대 이상", "기대 충족", "개선 필요" 세 가지입니다.',
     "연봉 조정은 12월 평가 결과를 기준으로 다음 해 3월에 반영됩니다."),
    # a date is not a length of time
    ("SolTrack 정기 배포는 몇 분 전에 공지해?", "Releases are announced in #soltrack-releases 30 minutes in advance.",
     "일시: 2026년 3월 21일(토) 02:00 ~ 06:00 (KST)"),
    ("How many days does the review take?", "The review takes 10 business days.", "Reviews close on 2026-06-12."),
    # "돈" (money) asks for an amount
    ("돈도 나와?", "회원 1인당 월 2만 원의 활동비를 지원합니다.", "5명 이상이 모이면 동호회를 만들 수 있습니다."),
])
def test_how_many_asks_for_a_count_and_how_often_for_a_rhythm(question, right, wrong):
    """Both lines held a number, so both filled the slot and the wrong one led on its score."""
    assert fills(Kind.QUANTITY, right, question)
    assert not fills(Kind.QUANTITY, wrong, question)


@pytest.mark.parametrize("question, right, wrong", [
    ("솔빛페이 웹 주소가 뭐였지?", "1. 솔빛페이 모바일 앱 또는 웹(pay.solbit.example)에 로그인합니다.",
     "솔빛페이는 경비 청구와 법인카드 사용 내역 정산을 위한 시스템입니다."),
    ("What's the link to the VPN portal?", "Download the client from https://vpn.solbit.example.", "The VPN is WireGuard."),
    ("야근 식대 비용 코드는 뭐야?", "야근 식대 — 코드: EX-110.", "야근 식대는 21시 이후에 지급됩니다."),
])
def test_a_question_for_an_address_or_a_code_is_answered_by_one(question, right, wrong):
    """Any line saying what something is ("…은 …시스템입니다") filled "what is the web address?", and led."""
    assert fills(Kind.WHAT, right, question)
    assert not fills(Kind.WHAT, wrong, question)


@pytest.mark.parametrize("question", ["What time did the Busan conveyor incident start?", "백업은 몇 시에 돌아?",
                                      "영업시간 기준은 몇 시부터 몇 시야?"])
def test_what_time_asks_for_a_clock_time_not_a_duration(question):
    """"What time did it start?" was led by "장애 시간 — 내용: 3시간 25분" (a duration fills "when"); the clock time is
    the answer, and "time" is the question's way of asking, not its topic."""
    from rag.answer.questions import without_asking

    assert fills(Kind.TIME, "발생 — 내용: 2025-11-28 19:40.", question)
    assert fills(Kind.TIME, "백업은 매일 새벽 2시에 실행된다.", question)
    assert fills(Kind.TIME, "The shuttle leaves at 7 am.", question)
    assert not fills(Kind.TIME, "장애 시간 — 내용: 3시간 25분.", question)
    assert not fills(Kind.TIME, "Backups run every Sunday.", question)
    assert fills(Kind.TIME, "Backups run every Sunday.", "When do backups run?")  # "when": a weekday answers
    assert "time" not in without_asking("What time did the Busan conveyor incident start?")
    late = "how late do I need to stay to get the overtime dinner allowance?"
    assert fills(Kind.TIME, "21시 이후까지 근무한 경우 1인 1식 12,000원까지 실비로 지급한다.", late)
    assert not fills(Kind.TIME, "United States — Daily allowance (USD): USD 110.", late)


@pytest.mark.parametrize("kind, step, with_figure", [
    (Kind.TIME, "5. 문제가 없으면 전체 트래픽으로 확대합니다.", "5. 문제가 없으면 30분 이내에 전체 트래픽으로 확대합니다."),
    (Kind.TIME, "Step 2: roll the change out to every region.", "Step 2: roll it out to every region by Friday."),
    (Kind.QUANTITY, "3) Restart the gateway pods.", "3) Restart the 4 gateway pods."),
])
def test_a_steps_own_number_fills_no_slot(kind, step, with_figure):
    """A step's number orders a procedure: it is not a date, an amount or a count ("언제 바뀐 거야?" quoted
    "5. 문제가 없으면 …" among the changelog rows); a figure inside the step still counts."""
    assert fills(kind, step) is False
    assert fills(kind, with_figure) is True


@pytest.mark.parametrize("line", [
    "Document owner: Growth team",
    "문서 담당자: 인사팀",
    "Last edited by Kim Minji on 2026-02-01",
    "This page describes the plans sales quotes to customers.",
    "이 문서는 출장비 정산 기준을 설명합니다.",
    "See the Travel Policy for per-diem amounts.",
    "자세한 내용은 보안 정책 문서를 참고하세요.",
    "Created by Park Jisoo, last edited by Lee Hana · 4 min read · 213 views",
    "Revision 6 · Effective 2025-10-15 · Owner: Quality Assurance",
    "Was this page helpful?",
    "Chuseok ..................... 4",
    "This guide from the Platform team compares the databases that we support and says which one to use where.",
    "이 가이드는 사내에서 쓰는 데이터베이스를 비교합니다.",
    "This page says which discounts sales may offer and who approves them.",
    # a related-documents list or a pointer naming another document's file
    "eng/oncall-policy.md for the on-call rotation",
    "시간표는 공지 busan-shuttle-timetable.txt 를 본다.",
    "Production access: see access-request-procedure.docx",
])
def test_boilerplate_is_recognised_by_shape(line):
    assert boilerplate(line, "", Kind.QUANTITY, changes=False)


@pytest.mark.parametrize("line", [
    "Domestic trips follow the domestic travel policy (FIN-POL-002).",
    "Contractors are governed by the Vendor Handbook.",
    "해외 출장의 숙박비는 '해외 출장비 기준표 2026'을 따른다.",
    "※ 판교 지사는 Pangyo Office Guide의 출입 규정을 따른다.",
])
def test_a_line_handing_the_subject_to_another_document_answers_only_which_applies(line):
    """"Follow the X policy" says where the amount is, not what it is; asked which policy applies, it answers."""
    for kind in (Kind.QUANTITY, Kind.TIME, Kind.WHO, Kind.HOWTO):
        assert boilerplate(line, "", kind, changes=False)
    for kind in (Kind.WHICH, Kind.YESNO, Kind.WHAT):
        assert not boilerplate(line, "", kind, changes=False)


@pytest.mark.parametrize("line", [
    "Overtime meals follow the domestic meal policy, up to SGD 15.",  # the amount is here
    "휴가 신청은 아래 절차를 따른다.",  # a procedure below, not another document
    "Branch staff may work remotely 3 days a week, in line with Remote Work Policy v3.",
])
def test_a_line_with_its_own_fact_is_not_a_deferral(line):
    assert not boilerplate(line, "", Kind.QUANTITY, changes=False)


def test_contact_lines_answer_who_and_changelog_rows_answer_what_changed():
    assert boilerplate("Contact: IT Service Desk, extension 2400.", "", Kind.QUANTITY, changes=False)
    assert not boilerplate("Contact: IT Service Desk, extension 2400.", "", Kind.WHO, changes=False)
    row = "v2.0 — raised the meal allowance to 12,000원."
    assert boilerplate(row, "Change log", Kind.QUANTITY, changes=False)
    assert not boilerplate(row, "Change log", Kind.QUANTITY, changes=True)
    assert not boilerplate("2026-09-24 to 2026-09-26 — Chuseok.", "Holidays", Kind.TIME, changes=False)


@pytest.mark.parametrize("question, about", [
    ("who owns the information security policy?", True),
    ("이 휴무 캘린더 누가 언제 냈어?", True),
    ("이 시간표 언제부터 적용이야?", True),
    ("When was the remote work policy issued?", True),
    ("which team owns Orion Gateway?", False),  # a system's owner, not a document's
    ("who owns the backup checklist, and when is it due?", False),  # an action item
    ("연차는 1년에 며칠이야?", False),
])
def test_a_question_about_the_document_itself_is_told_apart(question, about):
    assert asks_about_document(question) is about


def test_owner_lines_answer_a_question_about_the_document_and_pointers_never_do():
    strip = "Document SEC-POL-001 v2.1 · Effective 2025-09-01 · Policy owner: Han Dongwook, CISO"
    assert boilerplate(strip, "", Kind.WHO, changes=False)
    assert not boilerplate(strip, "", Kind.WHO, changes=False, about_document=True)
    assert boilerplate("See the Travel Policy for details.", "", Kind.WHO, changes=False, about_document=True)


def test_a_document_says_who_issued_it_when_asked(analyzer, embedder):
    """Fails on the old reading: ingestion keeps "Issued by: People Team, 2025-12-01" out of the text (a byline, the
    document's metadata), so "이 휴무 캘린더 누가 언제 냈어?" could only be answered by holiday rows."""
    from rag.answer.reading import Reader
    from rag.documents import Metadata
    from rag.ingest.metadata import text_metadata

    meta = text_metadata(["SOLBIT LOGISTICS - 2026 OFFICE CLOSURE CALENDAR", "Issued by: People Team, 2025-12-01"])
    assert (meta.author, meta.updated) == ("People Team", "2025-12-01")
    chunk = Chunk("notices/holiday-calendar-2026.txt", 0, "2026 OFFICE CLOSURE CALENDAR", "",
                  "Children's Day — 2026-05-05.\nBoth hubs are closed on one day only: 2026-02-17 (Seollal day).",
                  meta=Metadata(author=meta.author, updated=meta.updated))
    reader = Reader(analyzer, embedder)
    asked = reader.read("이 휴무 캘린더 누가 언제 냈어?", "이 휴무 캘린더 누가 언제 냈어?", [Hit(chunk, 1.0)])
    lines = [c.sentence for c in asked.candidates]
    assert any("People Team" in line and "2025-12-01" in line for line in lines)
    other = reader.read("휴무일은 언제야?", "휴무일은 언제야?", [Hit(chunk, 1.0)])
    assert not any("People Team" in c.sentence for c in other.candidates)  # not a line of its content


def _hit(path, ordinal, title, text, rank):
    return Hit(Chunk(path, ordinal, title, "", text), 1.0 / rank)


async def _answer(answerer, question, hits, hedged=False):
    return "".join([p async for p in answerer.answer(question, question, hits, [], hedged=hedged)])


async def test_the_fact_in_the_second_document_leads_over_the_first_documents_boilerplate(analyzer, embedder):
    hits = [
        _hit("plans-overview.md", 0, "SolTrack plans overview",
             "This page describes the plans sales quotes to customers.\nDocument owner: Growth team.\n"
             "See the price list for amounts.", 1),
        _hit("price-list.md", 0, "SolTrack price list",
             "Lite — Price per month: KRW 90,000.\nPro — Price per month: KRW 290,000.", 2),
    ]
    text = await _answer(ExtractiveAnswerer(analyzer, embedder), "How much is the Pro plan a month?", hits)
    lines = text.splitlines()
    assert lines[1] == "• Pro — Price per month: KRW 290,000. [2]"
    assert "describes" not in text and "owner" not in text and "See the" not in text


async def test_a_hedged_answer_says_first_that_the_documents_may_not_answer(analyzer, embedder):
    hits = [_hit("parking.md", 0, "Parking", "Cars park in the basement on levels B2 and B3.", 1)]
    for question, header in (("Where do bicycles go?", "The closest I found — it may not answer exactly:"),
                             ("자전거는 어디에 둬?", "찾은 내용 중 가장 가까운 것입니다. 정확한 답이 아닐 수 있습니다:")):
        text = await _answer(ExtractiveAnswerer(analyzer, embedder), question, hits, hedged=True)
        assert text.startswith(header) and text.splitlines()[1].endswith("[1]")


async def test_a_procedure_is_quoted_whole_and_in_order(analyzer, embedder):
    hits = [_hit("vpn.md", 0, "VPN setup",
                 "Install the client from the portal.\n1. Open the VPN client.\n2. Import the profile file.\n"
                 "3. Sign in with your SSO account.\n4. Approve the push notification.", 1)]
    text = await _answer(ExtractiveAnswerer(analyzer, embedder), "How do I set up the VPN?", hits)
    steps = [line for line in text.splitlines() if line[2:4] in ("1.", "2.", "3.", "4.")]
    assert [line[2] for line in steps] == ["1", "2", "3", "4"]



def test_a_follow_up_reads_first_the_document_that_says_what_the_thread_was_about(analyzer, embedder):
    """"한도 넘으면 어떤 응답이 와?" after two turns on the SolTrack API: the user's own words (한도, 응답) are closer to the
    Korean on-call guide ("15분 안에 응답이 없으면 …") than to the English API guide the thread was about. The words
    the rewrite brought from the thread (SolTrack, API, Enterprise) move the API guide's line to the lead; without
    them the on-call line led (fails with the weight at 0)."""
    from rag.answer.reading import Reader
    from rag.text.bilingual import Bilingual

    texts = {"ops/on-call.md": ("온콜 운영 가이드", "호출을 받으면 15분 이내에 응답해야 한다.\n15분 안에 응답이 없으면 세컨더리가 호출된다."),
             "wiki/public-api-guide.html": ("SolTrack Public API guide",
                                            "When you exceed the limit the API answers 429 Too Many Requests with a "
                                            "Retry-After header.\nEnterprise — Requests per minute: 3,000; Burst: 500.")}
    question = "한도 넘으면 어떤 응답이 와?"
    query = f"{question} 엔터프라이즈 SolTrack API 헤더"
    # On retrieval's scale the on-call guide ranked above the API guide, as it did for this turn.
    cosines = embedder.embed_passages([text for _, text in texts.values()]) @ embedder.embed_query(query)
    hits = [Hit(Chunk(path, 0, title, "", text), z, float(cosine), relevance=z, spread=0.03, population=200)
            for (path, (title, text)), z, cosine in zip(texts.items(), (2.5, 2.0), cosines)]
    for weight, lead in ((2.0, "wiki/public-api-guide.html"), (0.0, "ops/on-call.md")):
        # The slot left out: "어떤 응답" asks which response, and the API guide's English line has a name's shape.
        reader = Reader(analyzer, embedder, bilingual=Bilingual(analyzer), thread_concept_weight=weight,
                        slot_bonus=0.0, slot_miss=0.0)
        reading = reader.read(question, query, hits)
        assert reading.follow_up and reading.thread_coverage("wiki/public-api-guide.html") > \
            reading.thread_coverage("ops/on-call.md")
        assert reading.best.path == lead, weight


def test_a_line_says_a_glossary_compound_that_its_terms_split(analyzer, embedder):
    """Kiwi reads "미사용 연차는" as 미사 (mass) and 용: the line answering "can I carry unused days over?" said none of the
    question's words, and a line about 사용 (use) led the hedge (fails without the compound read as written)."""
    from rag.answer.reading import Reader
    from rag.text.bilingual import Bilingual

    hits = [_hit("hr/leave-policy-2026.pdf", 0, "연차 휴가 규정",
                 "리프레시 휴가는 해당 근속 연수를 채운 날부터 1년 안에 사용해야 한다.\n"
                 "미사용 연차는 다음 해 3월 말까지 1회에 한해 이월할 수 있으며 최대 5일이다.", 1)]
    question = "can I carry unused days over?"
    reading = Reader(analyzer, embedder, bilingual=Bilingual(analyzer)).read(question, question, hits)
    said = {c.sentence[:3]: c.said for c in reading.candidates}
    assert said["미사용"] > 0 and said["미사용"] >= said["리프레"]


def test_an_english_phrase_is_said_by_the_compound_it_translates_to(analyzer, embedder):
    """"What's the max booking length for Seoul HQ meeting rooms?": "meeting" alone is 면담 or 회의 and "rooms" 방 or 객실,
    so the rule under "회의실 이용 안내" said neither word through 회의실 and a room's row led the hedge. Each word of a
    phrase the dictionary knows ("meeting rooms": 회의실, "per diem": 일비) is said by the compound too."""
    from rag.answer.reading import Reader
    from rag.text.bilingual import Bilingual

    hits = [_hit("ga/meeting-rooms.md", 0, "서울 본사 안내",
                 "회의실은 1회 최대 2시간까지 예약할 수 있다.\n한강 — 층: 12층; 수용 인원: 20명; 장비: 빔프로젝터.", 1)]
    question = "What's the max booking length for Seoul HQ meeting rooms?"
    reading = Reader(analyzer, embedder, bilingual=Bilingual(analyzer)).read(question, question, hits)
    room_words = [c for c in reading.concepts if "회의실" in c]
    assert len(room_words) == 2  # "meeting" and "rooms"
    said = {c.sentence[:3]: c.said for c in reading.candidates}
    assert said["회의실"] >= said["한강 "] + 2


def test_a_name_of_several_words_is_one_thing_asked_about(analyzer, embedder):
    """"How early should the next shift arrive at Busan New Port Hub?": counted word by word, the name was four of
    the question's six topic words, and the hub directory's row (which says the name and "3 shifts") led the shift
    procedure's "30분 전에 도착". The name is one concept now."""
    from rag.answer.reading import Reader
    from rag.text.bilingual import Bilingual

    hits = [_hit("ops/hub-directory.xlsx", 0, "Hub directory",
                 "Busan New Port Hub — City: Busan; Operating hours: Mon-Sat, 24 hours (3 shifts); Dock doors: 36.", 1),
            _hit("ops/busan-shift.md", 0, "부산신항 허브 교대 절차",
                 "1. 다음 조 근무자는 근무 시작 30분 전에 도착하여 보호구를 착용한다.", 2)]
    question = "How early should the next shift arrive at Busan New Port Hub?"
    reading = Reader(analyzer, embedder, bilingual=Bilingual(analyzer)).read(question, question, hits)
    names = [c for c in reading.concepts if "busan" in c]
    assert len(names) == 1 and {"port", "hub"} <= names[0]
    assert not any("busan" in c for c in reading.concepts if c is not names[0])


def test_how_early_is_answered_by_a_length_of_time_not_a_date():
    question = "How early should the next shift arrive?"
    assert fills(Kind.QUANTITY, "다음 조 근무자는 근무 시작 30분 전에 도착한다.", question)
    assert not fills(Kind.QUANTITY, "교대 절차는 2026년 3월 1일부터 적용한다.", question)


def test_a_documents_reading_budget_goes_to_its_best_ranked_passages(analyzer, embedder):
    """A long opening section spent a document's whole budget of sentences in document order, and the passage
    retrieval ranked first (a later one, holding the asked fact) was never read."""
    from rag.answer.reading import Reader

    opening = "\n".join(f"{n}. Check item number {n} on the onboarding list before the end of the week." for n in range(1, 21))
    hits = [_hit("wiki/guide.md", 3, "Guide", "The VPN gateway for Seoul is sel-vpn.example and uses WireGuard.", 1),
            _hit("wiki/guide.md", 0, "Guide", opening, 2)]
    reader = Reader(analyzer, embedder, per_source=16)
    reading = reader.read("Which VPN gateway does Seoul use?", "Which VPN gateway does Seoul use?", hits)
    sentences = [c.sentence for c in reading.candidates]
    assert any("sel-vpn" in s for s in sentences) and len(sentences) == 16
    # ... and what was read is still in document order: the opening's items before the later passage
    by_position = [c.sentence for c in sorted(reading.candidates, key=lambda c: c.position)]
    assert by_position[-1].startswith("The VPN gateway")


@pytest.mark.parametrize("kind, question, right, wrong", [
    # a length of time in words
    (Kind.QUANTITY, "복구하면 보통 얼마나 걸려?", "A restore of a cluster under 100 GB usually completes within two hours.",
     "Managed PostgreSQL clusters are restored by the platform team."),
    (Kind.QUANTITY, "몇 시간 안에 신고해야 돼?", "If you lose a company laptop or phone, report it within one hour.",
     "Report anything that might be a security incident."),
    (Kind.QUANTITY, "분실하면 얼마나 빨리 신고해?", "분실하면 한 시간 안에 보안팀에 신고한다.", "분실하면 보안팀에 신고한다."),
    # a rate limit is a number of requests, not a share
    (Kind.QUANTITY, "what are its rate limits?", "Each API key may make 600 requests per minute by default.",
     "Requests over the limit receive an error with a Retry-After header."),
    (Kind.QUANTITY, "What's the error rate threshold for a rollback?", "Roll back when the error rate exceeds 2%.",
     "Roll back within 10 minutes."),
    # a role fills "who"
    (Kind.WHO, "who can approve a discount up to 10%?", "up to 10% — Approver: Account executive.",
     "Discounts apply to three-year contracts only."),
    (Kind.WHO, "Who was the incident commander?", "Incident commander — Lee Seojun.", "The outage lasted 2 h 47 min."),
    (Kind.WHO, "롤백은 누가 해?", "롤백은 승인 없이 온콜 엔지니어가 바로 실행할 수 있습니다.", "롤백은 10분 안에 끝내야 합니다."),
    # "얼마 뒤 / 얼마 동안" ask how long, not how much money
    (Kind.QUANTITY, "그거 얼마 동안 유효해?", "프로덕션 접근 권한은 최대 90일 동안 유효하다.", "권한 신청은 팀 리드가 승인한다."),
    (Kind.QUANTITY, "and how many paid sick days are there?", "업무 외 질병으로 인한 병가는 연 30일까지 유급으로 한다.",
     "병가는 진단서를 제출해야 한다."),
    # a count asked outright outweighs a noun of money beside it; meals are counted
    (Kind.QUANTITY, "기본 요청 한도가 분당 몇 개야?", "Each API key may make 600 requests per minute by default.",
     "Requests over the limit receive an error."),
    (Kind.QUANTITY, "주말에 출근하면 식대 몇 끼까지 돼?", "주말·공휴일 근무 시에는 1일 2식까지 인정한다.", "식대는 실비로 정산한다."),
    # revenue is an amount of money
    (Kind.QUANTITY, "What was Solbit's 2025 revenue?", "2025 매출 712억 원 (목표 대비 102%)", "2025년 숫자는 감사 전 잠정치입니다."),
    # a month names a time
    (Kind.TIME, "캘리브레이션은 언제 해?", "Calibration sessions run in the first two weeks of July.",
     "Calibration sessions compare ratings across teams."),
    # an HTTP status names a response, it is not a figure
    (Kind.QUANTITY, "기본 요청 한도가 분당 몇 개야?", "Each API key may make 600 requests per minute by default.",
     "Requests over the limit receive HTTP 429 with a Retry-After header."),
    (Kind.QUANTITY, "How big should a pull request be?", "풀 리퀘스트는 변경 400줄 이하를 권장합니다.",
     "When you exceed the limit the API answers 429 Too Many Requests."),
    # a name fills "which": not the capital every English sentence opens on
    (Kind.WHICH, "노트북은 어떤 걸 받아?", "Engineers receive a MacBook Pro with 32 GB of memory.",
     "The probation period is 3 months."),
    (Kind.WHICH, "Which database should a new service use?", "PostgreSQL is our default for every production service.",
     "Choose carefully before the launch."),
    # "what was X?" is answered by "X was …"
    (Kind.WHAT, "What was the company-wide OTIF in Q4 2025?", "Company OTIF was 97.3%, slightly below target.",
     "Shipper feedback improved in Q4 2025."),
    # a table's value says yes or no: free or paid, included or extra
    (Kind.YESNO, "부산 사무실에 손님 오면 주차 공짜야?", "방문객: 당일 무료 (경비실에서 방문증 수령)", "주차장은 사무동 지하에 있다."),
    (Kind.YESNO, "이거 부가세 포함이야?", "창고 서비스 요율표 (VAT 별도, 단위: 원)", "창고 서비스 요율표 (단위: 원)"),
    (Kind.YESNO, "Is lunch included?", "Lunch: included for full-day sessions", "Lunch is served in the atrium"),
    # an amount on top of another is often a share of the base; a plain amount is not
    (Kind.QUANTITY, "how much extra is night work paid?", "야간 근로에는 통상임금의 50%를 가산하여 지급한다.",
     "야간조 근무 시간은 22:00~07:00이다."),
    (Kind.QUANTITY, "how much is the hotel cap in Seoul?", "Team lead — hotel cap in Seoul: KRW 150,000 a night.",
     "Hotels in Seoul are 80% booked in March."),
])
def test_a_slot_is_filled_by_what_people_write(kind, question, right, wrong):
    assert fills(kind, right, question) and not fills(kind, wrong, question)


def test_a_line_sharing_more_of_the_questions_words_leads_its_sibling(analyzer, embedder):
    """"연차는 1년에 며칠이야?": the vacation policy's two sentences on annual leave both give a number of days; the one
    that says 연차 and 1년 (15 days a year) answers it, the other (one more day every two years, up to 25) led by its
    cosine while each shared word was worth 0.15 (rag.answer.reading.TERM_BONUS)."""
    from rag.answer.reading import Reader
    from rag.text.bilingual import Bilingual

    body = ("입사 첫해에는 매월 1일씩 연차가 발생하고, 1년 이상 근무한 직원은 매년 15일의 연차를 받습니다. "
            "3년 이상 근무하면 2년마다 1일씩 추가되어 최대 25일까지 늘어납니다.\n"
            "연차는 HR 포털 \"누리피플\"에서 신청합니다. 하루 이상 휴가는 최소 3영업일 전에 신청해야 하며, 팀 리드의 승인이 필요합니다.\n"
            "사용하지 못한 연차는 다음 해 3월 31일까지 최대 5일 이월할 수 있습니다.")
    hits = [Hit(Chunk("vacation-policy.md", 0, "휴가 정책", "연차", body), 1.0)]
    question = "연차는 1년에 며칠이야?"
    reading = Reader(analyzer, embedder, bilingual=Bilingual(analyzer)).read(question, question, hits)
    assert "15일" in reading.best.sentence


def test_mean_asks_for_a_meaning_and_is_not_a_topic_word():
    """"What does grade A mean?": "mean" is the asking; as a topic word the dictionary made it 평균 (average) and
    방법 (method), words the answer's lines were then measured by."""
    from rag.answer.questions import without_asking

    assert "mean" not in without_asking("in the returns process, what does grade A mean?")
    assert "stand" not in without_asking("what does OTIF stand for?")
    assert "mean" not in without_asking("what do you mean by RPO?")
    assert "mean time" in without_asking("What is the mean time to recover?")


@pytest.mark.parametrize("question", ["B등급은 무슨 뜻이야?", "B등급의 뜻이 뭐야?", "in the returns process, what does grade B mean?",
                                      "what is the meaning of B?", "what do you mean by B?"])
def test_a_meaning_is_given_by_the_line_that_defines_the_term_not_one_that_uses_it(question):
    """The returns procedure's step 5 ("A·B 등급은 재입고하고 …") led "B등급은 무슨 뜻이야?" over step 4, which defines the
    grades: both have a colon, the shape of any definition. A line that says the asked term fills the slot only where
    it defines it ("B(재포장 후 판매)"); a line that does not say it keeps the general shape."""
    uses = "5. 후속 처리: A·B 등급은 재입고하고, C 등급은 화주사 승인 후 폐기한다."
    defines = "4. 등급 판정: A(재판매 가능), B(재포장 후 판매), C(판매 불가)로 판정한다."
    assert fills(Kind.WHAT, defines, question)
    assert not fills(Kind.WHAT, uses, question)
    assert fills(Kind.WHAT, "Dock-to-stock: the time from arrival to available stock.", question)
    assert not fills(Kind.WHAT, "A delivery that is not acknowledged is retried.", "what does grade A mean?")


def test_asked_what_the_old_rule_said_the_repealed_documents_line_leads_on_a_follow_up(analyzer, embedder):
    """"and under the old rules?" after a turn on the current travel policy: the words the rewrite brought from the
    thread (hotel, Seoul, team lead) are the current policy's, which the previous answer cited, and its row led with
    today's figure. Asked what the earlier version said, the repealed policy's row leads (fails with no bonus)."""
    from rag.answer.reading import Reader
    from rag.documents import Metadata
    from rag.text.bilingual import Bilingual

    current = Chunk("travel-2026.md", 0, "Domestic travel policy 2026", "Hotel caps",
                    "Team lead — hotel cap in Seoul: KRW 150,000 a night.\nTeam member — hotel cap in Seoul: KRW "
                    "120,000 a night.\nBook hotels through the travel desk in Seoul.")
    repealed = Chunk("travel-2023.md", 0, "Domestic travel policy 2023 (repealed)", "Hotel caps",
                     "Team lead — hotel cap: KRW 120,000 a night.\nTeam member — hotel cap: KRW 90,000 a night.",
                     meta=Metadata(status="repealed"))
    question = "and what was it under the old rules?"
    query = f"{question} hotel cap Seoul team lead"
    cosines = embedder.embed_passages([current.text, repealed.text]) @ embedder.embed_query(query)
    # On retrieval's scale: the current policy carries the thread's prior (+0.5), the repealed one the swing an
    # earlier-version question gives it (+1.0), as `Ranker.rank` scores them.
    hits = [Hit(chunk, z + shift, float(cosine), relevance=z, spread=0.03, population=200)
            for chunk, z, shift, cosine in zip((current, repealed), (2.4, 1.6), (0.5, 1.0), cosines)]
    for bonus, lead in ((2.0, "travel-2023.md"), (0.0, "travel-2026.md")):
        reading = Reader(analyzer, embedder, bilingual=Bilingual(analyzer), earlier_bonus=bonus).read(question, query,
                                                                                                      hits)
        assert reading.best.path == lead, (bonus, reading.best.sentence)
    unasked = Reader(analyzer, embedder, bilingual=Bilingual(analyzer)).read("and for a team member?",
                                                                             "and for a team member? hotel cap Seoul",
                                                                             hits)
    assert unasked.best.path == "travel-2026.md"  # today's rule, when the past is not asked


def test_a_question_naming_an_old_documents_version_asks_what_it_said():
    """"what was the home office stipend in v2?" names the superseded policy by its version: its figure is the answer,
    not the current policy's line that mentions v2 in passing (fails on the old reading, which had no such test)."""
    from rag.answer.reading import names_an_old_version
    from rag.documents import Metadata

    old = Hit(Chunk("remote-v2.md", 0, "Remote Work Policy v2", "", "A stipend of ₩200,000 is paid.",
                    meta=Metadata(status="superseded")), 1.0)
    current = Hit(Chunk("remote-v3.docx", 0, "Remote Work Policy v3", "", "Those paid the v2 stipend get ₩100,000."),
                  2.0)
    assert names_an_old_version("what was the home office stipend in v2?", [current, old])
    assert not names_an_old_version("what is the home office stipend in v3?", [current, old])  # v3 is in force
    assert not names_an_old_version("what is the home office stipend?", [current, old])  # no version named
    assert not names_an_old_version("what was the stipend in v2?", [current])  # the old policy was not found



def test_a_follow_up_naming_its_own_topic_compares_the_other_language_with_its_own_words(analyzer, embedder):
    """"권한 검토는 얼마나 자주 해?" after a turn on how long admin access lasts: the rewrite borrowed that turn's words
    (관리자, 만료), and the English lines compared with them put "… expires automatically after 90 days" first. The
    user named the topic in two words of their own (권한, 검토): the English lines are compared with those, and the
    quarterly review leads (fails when the borrowed words are in the comparison, as they were)."""
    from rag.answer.reading import Reader
    from rag.text.bilingual import Bilingual

    access = Chunk("it/access-request.docx", 0, "Access request procedure", "Rules",
                   "Privileged (admin) access expires automatically after 90 days and must be requested again.\n"
                   "System owners review all access every quarter and remove what is no longer needed.\n"
                   "Access is removed on the last working day when someone leaves the company.")
    incident = Chunk("wiki/inc-2026-014.html", 0, "INC-2026-014 WMS API outage", "Actions",
                     "Alert on certificate expiry 30 days ahead — Owner: Platform Engineering; Due: 2026-02-20.\n"
                     "Duration — 2 h 47 min (09:12-11:59 KST).\n"
                     "The SolTrack WMS public API returned errors for all customers for 2 h 47 min.")
    question = "권한 검토는 얼마나 자주 해?"
    query = f"{question} 운영 WMS 관리자 얼마 만료"
    cosines = embedder.embed_passages([access.text, incident.text]) @ embedder.embed_query(query)
    # On retrieval's scale, as this turn's two documents ranked.
    hits = [Hit(chunk, z, float(cosine), relevance=z, spread=0.02, population=200)
            for chunk, z, cosine in zip((access, incident), (3.1, 2.2), cosines)]
    for own_words, lead in ((2, "every quarter"), (99, "expires automatically")):  # 99: never the user's own words
        reader = Reader(analyzer, embedder, bilingual=Bilingual(analyzer), own_topic_words=own_words)
        assert lead in reader.read(question, query, hits).best.sentence, own_words
    bilingual = Bilingual(analyzer)
    elliptical = Reader(analyzer, embedder, bilingual=bilingual)._comparison_words(
        "대표번호는?", bilingual.words("대표번호는? 대표번호는? 부산신항 허브"), ["대표번호"], True)
    assert any("Busan" in w or "hub" in w.lower() for w in elliptical)  # one word of its own: the thread's words too
