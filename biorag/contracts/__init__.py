"""The vocabulary every floor shares: typed evidence and answers (`models`), what a source declares
(`sources`: entity kinds, answer fields, readings), typed errors and the redaction of secrets.
It imports nothing else of the project."""
