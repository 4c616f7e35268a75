"""End to end: `biorag eval geneturing` with the real agent, the embedded preset and the
bundled dev cassette replayed, on three GeneTuring dev questions."""

import json
from pathlib import Path

from typer.testing import CliRunner

from cli.main import app

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data" / "evaluation"
CASSETTE = ROOT / "retrievers" / "resources" / "ncbi_cassette_dev.jsonl"


def test_eval_geneturing_with_the_real_agent_in_replay(tmp_path):
    args = ["eval", "geneturing", "-q", str(DATA / "geneturing_dev.json"), "--preset", "embedded",
            "--replay", str(CASSETTE), "-t", "Gene alias", "-t", "SNP location", "-t", "Gene name conversion",
            "--limit", "1", "--out", str(tmp_path), "--no-plots"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    [cfg_dir] = list(tmp_path.glob("full__*"))
    rows = [json.loads(line) for line in (cfg_dir / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["Gene alias/0", "Gene name conversion/0", "SNP location/0"]
    assert all(r["error"] is None for r in rows)
    by_id = {r["id"]: r for r in rows}
    # LMP10 -> PSMB10 is in the recording: the agent must find it through the Gene tool
    assert by_id["Gene alias/0"]["prediction"] == "PSMB10" and by_id["Gene alias/0"]["score"] == 1.0
    assert "gene" in by_id["Gene alias/0"]["tools"] and by_id["Gene alias/0"]["replay_misses"] == []
    assert all(r["trace"] and r["rounds"] >= 1 for r in rows)
    config = json.loads((cfg_dir / "config.json").read_text())
    assert config["identity"]["tool_io"]["mode"] == "replay"
    assert len(config["identity"]["tool_io"]["cassette_sha256"]) == 64
    assert (tmp_path / "report.md").exists() and (tmp_path / "scores.csv").exists()
    # a second run resumes: nothing is answered again
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0 and "0 answered, 3 resumed" in res.output
