"""The query encoder's transformer run as a TorchScript trace (`index.query_trace`).

Why: a query is a few dozen tokens, so the eager Hugging Face forward spends much of its
time in Python, one module call after another, holding the interpreter lock. Measured on
2 cores (bf16 on AMX, bundled MiniLM, one torch thread; benchmarks/results/2026-11-25/README.md
section 6): a query alone took 7.6 ms eager and 5.0 traced, a batch of 2 11.5 and 6.6. Two
encoders side by side, as `biorag serve` runs them, managed 183 queries/s eager and 312
traced: the trace runs its graph in C++ without the lock, so the encoders no longer queue
for it behind each other, the event loop and Milvus Lite.

How: the first module's model (a sentence-transformers `Transformer`) is traced on a padded
batch of probe texts and frozen; the rest of the pipeline (pooling, normalisation) runs as
before on the token embeddings it returns. Tracing takes about 0.2 s, once per process and
model. The trace is checked against the eager model on probes of other lengths and batch
sizes, and used only if every vector agrees to a cosine of `MIN_COSINE`; otherwise, or if
the model cannot be traced, the encoder stays eager and a warning says why.

`torch.jit.trace` is deprecated in favour of `torch.compile`/`torch.export`, which need a
compiler at run time or run their graph in Python; it is pinned with torch (constraints.txt).
If a torch without it is installed, the check above fails and the encoder runs eagerly.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from biorag.ml.embedder_adapter import hf_model

log = logging.getLogger("biorag.ml.embedder")

#: the least cosine between a traced and an eager query vector for the trace to be used
MIN_COSINE = 0.9999

#: traced on: two texts of different lengths, so the attention mask really masks padding
TRACE_PROBES = ["amyloid beta", "Which genes are associated with early-onset Alzheimer disease in families?"]
#: checked on: one short text alone, and a batch of three lengths including a long one
CHECK_PROBES = [
    ["BRCA2 location"],
    ["tau", "Does O-GlcNAc modification prevent tau aggregation in mouse models of neurodegeneration?",
     "microglia clearing amyloid plaques " * 12],
]


class TracedQueryEncoder:
    """Encodes tokenized features like the sentence-transformers model it was made from."""

    def __init__(self, traced: Any, inputs: list[str], output: str, rest: list[Any]):
        self._traced = traced
        self._inputs = inputs  # the feature names the trace takes, in order
        self._output = output  # where the first module puts its result ("token_embeddings")
        self._rest = rest  # pooling, normalisation, ... as in the model

    def __call__(self, features: dict[str, Any]) -> Any:
        """The model's `sentence_embedding` for `features` (from its tokenizer, on its device)."""
        features = dict(features)
        features[self._output] = self._traced(*(features[name] for name in self._inputs))
        for module in self._rest:
            features = module(features)
        return features["sentence_embedding"]


def trace_query_encoder(model: Any, prepare: Any, name: str) -> TracedQueryEncoder | None:
    """A checked trace of `model` (a SentenceTransformer), or None (a warning says why).
    `prepare(texts)` gives the model's features for texts, on its device (`_Encoder.tokenize`)."""
    try:
        import torch

        first = list(model)[0]
        inner = hf_model(model)
        output = getattr(first, "module_output_name", "token_embeddings")
        features = prepare(TRACE_PROBES)
        inputs = [k for k, v in features.items() if isinstance(v, torch.Tensor)]

        class Positional(torch.nn.Module):  # a trace takes positional tensors
            def __init__(self, inner: Any):
                super().__init__()
                self.inner = inner

            def forward(self, *tensors: Any) -> Any:
                return self.inner(**dict(zip(inputs, tensors, strict=True)), return_dict=False)[0]

        with warnings.catch_warnings(), torch.inference_mode(), _quiet_transformers():
            warnings.simplefilter("ignore")  # TracerWarnings on shape checks, and the deprecation
            traced = torch.jit.freeze(torch.jit.trace(Positional(inner).eval(), tuple(features[k] for k in inputs),
                                                      check_trace=False, strict=False))
        candidate = TracedQueryEncoder(traced, inputs, output, list(model)[1:])
        worst = min(_agreement(model, candidate, prepare(texts)) for texts in CHECK_PROBES)
    except Exception as e:  # noqa: BLE001 - any model or torch that cannot be traced runs eagerly
        log.warning("query encoder %s runs eagerly: it could not be traced (%s: %s)", name, type(e).__name__, e)
        return None
    if worst < MIN_COSINE:
        log.warning("query encoder %s runs eagerly: its trace disagrees with the model (cosine %.6f < %s)",
                    name, worst, MIN_COSINE)
        return None
    log.info("query encoder %s traced (cosine to eager >= %.6f)", name, worst)
    return candidate


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Tracing reads every attribute of the model, `loss_function` included, whose getter
    warns that an encoder has no loss type: a line on every user's terminal, about nothing."""
    logger = logging.getLogger("transformers.modeling_utils")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _agreement(model: Any, traced: TracedQueryEncoder, features: dict[str, Any]) -> float:
    """The least cosine between the traced and the eager vectors of one batch."""
    import torch

    with torch.inference_mode():
        eager = torch.nn.functional.normalize(model(dict(features))["sentence_embedding"].float(), dim=1)
        fast = torch.nn.functional.normalize(traced(features).float(), dim=1)
    return float((eager * fast).sum(dim=1).min())
