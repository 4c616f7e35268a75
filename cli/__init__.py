"""The `biorag` command (top floor): `cli/main.py` holds the typer app, `cli/commands/` one
module per command group. It drives every floor below through `application`."""
