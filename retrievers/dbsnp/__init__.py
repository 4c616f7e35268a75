"""dbSNP and ClinVar variants: rsID -> gene, location, significance; live or local."""
