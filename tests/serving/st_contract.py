"""Schemathesis's configuration, written from the served OpenAPI document: every check as
shipped, except that an operation whose description states refusals of schema-valid
requests (`serving.contract`) may answer exactly those statuses to them. Nothing else is
allowed, so a refusal the document does not state fails the run.

By hand, against a server you started:

    python tests/serving/st_contract.py http://127.0.0.1:8000/openapi.json > /tmp/st.toml
    st --config-file /tmp/st.toml run http://127.0.0.1:8000/openapi.json --checks all --mode all \\
        --max-examples 30 --workers 1 --max-response-time 60 --exclude-path-regex '^/v1/answer'
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from serving.contract import stated_refusals  # noqa: E402

#: what Schemathesis's positive_data_acceptance check accepts for a schema-valid request
#: when it is not told otherwise (its default)
ACCEPTED = ("2xx", "3xx", "401", "403", "404", "409", "429", "5xx")
#: ... and what its negative_data_rejection check takes as a rejection of invalid data; a
#: stated refusal (the body limit's 413) is one too
REJECTED = ("400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429", "5xx")


def _toml_string(s: str) -> str:
    return json.dumps(s)  # a JSON string is a TOML basic string for this text (no control characters)


def config_for(document: dict[str, Any]) -> str:
    """The TOML text of the configuration for `document`."""
    out = ["# written by tests/serving/st_contract.py from the served OpenAPI document", ""]
    for (method, path), refusals in sorted(stated_refusals(document).items()):
        stated = [str(s) for s in sorted(refusals)]
        accepted = [*ACCEPTED, *stated]
        rejected = [*REJECTED, *(s for s in stated if s not in REJECTED)]
        # one filter, the operation's name: Schemathesis ORs separate include-* keys
        out += ["[[operations]]",
                f"include-name = {_toml_string(f'{method} {path}')}",
                f"checks.positive_data_acceptance.expected-statuses = [{', '.join(map(_toml_string, accepted))}]",
                f"checks.negative_data_rejection.expected-statuses = [{', '.join(map(_toml_string, rejected))}]",
                ""]
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - the by-hand use above
    import httpx

    if len(sys.argv) != 2:
        sys.exit("usage: python tests/serving/st_contract.py URL_OF_OPENAPI_JSON")
    print(config_for(httpx.get(sys.argv[1], timeout=30).raise_for_status().json()))
