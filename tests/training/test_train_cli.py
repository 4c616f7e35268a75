"""`biorag train embedder|mesh` take their options from the settings tree (`training.embedder`,
`training.mesh`): the flags are generated from the settings models, so --help teaches every
setting with its description and default, the flag names of the hand-written options keep
working, and presets, the environment and --set reach the same options, beneath the flags."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from biorag.settings import EmbedderTrainingSettings, MeshTrainingSettings, load_settings
from cli.commands.settings_flags import flag_names
from cli.main import app

WIDE = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}  # one line per option in --help
#: every flag the commands had before they were generated: scripts and docs use them
OLD_FLAGS = {
    "embedder": ["--base", "--epochs", "--batch-size", "--grad-accum", "--lr", "--warmup-ratio", "--max-seq-length",
                 "--max-pairs", "--kinds", "--eval-limit", "--no-eval", "--checkpoint-every", "--resume",
                 "--keep-checkpoints", "--no-amp", "--device", "--seed", "--quiet", "--json", "--data", "--out"],
    "mesh": ["--head", "--base", "--top-n", "--label-space", "--epochs", "--batch-size", "--grad-accum", "--lr",
             "--lora-r", "--sources", "--max-train", "--eval-limit", "--k", "--no-filtered-eval", "--no-amp",
             "--device", "--seed", "--quiet", "--json", "--data", "--out"],
}
SECTIONS = {"embedder": EmbedderTrainingSettings, "mesh": MeshTrainingSettings}


def _help(command: str) -> str:
    r = CliRunner().invoke(app, ["train", command, "--help"], env=WIDE)
    assert r.exit_code == 0, r.output
    return " ".join(r.output.split())


@pytest.mark.parametrize("command", ["embedder", "mesh"])
def test_help_teaches_every_setting_with_its_default(command):
    text = _help(command)
    section = SECTIONS[command]
    for name, info in section.model_fields.items():
        for flag in flag_names(name, info).split("/"):
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text), (name, flag)
        assert " ".join(info.description.split()) in text, name
        default = info.get_default(call_default_factory=True)
        if default is not None and not isinstance(default, bool):
            shown = ",".join(default) if isinstance(default, list) else str(default)
            assert f"[default: ({shown})]" in text, (name, shown)
    for flag in OLD_FLAGS[command]:
        assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text), flag


def test_presets_environment_and_set_reach_the_training_settings(tmp_path, monkeypatch):
    preset = tmp_path / "trainer.json"
    preset.write_text(json.dumps({"training": {"embedder": {"epochs": 7, "kinds": ["mesh"]}}}))
    s = load_settings(str(preset))
    assert s.training.embedder.epochs == 7 and s.training.embedder.kinds == ["mesh"]
    assert s.training.embedder.batch_size == 32  # untouched settings keep their defaults
    monkeypatch.setenv("BIORAG_TRAINING__MESH__HEAD", "generative")
    s = load_settings(sets=["training.embedder.kinds=title,question", "training.mesh.lora_r=4"])
    assert s.training.embedder.kinds == ["title", "question"]  # one comma-separated value, as the flag
    mesh = s.training.mesh.for_head()
    assert (mesh.head, mesh.epochs, mesh.batch_size, mesh.lr, mesh.lora_alpha) == ("generative", 2, 8, 2e-4, 8)
    # training options never change an answer: evaluation configurations keep their hashes
    assert load_settings(sets=["training.embedder.epochs=9"]).fingerprint() == load_settings().fingerprint()
    assert load_settings(sets=["llm.temperature=0.3"]).fingerprint() != load_settings().fingerprint()


def test_embedder_flags_beat_set_which_beats_the_default(prepared_dir, tmp_path):
    out = tmp_path / "embedder"
    r = CliRunner().invoke(app, [
        "train", "embedder", "--data", str(prepared_dir), "-o", str(out), "--json",
        "--max-pairs", "8", "--batch-size", "4", "--max-seq-length", "32", "--no-eval", "--kinds", "title,question",
        "--epochs", "1", "--set", "training.embedder.epochs=3", "--set", "training.embedder.lr=1e-4",
        "--device", "cpu",
    ])
    assert r.exit_code == 0, r.output
    config = json.loads(r.stdout)["config"]
    assert config["epochs"] == 1 and config["lr"] == 1e-4  # the flag over --set; --set over the default
    assert config["kinds"] == ["title", "question"] and config["evaluate"] is False
    assert (config["batch_size"], config["max_seq_length"], config["max_pairs"]) == (4, 32, 8)
    assert config["warmup_ratio"] == EmbedderTrainingSettings().warmup_ratio and config["device"] == "cpu"
    assert (out / "biorag_manifest.json").exists()


def test_mesh_flags_and_head_defaults(prepared_dir, tmp_path):
    out = tmp_path / "mesh"
    r = CliRunner().invoke(app, [
        "train", "mesh", "--data", str(prepared_dir), "-o", str(out), "--json", "--top-n", "16",
        "--max-train", "16", "--epochs", "1", "--eval-limit", "4", "--no-filtered-eval",
        "--set", "training.mesh.lora_r=4", "--set", "training.mesh.sources=title", "--device", "cpu",
    ])
    assert r.exit_code == 0, r.output
    config = json.loads(r.stdout)["config"]
    assert (config["head"], config["epochs"], config["batch_size"], config["lr"]) == ("classifier", 1, 32, 5e-4)
    assert (config["lora_r"], config["lora_alpha"], config["sources"]) == (4, 8, ["title"])
    assert config["filtered_eval"] is False and config["top_n"] == 16 and config["eval_limit"] == 4


@pytest.mark.parametrize("args, fragment", [
    (["--epochs", "0"], "--epochs"),
    (["--set", "training.embedder.epochs=0"], "training.embedder.epochs"),
    (["--set", "training.embedder.nope=1"], "unknown setting 'training.embedder.nope'"),
    (["--lr", "many"], "--lr"),
    (["--device", "gpu"], "gpu is not a device"),
    (["--warmup-ratio", "2"], "--warmup-ratio"),
])
def test_bad_training_options_are_one_clear_line(prepared_dir, tmp_path, args, fragment):
    r = CliRunner().invoke(app, ["train", "embedder", "--data", str(prepared_dir), "-o", str(tmp_path / "e"), *args],
                           env=WIDE)
    assert r.exit_code != 0
    assert fragment in r.output and "Traceback" not in r.output
    assert not (tmp_path / "e" / "biorag_manifest.json").exists()


def test_prepare_from_bioasq_says_what_it_took_and_what_it_left_out(tmp_path):
    from pathlib import Path

    bioasq = Path(__file__).resolve().parents[1] / "data" / "training" / "bioasq"
    r = CliRunner().invoke(app, ["train", "prepare", "--bioasq", str(bioasq), "-o", str(tmp_path / "d"), "-q"], env=WIDE)
    assert r.exit_code == 0, r.output
    assert "BioASQ: 4 questions of 1 golden file(s)" in r.output and "left out (their document is gold for a 12B question)" in r.output
    r = CliRunner().invoke(app, ["train", "prepare", "-o", str(tmp_path / "e")], env=WIDE)
    assert r.exit_code != 0 and "--bioasq" in r.output and "Traceback" not in r.output
