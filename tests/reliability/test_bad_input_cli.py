"""The CLI half of the bad-input corpus: every case must end with a non-zero exit, one
error that names what was wrong (the option, setting, file or field), and no traceback.

Most cases run in process (typer's runner: one import for the lot), where an uncaught
exception would be a traceback for a user; the cases of the bad-input table (SUBPROCESS) also run as a
real `biorag` process, whose stderr is read as a user sees it. The API half is in
tests/serving/test_serving_bad_input.py (hand-written cases, then Schemathesis).
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

ROOT = Path(__file__).resolve().parents[2]
BIOASQ_SAMPLE = ROOT / "tests" / "data" / "evaluation" / "bioasq_11B1_sample.json"
LONG = "x" * 2001  # max_question_chars is 2000 by default
SURROGATE = "\ud800 which gene"


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    names: tuple[str, ...]  # each must appear in the error: the field at fault, and what to do
    env: dict[str, str] = field(default_factory=dict)


def _files(base: Path) -> dict[str, str]:
    """The bad files the corpus hands to options that read files."""
    made = {
        "BIN": ("blob.bin", bytes(range(256)) * 8),
        "BINJSON": ("blob.json", b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 40),
        "NUL": ("nul.jsonl", b"\x00" * 64),
        "TEXT": ("garbage.json", b"{not json at all"),
        "ARRAY": ("array.json", b"[1, 2, 3]"),
        "ROWS": ("rows.jsonl", b'{"x": 1}\n'),
        "LISTROWS": ("listrows.jsonl", b'[1]\n"s"\n'),
        "EMPTY": ("empty.json", b""),
        "WRONGOBJ": ("wrong.json", b'{"1": 5, "questions": [1]}'),
        "CSV": ("bad_test.csv", b"a,b\n1,2\n"),
        "TRUNCGZ": ("cut.txt.gz", gzip.compress(b"#tax_id\tGeneID\tSymbol\n" * 2000)[:40]),
        "HEADERLESS": ("gene_info.txt", b"just some words\nand more\n"),
        "NOID": ("noid.json", b'{"id": "p1", "phenotypicFeatures": [{"type": {"id": "HP:0001250"}}, {"type": {"label": "Ataxia"}}]}'),
        "BADSEX": ("badsex.json", b'{"phenotypicFeatures": [{"type": {"id": "HP:0001250"}}], "subject": {"sex": "F"}}'),
        "BADAGE": ("badage.json", b'{"phenotypicFeatures": [{"type": {"id": "HP:0001250"}}], '
                   b'"subject": {"timeAtLastEncounter": {"age": {"iso8601duration": "7 years"}}}}'),
        "EXCLSTR": ("exclstr.json", b'{"phenotypicFeatures": [{"type": {"id": "HP:0001250"}, "excluded": "no"}]}'),
        "GOOD": ("geneturing.json", b'{"Gene alias": {"What is the official gene symbol of LMP10?": "PSMB10"}}'),
    }
    out = {}
    for key, (name, data) in made.items():
        (base / name).write_bytes(data)
        out[key] = str(base / name)
    (base / "folder.json").mkdir()
    (base / "emptydir").mkdir()
    out["DIR"] = str(base / "folder.json")
    out["EMPTYDIR"] = str(base / "emptydir")
    for key, manifest in (("SHARDDIR", b'{"schema": 1, "embedder": "all-MiniLM-L6-v2", "inputs": []}'),
                          ("BADSNAP", b"{cut off")):
        (base / key.lower()).mkdir()
        (base / key.lower() / "manifest.json").write_bytes(manifest)
        out[key] = str(base / key.lower())
    out["MISSING"] = str(base / "no-such-file.json")
    out["OUT"] = str(base / "out")
    return out


def _cases() -> list[Case]:
    c: list[Case] = []

    def add(id_: str, argv: list[str], *names: str, env: dict[str, str] | None = None) -> None:
        c.append(Case(id_, tuple(argv), names, env or {}))

    # -- files given to options: recordings, presets, benchmark and bulk files ----------
    for key, names in [("DIR", ("--replay", "not a file")), ("BIN", ("replay recording", "not UTF-8")),
                       ("NUL", ("not a cassette line",)), ("TEXT", ("not a cassette line",)),
                       ("ROWS", ("not a cassette line",)), ("LISTROWS", ("not a cassette line",)),
                       ("MISSING", ("--replay", "does not exist"))]:
        add(f"ask-replay-{key}", ["ask", "LMP10?", "--replay", key], *names)
    for key in ("DIR", "BIN", "MISSING", "NUL"):
        add(f"tool-replay-{key}", ["tool", "gene", "LMP10", "--replay", key], "replay")
    for key in ("DIR", "MISSING"):  # checked before `biorag mcp` serves (a bad recording's lines: at first use)
        add(f"mcp-replay-{key}", ["mcp", "--replay", key], "--replay")
        add(f"eval-replay-{key}", ["eval", "geneturing", "-q", "GOOD", "--replay", key, "--out", "OUT/ev"],
            "replay")
    for key, names in [("DIR", ("replay recording", "directory")), ("BIN", ("not UTF-8",)),
                       ("NUL", ("not a cassette line",))]:
        add(f"set-cassette-{key}", ["ask", "LMP10?", "--set", f"tool_io.cassette={key}",
                                    "--set", "tool_io.mode=replay"], *names)
    for cmd in (["ask", "LMP10?"], ["config"], ["search", "pubmed", "amyloid"], ["tool", "gene", "LMP10"],
                ["serve"], ["mcp"], ["eval", "geneturing", "-q", "GOOD"], ["index", "stats"]):
        add(f"preset-binary-{cmd[0]}", [*cmd, "--preset", "BINJSON"], "preset file", "not UTF-8")
    for cmd in (["ask", "LMP10?"], ["config"]):
        add(f"preset-dir-{cmd[0]}", [*cmd, "--preset", "DIR"], "preset file", "directory")
        add(f"preset-text-{cmd[0]}", [*cmd, "--preset", "TEXT"], "preset file", "not valid JSON")
        add(f"preset-array-{cmd[0]}", [*cmd, "--preset", "ARRAY"], "preset file", "JSON object")
        add(f"preset-unknown-{cmd[0]}", [*cmd, "--preset", "nosuch"], "unknown preset", "embedded")
        add(f"preset-path-{cmd[0]}", [*cmd, "--preset", "../../etc/passwd"], "unknown preset")
    for bench in ("geneturing", "genehop", "mmlu", "medmcqa", "pubmedqa", "bioasq"):
        add(f"eval-{bench}-binary", ["eval", bench, "-q", "BIN"], "--questions", "UTF-8")
        add(f"eval-{bench}-missing", ["eval", bench, "-q", "MISSING"], "--questions", "does not exist")
        add(f"eval-{bench}-wrong", ["eval", bench, "-q", "WRONGOBJ"], "wrong.json")
        add(f"eval-{bench}-empty", ["eval", bench, "-q", "EMPTY"], "empty.json")
    for bench in ("geneturing", "genehop", "medmcqa", "pubmedqa"):
        add(f"eval-{bench}-dir", ["eval", bench, "-q", "DIR"], "--questions", "directory")
    add("eval-mmlu-csv", ["eval", "mmlu", "-q", "CSV"], "bad_test.csv", "question,A,B,C,D")
    add("eval-mmlu-emptydir", ["eval", "mmlu", "-q", "EMPTYDIR"], "no .csv files")
    add("eval-bioasq-emptydir", ["eval", "bioasq", "-q", "EMPTYDIR"], "no BioASQ")
    add("eval-bioasq-corpus-missing", ["eval", "bioasq", "-q", str(BIOASQ_SAMPLE), "--corpus", "MISSING",
                                       "--out", "OUT/eb"], "--corpus", "does not exist")
    add("eval-report-missing", ["eval", "report", "MISSING"], "holds no results")
    add("eval-report-binary", ["eval", "report", "BIN"], "holds no results")
    for opt, key, names in [("--gene-info", "BIN", ("UTF-8",)), ("--gene-info", "DIR", ("folder.json",)),
                            ("--gene-info", "HEADERLESS", ("gene_info",)),
                            ("--gene-info", "TRUNCGZ", ("Compressed file ended",)),
                            ("--gene-info", "MISSING", ("not found",)), ("--hgnc", "BIN", ("UTF-8",)),
                            ("--hgnc", "HEADERLESS", ("HGNC",)), ("--hgnc", "DIR", ("folder.json",)),
                            ("--clinvar-vcf", "BIN", ("--clinvar-vcf", "UTF-8")),
                            ("--clinvar-vcf", "HEADERLESS", ("--clinvar-vcf", "not a VCF")),
                            ("--clinvar-vcf", "TRUNCGZ", ("--clinvar-vcf", "damaged gzip")),
                            ("--clinvar-vcf", "MISSING", ("not found",))]:
        add(f"gene-store{opt}-{key}", ["data", "gene-store", "build", opt, key, "--out", "OUT/g.sqlite"], *names)
    # -- cases for phenotype prioritisation: phenopackets, id lists, folders -------------
    for key, names in [("NOID", ("phenotypicFeatures[1].type.id", "missing")), ("BADSEX", ("subject.sex", "FEMALE")),
                       ("BADAGE", ("iso8601duration", "P7Y")), ("EXCLSTR", ("phenotypicFeatures[0].excluded",)),
                       ("WRONGOBJ", ("phenotypicFeatures", "missing")), ("ARRAY", ("array.json[0]", "HPO id")),
                       ("TEXT", ("garbage.json", "not JSON")), ("EMPTY", ("empty.json", "not JSON")),
                       ("BINJSON", ("blob.json", "cannot read")), ("MISSING", ("no such file",)),
                       ("EMPTYDIR", ("no .json or .txt",))]:
        add(f"prioritise-{key}", ["prioritise", key], *names)
    for key, names in [("MISSING", ("--cases", "no such file")), ("ROWS", ("rows.jsonl:1", "not a case line")),
                       ("TEXT", ("garbage.json", "not JSON")), ("NOID", ("interpretations",))]:
        add(f"eval-prioritise-{key}", ["eval", "prioritise", "--cases", key, "--out", "OUT/ep"], *names)
    add("prioritise-terms-bad-id", ["prioritise", "--terms", "HP:1,HP:0001250"], "--terms[0]", "HPO id")
    add("prioritise-nothing", ["prioritise"], "give one case")
    add("prioritise-two-cases", ["prioritise", "NOID", "--text", "seizures"], "give one case")
    add("prioritise-top-k-0", ["prioritise", "--terms", "HP:0001250", "--top-k", "0"], "--top-k")
    add("prioritise-top-k-101", ["prioritise", "--terms", "HP:0001250", "--top-k", "101"], "--top-k")
    add("index-build-missing", ["index", "build", "-i", "MISSING"], "no such file")
    add("index-build-emptydir", ["index", "build", "-i", "EMPTYDIR"], "holds no PubMed files")
    add("index-build-missing-among-several", ["index", "build", "-i", "GOOD", "MISSING"], "no-such-file.json",
        "no such file")
    add("index-build-shards-into-a-file", ["index", "build", "GOOD", "--to-shards", "BIN"], "not a directory")
    add("index-build-ray-without-shards", ["index", "build", "GOOD", "--engine", "ray"], "--to-shards")
    add("index-build-unknown-engine", ["index", "build", "GOOD", "--engine", "spark"], "--engine", "local or ray")
    add("index-build-address-without-ray", ["index", "build", "GOOD", "--address", "auto"], "--engine ray")
    add("index-load-missing", ["index", "load", "MISSING"], "no manifest.json", "--to-shards")
    add("index-load-emptydir", ["index", "load", "EMPTYDIR"], "no manifest.json")
    add("index-export-into-a-file", ["index", "export", "BIN"], "empty or new folder")
    add("index-export-into-a-full-folder", ["index", "export", "SHARDDIR"], "empty or new folder")
    add("index-export-no-index", ["index", "export", "OUT/snap"], "no pubmed index", "index build")
    add("index-export-shard-rows-zero", ["index", "export", "OUT/snap", "--shard-rows", "0"], "--shard-rows")
    add("index-import-missing", ["index", "import", "MISSING"], "not a folder", "index export")
    add("index-import-a-file", ["index", "import", "BIN"], "not a folder")
    add("index-import-emptydir", ["index", "import", "EMPTYDIR"], "no manifest.json")
    add("index-import-shards-not-a-snapshot", ["index", "import", "SHARDDIR"], "not an index snapshot", "index load")
    add("index-import-garbage-manifest", ["index", "import", "BADSNAP"], "manifest.json", "unreadable")
    add("train-prepare-binary", ["train", "prepare", "-i", "BIN", "-o", "OUT/p"], "unrecognised format")
    add("train-prepare-missing", ["train", "prepare", "-i", "MISSING", "-o", "OUT/p"], "no-such-file")
    add("train-embedder-binary", ["train", "embedder", "--data", "BIN", "-o", "OUT/e"], "prepared training-data")
    add("train-embedder-missing", ["train", "embedder", "--data", "MISSING", "-o", "OUT/e"], "prepared training-data")
    add("train-mesh-dir", ["train", "mesh", "--data", "DIR", "-o", "OUT/m"], "prepared training-data")

    # -- text: questions and queries ----------------------------------------------------
    for text, tid, names in [("", "empty", ("is empty",)), ("   \t ", "blank", ("is empty",)),
                             (SURROGATE, "surrogate", ("U+D800", "UTF-8")),
                             ("TP53\udcff?", "surrogate-escape", ("U+DCFF",)),
                             (LONG, "long", ("2001 characters", "max_question_chars"))]:
        add(f"ask-{tid}", ["ask", text], "question", *names)
        add(f"search-{tid}", ["search", "pubmed", text], "query", *names)
        for tool in ("gene", "snp", "omim", "blast", "web"):
            if tid in ("empty", "surrogate", "long"):
                add(f"tool-{tool}-{tid}", ["tool", tool, text], "query", *names)

    # -- settings: --set, switches, environment -------------------------------------------
    for item, names in [("llm.temperature=9", ("llm.temperature",)), ("nokey", ("dotted.key=value",)),
                        ("=3", ("empty key",)), ("a..b=1", ("empty key",)), ("llm.nosuch=1", ("llm.nosuch",)),
                        ("max_rounds=0", ("max_rounds",)), ("max_rounds=abc", ("max_rounds",)),
                        ("serve.port=70000", ("serve.port",)), ("llm.backend=nosuch", ("llm.backend",)),
                        ("index.index_type=FOO", ("index.index_type",)), ("tool_io.mode=sideways", ("tool_io.mode",)),
                        ("planner=genius", ("planner",)), ("sources.gene.top_k=0", ("sources.gene.top_k",)),
                        ("components.mesh_filter=maybe", ("components.mesh_filter",)),
                        ("max_question_chars=1", ("max_question_chars",)), ("ncbi.timeout_s=-1", ("ncbi.timeout_s",)),
                        ("serve.api_keys=notalist", ("serve.api_keys",)), ("llm.max_tokens=big", ("llm.max_tokens",)),
                        ("serve.allowed_hosts=3", ("serve.allowed_hosts",))]:
        add(f"config-set-{item}", ["config", "--set", item], *names)
    for item in ("llm.temperature=9", "nokey", "tool_io.mode=sideways"):
        add(f"ask-set-{item}", ["ask", "LMP10?", "--set", item], item.split("=")[0] if "=" in item else "--set")
    for cmd in (["ask", "LMP10?"], ["config"], ["serve"], ["mcp"]):
        add(f"disable-unknown-{cmd[0]}", [*cmd, "--disable", "genes"], "unknown switch 'genes'")
        add(f"enable-unknown-{cmd[0]}", [*cmd, "--enable", "wikipedia"], "unknown switch 'wikipedia'")
    add("env-bad-number", ["config"], "llm.temperature", env={"BIORAG_LLM__TEMPERATURE": "hot"})
    add("env-bad-json", ["config"], "BIORAG_", env={"BIORAG_SERVE__API_KEYS": "[not json"})
    add("env-unknown-preset", ["config"], "unknown preset", env={"BIORAG_PRESET": "nosuch"})

    # -- options of particular commands -------------------------------------------------
    for argv, names in [(["search", "pubmed", "amyloid", "--k", "0"], ("--k",)),
                        (["search", "pubmed", "amyloid", "--k", "101"], ("--k",)),
                        (["search", "pubmed", "amyloid", "--year-from", "abc"], ("--year-from",)),
                        (["tool", "gene", "LMP10", "--backend", "nosuch"], ("backend 'nosuch'",)),
                        (["tool", "snp", "rs7412", "--k", "abc"], ("--k",)),
                        (["eval", "geneturing", "-q", "GOOD", "--workers", "0"], ("--workers",)),
                        (["eval", "geneturing", "-q", "GOOD", "--timeout", "-1"], ("--timeout",)),
                        (["eval", "geneturing"], ("--questions",)),
                        (["eval", "geneturing", "-q", "GOOD", "--ablate", "Z9", "--out", "OUT/ev"], ("Z9",)),
                        (["eval", "genehop", "-q", "GOOD", "--judge", "oracle", "--out", "OUT/ev"], ("--judge",)),
                        (["serve", "--port", "0"], ("port",)),
                        (["serve", "--port", "70000"], ("port",)),
                        (["serve", "--log-level", "loud"], ("--log-level",)),
                        (["index", "verify", "--sample", "abc"], ("--sample",)),
                        (["train", "prepare", "-i", "BIN", "-o", "OUT/p", "--heldout", "many"], ("--heldout",)),
                        (["nosuchcommand"], ("nosuchcommand",))]:
        add("opt-" + "-".join(a for a in argv if a.isalpha())[:60] + f"-{len(c)}", argv, *names)
    return c


CASES = _cases()
#: the bad-input table's cases users meet in a shell, and the argv a terminal that is not UTF-8 produces: as real processes
SUBPROCESS = ["ask-replay-DIR", "ask-replay-BIN", "preset-binary-ask", "ask-surrogate-escape",
              "search-long", "tool-replay-DIR", "eval-medmcqa-binary", "gene-store--gene-info-TRUNCGZ"]


def test_the_cli_corpus_is_large_and_ids_are_unique():
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)
    assert set(SUBPROCESS) <= {c.id for c in CASES}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    return _files(tmp_path_factory.mktemp("bad-input"))


def _argv(case: Case, files: dict[str, str]) -> list[str]:
    out = []
    for a in case.argv:
        for key in sorted(files, key=len, reverse=True):
            if key in a and (a == key or a.startswith(f"{key}/") or a.endswith(f"={key}")):
                a = a.replace(key, files[key], 1)
                break
        out.append(a)
    return out


def _check(case: Case, code: int, output: str) -> None:
    assert code != 0, f"{case.id}: exit 0 for bad input\n{output}"
    assert "Traceback" not in output, f"{case.id}: traceback\n{output}"
    assert "unexpected " not in output, f"{case.id}: an unhandled error reached the user\n{output}"
    for name in case.names:
        assert name.lower() in output.lower(), f"{case.id}: the error does not name {name!r}\n{output}"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_bad_input_gets_one_clear_error(case: Case, files, monkeypatch):
    for k, v in case.env.items():
        monkeypatch.setenv(k, v)
    result = CliRunner().invoke(app, _argv(case, files))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        pytest.fail(f"{case.id}: {type(result.exception).__name__} escaped: {result.exception}")
    _check(case, result.exit_code, result.output)
    ours = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(ours) <= 1, f"{case.id}: more than one error line\n{result.output}"


@pytest.mark.parametrize("case_id", SUBPROCESS)
def test_cli_bad_input_as_a_real_process(case_id: str, files, tmp_path):
    case = next(c for c in CASES if c.id == case_id)
    argv = [a.encode("utf-8", "surrogateescape") for a in _argv(case, files)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), **case.env}
    r = subprocess.run([sys.executable, "-m", "cli.main", *argv], cwd=tmp_path, env=env,
                       capture_output=True, timeout=120)
    stderr = r.stderr.decode("utf-8", "replace")
    _check(case, r.returncode, stderr)
    lines = [line for line in stderr.replace("\r", "\n").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    # one error line, last; before it at most the progress bar of work that had started
    assert len(errors) == 1 and lines[-1] == errors[0], f"{case_id}: not one error line\n{stderr}"
    assert all(" rows" in line or "rec/s" in line for line in lines[:-1]), f"{case_id}: extra output\n{stderr}"
