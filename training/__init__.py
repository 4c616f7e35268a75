"""Training: data preparation, contrastive embedder fine-tuning and the MeSH tagger.

Commands live in `cli/commands/train.py` (`biorag train prepare|embedder|mesh`).
Inference for the MeSH tagger lives in `biorag/ml/mesh_classifier.py` (the agent loads it
without importing this package).
"""
