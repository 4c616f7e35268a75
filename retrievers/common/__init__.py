"""Plumbing several sources share: the recorded-HTTP store, NCBI E-utilities, the base record."""
