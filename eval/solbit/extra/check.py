#!/usr/bin/env python3
"""Check extra-dev.jsonl against the Solbit documents.

Run with the scratch venv (pypdf, python-docx, python-pptx, openpyxl):
    /tmp/blindvenv/bin/python check.py [extra-dev.jsonl]
Checks: JSON shape; every relevant path exists; every answer_contains alternative and every
alternative of every answer_contains_all group occurs in a relevant document's extracted text
(HTML: page content only); format / cross_language fields agree with the files; minimum counts;
no (document, gold value) pair that holdout.jsonl asks. Prints per-format and cross-language
counts and the overlap with dev.jsonl. Exit 1 on any error."""
import json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from extract import extract, norm  # noqa: E402
import gen  # noqa: E402  (language map of the documents)

SOLBIT = os.path.dirname(HERE)  # eval/solbit
DOCS = os.path.join(SOLBIT, "docs")
INTENTS = {"chitchat", "knowledge_search", "realtime_lookup", "action"}
MIN = dict(conversations=40, unanswerable=20, per_format=12, cross_share=0.40)
FORMAT_GROUP = {"md": "md", "html": "html", "pdf": "pdf", "txt": "txt",
                "docx": "office", "pptx": "office", "xlsx": "office"}

_cache = {}


def text(rel):
    if rel not in _cache:
        _cache[rel] = norm(extract(os.path.join(DOCS, rel)))
    return _cache[rel]


def occurs(alt, hay):
    a = norm(alt)
    if not a:
        return False
    pre = r"(?<![0-9a-z])" if re.match(r"[0-9a-z]", a[0]) else ""
    post = r"(?![0-9a-z])" if re.match(r"[0-9a-z]", a[-1]) else ""
    return re.search(pre + re.escape(a) + post, hay) is not None


def gold_pairs(path):
    pairs = set()
    for line in open(path, encoding="utf-8"):
        c = json.loads(line)
        for t in c["turns"]:
            alts = list(t.get("answer_contains") or [])
            for g in t.get("answer_contains_all") or []:
                alts += g
            for r in t.get("relevant", []):
                for a in alts:
                    pairs.add((r, norm(a)))
    return pairs


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "extra-dev.jsonl")
    errors = []
    holdout = gold_pairs(os.path.join(SOLBIT, "holdout.jsonl"))
    dev = gold_pairs(os.path.join(SOLBIT, "dev.jsonl"))
    n_conv = n_unans = n_doc_turns = n_cross = n_follow = n_hd = n_turns = 0
    fmt_count, fmt_cross = Counter(), Counter()
    intents = Counter()
    dev_overlap = []
    near_holdout = []
    ids = set()
    for ln, line in enumerate(open(path, encoding="utf-8"), 1):
        c = json.loads(line)
        cid = c.get("id")
        where = f"line {ln} ({cid})"
        if cid in ids:
            errors.append(f"{where}: duplicate id")
        ids.add(cid)
        if c.get("lang") not in ("ko", "en"):
            errors.append(f"{where}: bad lang")
        turns = c.get("turns") or []
        if len(turns) == 1 and turns[0].get("answerable") is False:
            t = turns[0]
            n_unans += 1
            n_turns += 1
            intents[t["intent"]] += 1
            if t.get("relevant") != []:
                errors.append(f"{where}: unanswerable turn with relevant docs")
            if t.get("intent") != "knowledge_search":
                errors.append(f"{where}: unanswerable turn should be knowledge_search")
            continue
        n_conv += 1
        if not 2 <= len(turns) <= 4:
            errors.append(f"{where}: {len(turns)} turns (want 2-4)")
        for i, t in enumerate(turns):
            n_turns += 1
            w = f"{where} turn {i + 1}"
            if t.get("intent") not in INTENTS:
                errors.append(f"{w}: bad intent {t.get('intent')}")
            intents[t.get("intent")] += 1
            rel = t.get("relevant")
            if not isinstance(rel, list):
                errors.append(f"{w}: relevant not a list")
                continue
            if t["intent"] != "knowledge_search":
                if rel:
                    errors.append(f"{w}: non-knowledge turn with relevant docs")
                continue
            if not rel:
                errors.append(f"{w}: knowledge turn without relevant docs")
                continue
            if i == 0 and "history_dependent" in t:
                errors.append(f"{w}: first turn marked history_dependent")
            if i > 0:
                n_follow += 1
                if "history_dependent" not in t:
                    errors.append(f"{w}: follow-up without history_dependent")
                if t.get("history_dependent"):
                    n_hd += 1
                    if not t.get("standalone"):
                        errors.append(f"{w}: history-dependent follow-up without standalone")
            missing = [r for r in rel if not os.path.isfile(os.path.join(DOCS, r))]
            if missing:
                errors.append(f"{w}: missing files {missing}")
                continue
            n_doc_turns += 1
            ac, aca = t.get("answer_contains"), t.get("answer_contains_all")
            if "answer_contains" not in t and "answer_contains_all" not in t:
                errors.append(f"{w}: no gold (answer_contains / answer_contains_all)")
            groups = []
            if ac:
                groups.append(ac)
            for g in aca or []:
                groups.append(g)
            alts = [a for g in groups for a in g]
            for a in alts:
                if not any(occurs(a, text(r)) for r in rel):
                    errors.append(f"{w}: gold {a!r} not found in {rel}")
                for r in rel:
                    if (r, norm(a)) in holdout:
                        errors.append(f"{w}: gold {a!r} for {r} is asked by holdout")
                    for hr, hv in holdout:
                        if hr == r and hv != norm(a) and (occurs(hv, norm(a)) or occurs(norm(a), hv)):
                            near_holdout.append(f"{cid}.{i + 1} {r} {a!r} ~ holdout {hv!r}")
                    if (r, norm(a)) in dev:
                        dev_overlap.append(f"{cid}.{i + 1} {r} {a!r}")
            # a multi-hop comparison must find every group somewhere; a non-multi-hop turn with
            # several files must be answerable from each file on its own (report only)
            exts = sorted({os.path.splitext(r)[1][1:] for r in rel})
            want_fmt = exts[0] if len(exts) == 1 else exts
            if t.get("format") != want_fmt:
                errors.append(f"{w}: format {t.get('format')} != {want_fmt}")
            ql = "ko" if re.search(r"[\uac00-\ud7a3]", t["user"]) else "en"
            cross = not any(ql in gen.doc_langs(r) for r in rel)
            if t.get("cross_language") != cross:
                errors.append(f"{w}: cross_language {t.get('cross_language')} != {cross}")
            n_cross += cross
            for g in {FORMAT_GROUP[e] for e in exts}:
                fmt_count[g] += 1
                fmt_cross[g] += cross
    # minimums
    if n_conv < MIN["conversations"]:
        errors.append(f"only {n_conv} conversations (want >= {MIN['conversations']})")
    if n_unans < MIN["unanswerable"]:
        errors.append(f"only {n_unans} unanswerable questions (want >= {MIN['unanswerable']})")
    for g in ("md", "html", "pdf", "office", "txt"):
        if fmt_count[g] < MIN["per_format"]:
            errors.append(f"format {g}: {fmt_count[g]} document turns (want >= {MIN['per_format']})")
    share = n_cross / n_doc_turns if n_doc_turns else 0
    if share < MIN["cross_share"]:
        errors.append(f"cross-language share {share:.0%} (want >= {MIN['cross_share']:.0%})")

    print(f"file: {path}")
    print(f"conversations: {n_conv}   unanswerable: {n_unans}   turns: {n_turns}")
    print(f"document turns: {n_doc_turns}   follow-ups: {n_follow} (history-dependent {n_hd})")
    print(f"intents: {dict(intents)}")
    print(f"cross-language document turns: {n_cross}/{n_doc_turns} = {share:.0%}")
    print("per format (document turns / cross-language):")
    for g in ("md", "html", "pdf", "office", "txt"):
        print(f"  {g:7s} {fmt_count[g]:4d} / {fmt_cross[g]}")
    print(f"gold values shared with dev.jsonl (same document): {len(dev_overlap)}")
    for d in dev_overlap:
        print("   ", d)
    print(f"gold values overlapping a holdout value on the same document (substring; review by hand): "
          f"{len(near_holdout)}")
    for d in near_holdout:
        print("   ", d)
    if errors:
        print(f"\n{len(errors)} ERROR(S):")
        for e in errors:
            print("  -", e)
        sys.exit(1)
    print("\nOK")


if __name__ == "__main__":
    main()
