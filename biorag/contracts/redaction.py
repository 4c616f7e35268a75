"""The one scrubber for secrets and personal data in text that leaves the process: log
lines, error messages, trace fields, `--json` and API output all pass through `scrub`.

Two nets, because neither alone is enough:

- values: every secret the settings hold (API keys, tokens, the NCBI contact email, the
  Crossref mailto) is registered when the settings are built, and any occurrence of it is
  masked, whatever surrounds it (an NCBI error body that echoes the key, say);
- shapes: `api_key=…`, `"api-key": "…"`, `Authorization: …`, `Bearer …`, `X-API-Key: …`
  and `user:password@` in URLs are masked whatever the value, so a secret this process
  never saw (a proxy's token in a URL) is caught too.

Settings echoes (`biorag config`, every answer's `config`) redact by setting *name*:
`SECRET_SETTINGS` below, matched whole, so `llm.max_tokens` stays a number.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any

MASK = "**redacted**"

#: setting names whose values are secret or personal data (matched whole, any depth)
SECRET_SETTINGS = frozenset({"api_key", "api_keys", "token", "password", "secret", "email", "mailto"})

#: shortest registered value that is masked wherever it appears (shorter ones would mask
#: ordinary words); keys and addresses are far longer
MIN_SECRET_CHARS = 6

_NAMES = (
    r"api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|token"
    r"|password|passwd|secret|client[_-]?secret|email|mailto"
)
#: `api_key=VALUE` in query strings, form bodies and log lines
_PARAM = re.compile(rf"(?i)(?<![\w-])({_NAMES})=([^&\s\"'<>#]+)")
#: `"api-key": "VALUE"` (JSON) and `'token': 'VALUE'` (Python reprs)
_QUOTED = re.compile(
    rf"(?i)([\"'])({_NAMES}|authorization|proxy-authorization|x-api-key)\1(\s*[:=]\s*)([\"'])(.*?)(?<!\\)\4"
)
#: header lines: `Authorization: Basic …`, `X-API-Key: …`; the scheme word is kept, and
#: `<key>` placeholders in help texts are left alone
_SCHEMES = r"(?:bearer|basic|token|digest|negotiate)"
_HEADER = re.compile(
    rf"(?i)\b(authorization|proxy-authorization|x-api-key)(\s*:[ \t]*)((?:{_SCHEMES}[ \t]+)?)"
    rf"(?![<*\s])(?!{_SCHEMES}\b)([^\s'\",;]+)"
)
#: `Bearer TOKEN` anywhere: a token of 8+ characters with a digit ("bearer mice" is prose)
_BEARER = re.compile(r"(?i)\b(bearer)(\s+)(?=[\w.~+/-]*\d)[\w.~+/-]{8,}=*")
#: credentials in URLs: scheme://user:password@host
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/\s:@]+):([^/\s@]+)@")

#: The cheap pre-checks: what each shape's pattern cannot match without, as substrings of
#: the case-folded text. Python's case-insensitive alternations cost ~1 ms per abstract even
#: when nothing matches, and a search response carries several abstracts; `in` on the
#: case-folded text costs a hundredth of that. Tight on purpose: abstracts are full of
#: "rapid", "secretion", "Alzheimer's" and "p = 0.03", which a bare name word plus a quote
#: or '=' let through to the regexes.
#: _QUOTED: a quote right before the start of a name
_QUOTED_STARTS = ("api", "access", "auth", "refresh", "id", "token", "passw", "secret", "client", "email",
                  "mailto", "proxy", "x-api")
#: _PARAM: the end of a name right before '='
_PARAM_ENDS = ("key", "token", "password", "passwd", "secret", "email", "mailto")

_known: set[str] = set()
_known_re: re.Pattern[str] | None = None
_lock = threading.Lock()


def register(values: Iterable[Any]) -> None:
    """Mask these values wherever they appear from now on (process-wide)."""
    global _known_re
    fresh = {str(v).strip() for v in values if v is not None}
    fresh = {v for v in fresh if len(v) >= MIN_SECRET_CHARS} - _known
    if not fresh:
        return
    with _lock:
        _known.update(fresh)
        # longest first, so a key that contains another is masked whole
        alternatives = sorted(_known, key=len, reverse=True)
        _known_re = re.compile("|".join(re.escape(v) for v in alternatives))


def scrub(text: str) -> str:
    """`text` with every secret masked (see the module doc)."""
    if not text:
        return text
    known = _known_re
    if known is not None:
        text = known.sub(MASK, text)
    return _scrub_shapes(text, precheck=True)


def _scrub_shapes(text: str, precheck: bool = True) -> str:
    """The shape passes of `scrub`. With `precheck`, a pass runs only when the text holds
    what its pattern cannot match without (`_PASSES`); tests compare both ways."""
    folded = text.casefold() if precheck else ""
    for needs, pattern, masked in _PASSES:
        if not precheck or needs(folded):
            text = pattern.sub(masked, text)
    return text


# The pre-checks look only where a match could start (each quote, each '='): a search per
# needle over a response's 8 KB of abstracts cost 0.13 ms, this a tenth of that.
def _quote_before_name(folded: str) -> bool:
    for quote in "\"'":
        i = folded.find(quote)
        while i != -1:
            if folded.startswith(_QUOTED_STARTS, i + 1):
                return True
            i = folded.find(quote, i + 1)
    return False


def _name_before_equals(folded: str) -> bool:
    i = folded.find("=")
    while i != -1:
        if folded.endswith(_PARAM_ENDS, 0, i):
            return True
        i = folded.find("=", i + 1)
    return False


#: each shape pass: (its pre-check on the case-folded text, its pattern, the masked form)
_PASSES: tuple[tuple[Callable[[str], bool], re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (_quote_before_name, _QUOTED, lambda m: f"{m[1]}{m[2]}{m[1]}{m[3]}{m[4]}{MASK}{m[4]}"),
    (_name_before_equals, _PARAM, lambda m: f"{m[1]}={MASK}"),
    (lambda f: "authorization" in f or "x-api-key" in f, _HEADER, lambda m: f"{m[1]}{m[2]}{m[3]}{MASK}"),
    (lambda f: "bearer" in f, _BEARER, lambda m: f"{m[1]}{m[2]}{MASK}"),
    (lambda f: "://" in f and "@" in f, _URL_CREDENTIALS, lambda m: f"{m[1]}{m[2]}:{MASK}@"),
)


def _may_hold_a_secret(text: str) -> bool:
    """False when no pass of `scrub` could change `text`: no registered secret and no
    pass's pre-check. Sound for a concatenation of strings too: what a pass needs inside
    one string is inside the whole."""
    known = _known_re
    if known is not None and known.search(text):
        return True
    folded = text.casefold()
    return any(needs(folded) for needs, _, _ in _PASSES)


def _strings(obj: Any, out: list[str]) -> list[str]:
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(obj, list | tuple):
        for v in obj:
            _strings(v, out)
    return out


def scrub_obj(obj: Any) -> Any:
    """`scrub` applied to every string inside dicts, lists and tuples (keys included). A
    response whose strings, taken together, hold nothing any pass could match is returned
    as it is: one check over the joined text instead of one per string (a search response
    is a few abstracts and a hundred small fields)."""
    if not _may_hold_a_secret("\n".join(_strings(obj, []))):
        return obj
    return _scrub_each(obj)


def _scrub_each(obj: Any) -> Any:
    if isinstance(obj, str):
        return scrub(obj)
    if isinstance(obj, dict):
        return {_scrub_each(k): _scrub_each(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(_scrub_each(v) for v in obj)
    return obj


def redact_settings(obj: Any, key: str = "") -> Any:
    """A settings dump for echoing: values of `SECRET_SETTINGS` names masked (None, empty
    and lists keep their shape, so clients still see whether a key is set)."""
    if isinstance(obj, dict):
        return {k: redact_settings(v, k) for k, v in obj.items()}
    if key.lower() in SECRET_SETTINGS:
        if obj in (None, [], ""):
            return obj
        return [MASK] * len(obj) if isinstance(obj, list) else MASK
    if isinstance(obj, list):
        return [redact_settings(v) for v in obj]
    return obj


# ---- logging -----------------------------------------------------------------------

_PLAIN = (int, float, bool, type(None))


def scrub_record(record: logging.LogRecord) -> logging.LogRecord:
    """Mask secrets in a log record in place. Arguments keep their types where scrubbing
    changes nothing (uvicorn's access formatter unpacks them; `%d` needs numbers)."""
    if isinstance(record.msg, str):
        record.msg = scrub(record.msg)
    elif record.msg is not None and not isinstance(record.msg, _PLAIN):
        record.msg = scrub(str(record.msg))
    args = record.args
    if isinstance(args, tuple):
        record.args = tuple(_scrub_arg(a) for a in args)
    elif isinstance(args, dict):
        record.args = {k: _scrub_arg(v) for k, v in args.items()}
    if record.exc_info and not record.exc_text:
        record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
    elif record.exc_text:
        record.exc_text = scrub(record.exc_text)
    return record


def _scrub_arg(arg: Any) -> Any:
    if isinstance(arg, _PLAIN):
        return arg
    text = str(arg)
    cleaned = scrub(text)
    return arg if cleaned == text else cleaned


class ScrubFilter(logging.Filter):
    """A logging filter that masks secrets (for handlers configured elsewhere)."""

    def filter(self, record: logging.LogRecord) -> bool:
        scrub_record(record)
        return True


_installed = False


def install_log_scrubbing() -> None:
    """Every log record made from now on, by any logger (ours, httpx, httpcore, uvicorn,
    milvus), is scrubbed when it is created: one place, whatever handlers exist or are
    configured later. Idempotent."""
    global _installed
    with _lock:
        if _installed:
            return
        make = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            return scrub_record(make(*args, **kwargs))

        logging.setLogRecordFactory(factory)
        _installed = True
