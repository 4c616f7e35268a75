"""LoRA adapters for the sentence embedder: a folder holding only an adapter (what
`biorag train embedder --lora-r R` writes to OUT/adapter, and the adapter bundled with BioRAG)
is loaded as its base model with the adapter merged in, so it costs what the base costs.

A few MB of adapter, not 90 MB of weights, is what a repository can carry. The adapter's
`adapter_config.json` names its base in `base_model_name_or_path`: the bundled model's name or
a local model folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from biorag.contracts.errors import ConfigError

#: the bundled adapter over the bundled all-MiniLM-L6-v2, tuned on BioASQ 7B-11B questions
#: (its folder's TRAINING.md: command, split, seed and the 12B figures)
BUNDLED_BIOASQ = "all-MiniLM-L6-v2-bioasq"
BUNDLED_BIOASQ_DIR = Path(__file__).resolve().parents[1] / "resources" / "embedders" / "minilm-bioasq-lora"


def is_adapter(path: str | Path) -> bool:
    """The folder holds a LoRA adapter and no model of its own."""
    p = Path(path)
    return (p / "adapter_config.json").is_file() and not (p / "config.json").is_file()


def adapter_base(path: str | Path) -> str:
    base = json.loads((Path(path) / "adapter_config.json").read_text()).get("base_model_name_or_path")
    if not base:
        raise ConfigError(f"adapter {path}: adapter_config.json names no base_model_name_or_path")
    return base


def hf_slot(model) -> str:
    """The attribute of a SentenceTransformer's first module that holds the Hugging Face
    model: `model` since sentence-transformers 6 (`auto_model` is then a read-only property,
    and assigning to it would register a second module the forward never calls), `auto_model`
    before."""
    return "model" if "model" in model[0]._modules else "auto_model"


def hf_model(model):
    return getattr(model[0], hf_slot(model))


def set_hf_model(model, inner) -> None:
    setattr(model[0], hf_slot(model), inner)


def merge_adapter(model, adapter: str | Path) -> None:
    """Apply the adapter to the loaded base `model` and fold it into its weights."""
    import warnings

    from peft import PeftModel

    try:
        with warnings.catch_warnings():  # peft asks transformers a deprecated question: not the user's concern
            warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
            set_hf_model(model, PeftModel.from_pretrained(hf_model(model), str(adapter)).merge_and_unload())
    except Exception as e:  # wrong base, damaged files
        raise ConfigError(f"cannot apply the embedder adapter {adapter} to its base: {e}") from None
