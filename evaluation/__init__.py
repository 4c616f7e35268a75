"""Evaluation: benchmark loaders, answer extraction, scorers, the run harness with
resume and ablations, and reports (CSV, Markdown, PNG). `biorag eval` drives it."""
