"""TRRUST v2 transcription-factor regulation (activation, repression) from the local gene store, with PMIDs."""
