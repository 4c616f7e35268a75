"""Error types. Every error a user can cause or fix is a `BioragError` with a one-line
message that names the problem and, where possible, the fix. The CLI prints these
without a traceback and exits non-zero."""

from __future__ import annotations

from biorag.contracts.redaction import scrub


class BioragError(Exception):
    """Base class for errors with a user-facing message. The message is scrubbed of
    secrets when the error is made (an upstream body may echo a key), so every place that
    prints, logs, traces or returns it shows the clean text."""

    exit_code = 2

    def __init__(self, *args: object):
        super().__init__(*(scrub(a) if isinstance(a, str) else a for a in args))


class ConfigError(BioragError):
    """Bad preset, setting key/value, switch name, or artifact mismatch."""


class InputError(BioragError):
    """Bad user input (empty question, invalid sequence, unknown MeSH term, ...)."""


class UnknownTerm(InputError):
    """A well-formed name that names nothing in a vocabulary (a MeSH descriptor that does
    not exist): the API answers 404, as for any other thing that is not there."""


class LLMError(BioragError):
    """The LLM backend could not be reached or failed to answer."""

    exit_code = 3


class StructuredOutputError(LLMError):
    """The model's output did not validate against the requested schema after retries.

    Carries the raw outputs so the trace can show what the model actually said."""

    def __init__(self, message: str, raw_outputs: list[str]):
        super().__init__(message)
        self.raw_outputs = raw_outputs


class ToolError(BioragError):
    """A retriever/tool failed. The agent records it in the trace and carries on."""

    exit_code = 4

    def __init__(self, source: str, message: str):
        super().__init__(f"{source}: {message}")
        self.source = source


class QueryRejected(ToolError, InputError):
    """A source refused its query as the wrong kind of input (BLAST given a gene name).
    Both a ToolError (the agent records it in the trace and carries on) and an InputError
    (the CLI's `biorag tool ...` reports bad input)."""


class SourceUnavailable(ToolError):
    """The source is not usable in this set-up (no index built, no network, ...)."""


class NotBuilt(SourceUnavailable):
    """The source reads local data (a store, an index) that was never built here; the
    message names the command that builds it. The API answers 404 ("not available on this
    server"): retrying does not help, building does."""


class NotRecorded(ToolError):
    """Replay mode and the request is not in the recording."""


class NotHeldOffline(NotRecorded):
    """The offline data lacks the record and the live source is out of reach (replayed, no
    network): the message names what was searched and how to ask the live source. The API
    answers 404 as for any record not recorded; the agent names it beside its answer."""


class NoRecord(ToolError):
    """The source answered: it holds no record for this query (not a failure of the
    source; the API answers 404, keeping 502 for an upstream that failed)."""
