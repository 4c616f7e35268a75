"""CLI command groups, one module each. `cli/main.py` mounts them. Commands import
heavy modules (torch, Milvus, other packages) lazily, inside the command function."""
