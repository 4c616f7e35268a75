"""Sequence computations on a sequence the question gives: translation, reverse complement, GC content, length."""
