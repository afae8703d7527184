"""Wrap page content in the chrome of a saved wiki page (Confluence, Notion,
SharePoint, Google Sites): head, cookie banner, side navigation, breadcrumbs,
byline, comments, "was this helpful" widget, footer."""
import html

NAV_EN = ["Home", "Company", "People & HR", "IT & Security", "Operations", "SolTrack Product",
          "Sales", "Finance", "Offices", "Incident reports", "Glossary"]
NAV_KO = ["홈", "회사 소개", "인사·복지", "IT·보안", "운영", "SolTrack 제품", "영업", "재무", "사무실", "장애 보고서", "용어집"]


def _nav(items, active):
    act = ' class="active"'
    lis = "\n".join(
        f'        <li{act if i == active else ""}><a href="#/{i}">{html.escape(i)}</a></li>'
        for i in items)
    return lis


def _comments(comments):
    if not comments:
        return ""
    out = []
    for who, when, text in comments:
        out.append(f'''      <div class="comment">
        <div class="comment-author">{html.escape(who)}</div>
        <div class="comment-date">{when}</div>
        <div class="comment-body"><p>{html.escape(text)}</p></div>
        <div class="comment-actions"><a href="#">Reply</a> · <a href="#">Like</a></div>
      </div>''')
    return "\n".join(out)


def confluence(title, author, editor, edited, minutes, views, space, crumbs, body, comments, lang="en", nav=None):
    nav = nav or (NAV_KO if lang == "ko" else NAV_EN)
    active = crumbs[-1] if crumbs else ""
    crumb_html = " / ".join(f'<a href="#">{html.escape(c)}</a>' for c in crumbs)
    if lang == "ko":
        byline = f"작성자: {author}, 최종 수정: {editor}, {edited} · {minutes}분 분량 · 조회 {views}회"
        helpful = '이 페이지가 도움이 되었나요? <button>예</button> <button>아니요</button>'
        cookie = '이 사이트는 더 나은 경험을 위해 쿠키를 사용합니다. <button>모두 허용</button> <button>설정</button>'
        ctitle = f"댓글 {len(comments)}개"
    else:
        byline = f"Created by {author}, last edited by {editor} on {edited} · {minutes} min read · {views} views"
        helpful = 'Was this page helpful? <button>Yes</button> <button>No</button>'
        cookie = 'We use cookies to improve your experience. <button>Accept all</button> <button>Manage preferences</button>'
        ctitle = f"{len(comments)} Comments"
    return f'''<!DOCTYPE html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <title>{html.escape(title)} - {html.escape(space)} - Confluence</title>
  <meta name="author" content="{html.escape(author)}">
  <meta name="generator" content="Confluence 8.5.4">
  <meta name="confluence-space-key" content="{html.escape(space.upper().replace(' ', ''))}">
  <link rel="stylesheet" href="s/batch.css">
  <script src="s/batch.js"></script>
</head>
<body class="theme-default aui-layout">
  <div id="cookie-banner" class="cookie-banner">{cookie}</div>
  <header id="header" class="aui-header">
    <a class="aui-header-logo" href="#">Solbit Wiki</a>
    <nav class="aui-header-primary"><a href="#">Spaces</a> <a href="#">People</a> <a href="#">Create</a></nav>
    <form class="aui-quicksearch"><input type="search" placeholder="Search"></form>
  </header>
  <div id="main-container">
    <div class="sidebar ia-fixed-sidebar">
      <div class="space-name">{html.escape(space)}</div>
      <ul class="nav-tree">
{_nav(nav, active)}
      </ul>
      <div class="sidebar-footer"><a href="#">Space tools</a></div>
    </div>
    <div id="main" class="aui-page-panel">
      <ol id="breadcrumbs" class="aui-nav aui-nav-breadcrumbs">{crumb_html}</ol>
      <h1 id="title-text">{html.escape(title)}</h1>
      <div class="page-metadata"><span class="author">{byline}</span>
        <a href="#">Page history</a> · <a href="#">Export to PDF</a> · <a href="#">Watch</a></div>
      <div id="main-content" class="wiki-content">
{body}
      </div>
      <div id="likes-and-labels-container"><span class="likes">12 people like this</span>
        <ul class="labels"><li>policy</li><li>solbit</li></ul></div>
      <div class="page-feedback">{helpful}</div>
      <div id="comments-section">
        <h2>{ctitle}</h2>
{_comments(comments)}
        <div class="comment-editor"><textarea placeholder="Write a comment..."></textarea></div>
      </div>
    </div>
  </div>
  <footer id="footer"><p>Powered by Atlassian Confluence · Report a bug · Atlassian News</p></footer>
</body>
</html>
'''


def notion(title, author, editor, edited, minutes, views, workspace, crumbs, body, comments, lang="ko", icon="📦"):
    crumb_html = ' <span class="sep">/</span> '.join(f'<a class="crumb" href="#">{html.escape(c)}</a>' for c in crumbs)
    if lang == "ko":
        props = f'''<div class="property"><span class="label">작성자</span><span>{html.escape(author)}</span></div>
          <div class="property"><span class="label">최종 편집</span><span>{html.escape(editor)} · {edited}</span></div>
          <div class="property"><span class="label">읽는 시간</span><span>{minutes}분 · 조회 {views}회</span></div>'''
        helpful = '이 문서가 도움이 되었나요? <button>👍 예</button> <button>👎 아니요</button>'
        cookie = 'Notion은 쿠키를 사용합니다. <button>동의</button>'
        ctitle = "댓글"
    else:
        props = f'''<div class="property"><span class="label">Created by</span><span>{html.escape(author)}</span></div>
          <div class="property"><span class="label">Last edited</span><span>{html.escape(editor)} · {edited}</span></div>
          <div class="property"><span class="label">Reading time</span><span>{minutes} min · {views} views</span></div>'''
        helpful = 'Was this page helpful? <button>👍 Yes</button> <button>👎 No</button>'
        cookie = 'Notion uses cookies. <button>Accept</button>'
        ctitle = "Comments"
    return f'''<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<meta name="author" content="{html.escape(author)}">
<meta property="og:site_name" content="Notion">
<style>body{{font-family:ui-sans-serif}} .notion-sidebar{{width:240px}}</style>
</head>
<body>
<div class="notion-cookie-banner">{cookie}</div>
<div class="notion-app">
  <div class="sidebar notion-sidebar">
    <div class="workspace-switcher">{html.escape(workspace)}</div>
    <div class="sidebar-section">
      <div class="sidebar-item">🔍 Search</div><div class="sidebar-item">🕘 Updates</div><div class="sidebar-item">⚙️ Settings</div>
    </div>
    <div class="sidebar-section"><div class="sidebar-title">Teamspaces</div>
      <div class="sidebar-item">Operations</div><div class="sidebar-item">Engineering</div><div class="sidebar-item">People</div>
      <div class="sidebar-item">Busan Hub</div><div class="sidebar-item">Archive</div>
    </div>
    <div class="sidebar-item">🗑 Trash</div>
  </div>
  <main class="notion-frame">
    <div class="notion-topbar"><nav class="breadcrumbs">{crumb_html}</nav>
      <div class="topbar-actions">Share · ☆ · ···</div></div>
    <article class="page">
      <div class="page-icon">{icon}</div>
      <h1 class="page-title">{html.escape(title)}</h1>
      <div class="page-properties">
          {props}
      </div>
      <div class="page-body">
{body}
      </div>
      <div class="page-feedback">{helpful}</div>
      <section class="discussion"><h3>{ctitle}</h3>
{_comments(comments)}
        <div class="comment-input" contenteditable="true">Add a comment…</div>
      </section>
    </article>
  </main>
</div>
</body>
</html>
'''


def sharepoint(title, author, editor, edited, minutes, views, site, crumbs, body, comments, lang="en"):
    nav = NAV_KO if lang == "ko" else NAV_EN
    crumb_html = " &gt; ".join(f'<a href="#">{html.escape(c)}</a>' for c in crumbs)
    if lang == "ko":
        byline = f"게시자: {author} · 최종 수정: {editor} ({edited}) · {minutes}분 읽기 · 조회수 {views}"
        helpful = '이 페이지가 도움이 되었습니까? <button>예</button> <button>아니요</button>'
        cookie = 'Microsoft는 이 사이트에서 쿠키를 사용합니다. <button>수락</button> <button>거부</button>'
        ctitle = "댓글"
    else:
        byline = f"Published by {author} · Last edited by {editor} on {edited} · {minutes} min read · {views} views"
        helpful = 'Was this page helpful? <button>Yes</button> <button>No</button>'
        cookie = 'Microsoft uses cookies on this site. <button>Accept</button> <button>Reject</button>'
        ctitle = "Comments"
    return f'''<!DOCTYPE html>
<html lang="{lang}" dir="ltr">
<head>
<meta charset="utf-8">
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<title>{html.escape(title)}</title>
<meta name="author" content="{html.escape(author)}">
<meta name="description" content="{html.escape(site)} - SharePoint">
<link rel="shortcut icon" href="/_layouts/15/images/favicon.ico">
</head>
<body class="ms-backgroundImage">
<div id="cookieConsent" class="ms-cookie">{cookie}</div>
<div id="SuiteNavWrapper"><span class="o365brand">Microsoft 365</span> <span>SharePoint</span>
  <input type="search" placeholder="Search this site"></div>
<div id="spSiteHeader"><h2 class="siteTitle">{html.escape(site)}</h2>
  <div class="siteActions">Following · Share</div></div>
<div class="sp-layout">
  <div class="sidebar ms-Nav" role="navigation">
    <ul>
{_nav(nav, "")}
    </ul>
    <div class="ms-Nav-edit">Edit</div>
  </div>
  <div class="sp-canvas">
    <div class="commandBar">+ New · Page details · Analytics · Share</div>
    <div class="breadcrumb">{crumb_html}</div>
    <div class="sp-pageTitle"><h1>{html.escape(title)}</h1>
      <div class="sp-byline">{byline}</div></div>
    <div class="CanvasZone" data-sp-canvascontrol="">
{body}
    </div>
    <div class="sp-feedback">{helpful}</div>
    <div class="sp-comments"><h3>{ctitle}</h3>
{_comments(comments)}
    </div>
  </div>
</div>
<footer class="sp-footer">© Solbit Logistics · Privacy &amp; cookies · Terms of use</footer>
</body>
</html>
'''


def google_sites(title, author, editor, edited, minutes, views, site, crumbs, body, comments, lang="ko"):
    if lang == "ko":
        byline = f"작성: {author} · 마지막 수정: {editor}, {edited} · {minutes}분 · 조회 {views}회"
        helpful = '이 페이지가 도움이 되었나요? <a href="#">예</a> / <a href="#">아니요</a>'
        cookie = 'Google은 쿠키를 사용하여 서비스를 제공합니다. <a href="#">자세히 알아보기</a> <button>확인</button>'
        ctitle = "의견"
        tabs = ["홈", "신규 입사자", "사무실·허브", "안전", "방문", "자주 묻는 질문"]
    else:
        byline = f"Page owner: {author} · Last edited by {editor}, {edited} · {minutes} min read · {views} views"
        helpful = 'Was this page helpful? <a href="#">Yes</a> / <a href="#">No</a>'
        cookie = 'This site uses cookies from Google to deliver its services. <a href="#">Learn more</a> <button>OK, got it</button>'
        ctitle = "Feedback"
        tabs = ["Home", "New joiners", "Offices & hubs", "Safety", "Visitors", "FAQ"]
    tab_html = "\n".join(f'      <li><a href="#">{t}</a></li>' for t in tabs)
    crumb_html = " › ".join(f'<a href="#">{html.escape(c)}</a>' for c in crumbs)
    return f'''<!DOCTYPE html>
<html lang="{lang}" itemscope itemtype="http://schema.org/WebPage">
<head>
<meta charset="utf-8">
<title>{html.escape(site)} - {html.escape(title)}</title>
<meta name="author" content="{html.escape(author)}">
<meta property="og:title" content="{html.escape(title)}">
<meta name="referrer" content="strict-origin-when-cross-origin">
</head>
<body>
<div class="Xpn7Wd cookie-notice">{cookie}</div>
<header class="BbxBP"><div class="site-title">{html.escape(site)}</div>
  <nav class="top-nav"><ul>
{tab_html}
  </ul></nav></header>
<div class="page-wrap">
  <div class="sidebar site-nav-drawer"><ul>
{tab_html}
  </ul></div>
  <section class="yaqOZd">
    <div class="breadcrumbs">{crumb_html}</div>
    <h1 class="title">{html.escape(title)}</h1>
    <p class="byline">{byline}</p>
    <div class="tyJCtd">
{body}
    </div>
    <div class="helpful">{helpful}</div>
    <div class="feedback"><h3>{ctitle}</h3>
{_comments(comments)}
    </div>
  </section>
</div>
<footer class="dZA9kd">Google Sites · Report abuse · Page details</footer>
</body>
</html>
'''


def table(header, rows, caption=None, cls="confluenceTable"):
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    th = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    trs = "\n".join("          <tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f'''        <table class="{cls}">{cap}
          <thead><tr>{th}</tr></thead>
          <tbody>
{trs}
          </tbody>
        </table>'''


def dl(items):
    inner = "\n".join(f"          <dt>{html.escape(t)}</dt><dd>{html.escape(d)}</dd>" for t, d in items)
    return f"        <dl>\n{inner}\n        </dl>"
