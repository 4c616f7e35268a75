"""Published figures shown as reference columns next to our configurations.

Each column names where its numbers come from. Values are per-task scores on the
benchmark's own scale (0-1). Only figures read from a cited source are entered; a
column with no figure for a task shows "-". Beware: our dev runs use 10 questions
per GeneTuring/GeneHop task, published figures mostly use all 50 (or full test sets).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    column: str
    source: str
    values: dict[str, float]


_GENEGPT = (
    "Jin et al., GeneGPT, Bioinformatics 40(2):btae075, 2024; ncbi/GeneGPT README "
    "(evaluate.py output for geneturing_results/001001, 50 questions per task)"
)
_GENEGPT_DEV = (
    "GeneGPT's recorded predictions in ncbi/GeneGPT (commit 0a2a327), re-scored on the same dev "
    "questions with the same rules (table in the GeneTuring data PROVENANCE note)"
)
_OBL70 = (
    "OpenBioLLM-Llama3-70B model card figures; lm-eval results file "
    "huggingface.co/datasets/openlifescienceai/results aaditya/OpenBioLLM-Llama3-70B/"
    "results_2024-04-26 00:02:53.json (accuracy, full test sets)"
)
_OBL8 = (
    "OpenBioLLM-Llama3-8B model card figures; lm-eval results file "
    "huggingface.co/datasets/openlifescienceai/results aaditya/OpenBioLLM-Llama3-8B/"
    "results_2024-04-26 00:04:53.json (accuracy, full test sets)"
)

REFERENCES: dict[str, list[Reference]] = {
    "geneturing": [
        Reference("GeneGPT-slim (paper, 50/task)", _GENEGPT, {
            "Gene alias": 0.84, "Gene disease association": 0.6613, "Gene location": 0.66,
            "Human genome DNA aligment": 0.44, "Multi-species DNA aligment": 0.88,
            "Gene name conversion": 1.0, "Protein-coding genes": 1.0,
            "Gene SNP association": 1.0, "SNP location": 0.98,
        }),
        Reference("GeneGPT-full (recorded, dev)", _GENEGPT_DEV, {
            "Gene alias": 1.0, "Gene disease association": 0.85, "Gene location": 0.70,
            "Human genome DNA aligment": 0.50, "Multi-species DNA aligment": 0.90,
            "Gene name conversion": 1.0, "Protein-coding genes": 0.60,
            "Gene SNP association": 1.0, "SNP location": 1.0,
        }),
        Reference("GeneGPT-slim (recorded, dev)", _GENEGPT_DEV, {
            "Gene alias": 1.0, "Gene disease association": 0.65, "Gene location": 0.80,
            "Human genome DNA aligment": 0.50, "Multi-species DNA aligment": 0.90,
            "Gene name conversion": 1.0, "Protein-coding genes": 1.0,
            "Gene SNP association": 1.0, "SNP location": 1.0,
        }),
    ],
    "genehop": [
        Reference("GeneGPT (recorded, dev)", _GENEGPT_DEV + "; run genehop_eutils_101110",
                  {"Disease gene location": 0.70}),
    ],
    "mmlu": [
        Reference("OpenBioLLM-70B", _OBL70, {
            "anatomy": 0.83904, "clinical_knowledge": 0.9293, "college_biology": 0.93827,
            "college_medicine": 0.85749, "medical_genetics": 0.93197,
            "professional_medicine": 0.9375,
        }),
        Reference("OpenBioLLM-8B", _OBL8, {
            "anatomy": 0.69829, "clinical_knowledge": 0.76101, "college_biology": 0.84213,
            "college_medicine": 0.68042, "medical_genetics": 0.861,
            "professional_medicine": 0.7821,
        }),
    ],
    "medmcqa": [
        Reference("OpenBioLLM-70B", _OBL70, {"overall": 0.74014}),
        Reference("OpenBioLLM-8B", _OBL8, {"overall": 0.56913}),
    ],
    "pubmedqa": [
        Reference("OpenBioLLM-70B", _OBL70, {"pubmedqa": 0.7897}),
        Reference("OpenBioLLM-8B", _OBL8, {"pubmedqa": 0.7412}),
    ],
    "bioasq": [],
}

#: Not entered: the BioRAG paper's tables (Wang et al., "BioRAG: A RAG-LLM Framework for
#: Biological Question Reasoning", arXiv:2408.01107) could not be read from this offline
#: environment. Add a `Reference("BioRAG (paper)", "<table>", {...})` per benchmark once
#: the figures are copied from the paper; the report prints this note until then.
MISSING_NOTE = (
    "BioRAG paper (Wang et al. 2024, arXiv:2408.01107) figures are not entered yet: its tables "
    "were not readable offline. Add them to evaluation/references.py with the table number."
)


def references_for(benchmark: str) -> list[Reference]:
    return REFERENCES.get(benchmark, [])
