"""The benchmark's --mmap: the 2.3 server's config gets `queryNode.mmapDirPath` (the wheel's
template has no such line, and its `set` only replaces existing lines)."""

from pathlib import Path

import pytest
from milvus_server import enable_mmap, unavailable


def _config(tmp_path: Path):
    why = unavailable()
    if why:
        pytest.skip(why)
    from milvus import MilvusServer

    server = MilvusServer(wait_for_started=False)
    server.set_base_dir(str(tmp_path / "server"))
    return server.config


def test_mmap_dir_lands_under_query_node_in_the_written_config(tmp_path):
    config = _config(tmp_path)
    enable_mmap(config, tmp_path / "mmap")
    config.write_config()
    text = (tmp_path / "server" / "configs" / "milvus.yaml").read_text()
    section = text.split("\nqueryNode:\n", 1)[1].split("\n\n", 1)[0]
    assert f"  mmapDirPath: {tmp_path / 'mmap'}" in section.splitlines()
    assert text.count("mmapDirPath") == 1
    assert (tmp_path / "mmap").is_dir()


def test_a_template_without_a_query_node_section_is_refused(tmp_path):
    config = _config(tmp_path)
    config.template_text = config.template_text.replace("\nqueryNode:\n", "\nqueryNodeX:\n")
    with pytest.raises(RuntimeError, match="no queryNode section"):
        enable_mmap(config, tmp_path / "mmap")
