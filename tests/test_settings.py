"""Settings are validated whole at start-up: a typo in a JSON setting is named, not a TypeError later."""
import json

import pytest

from docbot.settings import load_settings
from rag.errors import ConfigurationError, DatasetError
from rag.eval.replay import load_dataset


@pytest.fixture(autouse=True)
def clean_env(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no stray .env
    for name in ("DOCBOT_SOURCES", "DOCBOT_LOOKUPS", "DOCBOT_WEBHOOKS"):
        monkeypatch.delenv(name, raising=False)


def test_a_misspelt_source_key_is_named_with_its_position(monkeypatch):
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"path": "docs"}, {"pth": "wiki", "channels": ["C1"]}]))
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    message = str(caught.value)
    assert "DOCBOT_SOURCES[1].path: Field required" in message and "DOCBOT_SOURCES[1].pth" in message


def test_webhooks_and_lookups_are_checked_before_anything_loads(monkeypatch):
    monkeypatch.setenv("DOCBOT_WEBHOOKS", json.dumps([{"name": "ticket", "url": "ftp://x", "keywords": ["t"]}]))
    monkeypatch.setenv("DOCBOT_LOOKUPS", json.dumps([{"name": "status", "url": "https://s", "timeout": -1}]))
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    message = str(caught.value)
    assert "DOCBOT_WEBHOOKS[0].url" in message and "DOCBOT_LOOKUPS[0].timeout" in message


def test_a_choice_setting_lists_its_choices(monkeypatch):
    monkeypatch.setenv("DOCBOT_INDEX", "mongodb")
    with pytest.raises(ConfigurationError, match=r"DOCBOT_INDEX: Input should be 'sqlite' or 'elasticsearch'"):
        load_settings()


def test_valid_json_settings_become_typed_specs(monkeypatch):
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"path": "docs", "name": "hr", "channels": ["C1"]}]))
    monkeypatch.setenv("DOCBOT_WEBHOOKS", json.dumps([{"name": "ticket", "url": "https://t", "keywords": ["ticket"]}]))
    settings = load_settings()
    assert settings.sources[0].name == "hr" and settings.sources[0].channels == ["C1"]
    assert settings.webhooks[0].timeout == 10.0


def test_a_dataset_turn_with_a_bad_field_is_named_with_its_line(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "turns": [{"user": "hi", "intent": "chitchat"}]}\n'
                    '{"id": "b", "turns": [{"user": "x"}, {"user": "y", "intent": "search"}]}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"d.jsonl:2: turns\[1\].intent: Input should be"):
        load_dataset(data)
    data.write_text('{"id": "a", "turns": [{"question": "hi"}]}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"d.jsonl:1: turns\[0\].user: Field required"):
        load_dataset(data)


def test_a_git_source_is_its_own_kind_and_folders_stay_the_default(monkeypatch):
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"path": "docs"},
                                                     {"kind": "git", "repository": "https://github.com/a/b.git"}]))
    folder, repo = load_settings().sources
    assert folder.kind == "folder" and repo.kind == "git" and repo.branch == "HEAD"
    monkeypatch.setenv("DOCBOT_SOURCES", json.dumps([{"kind": "git", "repo": "x"}]))
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    assert "DOCBOT_SOURCES[0].repository: Field required" in str(caught.value)
