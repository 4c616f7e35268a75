"""HPO: phenotypes, the diseases showing them and their genes; phenotype prioritisation."""
