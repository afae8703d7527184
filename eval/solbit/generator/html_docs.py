"""HTML wiki exports (Confluence, Notion, SharePoint, Google Sites)."""
from html_shell import confluence, notion, sharepoint, google_sites, table, dl

DOCS = {}

# 1. VPN (Confluence, EN)
DOCS["wiki/vpn-setup.html"] = confluence(
    "Connecting to the VPN (Solbit SecureConnect)", "Kim Minji", "Park Joon", "2026-03-02", 4, 132,
    "IT & Security", ["IT & Security", "Remote access", "IT & Security"],
    f"""        <p>Solbit uses <strong>Solbit SecureConnect</strong> (based on WireGuard) for remote access to
        SolTrack admin consoles, file shares and the hub camera systems. Every employee laptop has the
        client pre-installed.</p>
        <h2>Gateways</h2>
        <p>Always connect to the gateway of the office you belong to.</p>
{table(["Office", "Gateway", "Protocol", "Max session"],
       [["Seoul HQ", "sel-vpn.solbit.example", "WireGuard (UDP 51820)", "12 hours"],
        ["Busan office", "pus-vpn.solbit.example", "WireGuard (UDP 51820)", "12 hours"],
        ["Singapore branch", "sin-vpn.solbit.example", "WireGuard (UDP 51820)", "10 hours"]])}
        <h2>First-time setup</h2>
        <ol>
          <li>Open SecureConnect from the menu bar (Mac) or the system tray (Windows).</li>
          <li>Sign in with your Solbit account and approve the push in Okta Verify.</li>
          <li>Select your office gateway from the table above.</li>
          <li>Check that <code>status</code> shows <em>Connected</em>.</li>
        </ol>
        <p>On the command line you can check the tunnel like this:</p>
        <pre><code class="language-bash">$ secureconnect status
Gateway:  sel-vpn.solbit.example
State:    Connected (split tunnel: off)
Expires:  in 11h 58m</code></pre>
        <h2>Rules</h2>
        <ul>
          <li>Split tunnelling is disabled: all traffic goes through the VPN.</li>
          <li>The VPN token (the device certificate) is renewed automatically every 90 days.</li>
          <li>If the client shows <em>certificate expired</em>, open a ticket with the IT Service Desk (extension 2400).</li>
        </ul>""",
    [("Lee Hyunwoo", "2026-02-11", "Works fine from the Busan office now, thanks!"),
     ("Sarah Lim", "2026-03-03", "Is there a Linux client? I could not find it.")])

# 2. Busan hub safety (Notion, KO)
DOCS["wiki/busan-hub-safety.html"] = notion(
    "부산신항 허브 현장 안전수칙", "정태윤", "김도현", "2026-01-20", 5, 418, "Solbit Busan Hub",
    ["Busan Hub", "안전", "현장 안전수칙"],
    f"""        <p>부산신항 허브에 출입하는 모든 임직원과 협력사 작업자는 아래 수칙을 지켜야 한다.
        위반 시 1회 경고, 2회 위반 시 출입이 정지된다.</p>
        <h2>공통 수칙</h2>
        <ul>
          <li>현장에서는 안전화와 형광 안전조끼를 항상 착용한다.</li>
          <li>보행자는 바닥의 노란색 보행자 통로로만 이동한다.</li>
          <li>작업 중 휴대폰 사용은 금지된다. 통화는 휴게 구역에서 한다.</li>
        </ul>
        <h2>구역별 기준</h2>
{table(["구역", "필수 보호구", "지게차 속도 제한", "연속 작업 후 휴식"],
       [["랙 보관 구역", "안전모, 안전화, 안전조끼", "시속 8km", "해당 없음"],
        ["입출고 도크", "안전화, 안전조끼", "시속 5km", "해당 없음"],
        ["냉동 창고 (-25°C)", "방한복, 방한 장갑, 안전화", "시속 5km", "45분 작업 후 15분 휴식"],
        ["소터·컨베이어 구역", "안전화, 귀마개", "지게차 진입 금지", "해당 없음"]])}
        <h2>사고 발생 시</h2>
        <ol>
          <li>즉시 작업을 멈추고 주변 작업자에게 알린다.</li>
          <li>현장 안전관리자에게 무전(채널 3)으로 보고한다.</li>
          <li>부상자가 있으면 119에 신고하고 응급 처치함(각 도크 옆)을 사용한다.</li>
        </ol>""",
    [("박지은", "2026-01-22", "냉동 창고 휴식 기준 공지 감사합니다."),
     ("협력사 한빛운송", "2026-02-02", "협력사 기사님들께도 공유했습니다.")], icon="🦺")

# 3. SolTrack plans (Confluence, EN)
DOCS["wiki/soltrack-plans.html"] = confluence(
    "SolTrack plans and pricing (2026)", "Jung Hana", "Choi Eunji", "2026-01-05", 3, 907,
    "SolTrack Product", ["SolTrack Product", "Commercial", "SolTrack Product"],
    f"""        <p>SolTrack is Solbit's warehouse and transport management SaaS. From 2026-01-01 we sell three plans.
        Prices are per customer account and exclude VAT. For discounts see the SolTrack discount policy.</p>
{table(["", "Lite", "Pro", "Enterprise"],
       [["Monthly price (VAT excl.)", "₩390,000", "₩1,150,000", "Contact sales"],
        ["Included users", "10", "50", "Unlimited"],
        ["Warehouses", "1", "5", "Unlimited"],
        ["API calls per month", "100,000", "2,000,000", "Custom"],
        ["Support", "Email, business hours", "Email and chat, business hours", "24/7 phone"],
        ["Uptime SLA", "99.5%", "99.9%", "99.95%"],
        ["Data retention", "1 year", "3 years", "7 years"]], caption="SolTrack plans")}
        <h2>Add-ons</h2>
        <dl>
          <dt>Extra user</dt><dd>₩15,000 per user per month (Lite and Pro)</dd>
          <dt>Route Optimizer</dt><dd>₩300,000 per month, Pro and Enterprise only</dd>
          <dt>Implementation</dt><dd>One-time fee from ₩2,000,000, quoted per project</dd>
        </dl>
        <h2>Trial</h2>
        <p>New customers can try the Pro plan free for 30 days. The trial converts to Lite unless the customer chooses a plan.</p>""",
    [("Kang Mirae", "2026-01-06", "Can we link the discount page here? Done, thanks."),
     ("Oh Sungmin", "2026-02-14", "Customers keep asking about a free tier.")])

# 4. Seoul meeting rooms (SharePoint, KO)
DOCS["wiki/seoul-meeting-rooms.html"] = sharepoint(
    "서울 본사 회의실 예약 안내", "총무팀 이수진", "총무팀 이수진", "2026-02-03", 2, 1204,
    "솔빛물류 서울 본사", ["홈", "사무실", "서울 본사 회의실 예약 안내"],
    f"""      <p>서울 본사 회의실은 Outlook 일정에서 회의실을 초대하여 예약한다.</p>
{table(["회의실", "층", "수용 인원", "장비"],
       [["한강", "12층", "20명", "화상회의 (Teams Room), 빔프로젝터"],
        ["남산", "10층", "8명", "화상회의, 75인치 TV"],
        ["서울숲", "9층", "6명", "55인치 TV"],
        ["뚝섬", "8층", "4명", "화이트보드"],
        ["폰부스 A~D", "11층", "1명", "없음"]], cls="ms-rteTable-default")}
      <h2>예약 규칙</h2>
      <ul>
        <li>1회 예약은 최대 2시간까지 가능하다.</li>
        <li>회의 시작 후 15분 안에 회의실 태블릿에서 체크인하지 않으면 예약이 자동 취소된다.</li>
        <li>대회의실 '한강'은 총무팀 승인이 필요하며, 외부 고객 미팅이 우선한다.</li>
        <li>반복 예약은 최대 4주까지만 허용된다.</li>
      </ul>""",
    [("김하늘", "2026-02-04", "체크인 태블릿이 남산 회의실에서 가끔 꺼져 있어요.")], lang="ko")

# 5. Onboarding checklist (Google Sites, EN)
DOCS["wiki/onboarding-checklist.html"] = google_sites(
    "New joiner checklist", "People Team (Yoon Seoyeon)", "Yoon Seoyeon", "2026-01-28", 4, 655,
    "Solbit People Hub", ["Home", "New joiners", "Checklist"],
    f"""      <p>Welcome to Solbit Logistics! This checklist covers your first 90 days. Your manager and your onboarding buddy will walk you through it.</p>
      <h2>Day 1</h2>
      <ul>
        <li>Pick up your laptop and badge from General Affairs at 09:30 (Seoul: 8th floor; Busan: office building reception).</li>
        <li>Sign in to Solbit People and complete your personal details and bank account.</li>
        <li>Meet your onboarding buddy; every new joiner is assigned one for the first 90 days.</li>
      </ul>
      <h2>First two weeks</h2>
      <ul>
        <li>Complete the mandatory security awareness training within 14 days of your start date.</li>
        <li>Hub-based staff complete the on-site safety induction (4 hours) before their first shift.</li>
        <li>Set up Okta Verify and the VPN client.</li>
      </ul>
      <h2>First 90 days</h2>
      <ul>
        <li>The probation period is 3 months. Your manager holds a probation review in the last two weeks.</li>
        <li>Visit at least one hub (Icheon Hub or Busan New Port Hub) in person.</li>
      </ul>
      <h2>Words you will hear</h2>
{dl([("SolTrack", "Our warehouse and transport management platform, sold as SaaS and used in our own hubs."),
     ("Hub", "A Solbit-operated warehouse: Icheon Hub, Busan New Port Hub and Singapore Tuas Hub."),
     ("Shipper", "A customer that stores goods with us and ships orders through our hubs.")])}""",
    [("Daniel Tan", "2026-02-10", "The buddy programme was really helpful, thanks!")], lang="en")

# 6. WMS API outage (Confluence, EN)
DOCS["wiki/inc-2026-014-wms-api-outage.html"] = confluence(
    "INC-2026-014 Postmortem: SolTrack WMS API outage", "Lee Seojun", "Kim Minji", "2026-02-13", 6, 341,
    "Engineering", ["Engineering", "Incident reports", "Incident reports"],
    f"""        <table class="confluenceTable page-properties">
          <tbody>
          <tr><th>Status</th><td>Resolved</td></tr>
          <tr><th>Severity</th><td>SEV1</td></tr>
          <tr><th>Date</th><td>2026-02-09</td></tr>
          <tr><th>Duration</th><td>2 h 47 min (09:12-11:59 KST)</td></tr>
          <tr><th>Incident commander</th><td>Lee Seojun</td></tr>
          </tbody>
        </table>
        <h2>Summary</h2>
        <p>The SolTrack WMS public API returned errors for all customers for 2 h 47 min. About 38,400 API requests failed
        and 212 customer accounts were affected. The web console and hub scanners kept working.</p>
        <h2>Timeline (KST)</h2>
{table(["Time", "Event"],
       [["09:12", "Error rate on the public API rises to 100%; alert fires"],
        ["09:19", "On-call engineer acknowledges the page"],
        ["09:45", "Incident declared SEV1; status page updated"],
        ["10:58", "Expired certificate identified on the internal API gateway"],
        ["11:40", "New certificate installed"],
        ["11:59", "Error rate back to normal; incident resolved"]])}
        <h2>Root cause</h2>
        <p>The TLS certificate on the internal API gateway expired. The automatic renewal job had been disabled during the
        January data-centre migration and was never turned back on, so nothing renewed the certificate.</p>
        <h2>Action items</h2>
{table(["Action", "Owner", "Due"],
       [["Alert on certificate expiry 30 days ahead", "Platform Engineering", "2026-02-20"],
        ["Re-enable and monitor the renewal job", "Platform Engineering", "2026-02-11"],
        ["Add a migration checklist item for scheduled jobs", "Infrastructure", "2026-03-06"]])}""",
    [("Choi Eunji", "2026-02-13", "Customer Success sent the RCA summary to all affected accounts."),
     ("Park Joon", "2026-02-16", "Good write-up. +1 on the alerting item.")])

# 7. Busan conveyor incident (Notion, KO)
DOCS["wiki/inc-2025-041-busan-conveyor.html"] = notion(
    "INC-2025-041 부산신항 허브 소터·컨베이어 정지 장애 보고서", "김도현", "정태윤", "2025-12-05", 5, 287,
    "Solbit Busan Hub", ["Busan Hub", "장애 보고서", "INC-2025-041"],
    f"""{table(["항목", "내용"],
       [["상태", "종결"],
        ["심각도", "SEV2"],
        ["발생", "2025-11-28 19:40"],
        ["복구", "2025-11-28 23:05"],
        ["장애 시간", "3시간 25분"],
        ["영향", "출고 지연 1,240건"]])}
        <h2>개요</h2>
        <p>부산신항 허브의 자동 소터와 메인 컨베이어가 반복적으로 정지하여 오후조의 출고 작업이 수작업 분류로 전환되었다.
        지연된 주문은 다음 날 오전 첫 배차로 출고되었다.</p>
        <h2>원인</h2>
        <p>당일 오후 적용한 PLC 펌웨어 업데이트(v4.2) 후 광센서의 감도 설정값이 공장 초기값으로 리셋되었다.
        이 때문에 센서가 빈 트레이를 물건으로 잘못 감지(오검지)하여 컨베이어가 안전 정지를 반복했다.</p>
        <h2>조치 및 재발 방지</h2>
        <ol>
          <li>센서 감도 설정값을 백업본으로 복원하였다 (23:05 정상화).</li>
          <li>PLC 펌웨어 업데이트는 비피크 시간인 일요일 02:00에만 진행한다.</li>
          <li>업데이트 전후 설정값 백업·비교 체크리스트를 도입한다 (담당: 설비팀, 기한 2025-12-19).</li>
        </ol>""",
    [("이현우", "2025-12-06", "화주사 안내문은 CS팀에서 발송 완료했습니다.")], icon="🚨")

# 8. Glossary (Confluence, bilingual)
DOCS["wiki/logistics-glossary.html"] = confluence(
    "물류 용어집 / Logistics glossary", "Yoon Seoyeon", "Kim Minji", "2025-12-18", 6, 2210,
    "Glossary", ["Glossary", "Glossary"],
    f"""        <p>솔빛물류에서 자주 쓰는 용어를 한국어와 영어로 정리했습니다. Common terms at Solbit, in Korean and English.</p>
{dl([("3PL (제3자 물류 / third-party logistics)", "화주사의 보관·출고·배송을 대신 수행하는 물류 서비스. A logistics provider that stores and ships goods on behalf of shippers."),
     ("크로스도킹 (Cross-docking)", "입고된 상품을 보관하지 않고 24시간 이내에 출고하는 방식. Goods leave the hub within 24 hours without being put away."),
     ("OTIF (On Time In Full / 정시 완전 납품률)", "약속한 시간에 주문 수량 전체를 납품한 비율. 솔빛물류의 전사 목표는 97.5%이다. Company-wide target: 97.5%."),
     ("컷오프 (Cut-off)", "당일 출고를 보장하는 주문 마감 시각. The latest order time for same-day dispatch; each hub has its own."),
     ("도크 투 스톡 (Dock-to-stock)", "입고 도크 도착부터 재고 등록까지 걸린 시간. Time from arrival at the dock until the stock is available in SolTrack."),
     ("SKU (Stock Keeping Unit / 재고 관리 단위)", "재고를 구분하는 최소 단위. The smallest unit of stock we track.")])}""",
    [("Daniel Tan", "2026-01-09", "Very useful for the Singapore team."),
     ("박지은", "2026-02-01", "풀필먼트 용어도 추가해 주세요.")])

# 9. Public API guide (Notion, EN)
DOCS["wiki/public-api-guide.html"] = notion(
    "SolTrack Public API - getting started", "Lee Seojun", "Han Yerin", "2026-02-24", 7, 1533,
    "Solbit Engineering", ["Engineering", "SolTrack API", "Getting started"],
    f"""        <p>The SolTrack Public API (v2) lets customers create orders, query stock and receive shipment events.</p>
        <h2>Authentication</h2>
        <p>Send your API key in the <code>X-Solbit-Key</code> header. Keys are created in the SolTrack admin console
        and expire after 365 days.</p>
        <pre><code>curl -H "X-Solbit-Key: $KEY" https://api.solbit.example/v2/orders?status=SHIPPED</code></pre>
        <p>For testing use the sandbox base URL <code>https://sandbox.api.solbit.example/v2</code>. Sandbox data is reset every Sunday.</p>
        <h2>Rate limits</h2>
{table(["Plan", "Requests per minute", "Burst"],
       [["Lite", "120", "20"], ["Pro", "600", "100"], ["Enterprise", "3,000", "500"]])}
        <p>When you exceed the limit the API answers <code>429 Too Many Requests</code> with a <code>Retry-After</code> header in seconds.</p>
        <h2>Webhooks</h2>
        <p>Shipment events are delivered to your webhook URL. A delivery that does not get a 2xx answer is retried 5 times with exponential backoff
        (1, 2, 4, 8 and 16 minutes), then dropped.</p>""",
    [("Han Yerin", "2026-02-25", "Updated the Enterprise limit after the February change.")], lang="en", icon="🔌")

# 10. New Port visitor access (Google Sites, KO)
DOCS["wiki/new-port-visitor-access.html"] = google_sites(
    "부산신항 허브 방문객 출입 절차", "부산 운영지원팀 최민호", "최민호", "2026-02-18", 3, 389,
    "솔빛물류 현장 포털", ["홈", "방문", "부산신항 허브"],
    f"""      <p>부산신항 허브는 보세 구역을 포함하고 있어 사전 등록 없이는 출입할 수 없습니다.</p>
      <h2>방문 등록</h2>
      <ol>
        <li>초청하는 임직원이 방문 <strong>1영업일 전 17시까지</strong> 사내 포털의 '방문 등록'에서 신청합니다.</li>
        <li>방문 당일 정문 경비실에서 신분증을 제시하고 방문증을 받습니다.</li>
        <li>현장에 들어가기 전 안전교육 영상(12분)을 시청합니다.</li>
        <li>안전조끼와 안전모를 지급받아 착용합니다.</li>
      </ol>
      <h2>구역별 출입</h2>
{table(["구역", "임직원", "협력사 작업자", "방문객"],
       [["사무동", "가능", "가능", "가능"],
        ["입출고 도크", "가능", "가능", "임직원 동행 시 가능"],
        ["냉동 창고", "가능", "사전 승인 시 가능", "불가"],
        ["보세 구역", "지정자만", "불가", "불가"]], cls="sites-table")}
      <p>사진 촬영은 사무동을 제외한 모든 구역에서 금지됩니다.</p>""",
    [("박지은", "2026-02-19", "고객사 실사 방문 때 참고했습니다.")], lang="ko")

# 11. Support escalation (SharePoint, EN)
DOCS["wiki/support-escalation.html"] = sharepoint(
    "Customer support priorities and escalation", "Choi Eunji", "Choi Eunji", "2026-01-14", 3, 778,
    "Customer Success", ["Home", "Customer Success", "Escalation"],
    f"""      <p>Every SolTrack ticket gets a priority when it is triaged. The priority sets how fast we answer and who is pulled in.</p>
{table(["Priority", "Definition", "First response", "Update cadence", "Escalates to"],
       [["P1", "Service down or hub operations stopped", "15 minutes", "Every 30 minutes", "Duty Manager (Customer Success Ops)"],
        ["P2", "Major feature broken, workaround exists", "1 hour", "Every 2 hours", "Tier 2 Support"],
        ["P3", "Minor issue or question", "4 business hours", "Daily", "Tier 1 Support"],
        ["P4", "Feature request", "2 business days", "Weekly", "Product Management"]], cls="ms-rteTable-default")}
      <h2>Escalation rules</h2>
      <ul>
        <li>If a P1 is not resolved within 2 hours, the Duty Manager informs the CTO.</li>
        <li>Enterprise customers may call the 24/7 support line; calls are logged as P1 or P2.</li>
        <li>Business hours are 09:00-18:00 KST, Monday to Friday, excluding Korean public holidays.</li>
      </ul>""",
    [("Tan Wei Ling", "2026-01-20", "Singapore customers: please note the KST business hours.")], lang="en")

# 12. Expense system guide (Confluence, KO)
DOCS["wiki/expense-system-guide.html"] = confluence(
    "솔빛페이(SolbitPay) 경비 시스템 사용 가이드", "재무팀 강미래", "재무팀 강미래", "2026-01-08", 4, 964,
    "재무", ["재무", "경비", "재무"],
    f"""        <p>솔빛페이는 경비 청구와 법인카드 사용 내역 정산을 위한 시스템입니다. 금액 한도와 제출 기한은 경비 정산 규정을 따릅니다.</p>
        <h2>경비 청구 방법</h2>
        <ol>
          <li>솔빛페이 모바일 앱 또는 웹(pay.solbit.example)에 로그인합니다.</li>
          <li>'새 청구'를 누르고 영수증 사진을 올립니다. 금액과 날짜는 자동으로 인식됩니다.</li>
          <li>비용 유형(야근 식대, 택시비, 접대비 등)을 고르고 프로젝트 코드를 입력합니다.</li>
          <li>'제출'을 누르면 팀장에게 승인 요청이 갑니다.</li>
        </ol>
        <h2>법인카드 내역</h2>
        <ul>
          <li>법인카드 사용 내역은 사용일로부터 2영업일(D+2) 후에 솔빛페이에 자동으로 들어옵니다.</li>
          <li>반려된 청구는 반려일로부터 7일 안에 수정하여 다시 제출해야 합니다.</li>
          <li>법인카드를 분실하면 카드사와 재무팀(내선 1500)에 즉시 알립니다.</li>
        </ul>
        <h2>자주 쓰는 비용 코드</h2>
{table(["비용 유형", "코드"],
       [["야근 식대", "EX-110"], ["야근 택시비", "EX-120"], ["접대비", "EX-300"], ["국내 출장비", "TR-100"], ["해외 출장비", "TR-200"]])}""",
    [("김하늘", "2026-01-15", "앱에서 영수증 인식이 잘 되네요.")], lang="ko", nav=None)
