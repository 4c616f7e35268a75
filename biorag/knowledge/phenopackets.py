"""A patient for phenotype-driven prioritisation, read from a GA4GH Phenopacket v2 (JSON),
a plain list of HPO ids, or free text.

The v2 JSON is read here, field by field, with validation (GA4GH's ``phenopackets``
package needs protobuf < 7 and accepts a feature without an id): a malformed file is one
`PhenopacketError` naming the field (``phenotypicFeatures[2].type.id``). What a case says
about its answer (``interpretations``, ``diseases``) is never read: ranking must not see it.
Whether an id is live, obsolete or unknown is the HPO store's check (retrievers/stores/hpo_ranking.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError

_HP_ID = re.compile(r"HP:\d{7}")
_DURATION = re.compile(r"P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?"
                       r"(?:T.*)?")
SEXES = ("UNKNOWN_SEX", "FEMALE", "MALE", "OTHER_SEX")
#: the biggest case read (features); a phenopacket with more is not a patient description
MAX_FEATURES = 500


class PhenopacketError(InputError):
    """A case that cannot be read; the message names the field."""


@dataclass
class Case:
    """What ranking may read of a case. ``text`` is set for a case given in words (its terms
    are found by the HPO store); ``labels`` are the names the file gave its terms."""

    id: str
    observed: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    onset: str | None = None  # HPO onset term of the earliest feature onset
    onset_age_years: float | None = None
    age_years: float | None = None  # at last encounter
    age: str | None = None  # as written (ISO 8601 duration)
    sex: str | None = None
    text: str | None = None
    source: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def duration_years(value: Any, where: str) -> float:
    """ISO 8601 duration (P7Y, P1Y6M, P10D, P3W) in years."""
    m = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if not m or value == "P" or not any(m.groups()):
        raise PhenopacketError(f"{where}: {value!r} is not an ISO 8601 duration (e.g. P7Y, P1Y6M, P10D)")
    y, mo, w, d = (float(g) if g else 0.0 for g in m.groups())
    return round(y + mo / 12 + w / 52.18 + d / 365.25, 4)


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PhenopacketError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _age_of(element: dict[str, Any], where: str) -> tuple[str | None, float | None]:
    """(onset term, age in years) of a TimeElement (ontologyClass, age, gestationalAge)."""
    if "ontologyClass" in element:
        oc = _object(element["ontologyClass"], f"{where}.ontologyClass")
        tid = oc.get("id")
        if not isinstance(tid, str) or not _HP_ID.fullmatch(tid):
            raise PhenopacketError(f"{where}.ontologyClass.id: expected an HPO onset term (e.g. HP:0011463)")
        return tid, None
    if "age" in element:
        age = _object(element["age"], f"{where}.age")
        return None, duration_years(age.get("iso8601duration"), f"{where}.age.iso8601duration")
    if "gestationalAge" in element:
        return "HP:0030674", None
    return None, None


def read_phenopacket(doc: Any, source: str = "phenopacket") -> Case:
    """A case from a parsed Phenopacket v2 document."""
    doc = _object(doc, source)
    feats = doc.get("phenotypicFeatures")
    if feats is None:
        raise PhenopacketError(f"{source}: phenotypicFeatures: missing (a GA4GH Phenopacket v2 lists the "
                               "patient's HPO features there)")
    if not isinstance(feats, list):
        raise PhenopacketError(f"{source}: phenotypicFeatures: expected a list, got {type(feats).__name__}")
    if len(feats) > MAX_FEATURES:
        raise PhenopacketError(f"{source}: phenotypicFeatures: {len(feats)} features, at most {MAX_FEATURES}")
    case = Case(id=str(doc.get("id") or source), source=source)
    onsets: list[tuple[str | None, float | None]] = []
    for i, raw in enumerate(feats):
        where = f"{source}: phenotypicFeatures[{i}]"
        feat = _object(raw, where)
        kind = feat.get("type")
        if kind is None:
            raise PhenopacketError(f"{where}.type: missing; every feature needs an HPO term ({{\"id\": \"HP:…\"}})")
        tid = _object(kind, f"{where}.type").get("id")
        if not tid:
            raise PhenopacketError(f"{where}.type.id: missing; every feature needs an HPO id (e.g. HP:0001250)")
        if not isinstance(tid, str) or not _HP_ID.fullmatch(tid.strip()):
            raise PhenopacketError(f"{where}.type.id: {tid!r} is not an HPO id (HP: and 7 digits)")
        excluded = feat.get("excluded", False)
        if not isinstance(excluded, bool):
            raise PhenopacketError(f"{where}.excluded: expected true or false, got {excluded!r}")
        tid = tid.strip()
        label = kind.get("label")
        if isinstance(label, str):
            case.labels[tid] = label
        (case.excluded if excluded else case.observed).append(tid)
        if not excluded and "onset" in feat:
            onsets.append(_age_of(_object(feat["onset"], f"{where}.onset"), f"{where}.onset"))
    subject = doc.get("subject")
    if subject is not None:
        subject = _object(subject, f"{source}: subject")
        sex = subject.get("sex")
        if sex is not None and sex not in SEXES:
            raise PhenopacketError(f"{source}: subject.sex: {sex!r} is not one of {', '.join(SEXES)}")
        case.sex = sex
        last = subject.get("timeAtLastEncounter")
        if last is not None:
            element = _object(last, f"{source}: subject.timeAtLastEncounter")
            if "age" in element:
                case.age = _object(element["age"], f"{source}: subject.timeAtLastEncounter.age").get("iso8601duration")
                case.age_years = duration_years(case.age, f"{source}: subject.timeAtLastEncounter.age.iso8601duration")
    terms = [t for t, _ in onsets if t]
    ages = [a for _, a in onsets if a is not None]
    case.onset_age_years = min(ages) if ages else None
    case.onset = _earliest(terms)
    _dedupe(case)
    if not case.observed:
        raise PhenopacketError(f"{source}: phenotypicFeatures: no observed feature (all are excluded or none given)")
    return case


#: onset terms from earliest to latest, for choosing a case's earliest onset
_ONSET_ORDER = ("HP:0011460", "HP:0011461", "HP:0030674", "HP:0003577", "HP:0003623", "HP:0003593",
                "HP:0410280", "HP:0011463", "HP:0003621", "HP:0011462", "HP:0003581", "HP:0003596", "HP:0003584")


def _earliest(terms: list[str]) -> str | None:
    known = [t for t in terms if t in _ONSET_ORDER]
    return min(known, key=_ONSET_ORDER.index) if known else None


def _dedupe(case: Case) -> None:
    case.observed = list(dict.fromkeys(case.observed))
    case.excluded = [t for t in dict.fromkeys(case.excluded) if t not in case.observed]


def read_term_list(items: Any, source: str = "terms") -> Case:
    """A case from a plain list of HPO ids; an id written "-HP:…" or "!HP:…" is excluded."""
    if not isinstance(items, list) or not items:
        raise PhenopacketError(f"{source}: expected a non-empty list of HPO ids")
    case = Case(id=source, source=source)
    for i, item in enumerate(items):
        raw = item.strip() if isinstance(item, str) else item
        neg = isinstance(raw, str) and raw[:1] in "-!"
        tid = raw[1:].strip() if neg else raw
        if not isinstance(tid, str) or not _HP_ID.fullmatch(tid):
            raise PhenopacketError(f"{source}[{i}]: {item!r} is not an HPO id (HP: and 7 digits)")
        (case.excluded if neg else case.observed).append(tid)
    _dedupe(case)
    if not case.observed:
        raise PhenopacketError(f"{source}: no observed HPO id (all are excluded)")
    return case


def read_input(value: Any, source: str) -> Case:
    """A case from what a user sent: a phenopacket object, a list of HPO ids, or text
    (HPO ids only -> a list; anything else -> words, `Case.text`)."""
    if isinstance(value, dict):
        return read_phenopacket(value, source)
    if isinstance(value, list):
        return read_term_list(value, source)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise PhenopacketError(f"{source}: empty; give a phenopacket, HPO ids or a description in words")
        tokens = re.split(r"[\s,;]+", text)
        if all(_HP_ID.fullmatch(t.lstrip("-!")) for t in tokens if t):
            return read_term_list([t for t in tokens if t], source)
        return Case(id=source, text=text, source=source)
    raise PhenopacketError(f"{source}: expected a phenopacket object, a list of HPO ids or text")


def read_case_file(path: Path) -> Case:
    """A case from a file: .json (a phenopacket or a list of ids), anything else as text."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PhenopacketError(f"{path}: cannot read ({e.__class__.__name__}: {e})") from None
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(raw)
        except json.JSONDecodeError as e:
            raise PhenopacketError(f"{path}: not JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
        case = read_input(doc, str(path))
        if isinstance(doc, dict):
            case.id = str(doc.get("id") or path.stem)
        return case
    case = read_input(raw, str(path))
    case.id = path.stem
    return case
