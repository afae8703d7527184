#!/usr/bin/env python3
"""Turn gen.CONVS / gen.UNANSWERABLE into extra-dev.jsonl."""
import json, os
import gen

OUT = os.path.join(gen.HERE, "extra-dev.jsonl")


def turn_json(t, first):
    if t["kind"] != "k":
        return {"user": t["user"], "intent": t["kind"], "relevant": []}
    d = {"user": t["user"], "intent": "knowledge_search", "relevant": t["rel"]}
    if t["sa"]:
        d["standalone"] = t["sa"]
    if not first:
        hd = t["hd"] if t["hd"] is not None else bool(t["sa"])
        d["history_dependent"] = hd
    if t["mh"]:
        d["multi_hop"] = True
    if t["all"] is not None:
        d["answer_contains_all"] = t["all"]
    else:
        d["answer_contains"] = t["ac"]
    if t["note"]:
        d["note"] = t["note"]
    d["format"] = gen.fmt(t["rel"])
    ql = gen.q_lang(t["user"])
    d["cross_language"] = not any(ql in gen.doc_langs(r) for r in t["rel"])
    return d


def main():
    lines = []
    for i, (lang, turns) in enumerate(gen.CONVS, 1):
        js = [turn_json(t, j == 0) for j, t in enumerate(turns)]
        lines.append({"id": f"bc{i:02d}", "lang": lang, "turns": js})
    for i, (lang, q, note) in enumerate(getattr(gen, "UNANSWERABLE", []), 1):
        t = {"user": q, "intent": "knowledge_search", "relevant": [], "answerable": False}
        if note:
            t["note"] = note
        lines.append({"id": f"bcu{i:02d}", "lang": lang, "turns": [t]})
    tmp = OUT + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for c in lines:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(lines)} conversations to {OUT}")


if __name__ == "__main__":
    main()
