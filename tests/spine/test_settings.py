import json

import pytest

from biorag.contracts.errors import ConfigError
from biorag.settings import load_settings


def test_layering_defaults_preset_env_cli(monkeypatch, tmp_path):
    s = load_settings()
    assert s.preset == "embedded" and s.llm.backend == "embedded" and s.planner == "hybrid"
    p = load_settings("paper")
    assert p.llm.backend == "openai" and p.planner == "llm" and p.max_rounds == 15
    assert (p.sources["gene"].top_k, p.sources["web"].top_k, p.sources["pubmed"].top_k) == (10, 10, 4)
    monkeypatch.setenv("BIORAG_LLM__TEMPERATURE", "0.5")
    assert load_settings("paper").llm.temperature == 0.5  # env beats preset
    assert load_settings("paper", sets=["llm.temperature=0.1"]).llm.temperature == 0.1  # CLI beats env
    monkeypatch.setenv("BIORAG_PRESET", "paper")
    assert load_settings().preset == "paper"


def test_preset_file_path(tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"planner": "rules", "max_rounds": 3}))
    s = load_settings(str(f))
    assert s.planner == "rules" and s.max_rounds == 3


def test_switches_by_name():
    s = load_settings(disable=["gene", "self_eval"], enable=["web"])
    assert not s.sources["gene"].enabled and s.sources["web"].enabled
    assert s.components.self_eval is False and s.components.mesh_filter is True
    assert "gene" not in s.enabled_sources()


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"preset": "nope"}, "unknown preset 'nope'"),
        ({"sets": ["llm.nope=1"]}, "unknown setting 'llm.nope'"),
        ({"sets": ["llm.temperature=hot"]}, "llm.temperature"),
        ({"sets": ["max_rounds=0"]}, "max_rounds"),
        ({"sets": ["novalue"]}, "dotted.key=value"),
        ({"disable": ["genes"]}, "unknown switch 'genes'"),
    ],
)
def test_bad_settings_are_named(kwargs, fragment):
    with pytest.raises(ConfigError) as e:
        load_settings(**kwargs)
    assert fragment in str(e.value)


def test_secrets_redacted_in_echo():
    s = load_settings(sets=["llm.api_key=sk-secret-123", "ncbi.api_key=abc"])
    dumped = json.dumps(s.redacted())
    assert "sk-secret-123" not in dumped and "abc" not in dumped
    assert s.llm.api_key.get_secret_value() == "sk-secret-123"


def test_broken_preset_files_are_named(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match=r"preset file .*bad.json is not valid JSON"):
        load_settings(str(bad))
    arr = tmp_path / "arr.json"
    arr.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="must hold a JSON object"):
        load_settings(str(arr))
