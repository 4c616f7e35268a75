"""Broken input files fail alone, named, in one line, and never crash a reader.

Cuts of a real PubMed .xml.gz (1 KB, 10 KB, 63 KB: inside the reader's first 64 KB read;
1 MB: far into a stored-deflate copy of real records), an empty file, a file named .gz that
is not gzip, and gzip data corrupted in the middle. Then a rebuild through the CLI with
reader processes: the build fails naming the file, the alias stays, and a retry after the
file is replaced resumes the rows already written.
"""

from __future__ import annotations

import bz2
import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from index_helpers import SAMPLE, sample_rows, write_jsonl
from typer.testing import CliRunner

from biorag.contracts.errors import InputError
from cli.main import app
from indexing.pipeline import Msg, read_files
from indexing.reader import read_file

XML_GZ = SAMPLE / "pubmed_0_to_99.xml.gz"


def _stored(dest: Path) -> Path:
    """Real records in a gzip stream without compression, so a 1 MB cut lands mid-records."""
    raw = gzip.decompress((SAMPLE / "medline16n0902.xml.gz").read_bytes())
    dest.write_bytes(gzip.compress(raw, compresslevel=0))
    return dest


def _cut(src: Path, dest: Path, size: int) -> Path:
    dest.write_bytes(src.read_bytes()[:size])
    return dest


def _corrupt(dest: Path) -> Path:
    data = bytearray(XML_GZ.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 64] = bytes(64)
    dest.write_bytes(bytes(data))
    return dest


def broken_files(folder: Path) -> dict[str, Path]:
    big = _stored(folder / "stored.bin")
    assert big.stat().st_size > 1_200_000
    files = {f"cut {n}": _cut(XML_GZ, folder / f"cut_{n}.xml.gz", n) for n in (1_000, 10_000, 63_000)}
    files["cut 1 MB"] = _cut(big, folder / "cut_1mb.xml.gz", 1_000_000)
    big.unlink()
    files["empty"] = folder / "empty.xml.gz"
    files["empty"].write_bytes(b"")
    files["not gzip"] = folder / "not_gzip.xml.gz"
    files["not gzip"].write_bytes(bz2.compress(gzip.decompress(XML_GZ.read_bytes())[:50_000]))
    files["corrupt"] = _corrupt(folder / "corrupt.xml.gz")
    return files


@pytest.mark.parametrize("kind", ["cut 1000", "cut 10000", "cut 63000", "cut 1 MB", "empty", "not gzip", "corrupt"])
def test_reader_names_the_file_in_one_line(tmp_path, kind):
    f = broken_files(tmp_path)[kind]
    with pytest.raises(InputError) as err:
        for _ in read_file(f):
            pass
    msg = str(err.value)
    assert msg.startswith(f"{f}: ") and "\n" not in msg
    what = msg[len(f"{f}: "):]
    # corrupt deflate data may still inflate to bytes: then the XML around them is what breaks
    expect = {"empty": ("file is empty",), "not gzip": ("not gzip data",),
              "corrupt": ("gzip data is corrupt", "malformed XML near line")}.get(kind, ("file is truncated",))
    assert any(e in what for e in expect), msg


def test_reader_loop_reports_every_broken_file_and_reads_the_good_one(tmp_path):
    files = list(broken_files(tmp_path).values())
    good = write_jsonl(tmp_path / "good.jsonl", sample_rows(5))
    msgs: list[Msg] = []
    read_files(files + [good], {}, 0, None, 64, True, msgs.append, lambda: False)
    errors = {m.file: m.error for m in msgs if m.kind == "file_error"}
    assert set(errors) == set(files)
    assert all(e.startswith(str(f)) and "\n" not in e for f, e in errors.items())
    kept = [r.pmid for m in msgs if m.kind == "batch" for r in m.records]
    assert {int(r["pmid"]) for r in sample_rows(5)} <= set(kept)
    assert msgs[-1].kind == "end"


@pytest.mark.milvus
def test_rebuild_with_a_cut_file_fails_named_then_resumes_once_replaced(tmp_path):
    """Through the CLI, readers in processes: the 5 KB cut that used to kill a reader."""
    env = {"BIORAG_DATA_DIR": str(tmp_path / "data")}
    runner = CliRunner()
    first = runner.invoke(app, ["index", "build", "-i", str(write_jsonl(tmp_path / "base.jsonl", sample_rows(6))),
                                "--json"], env=env)
    assert first.exit_code == 0, first.output
    old = json.loads(first.stdout[first.stdout.index("{"):])["collection"]

    inputs = tmp_path / "in"
    inputs.mkdir()
    write_jsonl(inputs / "a.jsonl", sample_rows(20, start=10))
    cut = _cut(XML_GZ, inputs / "b.xml.gz", 5_000)
    args = ["index", "build", "--input", f"{inputs}/", "--rebuild", "--json", "--set", "index.read_workers=1"]
    res = runner.invoke(app, args, env=env)
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    assert out["alias_switched"] is False and list(out["failed_files"]) == [str(cut)]
    assert "truncated" in out["failed_files"][str(cut)] and "\n" not in out["failed_files"][str(cut)]
    assert out["shrink_refused"] == ""  # --allow-shrink would not help: not advised
    assert out["previous_collection"] == old

    shutil.copyfile(XML_GZ, cut)  # the complete download
    again = runner.invoke(app, args[:-3] + ["--set", "index.read_workers=1"], env=env)
    assert again.exit_code == 0, again.output
    assert f"alias 'pubmed' -> {out['collection']} (was {old})" in again.output
    resumed = re.search(r"resumed (\d+) rows already written", again.output)
    assert resumed and int(resumed.group(1)) >= 20, again.output
    assert "1 already done earlier" in again.output and "FAILED" not in again.output
