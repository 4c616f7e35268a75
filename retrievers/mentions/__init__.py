"""Gene and protein names mentioned in a quoted sentence, read with the gene store's lexicon."""
