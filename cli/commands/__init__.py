"""CLI command groups, one module each. `biorag/cli.py` mounts them. Commands import
heavy modules (torch, Milvus, other packages) lazily, inside the command function."""
