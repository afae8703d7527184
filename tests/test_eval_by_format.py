"""scripts/eval_by_format.py: the per-format split issue 25's "Done means" is measured with."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import eval_by_format  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "documents"


def test_turns_split_by_format_and_by_where_the_fact_sits(tmp_path, capsys):
    dataset = tmp_path / "set.jsonl"
    conversations = [
        {"id": "a", "turns": [
            # the fact is a table row of the Markdown file, then a sentence of it
            {"user": "q1", "relevant": ["parental-leave.md"], "format": "md", "answer_contains": ["1,000,000원"]},
            {"user": "q2", "relevant": ["parental-leave.md"], "format": "md", "answer_contains": ["80%"]},
            {"user": "thanks", "intent": "chitchat", "relevant": []},
            # no gold fact: counted for recall, never as a missed fact
            {"user": "q4", "relevant": ["vpn-guide.docx"], "format": "docx", "answer_contains": None},
        ]},
        # a fact spread over files of two formats: "mixed", not an unhashable list
        {"id": "b", "turns": [{"user": "q", "relevant": ["parental-leave.md", "vpn-guide.docx"],
                               "format": ["md", "docx"], "answer_contains_all": [["80%"], ["x"]]}]},
    ]
    dataset.write_text("\n".join(json.dumps(c) for c in conversations))
    rows = [
        {"conversation": "a", "turn": 1, "recall": 1.0, "fact_shown": True, "fact_grounded": True, "fact_leads": True},
        {"conversation": "a", "turn": 2, "recall": 0.0, "fact_shown": False, "fact_grounded": False,
         "fact_leads": False, "not_found": True},
        {"conversation": "a", "turn": 3, "recall": None},
        {"conversation": "a", "turn": 4, "recall": 1.0, "fact_shown": False, "fact_grounded": False,
         "fact_leads": False},
        {"conversation": "b", "turn": 1, "recall": 0.5, "fact_shown": True, "fact_grounded": False,
         "fact_leads": False},
    ]
    groups = eval_by_format.split({"per_turn": rows}, dataset, FIXTURES)
    assert groups["md"]["fact_shown"] == [1.0, 0.0]
    assert groups["md-table"]["fact_leads"] == [1.0] and groups["md-prose"]["not_found"] == [1.0]
    assert len(groups["docx"]["turns"]) == 1 and groups["docx"]["recall"] == [1.0]
    assert groups["docx"]["fact_shown"] == []  # no gold: not a miss
    assert groups["office"]["recall"] == [1.0]
    assert groups["mixed"]["fact_shown"] == [1.0] and groups["mixed"]["fact_grounded"] == [0.0]
    assert len(groups["all"]["turns"]) == 4

    report = tmp_path / "report.json"
    report.write_text(json.dumps({"set.jsonl": {"per_turn": rows}}))  # several datasets: keyed by file name
    eval_by_format.main([str(report), str(dataset), "--docs", str(FIXTURES)])
    printed = capsys.readouterr().out
    assert "md-table" in printed and "mixed" in printed


def test_turns_split_by_language_on_request(tmp_path):
    dataset = tmp_path / "set.jsonl"
    turns = [{"user": "q1", "relevant": ["vpn-guide.docx"], "format": "docx", "answer_contains": ["12시간"],
              "cross_language": True},
             {"user": "q2", "relevant": ["vpn-guide.docx"], "format": "docx", "answer_contains": ["12시간"],
              "cross_language": False}]
    dataset.write_text(json.dumps({"id": "a", "turns": turns}))
    rows = [{"conversation": "a", "turn": 1, "recall": 0.0, "fact_grounded": False},
            {"conversation": "a", "turn": 2, "recall": 1.0, "fact_grounded": True}]
    groups = eval_by_format.split({"per_turn": rows}, dataset, FIXTURES, languages=True)
    assert groups["docx/xl"]["fact_grounded"] == [0.0] and groups["docx/same"]["fact_grounded"] == [1.0]
    assert groups["office/xl"]["recall"] == [0.0] and len(groups["all/same"]["turns"]) == 1
    assert "docx-table/xl" not in groups  # the table/prose split is not split again
    assert "docx/xl" not in eval_by_format.split({"per_turn": rows}, dataset, FIXTURES)
