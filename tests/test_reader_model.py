"""The fitted reader (issue 51): shipped weights are what `make train` fits from the shipped readings, the verdict
follows the lead's probability, answers show only likely lines, and "not found" lists only related documents."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rag.answer import model as reader_model
from rag.answer.answerers import ExtractiveAnswerer
from rag.answer.evidence import Judge, Verdict, explanation
from rag.answer.model import Linear, ReaderModel
from rag.answer.questions import Kind
from rag.answer.reading import Candidate, Reading
from rag.documents import Chunk, Hit
from rag.pipeline import related

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_weights_are_what_make_train_fits():
    """Deterministic: the same readings give the same weights and bars (to a tolerance, not exact floats)."""
    result = subprocess.run([sys.executable, "scripts/train_reader.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr


def test_shipped_weights_load_and_name_every_feature_the_reader_computes():
    model = reader_model.load()
    assert model is not None
    assert 0.0 < model.not_found_at <= model.answer_at < 1.0
    assert {"z_calibrated", "fills", "line_concepts", "cosine_gap"} <= set(model.names)


def _model(**thresholds) -> ReaderModel:
    bars = {"answer_at": 0.7, "not_found_at": 0.2, "line_at": 0.35, "related_at": 0.1} | thresholds
    return ReaderModel(Linear(("signal",), (0.0,), (1.0,), (1.0,), 0.0), **bars)


def _candidate(path: str, sentence: str, signal: float, model: ReaderModel) -> Candidate:
    hit = Hit(Chunk(path=path, ordinal=0, title=path, heading="", text=sentence), 1.0)
    return model.scored(Candidate(path, 0, sentence, hit, 0.0, 0.5, 0, False, 0.0, features={"signal": signal}))


def _reading(model: ReaderModel, *signals: tuple[str, float]) -> Reading:
    cands = [_candidate(path, f"line of {path} {i}", s, model) for i, (path, s) in enumerate(signals)]
    return Reading(Kind.OTHER, sorted(cands, key=lambda c: -c.score), model=model)


@pytest.mark.parametrize("signal, verdict", [(2.0, Verdict.ANSWERED), (0.0, Verdict.HEDGED), (-3.0, Verdict.NOT_FOUND)])
def test_the_verdict_is_the_lead_probability_against_the_two_bars(signal, verdict):
    model = _model()  # p = sigmoid(signal): 0.88 answers, 0.5 is between the bars, 0.05 is not found
    assert Judge().verdict(_reading(model, ("a.md", signal)), "question?", []) == verdict


def test_an_answer_shows_the_lead_and_only_lines_as_likely_as_line_at():
    model = _model()
    reading = _reading(model, ("a.md", 2.0), ("a.md", 0.0), ("b.md", -1.5), ("c.md", -4.0))
    picked = ExtractiveAnswerer.__new__(ExtractiveAnswerer)
    picked.max_sentences = 4
    shown = picked._likely(reading)
    assert [c.path for c in shown] == ["a.md", "a.md"]  # p 0.88 and 0.5; 0.18 and 0.02 are padding


def test_not_found_lists_only_documents_whose_best_line_clears_the_floor():
    model = _model(related_at=0.3)
    reading = _reading(model, ("near.md", -0.5), ("far.md", -4.0))
    hits = [Hit(Chunk(path=p, ordinal=0, title=p, heading="", text="x"), 1.0) for p in ("near.md", "far.md")]
    assert [h.chunk.path for h in related(hits, reading)] == ["near.md"]


def test_the_explanation_names_the_verdict_each_line_probability_and_its_main_features():
    model = _model()
    reading = _reading(model, ("a.md", 2.0))
    lines = explanation(reading, Verdict.ANSWERED)
    assert any("answered at 0.70" in line for line in lines)
    assert any(line.startswith("p=0.88 a.md") for line in lines)
    assert any("signal +2.00" in line for line in lines)


def test_the_weights_file_is_plain_json_a_person_can_read():
    data = json.loads(reader_model.WEIGHTS.read_text(encoding="utf-8"))
    assert len(data["features"]) == len(data["coef"]) == len(data["mean"]) == len(data["scale"])
